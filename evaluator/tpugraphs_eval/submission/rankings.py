"""The parsed rankings of a submission: what validation hands to scoring (:mod:`..scoring.score`).

Each ranking is kept as the bytes ``scan_indices`` (:mod:`..kernels`) produced: config indices as native-endian
int32, predicted fastest first. Bytes, so that the rows of a whole collection join into one array at once.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

INDEX_DTYPE = np.dtype(np.int32)
"""The dtype of a packed ranking's entries (native byte order)."""


class Joined(NamedTuple):
    """Rankings of graphs 0..G-1 stored back to back.

    Attributes:
        indices: (sum k,) int32 config indices, graph after graph.
        lengths: (G,) int64 entries k of each graph's ranking.
    """

    indices: np.ndarray
    lengths: np.ndarray


class Rankings(dict[int, bytes]):
    """One collection's rankings: graph position (in the catalog's order) → its config indices as native int32
    bytes, predicted fastest first. Strict: exactly the row's indices; lenient: the row's distinct valid
    indices in the order listed. A plain dict underneath (validation fills it row by row at dict speed)."""

    def indices(self, position: int) -> np.ndarray:
        """(k,) int32 read-only view of graph ``position``'s ranking.

        Raises:
            KeyError: the graph has no ranking.
        """
        return np.frombuffer(self[position], dtype=INDEX_DTYPE)

    def joined(self, n_graphs: int) -> Joined:
        """Graphs 0..``n_graphs - 1`` back to back (every one must have a ranking, as in a valid submission).

        Raises:
            KeyError: a graph has no ranking.
        """
        rows = [self[g] for g in range(n_graphs)]
        lengths = np.array([len(row) for row in rows], dtype=np.int64) // INDEX_DTYPE.itemsize
        return Joined(np.frombuffer(b"".join(rows), dtype=INDEX_DTYPE), lengths)
