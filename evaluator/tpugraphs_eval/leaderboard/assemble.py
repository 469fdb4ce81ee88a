"""Records + standings + uncertainty → the leaderboard document, the one result every output is a view of.

The document (``leaderboard.json``, format :data:`LEADERBOARD_FORMAT`) is a plain dict; CSV, Markdown and HTML are
rendered from it (:mod:`render_text`, :mod:`render_html`). It holds no absolute path and no build time, so the same
inputs give the same bytes. The ``public`` view (:func:`public_document`) holds only what Kaggle's public leaderboard
shows (:data:`PUBLIC_TEAM_FIELDS`; docs/leaderboard.md, "The public leaderboard"; why: docs/public-view.md).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._version import __version__
from ..dataset import COLLECTIONS
from ..errors import DataError
from ..options import Options
from ..rules.metric_table import beside_primary
from ..rules.public_rule import MIN_PUBLIC_GRAPHS, overall_shown, shown_collections
from ..scoring.bootstrap import draw_positions
from ..truth.groundtruth import GroundTruth
from .folder import Folder
from .public_team import PublicTeam
from .record import BOARDS, SCORE_BOARDS, STATUSES, Record
from .scorer import listed_problems
from .standings import DEFAULT_MAX_DAILY, TeamStanding, over_daily_limit, standings, time_key
from .store import Store, row_key
from .uncertainty import LEVEL, best_of_teams, resampled_overalls, shakeup, uncertainty

LEADERBOARD_FORMAT = 1
VIEWS = ("organiser", "public")
"""``organiser``: ranked by the private leaderboard, with public ranks, shake-up and everything scored;
``public``: ranked by the public leaderboard, only what Kaggle's public board shows (what participants may see)."""
PUBLIC_FIELDS = ("leaderboard_format", "name", "view", "ranked_by", "solution", "evaluator_version", "options",
                 "collections", "teams")
"""The keys of a public document; its ``solution`` holds only ``split`` and ``synthetic``, its ``collections``
the collections shown (catalog order)."""
PUBLIC_TEAM_FIELDS = ("rank", "team", "overall", "collections", "entries", "last_submission")
"""The keys of a team in a public document (:class:`.public_team.PublicTeam`)."""


def secondary_columns() -> dict[str, tuple[str, ...]]:
    """Collection → the metrics shown beside its value in the organiser view, in catalog order (as
    :func:`scorer.secondary_means`); never used for ranking, never in the public view (docs/public-view.md)."""
    return {c.name: (metric.name,) for c in COLLECTIONS if (metric := beside_primary(c.kind)) is not None}


def board_graphs(truth: GroundTruth, board: str) -> dict[str, int]:
    """Collection → number of graphs on ``board`` (``public``/``private``), in catalog order: the length of a record's
    per-graph arrays."""
    return {name: int(t.public.sum() if board == "public" else (~t.public).sum()) for name, t in truth.collections.items()}


def defined_public_graphs(truth: GroundTruth) -> dict[str, int]:
    """Collection → its public graphs whose metric is defined for every submission, in catalog order: every tile
    graph, and each layout graph with at least two distinct runtimes (docs/metrics.md, layout). A property of the
    solution, so one set of columns holds for every team (:func:`public_document`)."""
    return {name: int(t.public.sum() if t.n_distinct is None else (t.public & (t.n_distinct >= 2)).sum())
            for name, t in truth.collections.items()}


def last_submission(entries: list) -> str | None:
    """The latest known ``submitted`` time of ``entries`` (None when none is known)."""
    times = [e for e in entries if e.submitted is not None]
    return max(times, key=time_key).submitted if times else None


def public_document(name: str, folder: Folder, records: list[Record], truth: GroundTruth,
                    manifest: dict[str, Any], options: Options, max_daily: int = DEFAULT_MAX_DAILY) -> dict[str, Any]:
    """The ``public`` view: ranked teams only, in public-leaderboard order (:func:`standings.standings`), each a
    :class:`.public_team.PublicTeam`; a team without a public score is not listed (Kaggle lists teams by score). The
    collections shown: :func:`..rules.public_rule.shown_collections` of :func:`defined_public_graphs`; a team's value
    in one is null when its submission's is a mean over fewer than ``MIN_PUBLIC_GRAPHS`` graphs.

    Raises:
        DataError: ``PUBLIC_BOARD_TOO_SMALL``: the public leaderboard holds fewer than ``MIN_PUBLIC_GRAPHS``
            graphs with a defined metric in all, so every overall ranked on it would be one graph's value.
    """
    entries = folder.entries
    counts = {c.name: 0 for c in COLLECTIONS} | defined_public_graphs(truth)
    if not overall_shown(counts):
        raise DataError(f"the public leaderboard of this solution holds {sum(counts.values())} graph(s) with a "
                        f"defined metric, fewer than {MIN_PUBLIC_GRAPHS}: a public leaderboard ranked on it would "
                        "publish one graph's value (build the solution with more public graphs, or build the "
                        "organiser view without --public-only)", code="PUBLIC_BOARD_TOO_SMALL")
    names = shown_collections(counts)
    teams = []
    for row in standings(folder.teams, entries, records, "public", max_daily):
        if row.rank is None:
            continue
        record = records[row.chosen]
        kept = {n: record.boards["public"].collections.get(n) if np.isfinite(record.per_graph_values("public", n)).sum()
                >= MIN_PUBLIC_GRAPHS else None for n in names}
        teams.append(PublicTeam(row.rank, row.team, row.score, kept, len(row.submissions),
                                last_submission([entries[i] for i in row.submissions])).to_dict())
    return {"leaderboard_format": LEADERBOARD_FORMAT, "name": name, "view": "public", "ranked_by": "public",
            "solution": {"split": manifest["split"], "synthetic": bool(manifest.get("synthetic"))},
            "evaluator_version": __version__, "options": options.to_dict(), "collections": names, "teams": teams}


def ranked_team_samples(rows: list[TeamStanding], records: list[Record], board: str,
                        draws: dict[str, np.ndarray], known: Store | None = None,
                        seed: int | None = None) -> np.ndarray:
    """(T, B) resampled score of each of the T teams of ``rows``: the best of its ``finals`` in each of the B
    resamples of ``draws`` (:func:`scoring.bootstrap.draw_positions`), from the records' per-graph values on ``board``.
    With ``known`` (and the ``seed`` of ``draws``), a final's resampled overalls kept there (:func:`store.row_key`) are
    used, its per-graph values not read; the others are computed (the same bytes either way:
    :func:`uncertainty.resampled_overalls`) and kept there."""
    counted = [(t, i) for t, row in enumerate(rows) for i in row.finals]
    owner = np.array([t for t, _ in counted], dtype=np.intp)
    resamples = next(iter(draws.values())).shape[0] if draws else 0
    if not draws or not counted:
        return np.full((len(rows), resamples), np.nan)
    keyed = known is not None and seed is not None
    keys = [row_key(records[i].key, board, resamples, seed) if keyed and records[i].key is not None else None
            for _, i in counted]
    found = [None if k is None else known.row(k, resamples) for k in keys]
    missing = [s for s, row in enumerate(found) if row is None]
    if missing:
        per_graph = {name: np.array([records[counted[s][1]].per_graph_values(board, name) for s in missing])
                     for name in draws}
        for s, row in zip(missing, resampled_overalls(per_graph, draws), strict=True):
            found[s] = row
            if keys[s] is not None:
                known.keep_row(keys[s], row)
    return best_of_teams(np.array(found, dtype=np.float64).reshape(len(counted), resamples), owner, len(rows))


def _submission(entry, record: Record, final: bool, over: dict[str, Any] | None) -> dict[str, Any]:
    return {"id": entry.id, "team": entry.team, "file": entry.file, "submitted": entry.submitted,
            "description": entry.description, "selected": entry.selected, "final": final,
            "status": record.status, "sha256": record.sha256, "n_rows": record.n_rows, "n_errors": record.n_errors,
            **{board: record.boards[board].to_json() if record.scored else None  # read only: shared
               for board in SCORE_BOARDS},
            "problem_counts": record.problem_counts, "problems": listed_problems(record.problems),
            "notes": entry.notes + ([over] if over else [])}


def tally(folder: Folder, records: list[Record], ranked_teams: int) -> dict[str, int]:
    """What a build found: teams, ranked teams, submissions by status (``scored``, ``invalid``, ``error``:
    unread), ignored entries."""
    return {"teams": len(folder.teams), "ranked_teams": ranked_teams, "submissions": len(folder.entries),
            **{s: sum(r.status == s for r in records) for s in STATUSES},
            "ignored_entries": len(folder.ignored)}


def _team(row: TeamStanding, t: int, bounds, public: TeamStanding, folder: Folder, records: list[Record],
          board: str) -> dict[str, Any]:
    """The organiser document's entry of the team of ``row`` (its ``t``-th row), ``public`` its public standing."""
    entries = folder.entries
    mine = [entries[i] for i in row.submissions]
    chosen = records[row.chosen].boards[board] if row.chosen is not None else None
    team = {"rank": row.rank, "team": row.team, "overall": row.score,
            "collections": {c.name: chosen.collections.get(c.name) if chosen else None for c in COLLECTIONS},
            "secondary": {n: {m: chosen.secondary.get(n, {}).get(m) if chosen else None for m in metrics}
                          for n, metrics in secondary_columns().items()}}
    if row.rank is not None:
        team.update(interval=[bounds.low[t], bounds.high[t]], rank_interval=[bounds.rank_low[t], bounds.rank_high[t]],
                    tied_with_leader=bounds.tied_with_leader[t])
    else:
        team.update(interval=None, rank_interval=None, tied_with_leader=False)
    team.update(public_rank=public.rank, public_overall=public.score, submissions=len(mine),
                valid_submissions=len(row.valid), last_submission=last_submission(mine),
                scored_by=entries[row.chosen].id if row.chosen is not None else None,
                final_submissions=[entries[i].id for i in row.finals],
                notes=folder.team_notes.get(row.team, []) + row.notes)
    return team


def assemble(name: str, folder: Folder, records: list[Record], truth: GroundTruth, manifest: dict[str, Any],
             options: Options, *, view: str = "organiser", resamples: int = 1000, seed: int = 0,
             max_daily: int = DEFAULT_MAX_DAILY, bootstrap: Store | None = None) -> dict[str, Any]:
    """The leaderboard document.

    Args:
        name: the leaderboard's title (shown, escaped, never used as a path).
        folder: teams, submissions and ignored entries (:func:`folder.read_folder`); records: one per submission
            (:func:`scorer.score_entries`); truth, manifest: the loaded solution and its manifest; options: those used.
        view: one of :data:`VIEWS` (``public``: :func:`public_document`).
        resamples, seed: the bootstrap's (:mod:`uncertainty`; organiser view).
        max_daily: valid submissions of a team per UTC day scored on the public leaderboard
            (:func:`standings.over_daily_limit`; 0: no limit); the others get an ``OVER_DAILY_LIMIT`` note.
        bootstrap: the store where the final submissions' resampled overalls are kept between builds
            (:func:`ranked_team_samples`; the same document with or without it).
    """
    if view == "public":
        return public_document(name, folder, records, truth, manifest, options, max_daily)
    entries = folder.entries
    board = "private"
    rows = standings(folder.teams, entries, records, board, max_daily)
    ranked = [r for r in rows if r.rank is not None]
    draws = draw_positions(board_graphs(truth, board), resamples, seed)
    bounds = uncertainty(ranked_team_samples(ranked, records, board, draws, bootstrap, seed), [r.rank for r in ranked])
    public_rows = {r.team: r for r in standings(folder.teams, entries, records, "public", max_daily)}
    teams = [_team(row, t, bounds, public_rows[row.team], folder, records, board) for t, row in enumerate(rows)]
    finals = {i for r in rows for i in r.finals}
    counts = {b: board_graphs(truth, b) for b in BOARDS}
    team_order = {team: k for k, team in reversed(list(enumerate(folder.teams)))}  # the first, as list.index
    order = sorted(range(len(entries)), key=lambda i: (team_order[entries[i].team], time_key(entries[i])))
    both = [r for r in ranked if public_rows[r.team].rank is not None]
    over = over_daily_limit(entries, records, max_daily)
    return {
        "leaderboard_format": LEADERBOARD_FORMAT, "name": name, "view": view, "ranked_by": board,
        "solution": {"split": manifest["split"], "synthetic": bool(manifest.get("synthetic")),
                     "ground_truth_sha256": truth.sha256,
                     "graphs": {n: {b: counts[b][n] for b in BOARDS} for n in truth.collections}},
        "evaluator_version": __version__, "options": options.to_dict(), "max_daily": max_daily,
        "bootstrap": {"resamples": resamples, "seed": seed, "level": LEVEL, "interval": "percentile",
                      "stratified_by": "collection", "paired": True, "leaderboard": board},
        "counts": tally(folder, records, len(ranked)),
        "teams": teams,
        "shakeup": shakeup([r.team for r in both], [public_rows[r.team].rank for r in both], [r.rank for r in both]),
        "submissions": [_submission(entries[i], records[i], i in finals, over.get(i)) for i in order],
        "ignored": folder.ignored,
    }
