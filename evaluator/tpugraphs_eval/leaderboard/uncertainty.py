"""How sure is a rank? A paired, stratified bootstrap over graphs, and the public→private shake-up.

Method: docs/leaderboard.md, "Uncertainty and shake-up"; the percentile interval: Efron & Tibshirani, *An
Introduction to the Bootstrap*, 1993, ch. 13. A submission's collection value in a resample is the mean over the
drawn graphs where its metric is defined (docs/metrics.md, collection value **Decision**); score intervals use
numpy's default (linear) percentiles, rank intervals ``inverted_cdf`` (the smallest rank reached in at least that
share of resamples), ranks computed in each resample as on the leaderboard.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import numpy as np

from ..scoring.bootstrap import resampled_means, resampled_overall_means
from ..scoring.metrics import UndefinedMetricError, kendall_tau_b

DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 0
LEVEL = 0.95
_TAILS = (100 * (1 - LEVEL) / 2, 100 * (1 + LEVEL) / 2)
CHUNK_VALUES = 1 << 20
"""Drawn values gathered at once (8 MB of float64): submissions are resampled in chunks of about this size."""


def resampled_overalls(per_graph: dict[str, np.ndarray], draws: dict[str, np.ndarray]) -> np.ndarray:
    """(S, B) overall of each of S submissions in every resample (NaN where every collection is undefined).

    Args:
        per_graph: collection → (S, G) primary metric per submission and graph of the leaderboard
            (NaN: undefined); every collection of ``draws`` is present.
        draws: collection → (B, G) drawn positions (:func:`tpugraphs_eval.scoring.bootstrap.draw_positions`).

    The resampled means are :mod:`..scoring.bootstrap`'s (the same as ``compare``'s); submissions are
    processed in chunks of about :data:`CHUNK_VALUES` drawn values, and row s is the same bytes whether it
    is resampled alone or with others.
    """
    n = next(iter(per_graph.values())).shape[0] if per_graph else 0
    if not draws:
        return np.full((n, 0), np.nan)
    resamples = next(iter(draws.values())).shape[0]
    total = np.empty((n, resamples))
    widest = max(positions.size for positions in draws.values())
    step = max(1, CHUNK_VALUES // max(1, widest))
    for start in range(0, n, step):
        rows = slice(start, start + step)
        total[rows] = resampled_overall_means(resampled_means(per_graph[name][rows], positions)
                                              for name, positions in draws.items())
    return total


def resampled_overall(per_graph: dict[str, np.ndarray], draws: dict[str, np.ndarray]) -> np.ndarray:
    """(B,) overall of one submission in every resample: :func:`resampled_overalls` of its ``per_graph``,
    collection → (G,) primary metric per graph of the leaderboard (NaN: undefined)."""
    return resampled_overalls({name: np.asarray(values)[None, :] for name, values in per_graph.items()}, draws)[0]


def best_of_teams(overalls: np.ndarray, owner: np.ndarray, n_teams: int) -> np.ndarray:
    """(T, B) best (``fmax``: NaN only when all are NaN) of the (S, B) resampled ``overalls`` of each team's
    submissions (``owner``: (S,) int team of each row, in 0..T-1); a team owning none gets NaN."""
    out = np.full((n_teams, overalls.shape[1]), np.nan)
    if owner.size and overalls.shape[0]:
        np.fmax.at(out, owner, overalls)
    return out


def ranks_per_resample(scores: np.ndarray) -> np.ndarray:
    """(T, B) scores → (T, B) competition ranks within each resample (1 = best; equal scores share; NaN last).

    Rank = 1 + the number of teams with a strictly higher score in that resample, for all resamples at
    once: a stable sort of each column, the rank of each sorted position carried down runs of equal values.
    """
    teams = scores.shape[0]
    safe = np.where(np.isnan(scores), -np.inf, scores)
    order = np.argsort(-safe, axis=0, kind="stable")
    ordered = np.take_along_axis(safe, order, axis=0)
    position = np.arange(1, teams + 1, dtype=np.int64)[:, None]
    starts = np.ones(scores.shape, dtype=bool)
    starts[1:] = ordered[1:] != ordered[:-1]
    ranked = np.maximum.accumulate(np.where(starts, position, 0), axis=0)
    ranks = np.empty(scores.shape, dtype=np.int64)
    np.put_along_axis(ranks, order, ranked, axis=0)
    return ranks


@dataclass
class Uncertainty:
    """Per team (in the order given): the score's and the rank's 95% intervals and the tie with the leader."""

    low: list[float | None]
    high: list[float | None]
    rank_low: list[int]
    rank_high: list[int]
    tied_with_leader: list[bool]


def _finite(value: float) -> float | None:
    return round(float(value), 6) if np.isfinite(value) else None


def uncertainty(scores: np.ndarray, ranks: list[int]) -> Uncertainty:
    """Intervals from (T, B) resampled team scores; ``ranks`` are the leaderboard's (the leader has rank 1, and
    every team sharing it is tied with the leader)."""
    safe = np.where(np.isnan(scores), -np.inf, scores)
    with np.errstate(invalid="ignore"):  # -inf (undefined) between the two nearest values: -inf or NaN, not shown
        low, high = np.percentile(safe, _TAILS, axis=1) if scores.size else (np.empty(0), np.empty(0))
    resampled = ranks_per_resample(scores)
    rank_low, rank_high = (np.percentile(resampled, _TAILS, axis=1, method="inverted_cdf").astype(np.int64)
                           if scores.size else (np.empty(0, np.int64), np.empty(0, np.int64)))
    leader = ranks.index(1) if 1 in ranks else None
    if leader is None or not scores.size:
        tied = [False] * len(ranks)
    else:
        with np.errstate(invalid="ignore"):  # both -inf: no difference; +inf beside a finite value: +inf or NaN
            difference = safe[leader][None, :] - safe
            difference = np.where(np.isnan(difference), 0.0, difference)
            lo, hi = np.percentile(difference, _TAILS, axis=1)
        tied = [bool(rank == 1 or lo[t] <= 0.0 <= hi[t]) for t, rank in enumerate(ranks)]
    return Uncertainty([_finite(v) for v in low], [_finite(v) for v in high],
                       [int(r) for r in rank_low], [int(r) for r in rank_high], tied)


def shakeup(teams: list[str], public_ranks: list[int], private_ranks: list[int], largest: int = 5) -> dict:
    """Kendall's tau-b between the public and private ranks of the teams ranked on both, and the largest moves.

    Returns:
        ``{n_teams, kendall_tau (None below 2 teams or when undefined), largest_moves: [{team, public_rank,
        private_rank, move}]}``, ``move = public_rank - private_rank`` (positive: up on the private
        leaderboard); the ``largest`` moves by absolute size, then by private rank.
    """
    tau = None
    with contextlib.suppress(UndefinedMetricError):
        if len(teams) >= 2:
            tau = kendall_tau_b(np.asarray(public_ranks, dtype=np.float64), np.asarray(private_ranks, dtype=np.float64))
    moves = [{"team": t, "public_rank": p, "private_rank": q, "move": p - q}
             for t, p, q in zip(teams, public_ranks, private_ranks, strict=True)]
    moves = [m for m in sorted(moves, key=lambda m: (-abs(m["move"]), m["private_rank"], m["team"])) if m["move"]]
    return {"n_teams": len(teams), "kendall_tau": tau, "largest_moves": moves[:largest]}
