"""``--collections C1,C2``: only the named collections are validated and scored (issue 9 item 4).

Expected values are worked by hand from the tiny data root (``badinput.py``): tile runtimes are
``config_runtime / config_runtime_normalizers``; the Kaggle tile score is ``2 - min(first 5) / best``;
layout tau-b comes from ``scipy.stats.kendalltau`` of list position against runtime.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from badinput import ROW_A, ROW_L, B, csv, run_cli, submit
from scipy.stats import kendalltau

from tpugraphs_eval import evaluate

ROW_B_SECOND_BEST = f"{B},1;2;3;4;5"
"""matmul: runtimes 1000 + 37 * ((7 i) % 25) / 5; indices 1..5 give 7, 14, 21, 3, 10 → best 1000 + 37 * 3 = 1111
against the graph's best 1000 (i = 0): score 2 - 1.111 = 0.889."""
TILE_VALUE = (1.0 + (2.0 - 1111 / 1000)) / 2  # conv_net row 0;1;2 holds its best (index 1): score 1
LAYOUT_TAU = kendalltau(np.arange(6), [600, 100, 500, 200, 400, 300]).statistic  # resnet_v1, row 0;1;2;3;4;5


def test_a_per_collection_file_scores_without_missing_ids(capsys, tmp_path, tiny_root):
    data = csv(ROW_A, ROW_B_SECOND_BEST)  # tile rows only
    code, text, report = submit(capsys, tmp_path, data, tiny_root, "--collections", "tile:xla")
    assert code == 0, text
    assert report["problem_counts"] == {} and report["missing_ids"] == {}
    assert report["selected_collections"] == ["tile:xla"]
    assert report["collections"] == {"tile:xla": pytest.approx(TILE_VALUE, abs=1e-12)}
    assert report["overall"] == pytest.approx(TILE_VALUE, abs=1e-12)
    assert report["missing_collections"] == []  # layout:xla:default is left out, not missing
    assert "collections tile:xla only (--collections): the overall is their mean" in text

    code, text, report = submit(capsys, tmp_path, data, tiny_root)  # without the option: layout rows missing
    assert code == 1 and report["problem_counts"] == {"MISSING_IDS": 1}
    assert report["selected_collections"] is None


def test_rows_of_left_out_collections_are_counted_not_scored(capsys, tmp_path, tiny_root):
    code, text, report = submit(capsys, tmp_path, csv(ROW_A, ROW_B_SECOND_BEST, ROW_L), tiny_root,
                                "--collections", "tile:xla")
    assert code == 0, text
    assert report["problem_counts"] == {"COLLECTION_NOT_SELECTED": 1}
    (problem,) = report["problems"]
    assert problem["severity"] == "info" and "1 row(s) of layout:xla:default (line 4)" in problem["message"]
    assert list(report["collections"]) == ["tile:xla"] and list(report["graphs"]) == [
        "tile:xla:conv_net_0123456789abcdef", "tile:xla:matmul_fedcba9876543210"]


def test_overall_is_the_mean_over_the_named_collections(capsys, tmp_path, tiny_root):
    data = csv(ROW_A, ROW_B_SECOND_BEST, ROW_L)
    code, text, report = submit(capsys, tmp_path, data, tiny_root, "--collections", "layout:xla:default, tile:xla")
    assert code == 0, text
    assert report["selected_collections"] == ["tile:xla", "layout:xla:default"]  # the dataset's order
    assert report["collections"]["layout:xla:default"] == pytest.approx(LAYOUT_TAU, abs=1e-12)
    assert report["overall"] == pytest.approx((TILE_VALUE + LAYOUT_TAU) / 2, abs=1e-12)
    code, _, layout_only = submit(capsys, tmp_path, data, tiny_root, "--collections", "layout:xla:default")
    assert code == 0 and layout_only["overall"] == pytest.approx(LAYOUT_TAU, abs=1e-12)


def test_validate_command_and_api_take_the_selection(capsys, tmp_path, tiny_root):
    path = tmp_path / "layout.csv"
    path.write_bytes(csv(ROW_L))
    code, text = run_cli(capsys, "validate", path, "--data-root", tiny_root, "--split", "test",
                         "--collections", "layout:xla:default")
    assert code == 0 and "VALID (1 rows, 0 warning(s))" in text
    report = evaluate(path, split="test", data_root=tiny_root, collections=["layout:xla:default"])
    assert report.valid and report.selected_collections == ["layout:xla:default"]
    assert math.isclose(report.overall, LAYOUT_TAU, abs_tol=1e-12)


@pytest.mark.parametrize(("value", "message"), [
    ("tile:xla,layout:xla:defualt", "unknown collection(s) layout:xla:defualt; the collections are tile:xla, "),
    ("layout:nlp:random", "has no layout:nlp:random graphs"),
    (",", "--collections names no collection"),
])
def test_bad_selections_are_usage_errors(capsys, tmp_path, tiny_root, value, message):
    code, text, report = submit(capsys, tmp_path, csv(ROW_A), tiny_root, "--collections", value)
    assert code == 2 and report is None
    assert "[USAGE_ERROR]" in text and message in text


def test_solution_leaderboards_keep_only_the_selection(capsys, tmp_path, demo_solution):
    sample = Path(__file__).resolve().parents[2] / "sample_submissions" / "demo_identity_test.csv"
    code, text = run_cli(capsys, sample, "--solution", demo_solution, "--collections", "tile:xla",
                         "--json", tmp_path / "r.json")
    assert code == 0, text
    report = json.loads((tmp_path / "r.json").read_text())
    full = evaluate(sample, split="test", data_root="demo").to_dict()
    assert report["overall"] == full["collections"]["tile:xla"]  # one collection: its value is the overall
    assert {board: list(s["collections"]) for board, s in report["leaderboards"].items()} == {
        "public": ["tile:xla"], "private": ["tile:xla"]}


def test_the_api_takes_one_collection_as_a_str_and_refuses_csv_text_given_as_a_str(tiny_root):
    """``collections="tile:xla"`` is one name (it was read letter by letter: "unknown collection(s) :, a, ..."); a
    str holding the CSV's text is read as a path, and the error says to pass bytes, without echoing the CSV; the
    report's random reference is a Python float, as every number of ``to_dict()`` (it was numpy's float64)."""
    from tpugraphs_eval import UsageError

    data = csv(ROW_A, ROW_B_SECOND_BEST)
    report = evaluate(data, split="test", data_root=tiny_root, collections="tile:xla")
    assert report.valid and list(report.collections) == ["tile:xla"]
    assert report.overall == pytest.approx(TILE_VALUE, abs=1e-12)
    text = data.decode() * 200
    with pytest.raises(UsageError) as err:
        evaluate(text, split="test", data_root=tiny_root)
    assert "pass the CSV's text as bytes" in str(err.value) and len(str(err.value)) < 200
    assert type(report.to_dict()["collection_details"]["tile:xla"]["random"]) is float  # not numpy's float64
