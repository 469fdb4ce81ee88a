"""The stratified bootstrap over graphs that ``compare`` and the leaderboard share (Efron & Tibshirani, *An
Introduction to the Bootstrap*, 1993, ch. 6: resampling the units): draws (:func:`draw_positions`) and resampled
means, collection values (:func:`resampled_means`) and overalls (:func:`resampled_overall_means`), each over the
defined values as docs/metrics.md defines them (collection value **Decision**; overall). One implementation, so a
file's resampled values are the same bytes in ``compare`` (:func:`.compare.paired_bootstrap`) and on a leaderboard
(``leaderboard.uncertainty.resampled_overalls``).

Order of the additions (the bytes depend on it): a collection mean is numpy's pairwise sum along the
contiguous graphs axis divided by the number of graphs (the same bits as ``ndarray.mean``; see
:mod:`.metrics`, "Means"); the overall adds the collection means one after another in the order given.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np


def draw_positions(graph_counts: dict[str, int], resamples: int, seed: int) -> dict[str, np.ndarray]:
    """Collection → (resamples, G) int64 graph positions drawn with replacement.

    Collections are drawn in the order given, each with ``rng.integers(0, G, size=(resamples, G))``
    from one ``numpy.random.default_rng(seed)``. Collections without graphs are left out.
    """
    rng = np.random.default_rng(seed)
    return {name: rng.integers(0, n, size=(resamples, n)) for name, n in graph_counts.items() if n > 0}


def resampled_means(values: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """(S, R) mean of each submission's drawn values in every resample, undefined values left out.

    Args:
        values: (S, G) float64 per-graph metric of S submissions over one collection's G graphs
            (NaN: undefined).
        positions: (R, G) drawn graph positions (:func:`draw_positions`).

    Returns:
        (S, R) float64; NaN where every drawn value of that submission is undefined. Row s is the same
        bytes whatever the other rows are (each submission is summed over its own C-ordered (R, G) block).
    """
    drawn = np.take(values, positions, axis=1)  # (S, R, G), C order: graphs innermost
    mean = drawn.sum(axis=2) / positions.shape[1]
    holes = np.isnan(values).any(axis=1)  # submissions with undefined graphs: mean of the defined ones
    if holes.any():
        defined = ~np.isnan(drawn[holes])
        with np.errstate(invalid="ignore", divide="ignore"):
            mean[holes] = np.where(defined, drawn[holes], 0.0).sum(axis=2) / defined.sum(axis=2)
    return mean


def resampled_overall_means(collection_means: Iterable[np.ndarray]) -> np.ndarray:
    """(S, R) mean of the defined collection means in every resample (NaN where none is defined).

    Args:
        collection_means: one (S, R) array per collection (:func:`resampled_means`), added in this order
            (at least one).
    """
    total = count = None
    for mean in collection_means:
        ok = ~np.isnan(mean)
        if total is None:
            total, count = np.where(ok, mean, 0.0), ok.astype(np.int64)
        else:
            total += np.where(ok, mean, 0.0)
            count += ok
    if total is None:
        raise ValueError("an overall needs at least one collection")
    with np.errstate(invalid="ignore", divide="ignore"):
        return total / count
