"""Named types between modules (issue 8 item 4): what validation hands to scoring, the catalog's lookups, the
kernels' scan result, and the one progress-bar factory. Values are read off the tiny data root by hand
(``badinput.py``: conv_net 3 configs, matmul 25, resnet_v1 6)."""

from __future__ import annotations

import importlib.util

import numpy as np
from badinput import VALID, A, B, L

from tpugraphs_eval import kernels, validate_submission
from tpugraphs_eval.kernels import Scanned
from tpugraphs_eval.submission.rankings import Joined, Rankings
from tpugraphs_eval.truth.groundtruth import GraphRef, RowSpec
from tpugraphs_eval.truth.ranks import dense_ranks


def test_validation_hands_scoring_named_rankings(catalog):
    parsed = validate_submission(VALID, catalog).submission
    tile = parsed.rankings["tile:xla"]
    assert isinstance(tile, Rankings) and set(tile) == {0, 1}  # graph positions in the catalog's order
    assert tile.indices(0).dtype == np.int32 and tile.indices(0).tolist() == [0, 1, 2]
    joined = tile.joined(2)
    assert isinstance(joined, Joined)
    assert joined.indices.tolist() == [0, 1, 2, 0, 1, 2, 3, 4] and joined.lengths.tolist() == [3, 5]
    assert joined.lengths.dtype == np.int64
    assert parsed.rankings["layout:xla:default"].indices(0).tolist() == [0, 1, 2, 3, 4, 5]
    assert parsed.lines == {A: 2, B: 3, L: 4}


def test_lenient_rankings_keep_the_distinct_valid_indices(catalog):
    data = VALID.replace(b"0;1;2\n", b"2;2;9;0;1\n", 1)  # conv_net (3 configs): a repeat and an index >= 3
    parsed = validate_submission(data, catalog, mode="lenient").submission
    assert parsed.rankings["tile:xla"].indices(0).tolist() == [2, 0, 1]


def test_catalog_lookups_are_named(catalog):
    ref = catalog.index[A]
    assert isinstance(ref, GraphRef) and (ref.collection.name, ref.position, ref.n_configs) == ("tile:xla", 0, 3)
    assert catalog.row_specs[B] == RowSpec("tile:xla", 1, 25, 5, "tile")  # a tile row lists min(5, 25)
    assert catalog.row_specs[L] == RowSpec("layout:xla:default", 0, 6, 6, "layout")


def test_scan_result_and_dense_ranks_are_named():
    scanned = Scanned(*kernels.active().scan_indices(b"3;0;3", 5))
    assert np.frombuffer(scanned.values, dtype=np.int32).tolist() == [3, 0, 3]
    assert scanned.n_tokens == 3 and scanned.flags != 0  # 3 repeats
    assert Scanned(*kernels.active().scan_indices(b"3;0;4", 5)).flags == 0
    ranks = dense_ranks(np.array([5, 1, 5, 7]))
    assert ranks.ranks.tolist() == [1, 0, 1, 2] and ranks.n_distinct == 3 and ranks.tied_pairs == 1


def test_one_progress_factory():
    import tpugraphs_kit.data
    import tpugraphs_kit.download
    from tpugraphs_eval import progress

    assert importlib.util.find_spec("tpugraphs_kit.progress") is None  # the kit's copy is gone
    assert tpugraphs_kit.data.track is progress.track
    assert tpugraphs_kit.download.progress_bar is progress.progress_bar
    assert list(progress.track(range(3), 3, "x", True, min_items=10)) == [0, 1, 2]  # too few for a bar
    assert progress.wanted(False) is False and progress.wanted(True) is True
    bar = progress.progress_bar("bytes", transfer=True)
    assert [type(c).__name__ for c in bar.columns] == ["TextColumn", "BarColumn", "DownloadColumn",
                                                       "TransferSpeedColumn", "TimeRemainingColumn"]
