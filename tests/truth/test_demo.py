"""The synthetic demo data root: layout, dtypes, quirks, determinism, caching."""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from tpugraphs_eval.dataset import BY_NAME, COLLECTIONS, SPLITS
from tpugraphs_eval.demo import dataset as demo

# Pins the generator's output (runtimes and tile normalizers of every file, see fingerprint).
# If this changes, the demo data changed: bump demo.DEMO_VERSION and record the new value here.
EXPECTED_FINGERPRINT = "ded8a7cb32d38c90c36e0b37b2dc5a8514c8591ac72d7248cf2176308d2b38e9"

HEX32 = re.compile(r"[0-9a-f]{32}")
TILE_NAME = re.compile(r"(?P<program>.+)_-?[0-9a-f]{16}")


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dest = tmp_path_factory.mktemp("demo") / "root"
    demo.build_demo(dest)
    return dest


def _files(root: Path, collection: str, split: str) -> list[Path]:
    return sorted((root / BY_NAME[collection].split_dir(split)).glob("*.npz"))


def _names(root: Path, collection: str, split: str) -> set[str]:
    return {p.stem for p in _files(root, collection, split)}


def _load(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as npz:
        return {k: npz[k] for k in npz.files}


def test_every_collection_and_split_is_present(root: Path) -> None:
    for collection in COLLECTIONS:
        for split in SPLITS:
            assert _files(root, collection.name, split), f"{collection.name}/{split} is empty"
    assert [len(_files(root, "tile:xla", s)) for s in SPLITS] == [80, 24, 40]
    for collection in COLLECTIONS[1:]:
        assert [len(_files(root, collection.name, s)) for s in SPLITS] == [6, 3, 3]
    assert "SYNTHETIC" in (root / "SYNTHETIC.txt").read_text()
    assert f"version {demo.DEMO_VERSION}" in (root / "SYNTHETIC.txt").read_text()


@pytest.mark.parametrize("collection", [c.name for c in COLLECTIONS])
def test_keys_dtypes_and_shapes(root: Path, collection: str) -> None:
    kind = BY_NAME[collection].kind
    for split in SPLITS:
        for path in _files(root, collection, split):
            a = _load(path)
            n = a["node_feat"].shape[0]
            c = a["config_runtime"].shape[0]
            common = {"node_feat", "node_opcode", "edge_index", "config_runtime"}
            extra = (
                {"config_feat", "config_runtime_normalizers"}
                if kind == "tile"
                else {"node_config_feat", "node_config_ids", "node_splits"}
            )
            assert set(a) == common | extra, path
            assert a["node_feat"].dtype == np.float32 and a["node_feat"].shape == (n, 140)
            assert a["node_opcode"].dtype == np.uint8 and a["node_opcode"].shape == (n,)
            edges = a["edge_index"]
            assert edges.dtype == np.int64 and edges.ndim == 2 and edges.shape[1] == 2
            assert edges.min() >= 0 and edges.max() < n
            assert a["config_runtime"].dtype == np.int64 and a["config_runtime"].shape == (c,)
            if kind == "tile":
                assert 2 <= n <= 40
                assert a["config_feat"].dtype == np.float32 and a["config_feat"].shape == (c, 24)
                norm = a["config_runtime_normalizers"]
                assert norm.dtype == np.int64 and norm.shape == (c,)
                assert (norm > 0).all() and (norm == norm[0]).all()
            else:
                assert 50 <= c <= 2000 and 50 <= n <= 400
                ids = a["node_config_ids"]
                nc = ids.shape[0]
                assert ids.dtype == np.int64 and ids.ndim == 1 and 4 <= nc <= 24
                assert (np.diff(ids) > 0).all() and ids.max() < n
                assert a["node_config_feat"].dtype == np.float32
                assert a["node_config_feat"].shape == (c, nc, 18)
                splits = a["node_splits"]
                assert splits.dtype == np.int64 and splits.ndim == 2 and splits.shape[0] == 1


def test_all_runtimes_positive_test_split_included(root: Path) -> None:
    for collection in COLLECTIONS:
        for split in SPLITS:
            for path in _files(root, collection.name, split):
                with np.load(path, allow_pickle=False) as npz:
                    assert (npz["config_runtime"] > 0).all(), path


def test_tile_names_and_programs(root: Path) -> None:
    for split in ("train", "valid"):
        programs = Counter()
        for name in _names(root, "tile:xla", split):
            match = TILE_NAME.fullmatch(name)
            assert match, name
            programs[match["program"]] += 1
        assert len(programs) >= 3 and min(programs.values()) >= 3, programs
    assert any("_-" in name for name in _names(root, "tile:xla", "train"))
    assert all(HEX32.fullmatch(name) for name in _names(root, "tile:xla", "test"))


def _config_counts(root: Path, collection: str, split: str) -> dict[str, int]:
    out = {}
    for path in _files(root, collection, split):
        with np.load(path, allow_pickle=False) as npz:
            out[path.stem] = npz["config_runtime"].shape[0]
    return out


def test_tile_graphs_with_two_to_four_configs(root: Path) -> None:
    for split in SPLITS:
        counts = _config_counts(root, "tile:xla", split)
        few = [c for c in counts.values() if c < 5]
        assert set(few) == {2, 3, 4}, (split, few)
        if split == "test":
            assert len(few) >= 4
        assert sum(5 <= c <= 80 for c in counts.values()) > 0.8 * len(counts)


def test_layout_config_counts(root: Path) -> None:
    assert 1001 in _config_counts(root, "layout:nlp:default", "test").values()
    for collection in COLLECTIONS[1:]:
        valid = _config_counts(root, collection.name, "valid").values()
        assert min(valid) < 1000 < max(valid), collection.name


def test_test_names_are_shared_by_default_and_random(root: Path) -> None:
    for source in ("xla", "nlp"):
        default = _names(root, f"layout:{source}:default", "test")
        random = _names(root, f"layout:{source}:random", "test")
        assert all(HEX32.fullmatch(n) for n in default | random)
        assert default & random
    assert _names(root, "layout:xla:default", "valid") & _names(root, "layout:xla:random", "valid")


def _has_ties(runtime: np.ndarray) -> bool:
    return np.unique(runtime).size < runtime.size


def test_tied_runtimes_in_a_valid_graph_of_every_layout_collection(root: Path) -> None:
    for collection in COLLECTIONS[1:]:
        valid = _files(root, collection.name, "valid")
        assert any(_has_ties(_load(p)["config_runtime"]) for p in valid), collection.name
    tile_tied = [p for p in _files(root, "tile:xla", "train") if _has_ties(_load(p)["config_runtime"])]
    assert tile_tied


def test_duplicate_config_rows(root: Path) -> None:
    def duplicated(rows: np.ndarray) -> bool:
        flat = rows.reshape(rows.shape[0], -1)
        return np.unique(flat, axis=0).shape[0] < flat.shape[0]

    assert any(duplicated(_load(p)["config_feat"]) for s in SPLITS for p in _files(root, "tile:xla", s))
    for collection in COLLECTIONS[1:]:
        assert any(duplicated(_load(p)["node_config_feat"]) for p in _files(root, collection.name, "train"))


def test_eval_indices(root: Path) -> None:
    for collection in COLLECTIONS[1:]:
        lists = json.loads((root / "eval_indices" / f"{collection.eval_indices_name}.json").read_text())
        counts = _config_counts(root, collection.name, "valid")
        assert set(lists) == set(counts)
        for name, c in counts.items():
            idx = lists[name]
            assert len(idx) == 1000 and all(isinstance(i, int) and 0 <= i < c for i in idx)
            distinct = len(set(idx))
            assert distinct < 1000 if c < 1000 else distinct == 1000, (collection.name, name)


def test_total_size_on_disk(root: Path) -> None:
    total = sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
    assert total < 25_000_000


def fingerprint(root: Path) -> str:
    """SHA-256 over every ``npz/**/*.npz`` in sorted relative-path order: the relative path (``/`` separators),
    then ``config_runtime`` and, for tile files, ``config_runtime_normalizers`` as little-endian int64 bytes."""
    digest = hashlib.sha256()
    for rel, path in sorted((p.relative_to(root).as_posix(), p) for p in (root / "npz").rglob("*.npz")):
        digest.update(rel.encode("utf-8"))
        with np.load(path, allow_pickle=False) as npz:
            for key in ["config_runtime"] + [k for k in ("config_runtime_normalizers",) if k in npz.files]:
                digest.update(np.ascontiguousarray(npz[key], dtype="<i8").tobytes())
    return digest.hexdigest()


def test_fingerprint_is_deterministic_and_pinned(root: Path, tmp_path: Path) -> None:
    demo.build_demo(tmp_path / "again")
    first = fingerprint(root)
    assert fingerprint(tmp_path / "again") == first
    assert first == EXPECTED_FINGERPRINT
    assert (tmp_path / "again" / "eval_indices" / "xla_random.json").read_bytes() == (
        root / "eval_indices" / "xla_random.json"
    ).read_bytes()


def test_learned_ranking_beats_random_on_tile_valid(root: Path) -> None:
    """Least squares of log runtime on config_feat (tile train) vs a seeded random order."""
    train = [_load(p) for p in _files(root, "tile:xla", "train")]
    x = np.concatenate([a["config_feat"] for a in train]).astype(np.float64)
    y = np.concatenate([np.log(a["config_runtime"].astype(np.float64)) for a in train])
    w = np.linalg.lstsq(np.c_[x, np.ones(len(x))], y, rcond=None)[0]
    rng = np.random.default_rng(0)
    learned, random = [], []
    for path in _files(root, "tile:xla", "valid"):
        a = _load(path)
        runtime = a["config_runtime"]
        predicted = np.c_[a["config_feat"].astype(np.float64), np.ones(len(runtime))] @ w
        learned.append(runtime[np.argsort(predicted, kind="stable")[:5]].min() / runtime.min())
        random.append(runtime[rng.permutation(len(runtime))[:5]].min() / runtime.min())
    assert np.mean(learned) < 1.05
    assert np.mean(random) - np.mean(learned) > 0.1


# ------------------------------------------------------------------------------- caching


def test_demo_data_root_builds_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TPUGRAPHS_DEMO_CACHE", str(tmp_path))
    path = demo.demo_data_root()
    assert path == tmp_path / f"demo-v{demo.DEMO_VERSION}"
    assert (path / ".complete").is_file() and (path / "SYNTHETIC.txt").is_file()
    stamps = {p: p.stat().st_mtime_ns for p in (path / ".complete", path / "SYNTHETIC.txt")}
    assert demo.demo_data_root() == path
    assert {p: p.stat().st_mtime_ns for p in stamps} == stamps
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]  # no temporary folders left


def _fake_build(dest: Path) -> None:
    Path(dest).mkdir(parents=True, exist_ok=True)
    (Path(dest) / "SYNTHETIC.txt").write_text("fake")


def test_cache_location_falls_back_to_xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TPUGRAPHS_DEMO_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(demo, "build_demo", _fake_build)
    assert demo.demo_data_root() == tmp_path / "tpugraphs-eval" / f"demo-v{demo.DEMO_VERSION}"


def test_stale_root_without_marker_is_rebuilt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TPUGRAPHS_DEMO_CACHE", str(tmp_path))
    monkeypatch.setattr(demo, "build_demo", _fake_build)
    stale = tmp_path / f"demo-v{demo.DEMO_VERSION}"
    stale.mkdir()
    (stale / "half-written.npz").write_text("junk")
    path = demo.demo_data_root()
    assert path == stale and (path / ".complete").is_file()
    assert not (path / "half-written.npz").exists()


def test_losing_the_race_uses_the_winners_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TPUGRAPHS_DEMO_CACHE", str(tmp_path))
    target = tmp_path / f"demo-v{demo.DEMO_VERSION}"

    def build_while_another_process_finishes(dest: Path) -> None:
        _fake_build(dest)
        _fake_build(target)
        (target / "winner").write_text("")
        (target / ".complete").write_text(demo._manifest(target))

    monkeypatch.setattr(demo, "build_demo", build_while_another_process_finishes)
    assert demo.demo_data_root() == target
    assert (target / "winner").exists()
    assert sorted(os.listdir(tmp_path)) == [target.name]  # our temporary folder is gone


def test_damaged_root_is_rebuilt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file deleted or cut short after the build makes the root differ from its marker: rebuilt."""
    monkeypatch.setenv("TPUGRAPHS_DEMO_CACHE", str(tmp_path))
    monkeypatch.setattr(demo, "build_demo", _fake_build)
    path = demo.demo_data_root()
    (path / "SYNTHETIC.txt").write_text("cut")  # a different size
    assert not demo._intact(path)
    assert demo.demo_data_root() == path and demo._intact(path)
    (path / "SYNTHETIC.txt").unlink()
    assert demo.demo_data_root() == path and (path / "SYNTHETIC.txt").read_text() == "fake"


def test_unwritable_cache_is_a_data_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tpugraphs_eval.errors import DataError

    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("TPUGRAPHS_DEMO_CACHE", str(blocker / "cache"))  # a folder inside a file
    with pytest.raises(DataError, match="TPUGRAPHS_DEMO_CACHE"):
        demo.demo_data_root()
