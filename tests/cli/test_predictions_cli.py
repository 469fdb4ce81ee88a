"""``tpugraphs-eval --predictions FILE --split S``: the same JSON report as the API, exit 1 with coded problems for
bad predictions, exit 2 for usage errors (with submissions too, a missing file)."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest
from badinput import run_cli

from tpugraphs_eval import load_ground_truth, score_predictions


@pytest.fixture(scope="module")
def predictions(demo_root) -> dict[str, np.ndarray]:
    truth = load_ground_truth(demo_root, "valid")
    rng = np.random.default_rng(0)
    return {graph_id: rng.normal(size=ref.n_configs) for graph_id, ref in truth.catalog.index.items()}


def _write_table(predictions, path) -> None:
    ids = [i for i, a in predictions.items() for _ in range(a.size)]
    configs = [k for a in predictions.values() for k in range(a.size)]
    table = pl.DataFrame({"ID": ids, "config": configs, "prediction": np.concatenate(list(predictions.values()))})
    table.write_parquet(path) if path.suffix == ".parquet" else table.write_csv(path)


@pytest.mark.parametrize("suffix", [".parquet", ".csv", ".npz"])
def test_the_cli_reports_what_the_api_computes(predictions, demo_root, tmp_path, capsys, suffix):
    path = tmp_path / f"p{suffix}"
    np.savez(path, **predictions) if suffix == ".npz" else _write_table(predictions, path)
    code, text = run_cli(capsys, "--predictions", path, "--split", "valid", "--data-root", "demo", "--json",
                         tmp_path / "r.json")
    assert code == 0, text
    document = json.loads((tmp_path / "r.json").read_text())
    expected = score_predictions(predictions, demo_root, split="valid")
    assert document["overall"] == expected.overall and document["collections"] == expected.to_dict()["collections"]
    assert document["submission"] == str(path) and document["provenance"]["scored_from"] == "predictions"
    assert "OPA" in text  # beside tau-b in the terminal table


def test_bad_predictions_exit_1_with_coded_problems(predictions, tmp_path, capsys):
    bad = dict(predictions)
    first = next(iter(bad))
    bad[first] = np.full(bad[first].size, np.inf)
    _write_table(bad, tmp_path / "p.csv")
    code, text = run_cli(capsys, "score", "--predictions", tmp_path / "p.csv", "--split", "valid", "--data-root",
                         "demo")
    assert code == 1
    assert "PREDICTION_INFINITE" in text and first in text


def test_predictions_and_submissions_together_are_a_usage_error(predictions, tmp_path, capsys):
    _write_table(predictions, tmp_path / "p.csv")
    code, text = run_cli(capsys, "s.csv", "--predictions", tmp_path / "p.csv", "--split", "valid", "--data-root",
                         "demo")
    assert code == 2 and "[USAGE_ERROR]" in text and "--predictions" in text


def test_a_missing_predictions_file_is_a_coded_usage_error(tmp_path, capsys):
    code, text = run_cli(capsys, "--predictions", tmp_path / "absent.parquet", "--split", "valid", "--data-root",
                         "demo")
    assert code == 2 and "[SUBMISSION_NOT_FOUND]" in text and "absent.parquet" in text


def test_validate_checks_predictions_without_runtimes(predictions, tmp_path, capsys):
    short = {k: v[:-1] for k, v in predictions.items()}
    np.savez(tmp_path / "p.npz", **short)
    code, text = run_cli(capsys, "validate", "--predictions", tmp_path / "p.npz", "--split", "valid", "--data-root",
                         "demo")
    assert code == 1 and "PREDICTION_WRONG_SHAPE" in text
