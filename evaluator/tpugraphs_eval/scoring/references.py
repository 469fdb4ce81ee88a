"""Chance and perfection: what a random and an oracle ranking score on a split, per graph and per collection
(docs/metrics.md, "Random and oracle references"): a uniformly random ranking's exact expected value (tile: from
the order statistics of the runtimes; layout tau-b: 0) and the oracle's (configs sorted by runtime: tile 1; layout
the tau-b of that ranking, by the same metric code as any submission). The normalised figure of a collection is
``(value - random) / (oracle - random)``: 0 is chance, 1 is perfect.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import pairwise

import numpy as np

from ..dataset import TILE_TOP_K
from ..truth.eval_indices import EvalIndices
from ..truth.groundtruth import CollectionTruth, GroundTruth
from .layout import graph_batches, pair_metrics
from .metrics import tau_b_from_counts

BLOCK = 1 << 14
"""Configs per block of :func:`expected_random_tile_scores` (its arrays take about 100 bytes a config)."""


@dataclass(frozen=True)
class References:
    """Expected random and oracle values of one collection's primary metric (its unweighted graph mean)."""

    random: float
    oracle: float

    def normalise(self, value: float | None) -> float | None:
        """``(value - random) / (oracle - random)``; None when undefined (no value, or oracle == random)."""
        if value is None or math.isclose(self.oracle, self.random, rel_tol=0.0, abs_tol=1e-15):
            return None
        return (value - self.random) / (self.oracle - self.random)


def expected_random_tile_scores(truth: CollectionTruth) -> np.ndarray:
    """(G,) expected Kaggle tile score of a uniformly random top-min(5, c) list, per graph (exact).

    Vectorised over the configs of a block of graphs at a time (at most :data:`BLOCK` values, or one larger graph:
    the memory taken does not grow with the split): the i-th smallest runtime of a graph is the minimum of the draw with weight
    C(c - i, k - 1) / C(c, k), a product of k - 1 falling factors.
    """
    expected_min = np.concatenate([_expected_min(truth.values, truth.offsets[a:b + 1])
                                   for a, b in graph_batches(np.diff(truth.offsets), BLOCK)])
    return 2.0 - expected_min / truth.best


def _expected_min(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """The expected minimum runtime of a random top-min(5, c) list of each graph whose runtimes are
    ``values[offsets[g]:offsets[g + 1]]`` (a block of :func:`expected_random_tile_scores`)."""
    sizes = np.diff(offsets)
    k = np.minimum(TILE_TOP_K, sizes)
    graph = np.repeat(np.arange(sizes.size), sizes)
    i = np.arange(graph.size) - np.repeat(offsets[:-1] - offsets[0], sizes) + 1  # 1-based rank in its graph
    remaining = (sizes[graph] - i).astype(np.float64)
    weight = np.ones(graph.size)
    for j in range(TILE_TOP_K - 1):  # C(c-i, k-1) = prod_{j<k-1} (c-i-j) / (k-1)!
        weight *= np.where(j < k[graph] - 1, np.maximum(remaining - j, 0.0) / (j + 1), 1.0)
    weight /= np.array([math.comb(int(c), int(kk)) for c, kk in zip(sizes, k, strict=True)], dtype=np.float64)[graph]
    sorted_values = np.concatenate([np.sort(values[a:b]) for a, b in pairwise(offsets.tolist())])
    return np.bincount(graph, weights=sorted_values * weight, minlength=sizes.size)


def oracle_taus(truth: CollectionTruth, sampled: dict[int, np.ndarray] | None = None) -> np.ndarray:
    """(G,) tau-b of the oracle ranking (configs by runtime, ties by index) per graph; NaN where undefined.

    With ``sampled`` (the official lists) the oracle ranking is restricted to the sampled configs.
    """
    if sampled is None:
        n = np.diff(truth.offsets)
        tau, defined = tau_b_from_counts(n, 0, truth.tied_pairs, 0, 0)
        return np.where(defined, tau, np.nan).reshape(-1)
    out = np.empty(truth.best.size)
    for g, runtime in enumerate(truth.runtimes):
        rank_of = np.argsort(np.argsort(runtime, kind="stable"))  # each config's place in the runtime order
        out[g] = pair_metrics(rank_of[sampled[g]], runtime[sampled[g]])[0]
    return out


def graph_references(truth: GroundTruth,
                     eval_indices: EvalIndices | None = None) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Collection → ((G,) expected value of a uniformly random ranking, (G,) value of the runtime-sorted ranking) of
    every graph, float64 (NaN: undefined tau). The all-configs references are computed once per ground truth."""
    key = "graph_references"
    if eval_indices is None and key in truth.cache:
        return truth.cache[key]
    out = {}
    for name, collection_truth in truth.collections.items():
        if collection_truth.graphs.collection.kind == "tile":
            out[name] = expected_random_tile_scores(collection_truth), np.ones(collection_truth.best.size)
        else:
            oracle = oracle_taus(collection_truth, None if eval_indices is None else eval_indices[name])
            out[name] = np.where(np.isnan(oracle), np.nan, 0.0), oracle
    if eval_indices is None:
        truth.cache[key] = out
    return out


def collection_references(truth: GroundTruth, eval_indices: EvalIndices | None = None,
                          masks: dict[str, np.ndarray] | None = None) -> dict[str, References]:
    """Random and oracle references of every present collection: unweighted means over its graphs (over
    ``masks[collection]``'s graphs when given, e.g. the public ones), undefined taus left out."""
    out = {}
    for name, (random, oracle) in graph_references(truth, eval_indices).items():
        keep = ~np.isnan(oracle) if masks is None else masks[name] & ~np.isnan(oracle)
        if n := int(keep.sum()):  # metrics: Means (Python floats, as every other number of a report)
            out[name] = References(math.fsum(random[keep].tolist()) / n, math.fsum(oracle[keep].tolist()) / n)
    return out
