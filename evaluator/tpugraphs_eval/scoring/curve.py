"""The autotuner's search curve beside a random ranking's (docs/metrics.md, "Search curve"), pure functions on arrays.

``curve[k] = min(y of the first k configurations ranked) / min(y)``, k = 1..K (:func:`.metrics.search_curves`, the
ratios the slowdowns are computed from); here a uniformly random ranking's exact curve, how many configurations a
curve needs to come within a tolerance of the best, and a collection's mean curve.
"""

from __future__ import annotations

import math

import numpy as np

LAYOUT_K = 100
"""K of a layout graph's curve (the largest slowdown@k)."""
TILE_K = 10
"""K of a tile graph's curve: the most indices a tile row lists."""
TOLERANCES = (0.01, 0.05, 0.10)
"""Within how much of the best the reports say how many configurations must be measured."""


def random_curve(runtimes: np.ndarray, k: int) -> np.ndarray:
    """(k,) exact expected curve of a uniformly random ranking: ``E[min of j draws without replacement] / min(y)``.

    With the runtimes sorted, y_(1) <= ... <= y_(c), ``P(min >= y_(i)) = C(c - i + 1, j) / C(c, j)``, so
    ``E[min] = sum_i P(min >= y_(i)) * (y_(i) - y_(i-1))`` (y_(0) = 0): non-negative terms, updated from j - 1 to j
    by one factor per i. For j >= c every configuration is drawn: the value is 1.
    """
    y = np.sort(np.asarray(runtimes, dtype=np.float64))
    c = y.size
    steps = np.diff(y, prepend=0.0)
    survive, factor = np.ones(c), np.empty(c)
    remaining = np.arange(c, 0, -1, dtype=np.float64)  # c - i + 1 for i = 1..c
    out = np.ones(k)
    for j in range(min(k, c)):  # in place: 100 steps over 100,000 configs in about 0.1 s
        np.subtract(remaining, j, out=factor)
        np.maximum(factor, 0.0, out=factor)
        factor /= c - j
        survive *= factor
        np.multiply(survive, steps, out=factor)
        out[j] = factor.sum() / y[0]
    return out


def configs_within(curve: np.ndarray, tolerance: float) -> int | None:
    """The smallest k with ``curve[k] <= 1 + tolerance`` (1-based), None when the curve never gets there."""
    hit = np.flatnonzero(np.asarray(curve) <= 1.0 + tolerance)
    return int(hit[0]) + 1 if hit.size else None


def mean_curve(curves: np.ndarray) -> np.ndarray:
    """(K,) the unweighted mean of (G, K) curves over graphs, ``math.fsum`` per k (docs: Means)."""
    return np.array([math.fsum(column) / curves.shape[0] for column in curves.T.tolist()])
