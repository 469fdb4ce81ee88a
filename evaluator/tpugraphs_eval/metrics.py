"""The metric definitions, as pure functions on arrays (no I/O, no submission format).

Sources (SPEC §3):
- Kendall's tau-b: as ``scipy.stats.kendalltau`` computes it by default (Knight's O(n log n)
  algorithm; the official ``layout_evaluate.py`` calls scipy on model scores). The discordant-pair
  and tie counts come from :mod:`tpugraphs_eval._native`; the final formula is scipy's, term for term,
  so values agree with scipy to the last bit in practice (tests assert |diff| <= 1e-12).
- Tile score (Kaggle): ``2 - min(top-K runtimes) / min(all runtimes)``, K = 5.
- Top-K error (paper; official ``tpu_graphs/baselines/tiles/metrics.py``) and slowdown@k (official
  ``layout_evaluate.py``): ``min(first k runtimes of the ranking) / min(reference runtimes) - 1``.

Runtimes are in ns (tile: possibly divided by the normalizer); only their order and ratios matter.
"""

from __future__ import annotations

import math

import numpy as np

from . import _native


def _tied_pairs_sorted(sorted_values: np.ndarray) -> int:
    """Number of pairs with equal value in an already sorted 1-D array."""
    n = sorted_values.size
    if n < 2:
        return 0
    starts = np.flatnonzero(np.concatenate(([True], sorted_values[1:] != sorted_values[:-1], [True])))
    runs = np.diff(starts)
    return int((runs * (runs - 1) // 2).sum())


def _as_int64_order(values: np.ndarray) -> np.ndarray:
    """``values`` as int64 with the same order and ties (dense ranks for floats)."""
    if values.dtype.kind in "iu" and values.dtype.itemsize <= 8 and values.dtype != np.uint64:
        return np.ascontiguousarray(values, dtype=np.int64)
    return np.unique(values, return_inverse=True)[1].astype(np.int64).reshape(-1)


def tau_b_from_counts(n: int, x_tied: int, y_tied: int, xy_tied: int, discordant: int) -> float:
    """Kendall's tau-b from pair counts, in scipy's order of operations; NaN when undefined.

    Args:
        n: number of observations.
        x_tied, y_tied: pairs tied in x, in y; xy_tied: pairs tied in both.
        discordant: pairs ordered oppositely by x and y.

    Returns:
        ``(C - D) / sqrt((n0 - n1)(n0 - n2))`` clipped to [-1, 1], or NaN when every pair is tied in
        x or in y (including n < 2).
    """
    total = n * (n - 1) // 2
    if x_tied == total or y_tied == total:
        return math.nan
    concordant_minus_discordant = total - x_tied - y_tied + xy_tied - 2 * discordant
    tau = concordant_minus_discordant / np.sqrt(total - x_tied) / np.sqrt(total - y_tied)
    return float(min(1.0, max(-1.0, tau)))


def kendall_tau_b(x: np.ndarray, y: np.ndarray) -> float:
    """Kendall's tau-b between two 1-D arrays of equal length n (ties allowed in both).

    Equals ``scipy.stats.kendalltau(x, y).statistic``; NaN when undefined (n < 2, x or y constant).
    Used for the official 1000-config protocol, where duplicated sampled configs tie in both x and y.
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
    x_tied = _tied_pairs_sorted(xs)
    joint = np.flatnonzero(np.concatenate(([True], (xs[1:] != xs[:-1]) | (ys[1:] != ys[:-1]), [True])))
    runs = np.diff(joint)
    xy_tied = int((runs * (runs - 1) // 2).sum())
    discordant, y_tied = _native.inversions_and_ties(_as_int64_order(ys))
    return tau_b_from_counts(n, x_tied, y_tied, xy_tied, discordant)


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
    n = y.size
    if n < 2:
        return math.nan
    discordant, y_tied = _native.inversions_and_ties(_as_int64_order(y))
    return tau_b_from_counts(n, 0, y_tied, 0, discordant)


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
