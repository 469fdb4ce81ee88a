"""`tpugraphs-eval export mlebench`: one competition folder that MLE-bench's own registry, prepare call and
grade_csv (../shared/clients/mle-bench/grade_competition.py) accept: the demo is prepared, a valid submission
gets the CLI's overall rounded to 5 decimals, an invalid one `valid_submission: false`."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from clients import grade_competition

from tpugraphs_eval import resolve_data_root, score_submission
from tpugraphs_eval.commands import evaluate as cli
from tpugraphs_eval.hosting.mlebench import checksums
from tpugraphs_eval.truth.solution import load_solution

yaml = pytest.importorskip("yaml")
ID = "tpugraphs-demo"


@pytest.fixture(scope="module")
def competition(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("mlebench") / "competitions" / ID
    assert cli.main(["export", "mlebench", "-o", str(out), "--data-root", "demo", "--seed", "mle-test-seed"]) == 0
    return out


@pytest.fixture(scope="module")
def prepared(competition, tmp_path_factory) -> tuple[Path, str]:
    """MLE-bench's data folder after its own prepare call on the demo's raw data root; (data dir, output)."""
    data = tmp_path_factory.mktemp("mle-data")
    done = grade_competition(competition, data, "--prepare", str(resolve_data_root("demo").path))
    assert done.returncode == 0, done.stdout + done.stderr
    return data, done.stdout


def test_the_folder_holds_mlebenchs_files(competition):
    assert sorted(p.name for p in competition.iterdir()) == [
        "checksums.yaml", "config.yaml", "description.md", "grade.py", "leaderboard.csv", "prepare.py",
        "tpugraphs_metric.py"]
    config = yaml.safe_load((competition / "config.yaml").read_text())
    assert config["id"] == ID and config["prizes"] is None and config["awards_medals"] is False
    assert config["dataset"] == {"answers": f"{ID}/prepared/private/answers.csv",
                                 "sample_submission": f"{ID}/prepared/public/sample_submission.csv"}
    assert config["grader"]["grade_fn"] == f"mlebench.competitions.{ID}.grade:grade"
    assert config["preparer"] == f"mlebench.competitions.{ID}.prepare:prepare"


def test_prepare_succeeds_and_gives_the_checksummed_files(competition, prepared):
    data, printed = prepared
    assert printed.startswith("prepared: True")
    sums = yaml.safe_load((competition / "checksums.yaml").read_text())
    for side in ("public", "private"):  # MLE-bench's prepare made the same bytes as the export's own run
        assert checksums(data / ID / "prepared" / side) == sums[side]
    assert "answers.csv" in sums["private"] and "sample_submission.csv" in sums["public"]


def _expected_random_tile(y: list[float], k: int = 5) -> float:
    """E[2 - min(k random distinct configs) / best], by the order statistics, in plain Python (math.comb)."""
    y, c = sorted(y), len(y)
    k = min(k, c)
    expected_min = math.fsum(y[i] * math.comb(c - 1 - i, k - 1) for i in range(c)) / math.comb(c, k)
    return 2 - expected_min / y[0]


def test_the_leaderboard_is_the_references_best_first(competition, prepared):
    data, _ = prepared
    private = data / ID / "prepared" / "private"
    import pandas as pd

    board = pd.read_csv(competition / "leaderboard.csv")
    assert list(board.teamName) == ["oracle", "learned baseline", "identity", "random ranking"]
    assert list(board.score) == sorted(board.score, reverse=True)
    assert board.note.str.startswith("reference, not a Kaggle board").all()
    truth = load_solution(private / "solution.parquet")
    sample = (data / ID / "prepared/public/sample_submission.csv").read_bytes()
    assert board.score[2] == score_submission(sample, truth).overall  # the CLI's overall of the sample submission
    answers = pd.read_csv(private / "answers.csv", dtype=str, keep_default_na=False)
    tile = answers[answers.ID.str.startswith("tile:")]
    tile_random = math.fsum(_expected_random_tile([int(r) / int(n) for r, n in zip(rt.split(";"), nz.split(";"))])
                            for rt, nz in zip(tile.runtimes, tile.normalizers)) / len(tile)
    assert board.score[3] == pytest.approx(tile_random / 5, rel=1e-12)  # layout: a random tau-b is 0 on average
    assert board.score[0] == pytest.approx(1.0, abs=1e-12)  # the oracle: tile 1, layout tau-b 1 (no ties here)


def test_mlebench_grades_a_valid_and_an_invalid_submission(competition, prepared, tmp_path):
    data, _ = prepared
    private = data / ID / "prepared" / "private"
    sample = data / ID / "prepared/public/sample_submission.csv"
    lines = sample.read_text().splitlines()
    lines[1] = lines[1].split(",")[0] + ",0;0;99999"
    bad = tmp_path / "bad.csv"
    bad.write_text("\n".join(lines) + "\n")
    done = grade_competition(competition, data, str(sample), str(bad))
    assert done.returncode == 0, done.stderr
    good_report, bad_report = (json.loads(line) for line in done.stdout.strip().splitlines())
    expected = score_submission(sample.read_bytes(), load_solution(private / "solution.parquet")).overall
    assert good_report["score"] == round(expected, 5) and good_report["valid_submission"] is True
    assert good_report["is_lower_better"] is False and good_report["competition_id"] == ID
    assert bad_report["score"] is None and bad_report["valid_submission"] is False
    assert bad_report["submission_exists"] is True
    assert "DUPLICATE_INDEX" in done.stderr and "INDEX_OUT_OF_RANGE" in done.stderr  # MLE-bench logs the message


def test_export_mlebench_refuses_a_name_that_is_not_an_id(tmp_path, capsys):
    assert cli.main(["export", "mlebench", "-o", str(tmp_path / "Not An Id"), "--data-root", "demo"]) == 2
    assert "is not a competition id" in capsys.readouterr().err
