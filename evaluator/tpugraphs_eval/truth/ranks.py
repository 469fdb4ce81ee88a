"""Dense ranks of a graph's runtimes: the ground truth's side of Kendall's tau-b.

Computed once per layout graph when the ground truth is built (:meth:`groundtruth.CollectionTruth.from_values`)
and used by scoring (:mod:`tpugraphs_eval.scoring.metrics`, :mod:`tpugraphs_eval.scoring.layout`): the
discordant pairs of a ranking are counted over these ranks, and the tied pairs of the true runtimes enter
tau-b's denominator (docs/metrics.md; ``scipy.stats.kendalltau``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


def tied_pairs(counts: np.ndarray) -> int:
    """Pairs with equal value, from the multiplicity of each distinct value."""
    counts = counts.astype(np.int64)
    return int((counts * (counts - 1) // 2).sum())


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


