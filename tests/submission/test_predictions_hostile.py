"""Hostile predictions files (issue 24 item 13; submission/predictions.py): each is a coded problem or error (exit 1
or 2), never an internal error (exit 3, the old code's outcome for each), and nothing the file only declares is
allocated: the npz members go through the one .npz reader (truth/npz.py), a Parquet table's row count is read
from its footer before anything is decoded."""

from __future__ import annotations

import io
import struct
import zipfile

import numpy as np
import polars as pl
import pytest
from handmade_npz import handmade_zip, npy

from tpugraphs_eval import load_ground_truth
from tpugraphs_eval.commands.evaluate import main
from tpugraphs_eval.submission import predictions
from tpugraphs_eval.submission.predictions import validate_predictions


@pytest.fixture(scope="module")
def truth(demo_root):
    return load_ground_truth(demo_root, "valid")


def _first(truth) -> tuple[str, int]:
    graph_id, ref = next(iter(truth.catalog.index.items()))
    return graph_id, ref.n_configs


def _codes(path, truth) -> list[str]:
    """The codes of the problems, but MISSING_IDS (the files below give one graph only)."""
    validation, _ = validate_predictions(path, truth.catalog)
    return sorted({p.code for p in validation.problems} - {"MISSING_IDS"})


@pytest.mark.parametrize("column", ["ID", "config", "prediction"])
@pytest.mark.parametrize("nested", ["list", "struct"])
def test_a_list_or_struct_column_is_a_coded_problem(column, nested, truth, tmp_path):
    graph_id, c = _first(truth)
    frame = pl.DataFrame({"ID": [graph_id] * c, "config": list(range(c)), "prediction": [float(i) for i in range(c)]})
    wrapped = pl.concat_list(column) if nested == "list" else pl.struct(column)
    frame.with_columns(wrapped.alias(column)).write_parquet(tmp_path / "p.parquet")
    assert _codes(tmp_path / "p.parquet", truth) == ["PREDICTIONS_UNREADABLE"]


def test_a_parquet_table_with_more_rows_than_the_limit_is_refused_from_its_footer(truth, tmp_path, monkeypatch):
    """The footer says how many rows the table holds: over twice the split's configurations (plus 1,000), no column
    is decoded (a 66 KB file of repeated rows reached 4.1 GB before)."""
    graph_id, c = _first(truth)
    limit = 2 * sum(int(g.n_configs.sum()) for g in truth.catalog.collections.values()) + 1000
    assert predictions.row_limit(truth.catalog) == limit
    rows = limit + 1
    pl.DataFrame({"ID": [graph_id] * rows, "config": [0] * rows, "prediction": [1.0] * rows}).write_parquet(
        tmp_path / "p.parquet")
    monkeypatch.setattr(pl, "read_parquet", None)  # decoding the table would fail the test
    validation, _ = validate_predictions(tmp_path / "p.parquet", truth.catalog)
    assert [p.code for p in validation.problems] == ["PREDICTIONS_UNREADABLE"]
    assert f"its footer declares {rows:,} rows, more than the limit of {limit:,}" in validation.problems[0].message


def _npz_with(tmp_path, graph_id: str, member: dict) -> str:
    path = tmp_path / "p.npz"
    path.write_bytes(handmade_zip([{"name": f"{graph_id}.npy", **member}]))
    return path


def test_an_npz_member_declaring_a_huge_shape_is_refused_unread(truth, tmp_path):
    graph_id, c = _first(truth)
    path = _npz_with(tmp_path, graph_id, {"raw": npy((1 << 40,), np.zeros(c).tobytes(), "<f8")})
    assert _codes(path, truth) == ["PREDICTION_WRONG_SHAPE"]


def test_an_encrypted_npz_member_is_a_coded_problem(truth, tmp_path):
    graph_id, c = _first(truth)
    path = _npz_with(tmp_path, graph_id, {"raw": npy((c,), np.zeros(c).tobytes(), "<f8"), "flags": 0x1})
    assert _codes(path, truth) == ["PREDICTIONS_UNREADABLE"]


def test_an_npy_header_with_a_5000_digit_shape_is_a_coded_problem(truth, tmp_path):
    graph_id, _ = _first(truth)
    header = "{'descr': '<f8', 'fortran_order': False, 'shape': (%s,), }" % ("9" * 5000)
    text = header.encode() + b" " * (-(10 + len(header) + 1) % 64) + b"\n"
    raw = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text + bytes(8)
    assert _codes(_npz_with(tmp_path, graph_id, {"raw": raw}), truth) == ["PREDICTION_NOT_NUMBER"]


def test_the_cli_exits_1_not_3_on_each(truth, demo_root, tmp_path, capsys):
    graph_id, c = _first(truth)
    bad = _npz_with(tmp_path, graph_id, {"raw": npy((c,), np.zeros(c).tobytes(), "<f8"), "flags": 0x1})
    assert main(["score", "--predictions", str(bad), "--data-root", "demo", "--split", "valid", "-q"]) == 1
    assert "internal error" not in capsys.readouterr().err


def test_a_valid_npz_still_reads(truth, tmp_path):
    buffer = io.BytesIO()
    np.savez(buffer, **{graph_id: np.arange(ref.n_configs, dtype=np.float64)
                        for graph_id, ref in truth.catalog.index.items()})
    (tmp_path / "p.npz").write_bytes(buffer.getvalue())
    assert zipfile.is_zipfile(tmp_path / "p.npz") and _codes(tmp_path / "p.npz", truth) == []
