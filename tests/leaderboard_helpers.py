"""Shared by the leaderboard tests: submissions of graded quality and team folders built from them."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from pathlib import Path

import numpy as np

from tpugraphs_eval.truth.solution import load_solution

REPO = Path(__file__).resolve().parent.parent
OUTPUTS = ("leaderboard.csv", "leaderboard.md", "leaderboard.json", "leaderboard.html")


def store_sql(folder: Path, sql: str, params: tuple = ()) -> list[tuple]:
    """Run ``sql`` on the leaderboard store of the cache folder ``folder`` (e.g. OUT/.cache) and commit; its rows."""
    with contextlib.closing(sqlite3.connect(Path(folder) / "leaderboard.sqlite")) as db:
        rows = db.execute(sql, params).fetchall()
        db.commit()
        return rows



def rows_for(truth, sigma: float, seed: int, tile_k: int = 5) -> bytes:
    """A strict-valid submission ranking each graph by log runtime + sigma * noise (tile: its first ``tile_k``)."""
    rng = np.random.default_rng(seed)
    lines = ["ID,TopConfigs"]
    for t in truth.collections.values():
        for graph_id, y in zip(t.graphs.ids, t.runtimes):
            order = np.argsort(np.log(y) + sigma * rng.standard_normal(y.size), kind="stable")
            order = order[: min(tile_k, y.size)] if t.graphs.collection.kind == "tile" else order
            lines.append(f"{graph_id}," + ";".join(map(str, order.tolist())))
    return ("\n".join(lines) + "\n").encode()


def build_folder(root: Path, solution: Path, spec: dict[str, list[tuple]]) -> Path:
    """Team folders from ``{team: [(stem, sigma, selected[, day]), ...]}``; day d gives 2023-10-(d+1) 09:00 UTC."""
    truth = load_solution(solution)
    root.mkdir(parents=True, exist_ok=True)
    for t, (team, subs) in enumerate(spec.items()):
        (root / team).mkdir()
        for k, (stem, sigma, selected, *day) in enumerate(subs):
            (root / team / f"{stem}.csv").write_bytes(rows_for(truth, sigma, 1000 * t + k))
            meta = {"selected": selected, "submitted": f"2023-10-{(day[0] if day else k) + 1:02d}T09:00:00Z"}
            (root / team / f"{stem}.json").write_text(json.dumps(meta), encoding="utf-8")
    return root


def plain_submissions(entries, records) -> list[dict]:
    """The folder's submissions and their records as the plain dicts tests/naive_leaderboard.py takes."""
    return [{"id": e.id, "team": e.team, "file": e.file, "submitted": e.submitted, "modified": e.modified,
             "selected": e.selected, "status": r.status, "public": r.overall("public"),
             "private": r.overall("private")} for e, r in zip(entries, records)]


def plain_standings(rows, entries) -> list[dict]:
    """``standings.standings`` rows as the plain dicts tests/naive_leaderboard.py gives (IDs for indices, note
    codes for notes)."""
    def ids(indices):
        return [entries[i].id for i in indices]

    return [{"team": r.team, "rank": r.rank, "score": r.score,
             "scored_by": None if r.chosen is None else entries[r.chosen].id, "submissions": ids(r.submissions),
             "valid": ids(r.valid), "finals": ids(r.finals), "notes": [n["code"] for n in r.notes]} for r in rows]


def cold_files(subs: Path, solution: Path, out: Path) -> dict[str, str]:
    """The files of a build that reads and scores every file (no cache, 1 worker, 20 resamples), to compare a
    warm build's with."""
    from tpugraphs_eval.leaderboard import build_leaderboard

    return build_leaderboard(subs, solution, out, workers=1, resamples=20, cache_dir=None).files
