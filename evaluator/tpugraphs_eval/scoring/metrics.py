"""The metric definitions, as pure functions on arrays (no I/O, no submission format); each definition and its
source: docs/metrics.md and its metric table.

The five metrics of a model's output, array in and float out (``predictions``: (c,) predicted runtimes or any
scores where lower means faster; ``runtimes``: (c,) the measured ones, in ns, tile possibly divided by the
normalizer; only their order and ratios matter): :func:`kendall_tau_b`, :func:`ordered_pair_accuracy`,
:func:`slowdown`, :func:`top_k_error`, :func:`tile_score`. The top k of predictions is their stable argsort's first
k (ties: the lower config index first), as the official ``top_error_performance`` takes ``argsort(preds)[:k]``. To
score a ranking (config indices, fastest first), pass its predicted ranks: ``predictions[ranking] =
arange(len(ranking))``. Tau-b and OPA come from one count of pairs (:func:`pair_counts`, Knight's O(n log n)
algorithm; the discordant pairs counted by :mod:`kernels`), then scipy's formula term for term.

No public function here returns NaN: where a metric is undefined it raises :class:`UndefinedMetricError`
(docs/metrics.md, NaN policy). The vectorised :func:`tau_b_from_counts` and :func:`opa_from_counts` return a
``defined`` mask beside their values instead; scoring leaves those graphs out of the means (docs/metrics.md,
collection value **Decision**).

Means (the one rule, for the evaluator and the kit): a reported mean is ``math.fsum(values) / n``, the correctly
rounded sum, so the same bits on every Python version and in any order. Only where thousands of rows are averaged
at once (the leaderboard bootstrap, the kit's feature scaling) is it numpy's pairwise ``sum``/``mean`` along an
axis, which the Python version does not change either.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .. import kernels
from ..truth.ranks import dense_ranks, tied_pairs


class UndefinedMetricError(ValueError):
    """A metric is undefined on its inputs (e.g. Kendall's tau-b when every pair is tied): raised instead of
    returning NaN."""


def _one_graph(name: str, **arrays) -> list[np.ndarray]:
    """The ``arrays`` (keyword → values) as 1-D arrays of equal length: one graph's configurations.

    Raises:
        ValueError: an array that is not 1-D (a batch of graphs is scored one graph at a time), or lengths differ.
    """
    out = [np.asarray(values) for values in arrays.values()]
    for key, array in zip(arrays, out, strict=True):
        if array.ndim != 1:
            raise ValueError(f"{name}: {key} must be one graph's 1-D array of its configs, got shape {array.shape}")
    if len({array.size for array in out}) > 1:
        raise ValueError(f"{name}: {' and '.join(arrays)} must have the same length, got "
                         f"{' and '.join(str(array.size) for array in out)}")
    return out


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


class PairCounts(NamedTuple):
    """The pair counts of two 1-D arrays x and y of length n, from which tau-b and OPA are computed.

    Attributes:
        n: the number of observations.
        x_tied: pairs i < j with x_i == x_j; y_tied: with y_i == y_j; xy_tied: with both.
        discordant: pairs with x and y both different and ordered oppositely.
    """

    n: int
    x_tied: int
    y_tied: int
    xy_tied: int
    discordant: int


def pair_counts(x: np.ndarray, y: np.ndarray) -> PairCounts:
    """:class:`PairCounts` of two 1-D arrays of equal length (ties allowed in both), in O(n log n).

    Knight's algorithm, as ``scipy.stats.kendalltau``: sort by (x, y) (two stable sorts, y then x), then the
    discordant pairs are the inversions of y's dense ranks (counted by :mod:`kernels`: C or numpy).

    Raises:
        ValueError: x or y is not 1-D, or they differ in length.
        UndefinedMetricError: NaN in x or y (no order is defined).
    """
    x, y = _one_graph("pair_counts", x=x, y=y)
    _check_no_nan("pair_counts", x, y)
    n = x.size
    if n < 2:
        return PairCounts(n, 0, 0, 0, 0)
    by_y = np.argsort(y, kind="stable")  # two stable sorts give the order by (x, y), as scipy sorts
    ys = y[by_y]
    y_ranks = np.concatenate(([0], np.cumsum(ys[1:] != ys[:-1], dtype=np.int32)))  # dense, in y order
    by_xy = np.argsort(x[by_y], kind="stable")
    xs, ranks = x[by_y][by_xy], y_ranks[by_xy]
    runs_x, runs_xy = _run_lengths([xs]), _run_lengths([xs, ranks])
    discordant = int(discordant_pairs(ranks, np.array([n]), np.array([int(y_ranks[-1]) + 1]))[0])
    return PairCounts(n, tied_pairs(runs_x), tied_pairs(_run_lengths([ys])), tied_pairs(runs_xy), discordant)


def kendall_tau_b(x: np.ndarray | list[float], y: np.ndarray | list[float]) -> float:
    """Kendall's tau-b between two 1-D arrays of equal length n (ties allowed in both), in [-1, 1].

    Equals ``scipy.stats.kendalltau(x, y).statistic`` (tied predictions are ties, as the official
    ``layout_evaluate.py`` scores model outputs). Symmetric, so the order of the two arrays cannot be wrong.

    Args:
        x: (n,) e.g. predicted runtimes (lower = faster) or a ranking's predicted ranks.
        y: (n,) e.g. the measured runtimes (ns; only their order matters).

    Raises:
        ValueError: x or y is not 1-D, or they differ in length.
        UndefinedMetricError: tau-b is undefined (n < 2, x or y constant; scipy returns NaN), or NaN in x or y.

    Examples:
        Three configs; the prediction orders pairs (0, 1) and (0, 2) as the runtimes do, and (1, 2) the other way
        round: (2 - 1) / 3.

        >>> from tpugraphs_eval import kendall_tau_b
        >>> round(kendall_tau_b([1.0, 2.0, 3.0], [10, 30, 20]), 12)
        0.333333333333
        >>> kendall_tau_b([1.0, 2.0, 3.0], [10, 30, 20]) == kendall_tau_b([10, 30, 20], [1.0, 2.0, 3.0])
        True
    """
    counts = pair_counts(np.asarray(x), np.asarray(y))
    return _defined_tau(*tau_b_from_counts(*counts), counts.n)


def opa_from_counts(n, x_tied, y_tied, xy_tied, discordant) -> tuple[np.ndarray, np.ndarray]:
    """Ordered pair accuracy from pair counts (x predicted, y runtimes), for many graphs at once.

    Args (integers, or int64 arrays of one shape): as :func:`tau_b_from_counts`.

    Returns:
        ``(opa, defined)``, float64 and bool arrays of the inputs' shape: ``opa`` is
        ``concordant / (pairs - y_tied)``, with ``concordant = pairs - x_tied - y_tied + xy_tied - discordant``
        (the pairs of different runtimes that x orders the same way, strictly: a pair tied in x is not
        correctly ordered), where ``defined`` (some pair has different runtimes), else 0.0.
    """
    n, x_tied, y_tied, xy_tied, discordant = (np.asarray(v, dtype=np.int64)
                                              for v in (n, x_tied, y_tied, xy_tied, discordant))
    total = n * (n - 1) // 2
    valid_pairs = total - y_tied
    defined = valid_pairs > 0
    concordant = total - x_tied - y_tied + xy_tied - discordant
    with np.errstate(divide="ignore", invalid="ignore"):
        opa = concordant / valid_pairs
    return np.where(defined, opa, 0.0), defined


def ordered_pair_accuracy(*, predictions: np.ndarray | list[float], runtimes: np.ndarray | list[float]) -> float:
    """Ordered pair accuracy (OPA) of predicted runtimes against measured ones, in [0, 1].

    Over the pairs (i, j) with ``runtimes[i] < runtimes[j]`` (pairs of equal runtimes are left out), the
    fraction with ``predictions[i] < predictions[j]`` strictly: a pair the predictions tie counts as not
    correctly ordered. TF-Ranking's ``OPAMetric`` (``tfr.keras.metrics.OPAMetric``, the official baselines'
    ``val_opa``) with relevance = faster (docs/metrics.md, "Ordered pair accuracy").

    Args:
        predictions: (c,) predicted runtimes, or any scores where lower means faster (a ranking's ranks).
        runtimes: (c,) measured runtimes (ns; only their order matters).

    Raises:
        ValueError: an array that is not 1-D, or the arrays differ in length.
        UndefinedMetricError: no pair of different runtimes (c < 2, or constant runtimes), or NaN in either.

    Examples:
        Of the three pairs of different runtimes, (0, 1) and (0, 2) are predicted in the right order and (2, 1)
        is not: 2 / 3.

        >>> from tpugraphs_eval import ordered_pair_accuracy
        >>> ordered_pair_accuracy(predictions=[1.0, 2.0, 3.0], runtimes=[10, 30, 20])
        0.6666666666666666
    """
    counts = pair_counts(np.asarray(predictions), np.asarray(runtimes))
    opa, defined = opa_from_counts(*counts)
    if not defined:
        raise UndefinedMetricError(f"OPA is undefined: no pair of the {counts.n} runtimes differs (fewer than 2 "
                                   "configs, or constant runtimes)")
    return float(opa)


def ranking_tau_b(runtimes_in_predicted_order: np.ndarray) -> float:
    """Kendall's tau-b between a strict ranking and runtimes: ``scipy.stats.kendalltau(np.arange(n),
    runtimes_in_predicted_order).statistic``, from (n,) runtimes of the configs ranked 1st, 2nd, …

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


def tile_score_from_ratio(ratio_top5: float | np.ndarray) -> float | np.ndarray:
    """Kaggle tile score from :func:`best_of_top_k_ratio` with k = 5: ``2 - ratio`` (1 is perfect, unbounded below).

    Raises:
        UndefinedMetricError: a ratio is NaN.
    """
    _check_no_nan("tile_score_from_ratio", ratio_top5)
    return 2.0 - ratio_top5


def error_from_ratio(ratio_top_k: float | np.ndarray) -> float | np.ndarray:
    """Paper top-K error / layout slowdown@k from :func:`best_of_top_k_ratio`: ``ratio - 1`` (0 is perfect).

    Raises:
        UndefinedMetricError: a ratio is NaN.
    """
    _check_no_nan("error_from_ratio", ratio_top_k)
    return ratio_top_k - 1.0


def _predicted_top_k_ratio(name: str, predictions: np.ndarray, runtimes: np.ndarray, k: int) -> float:
    """``min(runtimes[argsort(predictions, stable)[:k]]) / min(runtimes)``, checked."""
    predictions, runtimes = _one_graph(name, predictions=predictions, runtimes=runtimes)
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"{name}: k must be a whole number, 1 or more, not {k!r}")
    _check_no_nan(name, predictions, runtimes)
    if runtimes.size == 0:
        raise UndefinedMetricError(f"{name}: no configuration given")
    ranked = runtimes[np.argsort(predictions, kind="stable")[:k]]
    return best_of_top_k_ratio(ranked, runtimes.min(), k)


def slowdown(*, predictions: np.ndarray | list[float], runtimes: np.ndarray | list[float], k: int) -> float:
    """Layout slowdown@k (official ``layout_evaluate.py``): ``min(runtimes of the k configs predicted fastest) /
    min(runtimes) - 1``; 0 when the fastest config is among them.

    Args:
        predictions: (c,) predicted runtimes or scores, lower = faster; the top k are the first k of their
            stable argsort (ties: lower config index first); all c when k >= c.
        runtimes: (c,) measured runtimes (ns).
        k: how many configs predicted fastest count (1, 10, 100 in the reports).

    Raises:
        ValueError: an array that is not 1-D (one graph), the arrays differ in length, or k is not a whole number
            >= 1.
        UndefinedMetricError: no config, NaN in either array, or a best runtime that is not finite and positive.

    Examples:
        The two configs predicted fastest are 1 (25 ns) and 0 (20 ns); the fastest config, 2, takes 10 ns:
        20 / 10 - 1.

        >>> from tpugraphs_eval import slowdown
        >>> slowdown(predictions=[0.2, 0.1, 0.3], runtimes=[20, 25, 10], k=2)
        1.0
        >>> slowdown(predictions=[0.2, 0.1, 0.3], runtimes=[20, 25, 10], k=3)
        0.0
    """
    return float(error_from_ratio(_predicted_top_k_ratio("slowdown", predictions, runtimes, k)))


def top_k_error(*, predictions: np.ndarray | list[float], runtimes: np.ndarray | list[float], k: int) -> float:
    """Tile top-K error (paper; official ``tpu_graphs/baselines/tiles/metrics.py`` ``top_error_performance``):
    ``min(runtimes of the k configs predicted fastest) / min(runtimes) - 1``, the same formula as
    :func:`slowdown`. Arguments, top-k rule and errors: as :func:`slowdown`.

    Examples:
        The config predicted fastest, 0, takes 30 ns; the fastest takes 10 ns: 30 / 10 - 1.

        >>> from tpugraphs_eval import top_k_error
        >>> top_k_error(predictions=[0.1, 0.3, 0.2], runtimes=[30, 10, 20], k=1)
        2.0
    """
    return float(error_from_ratio(_predicted_top_k_ratio("top_k_error", predictions, runtimes, k)))


def tile_score(*, predictions: np.ndarray | list[float], runtimes: np.ndarray | list[float], k: int = 5) -> float:
    """Kaggle tile score of one graph: ``2 - min(runtimes of the k configs predicted fastest) / min(runtimes)``,
    K = 5 (1 when the fastest config is among them; unbounded below). Arguments, top-k rule and errors: as
    :func:`slowdown` (runtimes: tile runtimes, by default divided by the normalizer). The arguments are
    keyword-only: ``tile_score(p, y)`` and ``tile_score(y, p)`` would give different numbers.

    Examples:
        The config predicted fastest, 0, takes 30 ns; the fastest takes 10 ns: 2 - 30 / 10. Of the two predicted
        fastest (0, then 2) the faster takes 20 ns: 2 - 20 / 10.

        >>> from tpugraphs_eval import tile_score
        >>> tile_score(predictions=[0.1, 0.3, 0.2], runtimes=[30, 10, 20], k=1)
        -1.0
        >>> tile_score(predictions=[0.1, 0.3, 0.2], runtimes=[30, 10, 20], k=2)
        0.0
    """
    return float(tile_score_from_ratio(_predicted_top_k_ratio("tile_score", predictions, runtimes, k)))


def search_curves(values: np.ndarray, lengths: np.ndarray, best: np.ndarray, k: int) -> np.ndarray:
    """(R, k) search curves of R rankings stored back to back (docs/metrics.md, "Search curve"): ``curve[r, j] =
    min(first j + 1 runtimes of ranking r) / best[r]``, the ratio the slowdown@(j + 1) and top-(j + 1) error are
    ``ratio - 1`` of (for a ratio >= 1 that subtraction is exact: ``curve == 1 + slowdown`` to the last bit).

    Args:
        values: (sum(lengths),) runtimes in ranked order, ranking after ranking (only the first k of each are read).
        lengths: (R,) length of each ranking, each >= 1; a ranking shorter than k keeps its last value.
        best: (R,) the best runtime each ratio is taken to (all configs, or the sampled ones).
        k: the curve's length K.

    Raises:
        UndefinedMetricError: NaN in ``values``, or a ranking of length 0 (its minimum is undefined).
    """
    _check_no_nan("search_curves", values)
    if lengths.size and lengths.min() < 1:
        raise UndefinedMetricError("search_curves: a ranking of length 0 has no minimum")
    starts = np.cumsum(lengths) - lengths
    take = np.minimum(np.arange(k)[None, :], lengths[:, None] - 1) + starts[:, None]
    return np.minimum.accumulate(values[take], axis=1) / best[:, None]
