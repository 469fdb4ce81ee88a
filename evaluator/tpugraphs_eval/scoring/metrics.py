"""The metric definitions, as pure functions on arrays (no I/O, no submission format).

Sources (SPEC §3):
- Kendall's tau-b: as ``scipy.stats.kendalltau`` computes it by default (Knight's O(n log n)
  algorithm; the official ``layout_evaluate.py`` calls scipy on model scores). The discordant pairs
  are counted by :mod:`kernels` (C: a Fenwick tree over dense runtime ranks; else numpy); the final
  formula is scipy's, term for term, so values agree with scipy to the last bit in practice (tests
  assert |diff| <= 1e-12).
- Tile score (Kaggle): ``2 - min(top-K runtimes) / min(all runtimes)``, K = 5.
- Top-K error (paper; official ``tpu_graphs/baselines/tiles/metrics.py``) and slowdown@k (official
  ``layout_evaluate.py``): ``min(first k runtimes of the ranking) / min(reference runtimes) - 1``.

Runtimes are in ns (tile: possibly divided by the normalizer); only their order and ratios matter.

Means (the one rule, for the evaluator and the kit): a mean of floats that is reported (collection
values, the overall, references, tile programs, the kit's random-baseline estimates) is
``math.fsum(values) / n``: the correctly rounded sum, so the same bits on every Python version (builtin
``sum`` of floats became compensated in 3.12, which changed last digits) and in any order. Only where a
mean is taken over thousands of rows at once (the leaderboard bootstrap, the kit's feature scaling) is
it numpy's ``sum``/``mean`` along an axis: numpy's pairwise summation, which the Python version does not
change either (tests/test_leaderboard_demo.py holds the demo leaderboard to the committed bytes on every
Python that CI finds).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .. import kernels


def tied_pairs(counts: np.ndarray) -> int:
    """Pairs with equal value, from the multiplicity of each distinct value."""
    counts = counts.astype(np.int64)
    return int((counts * (counts - 1) // 2).sum())


def _run_lengths(sorted_keys: list[np.ndarray]) -> np.ndarray:
    """Lengths of the runs of equal rows in columns that are sorted together (lexicographically)."""
    n = sorted_keys[0].size
    change = np.zeros(max(n - 1, 0), dtype=bool)
    for key in sorted_keys:
        change |= key[1:] != key[:-1]
    return np.diff(np.flatnonzero(np.concatenate(([True], change, [True]))))


class DenseRanks(NamedTuple):
    """Dense ranks of n values.

    Attributes:
        ranks: (n,) int32 in [0, m): 0 for the smallest value, equal values share a rank.
        n_distinct: m, the number of distinct values.
        tied_pairs: pairs of positions i < j with equal values.
    """

    ranks: np.ndarray
    n_distinct: int
    tied_pairs: int


def dense_ranks(values: np.ndarray) -> DenseRanks:
    """Dense ranks of ``values`` (any shape, flattened): see :class:`DenseRanks`."""
    distinct, ranks, counts = np.unique(np.asarray(values).reshape(-1), return_inverse=True, return_counts=True)
    return DenseRanks(ranks.astype(np.int32).reshape(-1), int(distinct.size), tied_pairs(counts))


def discordant_pairs(ranks: np.ndarray, lengths: np.ndarray, n_values: np.ndarray) -> np.ndarray:
    """Discordant pairs of several strict rankings at once (:mod:`kernels`: C with the GIL released, or numpy).

    Args:
        ranks: (sum(lengths),) int32, per ranking the dense rank of the runtime of the config ranked
            1st, 2nd, … (rankings stored back to back).
        lengths: (R,) length of each ranking.
        n_values: (R,) an upper bound (exclusive) of each ranking's ranks, e.g. its graph's distinct runtimes.

    Returns:
        (R,) int64: pairs i < j with ranks[i] > ranks[j] within each ranking.
    """
    counts = kernels.active().inversions(np.ascontiguousarray(ranks, dtype=np.int32),
                                         np.ascontiguousarray(lengths, dtype=np.int64),
                                         np.ascontiguousarray(n_values, dtype=np.int64))
    return np.frombuffer(counts, dtype=np.int64)


def tau_b_from_counts(n, x_tied, y_tied, xy_tied, discordant):
    """Kendall's tau-b from pair counts, in scipy's order of operations; NaN where undefined.

    Args (integers, or int64 arrays of one shape for many tau at once):
        n: number of observations.
        x_tied, y_tied: pairs tied in x, in y; xy_tied: pairs tied in both.
        discordant: pairs ordered oppositely by x and y.

    Returns:
        ``(C - D) / sqrt(n0 - n1) / sqrt(n0 - n2)`` clipped to [-1, 1] (``scipy.stats.kendalltau``'s
        expression), NaN where every pair is tied in x or in y (including n < 2): a float, or a
        float64 array.
    """
    n, x_tied, y_tied, xy_tied, discordant = (np.asarray(v, dtype=np.int64)
                                              for v in (n, x_tied, y_tied, xy_tied, discordant))
    total = n * (n - 1) // 2
    undefined = (x_tied == total) | (y_tied == total)
    concordant_minus_discordant = total - x_tied - y_tied + xy_tied - 2 * discordant
    with np.errstate(divide="ignore", invalid="ignore"):
        tau = concordant_minus_discordant / np.sqrt(total - x_tied) / np.sqrt(total - y_tied)
    tau = np.where(undefined, np.nan, np.minimum(1.0, np.maximum(-1.0, tau)))
    return float(tau) if tau.ndim == 0 else tau


def kendall_tau_b(x: np.ndarray, y: np.ndarray) -> float:
    """Kendall's tau-b between two 1-D arrays of equal length n (ties allowed in both).

    Equals ``scipy.stats.kendalltau(x, y).statistic`` (Knight's algorithm: sort by (x, y), then count
    the discordant pairs as inversions of y); NaN when undefined (n < 2, x or y constant). Used for the
    official 1000-config protocol, where duplicated sampled configs tie in both x and y.
    """
    x = np.asarray(x).reshape(-1)
    y = np.asarray(y).reshape(-1)
    if x.size != y.size:
        raise ValueError(f"x and y must have the same length, got {x.size} and {y.size}")
    n = x.size
    if n < 2:
        return math.nan
    order = np.lexsort((y, x))
    xs, ys = x[order], y[order]
    ranks, n_values, y_tied = dense_ranks(ys)
    runs_x, runs_xy = _run_lengths([xs]), _run_lengths([xs, ys])
    discordant = discordant_pairs(ranks, np.array([n]), np.array([n_values]))[0]
    return tau_b_from_counts(n, tied_pairs(runs_x), y_tied, tied_pairs(runs_xy), discordant)


def ranking_tau_b(runtimes_in_predicted_order: np.ndarray) -> float:
    """Kendall's tau-b between a strict ranking and runtimes.

    Args:
        runtimes_in_predicted_order: (n,) runtime of the config ranked 1st, 2nd, … (x = 0..n-1, no ties).

    Returns:
        tau-b, positive when faster configs are ranked first. Equals
        ``scipy.stats.kendalltau(np.arange(n), runtimes_in_predicted_order).statistic``; NaN if n < 2
        or all runtimes are equal.
    """
    y = np.asarray(runtimes_in_predicted_order).reshape(-1)
    if y.size < 2:
        return math.nan
    ranks, n_values, y_tied = dense_ranks(y)
    discordant = discordant_pairs(ranks, np.array([y.size]), np.array([n_values]))[0]
    return tau_b_from_counts(y.size, 0, y_tied, 0, discordant)


def best_of_top_k_ratio(runtimes_in_predicted_order: np.ndarray, best: float, k: int) -> float:
    """``min(runtimes_in_predicted_order[:k]) / best``: 1 when the fastest config is in the top k.

    ``best`` is the reference minimum (all configs of the graph, or the protocol's sampled configs);
    uses as many entries as exist when fewer than k are given.
    """
    return float(np.min(runtimes_in_predicted_order[:k]) / best)


def tile_score(ratio_top5: float | np.ndarray) -> float | np.ndarray:
    """Kaggle tile score from :func:`best_of_top_k_ratio` with k = 5: ``2 - ratio`` (1 is perfect, unbounded below)."""
    return 2.0 - ratio_top5


def top_k_error(ratio_top_k: float | np.ndarray) -> float | np.ndarray:
    """Paper top-K error / layout slowdown@k from :func:`best_of_top_k_ratio`: ``ratio - 1`` (0 is perfect)."""
    return ratio_top_k - 1.0


def first_k_minima(values: np.ndarray, lengths: np.ndarray, k: int) -> np.ndarray:
    """Row-wise ``min(row[:k])`` of ragged rows stored back to back.

    Args:
        values: (sum(lengths),) the rows concatenated.
        lengths: (R,) length of each row, every length >= 1.
        k: how many leading entries of each row count.

    Returns:
        (R,) minimum of the first min(k, length) entries of each row.
    """
    starts = np.cumsum(lengths) - lengths
    rank_in_row = np.arange(values.size) - np.repeat(starts, lengths)
    kept = values[rank_in_row < k]
    kept_lengths = np.minimum(lengths, k)
    return np.minimum.reduceat(kept, np.cumsum(kept_lengths) - kept_lengths)
