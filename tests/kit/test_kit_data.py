"""Kit data access (tpugraphs_kit.data): listing, lazy loading, block reading, on the demo, a data root made
here, and the real files (../shared/realdata, skipped when absent).

Expected values come from numpy reading the same .npz files directly (np.load), from the demo generator's
published counts (tpugraphs_eval.demo.generate: 80/24/40 tile graphs, 6/3/3 per layout collection), and
from ../shared/realdata/README.md (unet_3d.4x4.bf16 of xla:default valid: 1965 configs, 1924 distinct runtimes).
"""

from __future__ import annotations

import zipfile

import numpy as np
import pytest

from tpugraphs_eval import DataRoot, scan_catalog
from tpugraphs_kit import KitError, iter_graphs, iter_split, list_graphs, load_graph, present_collections
from tpugraphs_kit.cli_data import main as data_main


def test_list_graphs_demo_counts(demo_root):
    """Counts published by the demo generator (docs/kit.md "Data": 80/24/40 tile, 6/3/3 per layout collection)."""
    assert [len(list_graphs(demo_root, "tile:xla", s)) for s in ("train", "valid", "test")] == [80, 24, 40]
    for name in ("layout:xla:default", "layout:xla:random", "layout:nlp:default", "layout:nlp:random"):
        assert [len(list_graphs("demo", name, s)) for s in ("train", "valid", "test")] == [6, 3, 3]
    names = list_graphs(demo_root, "layout:xla:default", "valid")
    assert names == sorted(p.stem for p in (demo_root.path / "npz/layout/xla/default/valid").glob("*.npz"))
    assert present_collections(demo_root, "valid") == ["tile:xla", "layout:xla:default", "layout:xla:random",
                                                       "layout:nlp:default", "layout:nlp:random"]


def test_load_graph_reads_only_the_keys_asked(demo_root):
    graph = load_graph(demo_root, "layout:xla:default", "valid", "unet_3d.4x4.bf16", keys=["config_runtime"])
    assert graph.loaded == ["config_runtime"]
    with np.load(graph.path, allow_pickle=False) as npz:  # independent read
        expected = {k: npz[k] for k in npz.files}
    np.testing.assert_array_equal(graph["config_runtime"], expected["config_runtime"])
    assert graph.n_configs == 1965 and graph.loaded == ["config_runtime"]
    assert graph["node_config_feat"].dtype == np.float32 and graph["node_config_feat"].shape[0] == 1965
    assert graph.loaded == ["config_runtime", "node_config_feat"]
    np.testing.assert_array_equal(graph["node_config_feat"], expected["node_config_feat"])
    assert graph.id == "layout:xla:default:unet_3d.4x4.bf16"
    assert set(graph.keys()) == set(expected)


def test_tile_runtimes_are_normalised_like_the_evaluator(demo_root):
    name = list_graphs(demo_root, "tile:xla", "valid")[5]
    graph = load_graph(demo_root, "tile:xla", "valid", name)
    with np.load(graph.path) as npz:
        expected = npz["config_runtime"].astype(np.float64) / npz["config_runtime_normalizers"]
        raw = npz["config_runtime"]
    np.testing.assert_array_equal(graph.runtimes(), expected)
    np.testing.assert_array_equal(graph.runtimes("raw"), raw)
    assert graph["config_feat"].shape == (raw.size, 24)


def test_iter_rows_matches_full_array(demo_root):
    graph = load_graph(demo_root, "layout:nlp:random", "valid",
                       "bert_multi_cased_L-12_H-768_A-12_batch_size_16_train")
    with np.load(graph.path) as npz:
        full = npz["node_config_feat"]
    blocks = list(graph.iter_rows("node_config_feat", rows=300))
    assert [start for start, _ in blocks] == list(range(0, full.shape[0], 300))
    np.testing.assert_array_equal(np.concatenate([b for _, b in blocks]), full)
    assert graph.loaded == []  # block reading keeps nothing


def _root_with_broken_member(tmp_path) -> DataRoot:
    """A layout graph whose node_config_feat member is garbage: reading it must fail, reading runtimes must not."""
    folder = tmp_path / "npz/layout/xla/default/valid"
    folder.mkdir(parents=True)
    good = tmp_path / "good.npz"
    np.savez(good, config_runtime=np.array([30, 10, 20], dtype=np.int64), node_feat=np.zeros((4, 140), np.float32))
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(folder / "g.npz", "w") as dst:
        for item in src.infolist():
            dst.writestr(item, src.read(item))
        dst.writestr("node_config_feat.npy", b"\x93NUMPY garbage, not an array")
    return DataRoot(tmp_path)


def test_runtimes_alone_never_read_node_config_feat(tmp_path, monkeypatch):
    root = _root_with_broken_member(tmp_path)
    from tpugraphs_eval.truth import npz

    read = []
    original = npz.read_array
    monkeypatch.setattr(npz, "read_array", lambda archive, info, key, **kw: read.append(key) or original(archive, info, key, **kw))
    graph = load_graph(root, "layout:xla:default", "valid", "g", keys=["config_runtime"])
    np.testing.assert_array_equal(graph.runtimes(), [30, 10, 20])
    assert read == ["config_runtime"]
    assert [g.n_configs for g in iter_graphs(root, "layout:xla:default", "valid", ["config_runtime"], progress=False)] == [3]
    with pytest.raises(KitError) as err:
        graph["node_config_feat"]
    assert err.value.code == "UNREADABLE_GRAPH"


def test_errors_are_coded(demo_root):
    for call, code in ((lambda: list_graphs(demo_root, "tile", "valid"), "UNKNOWN_COLLECTION"),
                       (lambda: list_graphs(demo_root, "tile:xla", "dev"), "UNKNOWN_SPLIT"),
                       (lambda: load_graph(demo_root, "tile:xla", "valid", "nope"), "GRAPH_NOT_FOUND"),
                       (lambda: load_graph(demo_root, "layout:xla:default", "valid", "unet_3d.4x4.bf16",
                                           keys=["config_feat"]), "MISSING_KEY")):
        with pytest.raises(KitError) as err:
            call()
        assert err.value.code == code and err.value.exit_code == 2


def test_iter_graphs_progress_and_order(demo_root):
    graphs = list(iter_graphs(demo_root, "layout:xla:random", "train", ["config_runtime"], progress=True))
    assert [g.name for g in graphs] == list_graphs(demo_root, "layout:xla:random", "train")
    assert all(g.loaded == ["config_runtime"] for g in graphs)


def test_data_cli_info_and_list(capsys):
    assert data_main(["info", "--data-root", "demo"]) == 0
    out = capsys.readouterr().out
    assert "SYNTHETIC" in out and "tile:xla" in out and "80" in out
    assert data_main(["list", "--data-root", "demo", "--collection", "layout:xla:default", "--split", "valid"]) == 0
    assert "unet_3d.4x4.bf16" in capsys.readouterr().out.split()
    assert data_main(["info", "--data-root", "/nonexistent/root"]) == 2
    err = capsys.readouterr().err
    assert "error: [DATA_ERROR]" in err and "Traceback" not in err


# ------------------------------------------------------------------ real files (skipped when absent)

def test_realdata_access(realdata):
    root = realdata / "tpugraphs"
    assert list_graphs(root, "tile:xla", "valid") == ["inception_v3_batch_128_train_426e203f19335d17"]
    assert list_graphs(root, "layout:nlp:default", "valid") == []  # the sample has no nlp valid graphs
    graph = load_graph(root, "layout:xla:default", "valid", "unet_3d.4x4.bf16", keys=["config_runtime"])
    y = graph.runtimes()
    assert graph.loaded == ["config_runtime"]
    assert y.dtype == np.int64 and y.size == 1965 and np.unique(y).size == 1924  # realdata README
    with np.load(graph.path) as npz:
        full = npz["node_config_feat"]
    assert full.dtype == np.float32 and full.shape[0] == 1965 and full.shape[2] == 18
    np.testing.assert_array_equal(np.concatenate([b for _, b in graph.iter_rows("node_config_feat", 500)]), full)
    tile = load_graph(root, "tile:xla", "valid", "inception_v3_batch_128_train_426e203f19335d17")
    assert tile["config_feat"].shape == (9, 24) and tile["node_opcode"].dtype == np.uint8
    test_graph = next(iter_graphs(root, "layout:nlp:default", "test", ["config_runtime"], progress=False))
    assert test_graph.n_configs == 1001 and not test_graph["config_runtime"].any()  # public test: all zeros


def test_iter_split_covers_every_collection(demo_root):
    graphs = list(iter_split(demo_root, "valid", ["config_runtime"], progress=True))
    assert [g.id for g in graphs] == list(scan_catalog(demo_root, "valid").index)  # the evaluator's order
    assert len(graphs) == 36
