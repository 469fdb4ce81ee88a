"""`tpugraphs-eval export mlebench`: one competition folder that MLE-bench's own registry, prepare call and
grade_csv (../shared/clients/mle-bench/grade_competition.py) accept: the demo is prepared, a valid submission
gets the CLI's overall rounded to 5 decimals, an invalid one `valid_submission: false`; MLE-bench's verified
download-and-prepare (`mlebench prepare` without skipping verification) passes with and without
`--dataset-zip`."""

from __future__ import annotations

import hashlib
import json
import math
import zipfile
from pathlib import Path

import pytest
from clients import grade_competition, mlebench_download_and_prepare

from tpugraphs_eval import resolve_data_root, score_submission
from tpugraphs_eval.commands import evaluate as cli
from tpugraphs_eval.hosting.mlebench import checksums
from tpugraphs_eval.hosting.wheel import WHEEL_NAME
from tpugraphs_eval.truth.solution import load_solution

yaml = pytest.importorskip("yaml")
ID = "tpugraphs-demo"


@pytest.fixture(scope="module")
def dataset_zip(tmp_path_factory) -> Path:
    """The demo data root as a download: a zip holding `npz/...`, as MLE-bench extracts it into `raw/`."""
    root = resolve_data_root("demo").path
    path = tmp_path_factory.mktemp("download") / f"{ID}.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for file in sorted((root / "npz").rglob("*.npz")):
            archive.write(file, file.relative_to(root).as_posix())
    return path


@pytest.fixture(scope="module")
def organiser_root(tmp_path_factory, dataset_zip) -> Path:
    """The organiser's own copy of the download (another folder than MLE-bench's raw/)."""
    root = tmp_path_factory.mktemp("organiser") / "tpugraphs"
    with zipfile.ZipFile(dataset_zip) as archive:
        archive.extractall(root)
    return root


@pytest.fixture(scope="module")
def competition(tmp_path_factory, dataset_zip, organiser_root) -> Path:
    out = tmp_path_factory.mktemp("mlebench") / "competitions" / ID
    assert cli.main(["export", "mlebench", "-o", str(out), "--data-root", str(organiser_root), "--seed",
                     "mle-test-seed-0123456789", "--dataset-zip", str(dataset_zip)]) == 0
    return out


@pytest.fixture(scope="module")
def prepared(competition, tmp_path_factory, dataset_zip) -> tuple[Path, str]:
    """MLE-bench's data folder after its own prepare call on the download extracted into its raw/ folder (not
    the organiser's); (data dir, output)."""
    data = tmp_path_factory.mktemp("mle-data")
    raw = data / ID / "raw"
    with zipfile.ZipFile(dataset_zip) as archive:
        archive.extractall(raw)
    done = grade_competition(competition, data, "--prepare", str(raw))
    assert done.returncode == 0, done.stdout + done.stderr
    return data, done.stdout


def test_the_folder_holds_mlebenchs_files(competition):
    assert sorted(p.name for p in competition.iterdir()) == [
        "checksums.yaml", "config.yaml", "description.md", "grade.py", "leaderboard.csv", "prepare.py",
        "reference_scores.csv", WHEEL_NAME, "tpugraphs_metric.py"]
    config = yaml.safe_load((competition / "config.yaml").read_text())
    assert config["id"] == ID and config["prizes"] is None and config["awards_medals"] is False
    assert config["dataset"] == {"answers": f"{ID}/prepared/private/answers.csv",
                                 "sample_submission": f"{ID}/prepared/public/sample_submission.csv"}
    assert config["grader"]["grade_fn"] == f"mlebench.competitions.{ID}.grade:grade"
    assert config["preparer"] == f"mlebench.competitions.{ID}.prepare:prepare"
    text = " ".join((competition / "description.md").read_text().split())
    assert "the unweighted mean of the 5 collection values (`tile:xla`, `layout:xla:default`," in text


def test_prepare_succeeds_and_gives_the_checksummed_files(competition, prepared):
    data, printed = prepared
    assert printed.startswith("prepared: True")
    sums = yaml.safe_load((competition / "checksums.yaml").read_text())
    for side in ("public", "private"):  # MLE-bench's prepare made the same bytes as the export's own run
        assert checksums(data / ID / "prepared" / side) == sums[side]
    assert "answers.csv" in sums["private"] and "sample_submission.csv" in sums["public"]


def test_checksums_hold_the_download_zips_md5(competition, dataset_zip):
    sums = yaml.safe_load((competition / "checksums.yaml").read_text())
    assert sorted(sums) == ["private", "public", "zip"]  # the keys MLE-bench's own checksums.yaml files have
    assert sums["zip"] == hashlib.md5(dataset_zip.read_bytes()).hexdigest()


def test_mlebench_verifies_the_download_and_the_preparation(competition, dataset_zip, tmp_path):
    done = mlebench_download_and_prepare(competition, tmp_path / "data", dataset_zip)
    assert done.returncode == 0, done.stdout + done.stderr  # a wrong MD5 raises ValueError there
    assert json.loads(done.stdout) == yaml.safe_load((competition / "checksums.yaml").read_text())
    assert "matches the expected checksum" in done.stderr and "match the expected checksums" in done.stderr


def test_mlebench_refuses_another_download(competition, dataset_zip, tmp_path):
    """Not vacuous: MLE-bench does compare the zip's MD5 with the folder's checksums.yaml."""
    other = tmp_path / "other.zip"
    with zipfile.ZipFile(other, "w") as archive:
        archive.writestr("npz/README", "not the data")
    done = mlebench_download_and_prepare(competition, tmp_path / "data", other)
    assert done.returncode != 0 and "does not match the expected checksum" in done.stderr


def test_without_a_dataset_zip_no_checksums_file_and_mlebench_writes_its_own(dataset_zip, tmp_path):
    out = tmp_path / "competitions" / ID
    assert cli.main(["export", "mlebench", "-o", str(out), "--data-root", "demo", "--seed", "mle-test-seed-0123456789"]) == 0
    assert not (out / "checksums.yaml").exists()  # one without `zip:` would stop MLE-bench with a KeyError
    done = mlebench_download_and_prepare(out, tmp_path / "data", dataset_zip)
    assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(json.loads(done.stdout)) == ["private", "public", "zip"]


@pytest.mark.parametrize("kind", ["missing", "not a zip", "folder", "empty zip", "other files"])
def test_a_dataset_zip_that_is_not_a_zip_is_refused_before_anything_is_written(tmp_path, capsys, kind):
    given = tmp_path / "given.zip"
    if kind == "not a zip":
        given.write_text("ID,TopConfigs\n")
    elif kind == "folder":
        given.mkdir()
    elif kind in ("empty zip", "other files"):
        with zipfile.ZipFile(given, "w") as archive:  # a zip, but not the TpuGraphs download
            for name in (["a.csv", "b.csv", "data/npz/x.npz"] if kind == "other files" else []):
                archive.writestr(name, "x")
    out = tmp_path / "competitions" / ID
    assert cli.main(["export", "mlebench", "-o", str(out), "--data-root", "demo", "--dataset-zip", str(given)]) == 2
    err = capsys.readouterr().err
    assert "[DATASET_ZIP_INVALID]" in err and "Traceback" not in err
    assert not out.exists()


def _expected_random_tile(y: list[float], k: int = 5) -> float:
    """E[2 - min(k random distinct configs) / best], by the order statistics, in plain Python (math.comb)."""
    y, c = sorted(y), len(y)
    k = min(k, c)
    expected_min = math.fsum(y[i] * math.comb(c - 1 - i, k - 1) for i in range(c)) / math.comb(c, k)
    return 2 - expected_min / y[0]


def test_the_reference_scores_are_best_first_beside_the_leaderboard(competition, prepared):
    data, _ = prepared
    private = data / ID / "prepared" / "private"
    import pandas as pd

    board = pd.read_csv(competition / "reference_scores.csv")
    assert (competition / "leaderboard.csv").read_text() == (competition / "reference_scores.csv").read_text()
    assert set(board.teamName) == {"oracle", "learned baseline", "identity", "random ranking"}
    assert list(board.score) == sorted(board.score, reverse=True)
    assert board.note.str.startswith("reference, not a Kaggle board").all()
    truth = load_solution(private / "solution.parquet")
    sample = (data / ID / "prepared/public/sample_submission.csv").read_bytes()
    board = board.set_index("teamName").score
    assert board["identity"] == score_submission(sample, truth).overall  # the CLI's overall of the sample submission
    answers = pd.read_csv(private / "answers.csv", dtype=str, keep_default_na=False)
    tile = answers[answers.ID.str.startswith("tile:")]
    tile_random = math.fsum(_expected_random_tile([int(r) / int(n) for r, n in zip(rt.split(";"), nz.split(";"))])
                            for rt, nz in zip(tile.runtimes, tile.normalizers)) / len(tile)
    assert board["random ranking"] == pytest.approx(tile_random / 5, rel=1e-12)  # layout: a random tau-b is 0
    assert board["oracle"] == pytest.approx(1.0, abs=1e-12)  # the oracle: tile 1, layout tau-b 1 (no ties here)


def test_mlebench_takes_its_medals_from_kaggles_final_private_board(realdata, organiser_root, prepared, tmp_path,
                                                                   capsys):
    """Before: leaderboard.csv held 4 reference rows, so gold = silver = bronze = 1.0 (the oracle). With
    --kaggle-leaderboard it is the 2023 competition's final private board (617 teams); the thresholds are
    MLE-bench's own (grade_csv), at the positions of Kaggle's progression rules for 250-999 teams: gold the
    10 + int(0.002 * 617) = 11th score, silver the 50th, bronze the 100th; the median is pandas' median."""
    import csv
    import statistics

    board = realdata / "kaggle" / "leaderboard_2023.csv"
    with open(board, newline="") as handle:
        private = sorted((float(r["score"]) for r in csv.DictReader(handle) if r["board"] == "private"), reverse=True)
    assert len(private) == 617 and private[0] == 0.72608 and statistics.median(private) == 0.18937  # realdata README
    out = tmp_path / "competitions" / ID
    assert cli.main(["export", "mlebench", "-o", str(out), "--data-root", str(organiser_root), "--seed",
                     "mle-test-seed-0123456789", "--kaggle-leaderboard", str(board)]) == 0
    assert "WARNING" not in capsys.readouterr().err
    assert "not Kaggle's test split" in (out / "description.md").read_text()
    data, _ = prepared  # MLE-bench's preparation with the same seed: the same answers
    done = grade_competition(out, data, str(data / ID / "prepared/public/sample_submission.csv"))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert (report["gold_threshold"], report["silver_threshold"], report["bronze_threshold"]) == \
        (private[10], private[49], private[99]) == (0.69927, 0.59098, 0.36462)
    assert report["median_threshold"] == 0.18937


def test_without_a_kaggle_board_the_export_warns(competition, tmp_path, capsys):
    assert cli.main(["export", "mlebench", "-o", str(tmp_path / "x" / ID), "--data-root", "demo",
                     "--kaggle-leaderboard", str(competition / "config.yaml")]) == 2
    assert "[LEADERBOARD_FILE_INVALID]" in capsys.readouterr().err
    assert cli.main(["export", "mlebench", "-o", str(tmp_path / ID), "--data-root", "demo"]) == 0
    assert "WARNING: no --kaggle-leaderboard" in capsys.readouterr().err


@pytest.mark.parametrize("without_package", [False, True], ids=["package-installed", "package-absent"])
def test_mlebench_grades_a_valid_and_an_invalid_submission(competition, prepared, tmp_path, without_package):
    """Grading needs no install of the package: MLE-bench's registry imports prepare.py, which imports the package
    inside prepare() only (the package blocked from import: ``sys.modules[name] = None``)."""
    data, _ = prepared
    private = data / ID / "prepared" / "private"
    sample = data / ID / "prepared/public/sample_submission.csv"
    lines = sample.read_text().splitlines()
    lines[1] = lines[1].split(",")[0] + ",0;0;99999"
    bad = tmp_path / "bad.csv"
    bad.write_text("\n".join(lines) + "\n")
    done = grade_competition(competition, data, str(sample), str(bad),
                             blocked=("tpugraphs_eval", "tpugraphs_kit") if without_package else ())
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
