"""The prepared-truth cache (issue 17 item 1; docs/performance.md, "Prepared-truth cache"): the same reports with
and without it, never trusted when damaged or foreign, invalidated by any change of a source file."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from tpugraphs_eval import prepared_cache, resolve_data_root
from tpugraphs_eval.commands import evaluate as cli
from tpugraphs_eval.truth import npzread

SAMPLES = Path(__file__).resolve().parents[2] / "sample_submissions"
CSV = str(SAMPLES / "demo_random_test.csv")


@pytest.fixture
def root(demo_root, tmp_path, monkeypatch) -> Path:
    """A copy of the demo data root (its files may be touched) and an empty cache folder of this test."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv(prepared_cache.NO_CACHE_ENV, raising=False)
    copy = tmp_path / "root"
    shutil.copytree(demo_root.path / "npz", copy / "npz")
    return copy


@pytest.fixture
def reads(monkeypatch) -> dict[str, int]:
    """How often the .npz files are read (ground truth, catalog scans)."""
    counts = {"truth": 0, "catalog": 0}
    truth, catalog = npzread.load_ground_truth, npzread.scan_catalog

    def counted_truth(*args, **kwargs):
        counts["truth"] += 1
        return truth(*args, **kwargs)

    def counted_catalog(*args, **kwargs):
        counts["catalog"] += 1
        return catalog(*args, **kwargs)

    monkeypatch.setattr(npzread, "load_ground_truth", counted_truth)
    monkeypatch.setattr(npzread, "scan_catalog", counted_catalog)
    return counts


def score_json(root: Path, out: Path, *extra: str) -> bytes:
    assert cli.main([CSV, "--data-root", str(root), "--split", "test", "--json", str(out), "-q", *extra]) == 0
    return out.read_bytes()


def cache_file(root: Path, kind: str = "normalized") -> Path:
    return prepared_cache.cache_path(resolve_data_root(root), "test", kind)


def test_warm_cold_and_no_cache_runs_give_byte_identical_json(root, tmp_path, reads):
    cold = score_json(root, tmp_path / "cold.json")
    assert reads["truth"] == 1 and cache_file(root).is_file()
    assert cache_file(root).parent == tmp_path / "cache" / "tpugraphs-eval" / "prepared"  # $XDG_CACHE_HOME
    warm = score_json(root, tmp_path / "warm.json")
    assert reads["truth"] == 1  # the warm run read no .npz file
    bypass = score_json(root, tmp_path / "bypass.json", "--no-cache")
    assert reads["truth"] == 2
    assert cold == warm == bypass
    report = json.loads(warm)
    assert report["scored"] and len(report["provenance"]["ground_truth_sha256"]) == 64


def test_cached_truth_equals_the_npz_truth_array_by_array(root):
    data_root = resolve_data_root(root)
    read = npzread.load_ground_truth(data_root, "test")
    prepared_cache.load_ground_truth(data_root, "test")  # cold: writes the file
    cached = prepared_cache.load_ground_truth(data_root, "test")
    assert cached.sha256 == read.sha256
    assert cached.catalog.index == read.catalog.index
    from tpugraphs_eval.scoring.references import graph_references

    fresh = graph_references(read)
    for name, truth in read.collections.items():
        other = cached.collections[name]
        for field in ("values", "offsets", "best", "ranks", "n_distinct", "tied_pairs"):
            a, b = getattr(truth, field), getattr(other, field)
            assert (a is None) == (b is None)
            if a is not None:
                assert a.dtype == b.dtype and np.array_equal(a, b), (name, field)
        assert np.array_equal(cached.cache["graph_references"][name].random, fresh[name].random, equal_nan=True)
        assert np.array_equal(cached.cache["graph_references"][name].oracle, fresh[name].oracle, equal_nan=True)


@pytest.mark.parametrize("damage", ["flip", "truncate", "foreign", "garbage"])
def test_a_damaged_or_foreign_cache_file_is_rebuilt(root, tmp_path, reads, damage):
    reference = score_json(root, tmp_path / "a.json")
    path = cache_file(root)
    data = bytearray(path.read_bytes())
    if damage == "flip":
        data[-3] ^= 0x01  # in the arrays: only the checksum tells
    elif damage == "truncate":
        data = data[: len(data) - 9]
    elif damage == "foreign":  # intact, but made for the raw tile runtimes: another key
        assert cli.main([CSV, "--data-root", str(root), "--split", "test", "--tile-runtime", "raw", "-q"]) == 0
        data = bytearray(cache_file(root, "raw").read_bytes())
    else:
        data = bytearray(b"not a cache file")
    path.write_bytes(bytes(data))
    before = reads["truth"]
    assert score_json(root, tmp_path / "b.json") == reference
    assert reads["truth"] == before + 1  # read again from the .npz files
    data_root = resolve_data_root(root)
    key = prepared_cache._key(data_root, "test", "normalized", prepared_cache._listing(data_root, "test"))
    assert prepared_cache._decode(path, key) is not None  # rewritten intact
    assert score_json(root, tmp_path / "c.json") == reference
    assert reads["truth"] == before + 1  # and the rebuilt file is used


def test_touching_a_source_file_invalidates_the_cache(root, tmp_path, reads):
    reference = score_json(root, tmp_path / "a.json")
    graph = sorted((root / "npz" / "layout" / "xla" / "default" / "test").glob("*.npz"))[0]
    st = graph.stat()
    os.utime(graph, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    assert score_json(root, tmp_path / "b.json") == reference
    assert reads["truth"] == 2
    assert score_json(root, tmp_path / "c.json") == reference
    assert reads["truth"] == 2


def test_a_new_or_removed_graph_file_invalidates_the_cache(root, tmp_path, reads):
    score_json(root, tmp_path / "a.json")
    folder = root / "npz" / "tile" / "xla" / "test"
    graph = sorted(folder.glob("*.npz"))[0]
    graph.rename(folder / "zz_moved_aside.npz.off")
    code = cli.main([CSV, "--data-root", str(root), "--split", "test", "-q"])
    assert code == 1  # the submission now lists a graph the split lacks
    assert reads["truth"] == 2


def test_validate_uses_the_cached_config_counts(root, tmp_path, reads, capsys):
    score_json(root, tmp_path / "a.json")  # writes the truth and the catalog files
    assert cache_file(root, "catalog").is_file()
    assert cli.main(["validate", CSV, "--data-root", str(root), "--split", "test", "-q"]) == 0
    assert reads["catalog"] == 0  # no .npz opened
    assert cli.main(["validate", CSV, "--data-root", str(root), "--split", "test", "-q", "--no-cache"]) == 0
    assert reads["catalog"] == 1
    assert capsys.readouterr().out.count("VALID (52 rows, 0 warning(s))\n") == 2


def test_validate_alone_caches_the_catalog(root, reads):
    assert cli.main(["validate", CSV, "--data-root", str(root), "--split", "test", "-q"]) == 0
    assert cli.main(["validate", CSV, "--data-root", str(root), "--split", "test", "-q"]) == 0
    assert reads["catalog"] == 1 and cache_file(root, "catalog").is_file()


def test_no_cache_option_and_env_neither_read_nor_write(root, tmp_path, monkeypatch, reads):
    score_json(root, tmp_path / "a.json", "--no-cache")
    assert not (tmp_path / "cache").exists()
    monkeypatch.setenv(prepared_cache.NO_CACHE_ENV, "1")
    score_json(root, tmp_path / "b.json")
    score_json(root, tmp_path / "c.json")
    assert not (tmp_path / "cache").exists() and reads["truth"] == 3


def test_an_unwritable_cache_folder_still_scores(root, tmp_path, monkeypatch, reads):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))  # the cache folder would be inside a file
    assert score_json(root, tmp_path / "a.json") == score_json(root, tmp_path / "b.json", "--no-cache")


def test_the_cached_arrays_are_writable_copies_of_the_file(root):
    data_root = resolve_data_root(root)
    prepared_cache.load_ground_truth(data_root, "test")
    cached = prepared_cache.load_ground_truth(data_root, "test")
    values = next(iter(cached.collections.values())).values
    assert values.flags.writeable


def test_the_code_digest_is_the_source_digest_remembered_under_the_files_stat(tmp_path, monkeypatch):
    from tpugraphs_eval.source_digest import source_digest

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert prepared_cache.code_digest.__wrapped__() == source_digest()  # computed, then remembered
    [memo] = (tmp_path / "tpugraphs-eval" / "prepared").glob("code-*.digest")
    assert memo.read_text() == source_digest()
    memo.write_text("not a digest")
    assert prepared_cache.code_digest.__wrapped__() == source_digest()  # a damaged memo is not used
    assert memo.read_text() == source_digest()
