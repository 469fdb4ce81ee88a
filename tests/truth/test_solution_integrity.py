"""Solution files that are corrupt, edited or unwritable (tpugraphs_eval.truth.solution; issue 7 item 4).

Each kind gives a coded DataError or UsageError (exit 2) naming the file; nothing loads a changed ground truth.
Expected values: the runtimes written into the tiny .npz files here, and the ground truth of the same .npz tree.
"""

from __future__ import annotations

import errno
import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from solution_rows import write_rows

from tpugraphs_eval import DataError, UsageError, load_ground_truth, resolve_data_root
from tpugraphs_eval.commands import evaluate as cli
from tpugraphs_eval.errors import ERROR_CODES
from tpugraphs_eval.truth.solution import MANIFEST_KEY, build_solution, load_solution, read_manifest


@pytest.fixture(scope="module")
def tiny_solution(tiny_root, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("integrity") / "test.parquet"
    build_solution(resolve_data_root(tiny_root), "test", path)
    return path


def _same_truth(a, b) -> bool:
    return a.sha256 == b.sha256 and all(
        (a.collections[n].values == b.collections[n].values).all()
        and (a.collections[n].public == b.collections[n].public).all() for n in a.collections)


def test_every_flipped_byte_is_refused_with_a_code_or_changes_nothing(tiny_solution, tmp_path):
    """Every third byte of the file flipped in turn: a coded DataError naming the file, or the same ground truth
    (bytes such as column statistics that nothing reads). On the old code some flips loaded other runtimes, and
    some made polars abort the process (a page header asking for 2^61 bytes)."""
    good = load_solution(tiny_solution)
    data = tiny_solution.read_bytes()
    bad = tmp_path / "flipped.parquet"
    refused = 0
    for i in range(0, len(data), 3):
        flipped = bytearray(data)
        flipped[i] ^= 0x01
        bad.write_bytes(flipped)
        try:
            loaded = load_solution(bad)
        except DataError as err:
            assert err.code in ERROR_CODES and err.code.startswith("SOLUTION_") and str(bad) in str(err), (i, err)
            refused += 1
            continue
        assert _same_truth(loaded, good), f"byte {i} flipped loads another ground truth"
    assert refused > len(data) // 6  # most bytes matter


def test_an_edited_runtime_is_a_checksum_mismatch(tiny_solution, tmp_path):
    frame = pl.read_parquet(tiny_solution)
    edited = tmp_path / "edited.parquet"
    write_rows(frame.with_columns(pl.when(pl.int_range(pl.len()) == 4).then(pl.col("runtime") + 1)
                                  .otherwise(pl.col("runtime")).alias("runtime")), edited, read_manifest(tiny_solution))
    with pytest.raises(DataError, match="do not match the manifest's sha256") as caught:
        load_solution(edited)
    assert caught.value.code == "SOLUTION_CHECKSUM_MISMATCH" and str(edited) in str(caught.value)
    # the data written unchanged but the manifest's column-data sha256 wrong: refused before decoding
    stale = tmp_path / "stale.parquet"
    manifest = {**read_manifest(tiny_solution), "data_sha256": "0" * 64}
    frame.write_parquet(stale, metadata={MANIFEST_KEY: json.dumps(manifest)})
    with pytest.raises(DataError, match="column data does not match") as caught:
        load_solution(stale)
    assert caught.value.code == "SOLUTION_CHECKSUM_MISMATCH"


def test_a_graph_moved_to_the_other_leaderboard_is_a_checksum_mismatch(tiny_solution, tmp_path):
    """The runtimes are unchanged, so only the public-graph counts can tell (the old code loaded it)."""
    frame = pl.read_parquet(tiny_solution)
    graph = frame["graph"][0]
    flipped = frame.with_columns(pl.when(pl.col("graph") == graph).then(
        pl.when(pl.col("usage") == "Public").then(pl.lit("Private")).otherwise(pl.lit("Public")))
        .otherwise(pl.col("usage")).alias("usage"))
    moved = tmp_path / "moved.parquet"
    write_rows(flipped, moved, read_manifest(tiny_solution))
    with pytest.raises(DataError, match="public-graph counts differ") as caught:
        load_solution(moved)
    assert caught.value.code == "SOLUTION_CHECKSUM_MISMATCH"


@pytest.mark.parametrize("column, change, shown", [
    ("runtime", pl.col("runtime") > 0, "runtime is Boolean"),             # every runtime would read as 1
    ("runtime", pl.col("runtime").cast(pl.Float64), "runtime is Float64"),
    ("config", pl.col("config").cast(pl.String), "config is String"),
    ("graph", pl.col("graph").cast(pl.Categorical).to_physical(), "graph is UInt32"),
])
def test_wrong_column_types_are_refused(tiny_solution, tmp_path, column, change, shown):
    odd = tmp_path / "odd.parquet"
    write_rows(pl.read_parquet(tiny_solution).with_columns(change.alias(column)), odd, read_manifest(tiny_solution))
    with pytest.raises(DataError, match=shown) as caught:
        load_solution(odd)
    assert caught.value.code == "SOLUTION_SCHEMA_INVALID" and str(odd) in str(caught.value)


@pytest.mark.parametrize("edit, shown", [
    (lambda m: m.pop("split"), "has split None"),
    (lambda m: m.update(split="dev"), "has split 'dev'"),
    (lambda m: m.pop("ground_truth_sha256"), "lacks the runtimes' sha256"),
    (lambda m: m.update(counts={"tile:xla": {"graphs": "2"}}), "lacks the counts"),
    (lambda m: m.update(synthetic="no"), "synthetic flag"),
])
def test_incomplete_manifests_are_refused(tiny_solution, tmp_path, edit, shown, capsys):
    manifest = read_manifest(tiny_solution)
    edit(manifest)
    odd = tmp_path / "manifest.parquet"
    pl.read_parquet(tiny_solution).write_parquet(odd, metadata={MANIFEST_KEY: json.dumps(manifest)})
    with pytest.raises(DataError, match=shown) as caught:
        load_solution(odd)
    assert caught.value.code == "SOLUTION_MANIFEST_INVALID"
    assert cli.main([str(tmp_path / "none.csv"), "--solution", str(odd)]) == 2  # the old code: KeyError, exit 3
    assert f"[SOLUTION_MANIFEST_INVALID] {odd}" in capsys.readouterr().err


def _float_root(root: Path, runtime: np.ndarray, normalizers: np.ndarray | None = None) -> Path:
    tile = root / "npz/tile/xla/test"
    tile.mkdir(parents=True, exist_ok=True)
    np.savez(tile / "g.npz", config_runtime=runtime,
             config_runtime_normalizers=np.ones(runtime.size, dtype=np.int64) if normalizers is None else normalizers)
    return root


def test_whole_float_runtimes_are_stored_exactly(tmp_path):
    # whole numbers as float64, one of them 2^53 (the largest range where every integer is a float)
    runtime = np.array([2.0**53, 1e15, 3.0, 123456789.0])
    root = resolve_data_root(_float_root(tmp_path / "root", runtime, np.array([1.0, 2.0, 4.0, 8.0])))
    out = tmp_path / "s.parquet"
    build_solution(root, "test", out)
    stored = pl.read_parquet(out)
    assert stored["runtime"].dtype == pl.Int64 and stored["runtime"].to_list() == [2**53, 10**15, 3, 123456789]
    assert stored["normalizer"].to_list() == [1, 2, 4, 8]
    loaded = load_solution(out)
    # the same digest as the .npz tree (the old code hashed float64 bytes there, int64 bytes in the solution)
    assert loaded.sha256 == load_ground_truth(root, "test").sha256 == read_manifest(out)["ground_truth_sha256"]
    assert loaded.collections["tile:xla"].values.tolist() == (runtime / [1, 2, 4, 8]).tolist()


@pytest.mark.parametrize("runtime, normalizers", [
    (np.array([1.5, 2.0, 3.0]), None),                                     # the old code stored 1
    (np.array([2**63, 5, 6], dtype=np.uint64), None),                      # the old code stored -2^63
    (np.array([10, 20, 30], dtype=np.int64), np.array([1.0, 0.25, 1.0])),  # a fractional normalizer
])
def test_runtimes_int64_cannot_hold_are_refused(tmp_path, runtime, normalizers, capsys):
    root = _float_root(tmp_path / "root", runtime, normalizers)
    out = tmp_path / "s.parquet"
    assert cli.main(["solution", "build", "--data-root", str(root), "--split", "test", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "[RUNTIME_NOT_INT64]" in err and f"{root}/npz/tile/xla/test/g.npz" in " ".join(err.split())
    assert not out.exists()


def test_a_full_disk_leaves_no_partial_file(tiny_root, tmp_path, monkeypatch, capsys):
    folder = tmp_path / "out"
    folder.mkdir()
    out = folder / "s.parquet"
    out.write_bytes(b"the previous file")
    real_write = pl.DataFrame.write_parquet

    def full_disk(self, file, **kwargs):
        if not isinstance(file, (str, Path)):
            return real_write(self, file, **kwargs)  # the in-memory draft
        Path(file).write_bytes(b"PAR1 half a file")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(pl.DataFrame, "write_parquet", full_disk)
    assert cli.main(["solution", "build", "--data-root", str(tiny_root), "--split", "test", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"[OUTPUT_WRITE_FAILED] cannot write the solution file {out}: No space left on device" in err
    assert [p.name for p in folder.iterdir()] == ["s.parquet"] and out.read_bytes() == b"the previous file"
    with pytest.raises(UsageError) as caught:
        build_solution(resolve_data_root(tiny_root), "test", folder / "new.parquet")
    assert caught.value.code == "OUTPUT_WRITE_FAILED" and not (folder / "new.parquet").exists()
