"""Records + standings + uncertainty → the leaderboard document, the one result every output is a view of.

The document (``leaderboard.json``, format :data:`LEADERBOARD_FORMAT`) is a plain dict; CSV, Markdown
and HTML are rendered from it (:mod:`render_text`, :mod:`render_html`). It holds no absolute path and
no build time, so the same inputs give the same bytes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._version import __version__
from ..dataset import COLLECTIONS
from ..options import Options
from ..truth.groundtruth import GroundTruth
from .folder import Folder
from .scorer import decode_array, listed_problems
from .standings import TeamStanding, standings, time_key
from .uncertainty import LEVEL, draw, resampled_overall, shakeup, uncertainty

LEADERBOARD_FORMAT = 1
VIEWS = ("organiser", "public")
"""``organiser``: ranked by the private leaderboard, with public ranks, shake-up and everything scored;
``public``: ranked by the public leaderboard, nothing private in it (what participants may see)."""


def board_graphs(truth: GroundTruth, board: str) -> dict[str, int]:
    """Collection → number of graphs on ``board`` (``public``/``private``), in catalog order."""
    return {name: int(t.public.sum() if board == "public" else (~t.public).sum()) for name, t in truth.collections.items()}


def _team_samples(rows: list[TeamStanding], records: list[dict[str, Any]], board: str,
                  draws: dict[str, np.ndarray], resamples: int) -> np.ndarray:
    """(T, B) resampled score of each ranked team: the best of its final submissions in each resample."""
    cache: dict[int, np.ndarray] = {}
    out = np.empty((len(rows), resamples))
    for t, row in enumerate(rows):
        samples = []
        for i in row.finals:
            if i not in cache:
                per_graph = {name: decode_array(text) for name, text in records[i]["per_graph"][board].items()}
                cache[i] = resampled_overall(per_graph, draws)
            samples.append(cache[i])
        out[t] = np.fmax.reduce(samples) if samples else np.nan
    return out


def _submission(entry, record: dict[str, Any], final: bool, view: str) -> dict[str, Any]:
    boards = ("public",) if view == "public" else ("public", "private", "all")
    scored = record.get("status") == "scored"
    out = {"id": entry.id, "team": entry.team, "file": entry.file, "submitted": entry.submitted,
           "description": entry.description, "selected": entry.selected, "final": final,
           "status": record["status"], "sha256": record.get("sha256"), "n_rows": record.get("n_rows"),
           "n_errors": record.get("n_errors", len(record.get("problems", []))),
           **{board: ({"overall": record["boards"][board]["overall"],
                       "collections": record["boards"][board]["collections"]} if scored else None)
              for board in boards},
           "problem_counts": record.get("problem_counts", {p["code"]: 1 for p in record.get("problems", [])}),
           "problems": listed_problems(record.get("problems", [])), "notes": entry.notes}
    return out


def assemble(name: str, folder: Folder, records: list[dict[str, Any]], truth: GroundTruth, manifest: dict[str, Any],
             options: Options, *, view: str = "organiser", resamples: int = 1000, seed: int = 0) -> dict[str, Any]:
    """The leaderboard document.

    Args:
        name: the leaderboard's title (shown, escaped, never used as a path).
        folder: teams, submissions and ignored entries (:func:`folder.read_folder`).
        records: one record per submission (:func:`scorer.score_entries`).
        truth: the loaded solution; ``manifest``: its manifest (:func:`solution.read_manifest`).
        options: the validation and scoring options used.
        view: ``organiser`` (private ranks, public ranks, shake-up) or ``public`` (public only).
        resamples, seed: the bootstrap's (:mod:`uncertainty`).
    """
    if view not in VIEWS:
        raise ValueError(f"view must be one of {VIEWS}")
    entries = folder.entries
    board = "private" if view == "organiser" else "public"
    rows = standings(folder.teams, entries, records, board)
    ranked = [r for r in rows if r.rank is not None]
    draws = draw(board_graphs(truth, board), resamples, seed)
    bounds = uncertainty(_team_samples(ranked, records, board, draws, resamples), [r.rank for r in ranked])
    public_rows = {r.team: r for r in standings(folder.teams, entries, records, "public")} if view == "organiser" else {}
    names = [c.name for c in COLLECTIONS]
    teams = []
    for t, row in enumerate(rows):
        mine = [entries[i] for i in row.submissions]
        times = [e for e in mine if e.submitted is not None]
        chosen = records[row.chosen]["boards"][board] if row.chosen is not None else None
        team = {"rank": row.rank, "team": row.team, "overall": row.score,
                "collections": {n: chosen["collections"].get(n) if chosen else None for n in names}}
        if row.rank is not None:
            team.update(interval=[bounds.low[t], bounds.high[t]], rank_interval=[bounds.rank_low[t], bounds.rank_high[t]],
                        tied_with_leader=bounds.tied_with_leader[t])
        else:
            team.update(interval=None, rank_interval=None, tied_with_leader=False)
        if view == "organiser":
            public = public_rows[row.team]
            team.update(public_rank=public.rank, public_overall=public.score)
        team.update(submissions=len(mine), valid_submissions=len(row.valid),
                    last_submission=max(times, key=time_key).submitted if times else None,
                    scored_by=entries[row.chosen].id if row.chosen is not None else None,
                    final_submissions=[entries[i].id for i in row.finals] if board == "private" else [],
                    notes=folder.team_notes.get(row.team, []) + row.notes)
        teams.append(team)
    finals = {i for r in rows for i in r.finals} if board == "private" else set()
    boards = ("public", "private") if view == "organiser" else ("public",)
    counts = {b: board_graphs(truth, b) for b in boards}
    order = sorted(range(len(entries)), key=lambda i: (folder.teams.index(entries[i].team), time_key(entries[i])))
    document: dict[str, Any] = {
        "leaderboard_format": LEADERBOARD_FORMAT, "name": name, "view": view, "ranked_by": board,
        "solution": {"split": manifest["split"], "synthetic": bool(manifest.get("synthetic")),
                     "ground_truth_sha256": truth.sha256,
                     "graphs": {n: {b: counts[b][n] for b in boards} for n in truth.collections}},
        "evaluator_version": __version__, "options": options.to_dict(),
        "bootstrap": {"resamples": resamples, "seed": seed, "level": LEVEL, "interval": "percentile",
                      "stratified_by": "collection", "paired": True, "leaderboard": board},
        "counts": {"teams": len(rows), "ranked_teams": len(ranked), "submissions": len(entries),
                   **{s: sum(r["status"] == s for r in records) for s in ("scored", "invalid", "error")},
                   "ignored_entries": len(folder.ignored)},
        "teams": teams,
    }
    if view == "organiser":
        both = [r for r in ranked if public_rows[r.team].rank is not None]
        document["shakeup"] = shakeup([r.team for r in both], [public_rows[r.team].rank for r in both],
                                      [r.rank for r in both])
    document["submissions"] = [_submission(entries[i], records[i], i in finals, view) for i in order]
    document["ignored"] = folder.ignored
    return document
