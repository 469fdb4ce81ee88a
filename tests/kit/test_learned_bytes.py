"""The learned baseline writes the same bytes whatever the numpy, scipy and BLAS versions (docs/kit.md).

The expected files in ``tests/kit/expected/`` were written by this code with Python 3.11, numpy 2.4.6,
scipy 1.17.1; the same bytes came out of Python 3.12 with numpy 2.5.5, scipy 1.18.1 (the versions pip picks
there). ``.ci/run`` runs this file on every python3.1N it finds, each with the numpy and scipy pip picks for
it, so every such run checks the bytes. The real-data digests were measured the same way on both Pythons.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from tpugraphs_eval import DataRoot, scan_catalog
from tpugraphs_kit import train, write_learned_submission
from tpugraphs_kit.data import iter_graphs
from tpugraphs_kit.features import design
from tpugraphs_kit.learned import SCORE_GRID

EXPECTED = Path(__file__).parent / "expected"
REAL_DIGESTS = {  # sha256 of `tpugraphs-baseline learned --split S --fill-random 0` on ../shared/realdata/tpugraphs
    "valid": "5b6a605326098dc6bf82e4a113a4f0d92d1542a0fb02bb80b6111eb07a5860d5",
    "test": "d604bdda0ac303a6a94b3e349e4f7e34079b83b5355d22b64a22af1297656b12",
}


@pytest.fixture(scope="module")
def demo_models(demo_root):
    return train(demo_root, "train", progress=False)


@pytest.mark.parametrize("split", ["valid", "test"])
def test_learned_demo_file_is_the_committed_bytes(tmp_path, demo_root, demo_models, split):
    out = tmp_path / f"learned_{split}.csv"
    assert write_learned_submission(demo_models, scan_catalog(demo_root, split), out, progress=False).valid
    assert out.read_bytes() == (EXPECTED / f"learned_demo_{split}.csv").read_bytes()


def test_blas_sized_noise_in_the_weights_does_not_reorder_configs(demo_root, demo_models):
    # numpy 2.4/scipy 1.17 and numpy 2.5/scipy 1.18 gave weights differing by ~1e-12 relative and scores by
    # ~1e-13; a relative change of 1e-12 in every weight must leave every score (and so every ranking) unchanged.
    model = demo_models["layout:xla:default"]
    nudged = type(model)(**{**vars(model), "weights": model.weights * (1 + 1e-12)})
    for graph in iter_graphs(demo_root, "layout:xla:default", "valid", progress=False):
        scores = model.predict(graph)
        assert np.array_equal(scores, nudged.predict(graph)), graph.id
        assert np.array_equal(scores, np.round(scores / SCORE_GRID) * SCORE_GRID)  # on the documented grid


def test_a_column_constant_in_the_graph_is_exactly_zero_after_centering(tmp_path):
    # log1p(7) repeated 1159 times has a float64 mean 4.4e-16 away from it, so plain centering leaves that
    # noise in the column; the model's scaling by the training RMS blew such noise up into score changes of
    # 0.25 between numpy versions on the real files.
    folder = tmp_path / "npz" / "tile" / "xla" / "train"
    folder.mkdir(parents=True)
    feat = np.full((1159, 24), 7.0, np.float32)
    feat[:, 0] = np.arange(1159)
    np.savez(folder / "g.npz", config_feat=feat, config_runtime=np.arange(1, 1160, dtype=np.int64),
             config_runtime_normalizers=np.ones(1159, np.int64), node_feat=np.ones((3, 140), np.float32))
    graph = next(iter_graphs(DataRoot(tmp_path), "tile:xla", "train", progress=False))
    x = design(graph)
    log_feature = np.log1p(7.0)  # the log1p column of a constant config_feat column
    assert np.full(1159, log_feature).mean() != log_feature  # its float64 mean is inexact: the check can fail
    varying = {0, 24}  # config_feat[:, 0] and its log1p, in each of the 4 blocks (× 1, × aggregates)
    for column in range(x.shape[1]):
        if column % 48 not in varying:
            assert (x[:, column] == 0.0).all(), column


@pytest.mark.parametrize("split", ["valid", "test"])
def test_learned_real_file_digest(tmp_path, realdata, split):
    from tpugraphs_kit.cli_baseline import main as baseline_main

    out = tmp_path / "l.csv"
    assert baseline_main(["learned", "--split", split, "--data-root", str(realdata / "tpugraphs"),
                          "--fill-random", "0", "-o", str(out), "--no-progress"]) == 0
    assert hashlib.sha256(out.read_bytes()).hexdigest() == REAL_DIGESTS[split]
