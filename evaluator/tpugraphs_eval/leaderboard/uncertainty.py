"""How sure is a rank? A paired, stratified bootstrap over graphs, and the public→private shake-up.

Method (docs/leaderboard.md; Efron & Tibshirani, *An Introduction to the Bootstrap*, 1993, ch. 13
for the percentile interval):

- A resample draws, for each collection separately (stratified), as many of the leaderboard's graphs
  as it has, with replacement, from a seeded :func:`numpy.random.default_rng`. The same draws serve
  every team (paired), so differences between teams are not blurred by different draws.
- In each resample a submission's collection value is the mean of its per-graph primary metric (tile
  ``score``, layout ``kendall_tau``) over the drawn graphs where it is defined (SPEC §3.2 Decision),
  and its overall the mean of the defined collection values (SPEC §3.3); a team's score is the best
  overall of its final submissions in that resample.
- 95% interval of a team's score: the 2.5th and 97.5th percentiles of its resampled scores (linear
  interpolation, numpy's default). Rank interval: the 2.5% and 97.5% quantiles of its resampled ranks
  (``inverted_cdf``: the smallest rank reached in at least that share of resamples), ranks computed in
  each resample as on the leaderboard (equal scores share the better rank).
- Tied with the leader: the 95% percentile interval of the paired difference (leader's score − the
  team's score) contains 0. The leader (and any team sharing rank 1) is marked too.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..scoring.compare import draw_positions as draw
from ..scoring.compare import resampled_means
from ..scoring.metrics import UndefinedMetricError, kendall_tau_b

DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 0
LEVEL = 0.95
_TAILS = (100 * (1 - LEVEL) / 2, 100 * (1 + LEVEL) / 2)


def resampled_overall(per_graph: dict[str, np.ndarray], draws: dict[str, np.ndarray]) -> np.ndarray:
    """(B,) overall of one submission in every resample (NaN where every collection is undefined).

    Args:
        per_graph: collection → (G,) primary metric per graph of the leaderboard (NaN: undefined).
        draws: collection → (B, G) drawn positions (:func:`draw`, i.e. :func:`..scoring.compare.draw_positions`).
    """
    total = count = None  # numpy's pairwise sums along the resamples' axis: see metrics, "Means"
    for name, positions in draws.items():
        mean = resampled_means(per_graph[name], positions)
        ok = ~np.isnan(mean)
        total = np.where(ok, mean, 0.0) if total is None else total + np.where(ok, mean, 0.0)
        count = ok.astype(np.int64) if count is None else count + ok
    with np.errstate(invalid="ignore", divide="ignore"):
        return total / count


def ranks_per_resample(scores: np.ndarray) -> np.ndarray:
    """(T, B) scores → (T, B) competition ranks within each resample (1 = best; equal scores share)."""
    teams, resamples = scores.shape
    safe = np.where(np.isnan(scores), -np.inf, scores)
    ranks = np.empty(scores.shape, dtype=np.int64)
    ordered = np.sort(safe, axis=0)
    for b in range(resamples):
        ranks[:, b] = teams - np.searchsorted(ordered[:, b], safe[:, b], side="right") + 1
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
    """Intervals from (T, B) resampled team scores; ``ranks`` are the leaderboard's (the leader has rank 1)."""
    safe = np.where(np.isnan(scores), -np.inf, scores)
    low, high = np.percentile(safe, _TAILS, axis=1) if scores.size else (np.empty(0), np.empty(0))
    resampled = ranks_per_resample(scores)
    rank_low, rank_high = (np.percentile(resampled, _TAILS, axis=1, method="inverted_cdf").astype(np.int64)
                           if scores.size else (np.empty(0, np.int64), np.empty(0, np.int64)))
    leader = ranks.index(1) if 1 in ranks else None
    tied = []
    for t, rank in enumerate(ranks):
        if leader is None:
            tied.append(False)
            continue
        with np.errstate(invalid="ignore"):
            difference = safe[leader] - safe[t]
        difference = np.where(np.isnan(difference), 0.0, difference)  # both -inf: no difference
        lo, hi = np.percentile(difference, _TAILS)
        tied.append(bool(rank == 1 or lo <= 0.0 <= hi))
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
    if len(teams) >= 2:
        try:
            tau = kendall_tau_b(np.asarray(public_ranks, dtype=np.float64), np.asarray(private_ranks, dtype=np.float64))
        except UndefinedMetricError:
            tau = None
    moves = [{"team": t, "public_rank": p, "private_rank": q, "move": p - q}
             for t, p, q in zip(teams, public_ranks, private_ranks)]
    moves = [m for m in sorted(moves, key=lambda m: (-abs(m["move"]), m["private_rank"], m["team"])) if m["move"]]
    return {"n_teams": len(teams), "kendall_tau": tau, "largest_moves": moves[:largest]}
