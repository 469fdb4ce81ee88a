"""Plain reference versions of the leaderboard's standings and bootstrap: what the tests and the bench compare with.

These are the straightforward forms the leaderboard code had before it was made linear in the number of
submissions: every team scans all submissions (O(teams x submissions)), ranks are found by scanning back
over equal scores, and the bootstrap loops over submissions, resamples and teams in Python. Same rules
(docs/leaderboard.md), same draws; the optimised code must give the same standings and the same bytes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tpugraphs_eval.leaderboard.codes import note
from tpugraphs_eval.leaderboard.standings import MAX_FINAL, TeamStanding, board_score, time_key

TAILS = (2.5, 97.5)


def _best(indices, records, board):
    best = None
    for i in indices:
        score = board_score(records[i], board)
        if score is not None and (best is None or score > board_score(records[best], board)):
            best = i
    return best


def _finals(team, valid, entries, records):
    notes = []
    for i in [i for i, e in enumerate(entries) if e.team == team]:
        if entries[i].selected and i not in valid:
            notes.append(note("SELECTED_INVALID", f"{entries[i].id} is selected but was not scored; it does not "
                                                  "count"))
    selected = [i for i in valid if entries[i].selected]
    if len(selected) > MAX_FINAL:
        kept = selected[-MAX_FINAL:]
        notes.append(note("TOO_MANY_SELECTED", f"{team} selected {len(selected)} valid submissions; the "
                                               f"{MAX_FINAL} most recent count: "
                                               + ", ".join(entries[i].file for i in kept)))
        return kept, notes
    if selected:
        return selected, notes
    ranked = sorted(valid, key=lambda i: -(board_score(records[i], "public") or float("-inf")))
    return sorted(ranked[:MAX_FINAL], key=valid.index), notes


def standings(teams: list[str], entries: list, records: list[dict[str, Any]], board: str) -> list[TeamStanding]:
    """:func:`tpugraphs_eval.leaderboard.standings.standings`, each team scanning every submission."""
    out = []
    for team in teams:
        mine = sorted((i for i, e in enumerate(entries) if e.team == team), key=lambda i: time_key(entries[i]))
        valid = [i for i in mine if records[i].get("status") == "scored"]
        standing = TeamStanding(team, mine, valid)
        if not valid:
            why = "no submissions" if not mine else f"none of its {len(mine)} submissions is valid"
            standing.notes.append(note("NO_VALID_SUBMISSION", f"{team}: {why}"))
        elif board == "public":
            standing.finals = valid
        else:
            standing.finals, standing.notes = _finals(team, valid, entries, records)
        standing.chosen = _best(standing.finals, records, board)
        if standing.chosen is not None:
            standing.score = board_score(records[standing.chosen], board)
        elif valid:
            standing.notes.append(note("SCORE_UNDEFINED", f"{team}: no {board} score is defined"))
        out.append(standing)
    ranked = sorted((s for s in out if s.score is not None),
                    key=lambda s: (-s.score, time_key(entries[s.chosen]), s.team))
    scores = [s.score for s in ranked]
    for position, standing in enumerate(ranked):
        first = position
        while first > 0 and scores[first - 1] == standing.score:
            first -= 1
        standing.rank = first + 1
    return ranked + sorted((s for s in out if s.score is None), key=lambda s: s.team)


def resampled_overall(per_graph: dict[str, np.ndarray], draws: dict[str, np.ndarray]) -> np.ndarray:
    """(B,) overall of one submission per resample: one (B, G) gather per collection."""
    total = count = None
    for name, positions in draws.items():
        values = per_graph[name][positions]
        if np.isnan(per_graph[name]).any():
            defined = ~np.isnan(values)
            n = defined.sum(axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                mean = np.where(defined, values, 0.0).sum(axis=1) / n
        else:
            mean = values.mean(axis=1)
        ok = ~np.isnan(mean)
        total = np.where(ok, mean, 0.0) if total is None else total + np.where(ok, mean, 0.0)
        count = ok.astype(np.int64) if count is None else count + ok
    with np.errstate(invalid="ignore", divide="ignore"):
        return total / count


def team_samples(finals: list[list[dict[str, np.ndarray]]], draws: dict[str, np.ndarray], resamples: int) -> np.ndarray:
    """(T, B): per team, the fmax over its final submissions (each collection → (G,) values) of their overalls."""
    out = np.empty((len(finals), resamples))
    for t, mine in enumerate(finals):
        samples = [resampled_overall(per_graph, draws) for per_graph in mine]
        out[t] = np.fmax.reduce(samples) if samples else np.nan
    return out


def ranks_per_resample(scores: np.ndarray) -> np.ndarray:
    """(T, B) competition ranks, one resample at a time: T - (teams at or below) + 1."""
    teams, resamples = scores.shape
    safe = np.where(np.isnan(scores), -np.inf, scores)
    ranks = np.empty(scores.shape, dtype=np.int64)
    ordered = np.sort(safe, axis=0)
    for b in range(resamples):
        ranks[:, b] = teams - np.searchsorted(ordered[:, b], safe[:, b], side="right") + 1
    return ranks


def tied_with_leader(scores: np.ndarray, ranks: list[int]) -> list[bool]:
    """Per team: the 95% percentile interval of (leader - team) contains 0, one team at a time."""
    safe = np.where(np.isnan(scores), -np.inf, scores)
    leader = ranks.index(1) if 1 in ranks else None
    tied = []
    for t, rank in enumerate(ranks):
        if leader is None:
            tied.append(False)
            continue
        with np.errstate(invalid="ignore"):
            difference = safe[leader] - safe[t]
            difference = np.where(np.isnan(difference), 0.0, difference)
            lo, hi = np.percentile(difference, TAILS)
        tied.append(bool(rank == 1 or lo <= 0.0 <= hi))
    return tied
