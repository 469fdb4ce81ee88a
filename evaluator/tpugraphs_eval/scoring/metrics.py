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

No public function here returns NaN: where a metric is undefined (tau-b of fewer than 2 configs or of
constant runtimes, a ratio to a best runtime that is not finite and positive, NaN in the input) it raises
:class:`UndefinedMetricError`. The vectorised :func:`tau_b_from_counts` returns a ``defined`` mask beside its
values instead; scoring marks those graphs undefined and leaves them out of the means (SPEC §3.2 Decision).

Means (the one rule, for the evaluator and the kit): a mean of floats that is reported (collection
values, the overall, references, tile programs, the kit's random-baseline estimates) is
``math.fsum(values) / n``: the correctly rounded sum, so the same bits on every Python version (builtin
``sum`` of floats became compensated in 3.12, which changed last digits) and in any order. Only where a
mean is taken over thousands of rows at once (the leaderboard bootstrap, the kit's feature scaling) is
it numpy's ``sum``/``mean`` along an axis: numpy's pairwise summation, which the Python version does not
change either (tests/leaderboard/test_leaderboard_demo.py holds the demo leaderboard to the committed bytes on every
Python that CI finds).
"""

from __future__ import annotations

import math

import numpy as np

from .. import kernels
from ..truth.ranks import dense_ranks, tied_pairs


class UndefinedMetricError(ValueError):
    """A metric is undefined on its inputs (e.g. Kendall's tau-b when every pair is tied): raised instead of
    returning NaN."""


def _check_no_nan(name: str, *arrays) -> None:
    for array in arrays:
        array = np.asarray(array)
        if array.dtype.kind in "fc" and np.isnan(array).any():
            raise UndefinedMetricError(f"{name}: the input holds NaN")


def defined_mean(values: np.ndarray) -> float | None:
    """The mean of the defined (non-NaN) entries of a (G,) float64 array, ``math.fsum`` / n (Means, above);
    None when none is defined (an undefined collection value or metric mean)."""
    defined = values[~np.isnan(values)]
    return math.fsum(defined.tolist()) / defined.size if defined.size else None


def _run_lengths(sorted_keys: list[np.ndarray]) -> np.ndarray:
    """Lengths of the runs of equal rows in columns that are sorted together (lexicographically)."""
    n = sorted_keys[0].size
    change = np.zeros(max(n - 1, 0), dtype=bool)
    for key in sorted_keys:
        change |= key[1:] != key[:-1]
    return np.diff(np.flatnonzero(np.concatenate(([True], change, [True]))))


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


def tau_b_from_counts(n, x_tied, y_tied, xy_tied, discordant) -> tuple[np.ndarray, np.ndarray]:
    """Kendall's tau-b from pair counts, in scipy's order of operations, for many tau at once.

    Args (integers, or int64 arrays of one shape):
        n: number of observations.
        x_tied, y_tied: pairs tied in x, in y; xy_tied: pairs tied in both.
        discordant: pairs ordered oppositely by x and y.

    Returns:
        ``(tau, defined)``, float64 and bool arrays of the inputs' shape: ``tau`` is
        ``(C - D) / sqrt(n0 - n1) / sqrt(n0 - n2)`` clipped to [-1, 1] (``scipy.stats.kendalltau``'s
        expression) where ``defined``, and 0.0 where every pair is tied in x or in y (including n < 2),
        where tau-b is undefined (scipy returns NaN there).
    """
    n, x_tied, y_tied, xy_tied, discordant = (np.asarray(v, dtype=np.int64)
                                              for v in (n, x_tied, y_tied, xy_tied, discordant))
    total = n * (n - 1) // 2
    defined = (x_tied != total) & (y_tied != total)
    concordant_minus_discordant = total - x_tied - y_tied + xy_tied - 2 * discordant
    with np.errstate(divide="ignore", invalid="ignore"):
        tau = concordant_minus_discordant / np.sqrt(total - x_tied) / np.sqrt(total - y_tied)
    return np.where(defined, np.minimum(1.0, np.maximum(-1.0, tau)), 0.0), defined


def _defined_tau(tau: np.ndarray, defined: np.ndarray, n: int) -> float:
    if not defined:
        raise UndefinedMetricError(f"Kendall's tau-b is undefined: every pair of the {n} values is tied in x or "
                                   "in y (fewer than 2 values, or one of them constant)")
    return float(tau)


def kendall_tau_b(x: np.ndarray, y: np.ndarray) -> float:
    """Kendall's tau-b between two 1-D arrays of equal length n (ties allowed in both).

    Equals ``scipy.stats.kendalltau(x, y).statistic`` (Knight's algorithm: sort by (x, y), then count
    the discordant pairs as inversions of y). Used for the official 1000-config protocol, where
    duplicated sampled configs tie in both x and y.

    Raises:
        ValueError: x and y differ in length.
        UndefinedMetricError: tau-b is undefined (n < 2, x or y constant; scipy returns NaN), or NaN in x or y.
    """
    x = np.asarray(x).reshape(-1)
    y = np.asarray(y).reshape(-1)
    if x.size != y.size:
        raise ValueError(f"x and y must have the same length, got {x.size} and {y.size}")
    _check_no_nan("kendall_tau_b", x, y)
    n = x.size
    if n < 2:
        return _defined_tau(np.float64(0.0), np.False_, n)
    order = np.lexsort((y, x))
    xs, ys = x[order], y[order]
    ranks, n_values, y_tied = dense_ranks(ys)
    runs_x, runs_xy = _run_lengths([xs]), _run_lengths([xs, ys])
    discordant = discordant_pairs(ranks, np.array([n]), np.array([n_values]))[0]
    return _defined_tau(*tau_b_from_counts(n, tied_pairs(runs_x), y_tied, tied_pairs(runs_xy), discordant), n)


def ranking_tau_b(runtimes_in_predicted_order: np.ndarray) -> float:
    """Kendall's tau-b between a strict ranking and runtimes.

    Args:
        runtimes_in_predicted_order: (n,) runtime of the config ranked 1st, 2nd, … (x = 0..n-1, no ties).

    Returns:
        tau-b, positive when faster configs are ranked first. Equals
        ``scipy.stats.kendalltau(np.arange(n), runtimes_in_predicted_order).statistic``.

    Raises:
        UndefinedMetricError: n < 2 or all runtimes are equal (scipy returns NaN), or a runtime is NaN.
    """
    y = np.asarray(runtimes_in_predicted_order).reshape(-1)
    _check_no_nan("ranking_tau_b", y)
    if y.size < 2:
        return _defined_tau(np.float64(0.0), np.False_, y.size)
    ranks, n_values, y_tied = dense_ranks(y)
    discordant = discordant_pairs(ranks, np.array([y.size]), np.array([n_values]))[0]
    return _defined_tau(*tau_b_from_counts(y.size, 0, y_tied, 0, discordant), y.size)


def best_of_top_k_ratio(runtimes_in_predicted_order: np.ndarray, best: float, k: int) -> float:
    """``min(runtimes_in_predicted_order[:k]) / best``: 1 when the fastest config is in the top k.

    ``best`` is the reference minimum (all configs of the graph, or the protocol's sampled configs);
    uses as many entries as exist when fewer than k are given.

    Raises:
        UndefinedMetricError: no runtime given, ``best`` not finite and positive, NaN in the runtimes, or a
            ratio that overflows (not finite).
    """
    runtimes = np.asarray(runtimes_in_predicted_order)
    _check_no_nan("best_of_top_k_ratio", runtimes)
    if runtimes.size == 0 or not (np.isfinite(best) and best > 0):
        raise UndefinedMetricError(f"best_of_top_k_ratio: needs runtimes and a finite positive best, got "
                                   f"{runtimes.size} runtimes and best {best}")
    with np.errstate(over="ignore"):
        ratio = float(np.min(runtimes[:k]) / best)
    if not np.isfinite(ratio):
        raise UndefinedMetricError(f"best_of_top_k_ratio: the ratio to the best runtime {best} is not finite")
    return ratio


def tile_score(ratio_top5: float | np.ndarray) -> float | np.ndarray:
    """Kaggle tile score from :func:`best_of_top_k_ratio` with k = 5: ``2 - ratio`` (1 is perfect, unbounded below).

    Raises:
        UndefinedMetricError: a ratio is NaN.
    """
    _check_no_nan("tile_score", ratio_top5)
    return 2.0 - ratio_top5


def top_k_error(ratio_top_k: float | np.ndarray) -> float | np.ndarray:
    """Paper top-K error / layout slowdown@k from :func:`best_of_top_k_ratio`: ``ratio - 1`` (0 is perfect).

    Raises:
        UndefinedMetricError: a ratio is NaN.
    """
    _check_no_nan("top_k_error", ratio_top_k)
    return ratio_top_k - 1.0


def first_k_minima(values: np.ndarray, lengths: np.ndarray, k: int) -> np.ndarray:
    """Row-wise ``min(row[:k])`` of ragged rows stored back to back.

    Args:
        values: (sum(lengths),) the rows concatenated.
        lengths: (R,) length of each row, every length >= 1.
        k: how many leading entries of each row count.

    Returns:
        (R,) minimum of the first min(k, length) entries of each row.

    Raises:
        UndefinedMetricError: NaN in ``values``, or a row of length 0 (its minimum is undefined).
    """
    _check_no_nan("first_k_minima", values)
    if lengths.size and lengths.min() < 1:
        raise UndefinedMetricError("first_k_minima: a row of length 0 has no minimum")
    starts = np.cumsum(lengths) - lengths
    rank_in_row = np.arange(values.size) - np.repeat(starts, lengths)
    kept = values[rank_in_row < k]
    kept_lengths = np.minimum(lengths, k)
    return np.minimum.reduceat(kept, np.cumsum(kept_lengths) - kept_lengths)
