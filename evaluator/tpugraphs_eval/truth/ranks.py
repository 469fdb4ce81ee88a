"""Dense ranks of a graph's runtimes: the ground truth's side of Kendall's tau-b (docs/metrics.md), computed once
per layout graph (:meth:`groundtruth.CollectionTruth.from_values`) and used by :mod:`tpugraphs_eval.scoring`."""

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
    """Dense ranks of ``values`` (any shape, flattened; no NaN): see :class:`DenseRanks`."""
    flat = np.asarray(values).reshape(-1)
    ranks = np.empty(flat.size, dtype=np.int32)
    if flat.size == 0:
        return DenseRanks(ranks, 0, 0)
    return DenseRanks(ranks, *dense_ranks_into(flat, ranks))


_RANK_CHUNK = 1 << 16
"""Configurations handled per step in :func:`dense_ranks_into` (temporaries of 64 Ki values)."""


def dense_ranks_into(y: np.ndarray, out: np.ndarray) -> tuple[int, int]:
    """Write the dense ranks of ``y`` into ``out`` and return (distinct values, tied pairs): what ``numpy.unique``
    gives with its inverse and counts, holding 9 bytes per value (the sorting permutation and a mask of the sorted
    order's run starts) instead of about 45 (bench/README.md, measurement 8).

    Args:
        y: (c,) one graph's runtimes (finite), c >= 1.
        out: (c,) int32, written in place: 0 for the fastest runtime, equal runtimes share a rank.
    """
    c = y.size
    order = np.argsort(y)  # any order of equal runtimes: they get one rank
    starts = np.empty(c, dtype=bool)
    starts[0] = True
    for a in range(1, c, _RANK_CHUNK):
        ordered = y[order[a - 1:a + _RANK_CHUNK]]
        np.not_equal(ordered[1:], ordered[:-1], out=starts[a:a + _RANK_CHUNK])
    rank = -1  # the rank of the value before the chunk
    for a in range(0, c, _RANK_CHUNK):
        ranks = np.cumsum(starts[a:a + _RANK_CHUNK], dtype=np.int32)
        ranks += rank
        out[order[a:a + _RANK_CHUNK]] = ranks
        rank = int(ranks[-1])
    del order
    first = np.flatnonzero(starts)
    del starts
    return int(first.size), tied_pairs(np.diff(first, append=c))
