"""Validating predictions (tpugraphs_eval.submission.predictions): every problem in one pass, each with its code,
line (CSV) or row (Parquet) and ID, for a mapping, a CSV or Parquet table and an npz archive.

Each bad input below holds faults worked out by hand; the test lists the codes (and lines) they must give.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from tpugraphs_eval import UsageError, load_ground_truth
from tpugraphs_eval.submission.predictions import validate_predictions
from tpugraphs_eval.submission.problems import CODES, Severity

PREDICTION_CODES = ("PREDICTIONS_UNREADABLE", "PREDICTIONS_COLUMNS", "PREDICTION_WRONG_SHAPE", "PREDICTION_BAD_CONFIG",
                    "PREDICTION_DUPLICATE_CONFIG", "PREDICTION_MISSING_CONFIGS", "PREDICTION_NOT_NUMBER",
                    "PREDICTION_NAN", "PREDICTION_INFINITE")


@pytest.fixture(scope="module")
def truth(demo_root):
    return load_ground_truth(demo_root, "valid")


@pytest.fixture(scope="module")
def good(truth) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    return {graph_id: rng.normal(size=ref.n_configs) for graph_id, ref in truth.catalog.index.items()}


def _table(predictions: dict[str, np.ndarray]) -> pl.DataFrame:
    ids, configs, values = [], [], []
    for graph_id, array in predictions.items():
        ids += [graph_id] * array.size
        configs += list(range(array.size))
        values += array.tolist()
    return pl.DataFrame({"ID": ids, "config": configs, "prediction": values})


def _codes(validation) -> list[str]:
    return sorted(p.code for p in validation.problems)


def test_every_prediction_code_is_registered_as_an_error_in_both_modes():
    for code in PREDICTION_CODES:
        assert CODES[code].strict == CODES[code].lenient == Severity.ERROR


def test_good_predictions_of_every_source_validate_and_agree(truth, good, tmp_path):
    _table(good).write_csv(tmp_path / "p.csv")
    _table(good).sample(fraction=1.0, shuffle=True, seed=1).write_parquet(tmp_path / "p.parquet")  # any row order
    np.savez(tmp_path / "p.npz", **good)
    parsed = []
    for source in (good, tmp_path / "p.csv", tmp_path / "p.parquet", tmp_path / "p.npz"):
        validation, predictions = validate_predictions(source, truth.catalog)
        assert validation.valid and validation.problems == [], (source, validation.problems)
        parsed.append(predictions.values)
    for other in parsed[1:]:
        for name, graphs in parsed[0].items():
            for g, values in graphs.items():
                np.testing.assert_array_equal(other[name][g], values)


def test_a_mapping_with_every_fault_gives_every_problem_in_one_pass(truth, good):
    ids = list(good)
    bad = dict(good)
    bad[ids[0]] = good[ids[0]][:-1]                                  # one prediction short
    bad[ids[1]] = np.where(np.arange(good[ids[1]].size) < 2, np.nan, good[ids[1]])  # two NaN
    bad[ids[2]] = np.where(np.arange(good[ids[2]].size) == 0, -np.inf, good[ids[2]])  # one -inf
    bad[ids[3]] = np.array(["fast"] * good[ids[3]].size)             # text
    bad[ids[4]] = good[ids[4]].reshape(1, -1)                        # (1, c): a model's batch of one
    del bad[ids[5]]                                                   # missing
    bad["layout:xla:default:nosuchgraph"] = np.zeros(3)              # unknown
    validation, _ = validate_predictions(bad, truth.catalog)
    assert _codes(validation) == sorted(["PREDICTION_WRONG_SHAPE", "PREDICTION_NAN", "PREDICTION_INFINITE",
                                         "PREDICTION_NOT_NUMBER", "PREDICTION_WRONG_SHAPE", "MISSING_IDS",
                                         "UNKNOWN_ID"])
    by_code = {p.code: p for p in validation.problems}
    assert by_code["PREDICTION_NAN"].id == ids[1] and "2 of" in by_code["PREDICTION_NAN"].message
    assert "entries 0, 1" in by_code["PREDICTION_NAN"].message
    assert ids[5] in by_code["MISSING_IDS"].message and validation.missing_ids
    assert not validation.valid and validation.n_rows == len(bad)


def test_a_csv_table_with_every_fault_names_lines_and_ids(truth, good, tmp_path):
    tile = [i for i in good if i.startswith("tile:")][0]
    c = good[tile].size
    lines = ["ID,config,prediction"]
    lines += [f"{tile},{k},{0.5 * k}" for k in range(c)]   # lines 2 .. c+1, all good
    lines[2] = f"{tile},1,nan"                               # line 3: NaN
    lines[3] = f"{tile},2,abc"                               # line 4: not a number
    lines[4] = f"{tile},3,inf"                               # line 5: infinite
    lines.append(f"{tile},0,7.0")                            # line c+2: config 0 again
    lines.append(f"{tile},{c},1.0")                          # line c+3: no such config
    lines.append(f"{tile},x,1.0")                            # line c+4: not a config
    del lines[6]                                             # config 5 missing (line numbers after it shift)
    other = {k: v for k, v in good.items() if k != tile}
    body = "\n".join(lines) + "\n" + _table(other).write_csv(include_header=False)
    (tmp_path / "p.csv").write_text(body)
    validation, _ = validate_predictions(tmp_path / "p.csv", truth.catalog)
    problems = {p.code: p for p in validation.problems}
    assert sorted(problems) == ["PREDICTION_BAD_CONFIG", "PREDICTION_DUPLICATE_CONFIG", "PREDICTION_INFINITE",
                                "PREDICTION_MISSING_CONFIGS", "PREDICTION_NAN", "PREDICTION_NOT_NUMBER"]
    assert all(p.id == tile for p in problems.values())
    assert problems["PREDICTION_NAN"].line == 3 and problems["PREDICTION_NOT_NUMBER"].line == 4
    assert "`abc`" in problems["PREDICTION_NOT_NUMBER"].message
    assert problems["PREDICTION_INFINITE"].line == 5
    assert problems["PREDICTION_DUPLICATE_CONFIG"].line == c + 1 and "config 0" in problems[
        "PREDICTION_DUPLICATE_CONFIG"].message
    assert problems["PREDICTION_BAD_CONFIG"].line == c + 2 and "`x`" in problems["PREDICTION_BAD_CONFIG"].message
    assert f"1 of the {c} configurations have no prediction: 5." in problems["PREDICTION_MISSING_CONFIGS"].message


def test_a_parquet_table_names_rows_and_reads_whole_float_configs(truth, good, tmp_path):
    table = _table(good).with_columns(pl.col("config").cast(pl.Float64))
    table.write_parquet(tmp_path / "ok.parquet")
    assert validate_predictions(tmp_path / "ok.parquet", truth.catalog)[0].valid
    broken = table.with_columns(pl.when(pl.int_range(pl.len()) == 3).then(2.5).otherwise(pl.col("config"))
                                .alias("config"))
    broken.write_parquet(tmp_path / "bad.parquet")
    validation, _ = validate_predictions(tmp_path / "bad.parquet", truth.catalog)
    problems = {p.code: p for p in validation.problems}
    assert sorted(problems) == ["PREDICTION_BAD_CONFIG", "PREDICTION_MISSING_CONFIGS"]  # config 3 became 2.5
    assert problems["PREDICTION_BAD_CONFIG"].line is None and "row 4 (`2.5`)" in problems["PREDICTION_BAD_CONFIG"].message


@pytest.mark.parametrize("content, code", [
    (b"", "EMPTY_FILE"),
    (b"PAR1 not really parquet", "PREDICTIONS_UNREADABLE"),
    (b"PK\x03\x04 not really a zip", "PREDICTIONS_UNREADABLE"),
    (b"ID,TopConfigs\ntile:xla:a,0;1;2\n", "PREDICTIONS_COLUMNS"),  # a ranking submission given as predictions
])
def test_unreadable_files_are_one_coded_problem(truth, tmp_path, content, code):
    (tmp_path / "p").write_bytes(content)
    validation, _ = validate_predictions(tmp_path / "p", truth.catalog)
    assert [p.code for p in validation.problems] == [code] and not validation.valid


def test_an_npz_member_larger_than_any_graph_needs_is_not_read(truth, good, tmp_path):
    big = dict(good)
    graph_id = next(iter(good))
    big[graph_id] = np.zeros(10**6)
    np.savez(tmp_path / "p.npz", **big)
    validation, _ = validate_predictions(tmp_path / "p.npz", truth.catalog)
    assert [(p.code, p.id) for p in validation.problems] == [("PREDICTION_WRONG_SHAPE", graph_id)]
    assert "it is not read" in validation.problems[0].message


def test_missing_path_and_other_types_are_usage_errors(truth, tmp_path):
    with pytest.raises(UsageError) as err:
        validate_predictions(tmp_path / "absent.csv", truth.catalog)
    assert err.value.code == "SUBMISSION_NOT_FOUND"
    with pytest.raises(UsageError, match="mapping"):
        validate_predictions([1, 2, 3], truth.catalog)


def test_official_tables_need_only_the_sampled_configs(demo_root, truth, good, tmp_path):
    from tpugraphs_eval import load_eval_indices

    indices, _ = load_eval_indices(demo_root.path / "eval_indices", truth.catalog)
    rows = []
    for graph_id, array in good.items():
        ref = truth.catalog.index[graph_id]
        keep = np.arange(array.size) if ref.collection.kind == "tile" else np.unique(
            indices[ref.collection.name][ref.position])
        rows.append(pl.DataFrame({"ID": [graph_id] * keep.size, "config": keep, "prediction": array[keep]}))
    pl.concat(rows).write_parquet(tmp_path / "p.parquet")
    assert validate_predictions(tmp_path / "p.parquet", truth.catalog, sampled=indices)[0].valid
    validation, _ = validate_predictions(tmp_path / "p.parquet", truth.catalog)  # all configs: some missing
    assert {p.code for p in validation.problems} == {"PREDICTION_MISSING_CONFIGS"}


def test_an_empty_prediction_cell_is_called_empty(truth, good, tmp_path):
    tile = [i for i in good if i.startswith("tile:")][0]
    lines = ["ID,config,prediction"] + [f"{tile},{k},{0.5 * k}" for k in range(good[tile].size)]
    lines[2] = f"{tile},1,"                                  # line 3: an empty cell (read as null)
    other = {k: v for k, v in good.items() if k != tile}
    (tmp_path / "p.csv").write_text("\n".join(lines) + "\n" + _table(other).write_csv(include_header=False))
    validation, _ = validate_predictions(tmp_path / "p.csv", truth.catalog)
    (problem,) = [p for p in validation.problems if p.code == "PREDICTION_NOT_NUMBER"]
    assert problem.line == 3 and "line 3 (empty)" in problem.message and "None" not in problem.message
