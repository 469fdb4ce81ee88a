"""The organiser's leaderboard note on measurement noise (docs/leaderboard.md, "Measurement noise"): per collection,
which adjacent top ranks differ by less than noise alone makes two values differ (:mod:`..scoring.ceilings`)."""

from __future__ import annotations

from typing import Any

from ..scoring.ceilings import collection_noise
from ..truth.groundtruth import GroundTruth

TOP = 10
"""How many top ranks the note looks at."""


def noise_note(document: dict[str, Any], truth: GroundTruth) -> dict[str, Any]:
    """``{noise_file, top, collections: {name: {noise_spread, pairs_within_noise: [[rank, rank + 1], ...]}}}`` over the
    private leaderboard's graphs (the document's ranking), from ``truth.noise`` (a noise file of the solution)."""
    noise = collection_noise(truth, truth.noise, None, {n: ~t.public for n, t in truth.collections.items()})
    ranked = [t for t in document["teams"] if t["rank"] is not None][:TOP]
    out = {}
    for name, spread in noise.items():
        values = [t["collections"][name] for t in ranked]
        out[name] = {"noise_spread": spread.spread,
                     "pairs_within_noise": [[a["rank"], b["rank"]] for a, b, x, y in zip(ranked, ranked[1:], values, values[1:])
                                            if x is not None and y is not None and spread.within_noise(y - x)]}
    return {"noise_file": truth.noise["path"], "top": TOP, "collections": out}


def noise_markdown(note: dict[str, Any]) -> list[str]:
    """The note's lines in ``leaderboard.md``."""
    pairs = {n: ", ".join(f"{a}-{b}" for a, b in c["pairs_within_noise"]) for n, c in note["collections"].items()}
    return ["", f"Measurement noise (top {note['top']} ranks; noise file): adjacent ranks whose collection values "
                "differ by less than noise alone makes two values differ:", ""] + [
        f"- {name}: {text or 'none'}" for name, text in pairs.items()]
