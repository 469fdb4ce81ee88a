"""The layout ground truth's dense ranks, prepared graph by graph into one preallocated array (issue 17 item 5).

Expected values: scipy.stats.rankdata(method="dense") - 1 on the same runtimes (an independent computation),
distinct counts from numpy.unique, tied pairs counted from the multiplicities by hand (sum of m (m - 1) / 2).
The memory this saves (a graph of 1M configs against ten of 100k) is measured in bench/ (measurement 8).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats

from tpugraphs_eval import load_ground_truth, resolve_data_root
from tpugraphs_eval.truth import ranks


@pytest.mark.parametrize("values", [
    np.array([5]),
    np.array([3, 3, 3]),
    np.array([30, 10, 20, 10, 30, 30]),
    np.array([2.5, 1.0, 2.5, 0.5]),
    np.random.default_rng(1).integers(0, 50, 1000),
    np.random.default_rng(2).integers(0, 10**12, 200_000),  # over 3 chunks
    np.random.default_rng(3).permutation(np.repeat(np.arange(7), 30_001)),  # runs of ties across chunk ends
])
def test_dense_ranks_equal_scipy_s(values):
    out = np.full(values.size, -1, dtype=np.int32)
    n_distinct, tied = ranks.dense_ranks_into(values, out)
    assert out.tolist() == (scipy.stats.rankdata(values, method="dense") - 1).astype(int).tolist()
    _, counts = np.unique(values, return_counts=True)
    assert (n_distinct, tied) == (counts.size, int(sum(int(m) * (int(m) - 1) // 2 for m in counts)))


def test_a_collection_s_ranks_are_one_array_filled_in_place(tmp_path, monkeypatch):
    """No per-graph rank array is made and joined: the old code called metrics.dense_ranks once per graph."""
    folder = tmp_path / "root" / "npz/layout/xla/default/valid"
    folder.mkdir(parents=True)
    graphs = {"a": [30, 10, 20, 10], "b": [7], "c": [1, 1, 2]}
    for name, runtimes in graphs.items():
        np.savez(folder / f"{name}.npz", config_runtime=np.array(runtimes))
    monkeypatch.setattr(np, "concatenate", _no_concatenation_of_int32(np.concatenate))
    truth = load_ground_truth(resolve_data_root(tmp_path / "root"), "valid").collections["layout:xla:default"]
    assert truth.ranks.tolist() == [2, 0, 1, 0, 0, 0, 0, 1] and truth.ranks.dtype == np.int32
    assert truth.n_distinct.tolist() == [3, 1, 2] and truth.tied_pairs.tolist() == [1, 0, 1]


def _no_concatenation_of_int32(concatenate):
    def guarded(arrays, *args, **kwargs):
        arrays = list(arrays)
        assert not any(getattr(a, "dtype", None) == np.int32 for a in arrays), "per-graph ranks joined"
        return concatenate(arrays, *args, **kwargs)
    return guarded
