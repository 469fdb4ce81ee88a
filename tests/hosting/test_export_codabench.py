"""`tpugraphs-eval export codabench`: the bundle unpacks into a valid competition.yaml (v2), and its scoring
program, run as a Codabench compute worker runs it, gives tpugraphs-eval's public and private scores."""

from __future__ import annotations

import ast
import json
import os
import re
import shlex
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from csv_rows import csv_bytes, demo_rows

from tpugraphs_eval import score_submission
from tpugraphs_eval.commands import evaluate as cli
from tpugraphs_eval.dataset import COLLECTIONS
from tpugraphs_eval.hosting.metric_file import metric_source
from tpugraphs_eval.options import Options
from tpugraphs_eval.rules import csvshape, public_rule, sniff
from tpugraphs_eval.truth.solution import load_solution

yaml = pytest.importorskip("yaml")  # the test extra (Codabench reads competition.yaml with PyYAML)


def _key(collection: str) -> str:
    return collection.replace(":", "_")


@pytest.fixture(scope="module")
def bundle(demo_solution, tmp_path_factory) -> Path:
    """The bundle written as a zip and unpacked, as Codabench receives it."""
    work = tmp_path_factory.mktemp("codabench")
    assert cli.main(["export", "codabench", "-o", str(work / "bundle"), "--solution", str(demo_solution),
                     "--zip", str(work / "bundle.zip"), "--start", "2027-01-04"]) == 0
    with zipfile.ZipFile(work / "bundle.zip") as archive:
        archive.extractall(work / "unpacked")
    return work / "unpacked"


def run_worker(bundle: Path, task: int, submission_zip: Path, work: Path,
               python: str = sys.executable) -> tuple[subprocess.CompletedProcess, Path]:
    """Run the scoring program of ``task`` as a compute worker does: the task's reference data unpacked in
    input/ref, the submission zip in input/res, the command of metadata.yaml with /app/program (also the
    working directory), /app/input and /app/output mapped to these folders; ``python3`` is ``python``."""
    config = yaml.safe_load((bundle / "competition.yaml").read_text())
    spec = config["tasks"][task]
    program = bundle / spec["scoring_program"]
    for name in ("input/ref", "input/res", "output"):
        (work / name).mkdir(parents=True)
    for item in (bundle / spec["reference_data"]).iterdir():
        (work / "input/ref" / item.name).write_bytes(item.read_bytes())
    with zipfile.ZipFile(submission_zip) as archive:
        archive.extractall(work / "input/res")
    command = yaml.safe_load((program / "metadata.yaml").read_text())["command"]
    mapping = {"/app/program": str(program), "/app/input": str(work / "input"), "/app/output": str(work / "output")}
    argv = []
    for arg in shlex.split(command):
        for app, local in mapping.items():
            arg = arg.replace(app, local)
        argv.append(python if arg == "python3" else arg)
    done = subprocess.run(argv, cwd=program, capture_output=True, text=True, timeout=300)
    return done, work / "output" / "scores.json"


def _zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def test_competition_yaml_is_codabench_v2_and_names_files_that_exist(bundle):
    config = yaml.safe_load((bundle / "competition.yaml").read_text())
    assert config["version"] == 2 and config["title"] and (bundle / config["image"]).read_bytes()[:4] == b"\x89PNG"
    assert (bundle / config["terms"]).is_file()
    names = ("overview", "evaluation", "data", "terms")
    assert [p["file"] for p in config["pages"]] == [f"pages/{n}.md" for n in names]
    assert all((bundle / p["file"]).read_text().startswith("# ") for p in config["pages"])
    phases = config["phases"]
    assert [p["tasks"] for p in phases] == [[0], [1]] and phases[1]["auto_migrate_to_this_phase"] is True
    assert str(phases[0]["start"]) == "2027-01-04" and (phases[1]["start"] - phases[0]["end"]).days == 1
    for task in config["tasks"]:
        assert (bundle / task["scoring_program"] / "metadata.yaml").is_file()
        assert {p.name for p in (bundle / task["reference_data"]).iterdir()} == {"solution.csv", "settings.json"}
    assert [json.loads((bundle / t["reference_data"] / "settings.json").read_text())["usage"]
            for t in config["tasks"]] == ["Public", "Private"]
    assert (bundle / config["solutions"][0]["path"] / "submission.csv").is_file()
    columns = config["leaderboards"][0]["columns"]
    assert [c["key"] for c in columns] == ["overall", *(_key(c.name) for c in COLLECTIONS)]
    assert [c["index"] for c in columns] == list(range(6)) and {c["sorting"] for c in columns} == {"desc"}
    evaluation = (bundle / "pages/evaluation.md").read_text()
    assert "phase scores 14 graphs" in evaluation and "other 38 graphs" in evaluation  # demo: 10+1+1+1+1 public
    assert "| `tile:xla` | 40 | 10 |" in (bundle / "pages/data.md").read_text()


def test_scoring_program_needs_only_numpy_pandas_scipy(bundle):
    program = bundle / "scoring_program"
    assert {p.name for p in program.iterdir()} == {"metadata.yaml", "score.py", "tpugraphs_metric.py", "public_rule.py",
                                                  "sniff.py", "csvshape.py"}
    for name in ("score.py", "tpugraphs_metric.py", "public_rule.py", "sniff.py", "csvshape.py"):
        tree = ast.parse((program / name).read_text(), feature_version=(3, 9))
        imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        imported |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level == 0}
        assert imported - sys.stdlib_module_names <= {"numpy", "pandas", "scipy", "tpugraphs_metric", "public_rule",
                                                         "sniff", "csvshape"}, name
    assert (program / "public_rule.py").read_bytes() == Path(public_rule.__file__).read_bytes()
    assert (program / "sniff.py").read_bytes() == Path(sniff.__file__).read_bytes()
    assert (program / "csvshape.py").read_bytes() == Path(csvshape.__file__).read_bytes()
    assert (program / "tpugraphs_metric.py").read_text() == metric_source()  # codes.py and topconfigs.py inside


def test_worker_scores_equal_tpugraphs_eval_on_both_phases(bundle, demo_solution, tmp_path):
    truth = load_solution(demo_solution)
    data = csv_bytes(demo_rows(truth, "random", seed=5))
    report = score_submission(data, truth)  # tpugraphs-eval SUBMISSION --solution FILE
    submission = _zip(tmp_path / "submission.zip", {"predictions/submission.csv": data})
    for task, board in ((0, "public"), (1, "private")):
        done, scores_path = run_worker(bundle, task, submission, tmp_path / board)
        assert done.returncode == 0, done.stderr
        scores = json.loads(scores_path.read_text())
        expected = report.leaderboards[board]
        assert scores["overall"] == expected.overall
        # demo: public 10 tile graphs and 1 per layout collection (left out: 4 graphs, so tile is shown);
        # private 30 and 2 each (all shown). A layout column of the public phase would be one graph's tau-b.
        shown = ["tile:xla"] if board == "public" else [c.name for c in COLLECTIONS]
        assert [n for n, t in truth.collections.items() if int((t.public if board == "public" else ~t.public).sum())
                >= public_rule.MIN_PUBLIC_GRAPHS] == shown
        assert scores == {"overall": expected.overall, **{_key(name): expected.collections[name].value for name in shown}}
        assert board.capitalize() in done.stdout
        printed = set(re.findall(r"-?\d+\.\d+", done.stdout))  # numbers only: the SYNTHETIC line has words
        assert printed == {f"{v:.5f}" for v in scores.values()}


def test_worker_on_the_images_python_39(bundle, demo_solution, tmp_path):
    """Codabench's legacy image runs Python 3.9: with $TPUGRAPHS_PY39 naming a Python 3.9 that has numpy,
    pandas and scipy, the program runs there and gives the same numbers."""
    python = os.environ.get("TPUGRAPHS_PY39")
    if not python:
        pytest.skip("set TPUGRAPHS_PY39 to a Python 3.9 with numpy, pandas and scipy to run the program on it")
    version = subprocess.run([python, "-c", "import sys; print(sys.version_info[:2])"], capture_output=True, text=True)
    assert version.stdout.strip() == "(3, 9)"
    truth = load_solution(demo_solution)
    data = csv_bytes(demo_rows(truth, "random", seed=11))
    done, scores_path = run_worker(bundle, 1, _zip(tmp_path / "s.zip", {"s.csv": data}), tmp_path / "w", python)
    assert done.returncode == 0, done.stderr
    expected = score_submission(data, truth).leaderboards["private"].overall
    assert json.loads(scores_path.read_text())["overall"] == expected


def test_the_bundled_sample_submission_scores(bundle, tmp_path):
    data = (bundle / "sample_submission" / "submission.csv").read_bytes()
    done, scores_path = run_worker(bundle, 0, _zip(tmp_path / "s.zip", {"submission.csv": data}), tmp_path / "w")
    assert done.returncode == 0, done.stderr
    assert set(json.loads(scores_path.read_text())) == {"overall", "tile_xla"}  # the demo's public phase: see above


def test_a_bad_submission_fails_with_a_readable_error(bundle, demo_solution, tmp_path):
    truth = load_solution(demo_solution)
    rows = demo_rows(truth, "random", seed=6)
    tile, layout = (next(i for i in rows if i.startswith(p)) for p in ("tile:", "layout:"))
    rows[tile] = [0, 0, 99999]
    rows[layout] = rows[layout][:3]
    cases = {"rows": {"submission.csv": csv_bytes(rows)},
             "two-files": {"a.csv": csv_bytes(rows), "b.csv": csv_bytes(rows)},
             "binary": {"submission.csv": bytes(range(256)) * 4}}
    expected_text = {"rows": ["INDEX_OUT_OF_RANGE", "DUPLICATE_INDEX", "LAYOUT_NOT_PERMUTATION", "line ", tile],
                     "two-files": ["2 CSV files", "a.csv", "b.csv"],
                     "binary": ["line 1: NOT_TEXT: this is not a CSV text file: it contains NUL bytes"]}
    for name, members in cases.items():
        done, scores_path = run_worker(bundle, 0, _zip(tmp_path / f"{name}.zip", members), tmp_path / name)
        assert done.returncode == 1, (name, done.stderr)
        assert done.stderr.startswith("invalid submission") and "Traceback" not in done.stderr, name
        for text in expected_text[name]:
            assert text in done.stderr, (name, text)
        assert not scores_path.exists()
    package = score_submission(csv_bytes(rows), truth)
    assert not package.valid and {"INDEX_OUT_OF_RANGE", "DUPLICATE_INDEX", "LAYOUT_NOT_PERMUTATION"} <= {
        p.code for p in package.problems}


def test_lenient_bundle_scores_like_tpugraphs_eval_lenient(demo_root, tmp_path):
    assert cli.main(["export", "codabench", "-o", str(tmp_path / "b"), "--data-root", "demo", "--split", "valid",
                     "--lenient", "--tile-runtime", "raw"]) == 0
    from tpugraphs_eval.truth.solution import build_solution

    build_solution(demo_root, "valid", tmp_path / "valid.parquet")  # the bundle's default Usage draw
    truth = load_solution(tmp_path / "valid.parquet", tile_runtime="raw")
    rows = {i: (list(r) + list(range(6)) if i.startswith("tile:") else list(r)[: len(r) // 2])
            for i, r in demo_rows(truth, "random", seed=7).items()}
    report = score_submission(csv_bytes(rows), truth, Options(mode="lenient", tile_runtime="raw"))
    assert report.valid and {"TILE_TOO_MANY", "LAYOUT_NOT_PERMUTATION"} <= {p.code for p in report.problems}
    done, scores_path = run_worker(tmp_path / "b", 1, _zip(tmp_path / "s.zip", {"s.csv": csv_bytes(rows)}),
                                   tmp_path / "w")
    assert done.returncode == 0, done.stderr
    assert json.loads(scores_path.read_text())["overall"] == report.leaderboards["private"].overall


def test_usage_errors(demo_solution, tmp_path, capsys):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    assert cli.main(["export", "codabench", "-o", str(tmp_path / "full"), "--solution", str(demo_solution)]) == 2
    assert "not an empty folder" in capsys.readouterr().err
    assert cli.main(["export", "codabench", "-o", str(tmp_path / "b"), "--data-root", "demo"]) == 2
    assert "--split is required" in capsys.readouterr().err
    assert cli.main(["export", "codabench", "-o", str(tmp_path / "c"), "--solution", str(tmp_path / "full" / "x")]) == 2


def test_the_submission_folder_must_hold_one_csv(tmp_path):
    """In-process check of score.py's file rule (the worker runs above cover the subprocess path)."""
    from tpugraphs_eval.hosting import codabench_program

    res = tmp_path / "res"
    (res / "__MACOSX").mkdir(parents=True)
    (res / "__MACOSX" / "._submission.csv").write_bytes(b"\x00")
    (res / ".hidden.csv").write_text("x")
    (res / "notes.txt").write_text("hello")
    with pytest.raises(codabench_program._Invalid, match=r"no CSV file .*notes\.txt"):
        codabench_program._submission_csv(res)
    (res / "deep").mkdir()
    (res / "deep" / "Submission.CSV").write_text("ID,TopConfigs\n")
    assert codabench_program._submission_csv(res) == res / "deep" / "Submission.CSV"


def test_the_zip_is_the_same_bytes_on_every_run(demo_solution, tmp_path):
    """Two exports of one solution, the second under another umask, give byte-identical zips: every member
    is dated 1980-01-01 00:00:00 with fixed permissions (folders 0755, files 0644), members sorted by path."""
    zips = []
    for run, mask in enumerate((0o022, 0o077)):
        old = os.umask(mask)
        try:
            assert cli.main(["export", "codabench", "-o", str(tmp_path / f"b{run}"), "--solution", str(demo_solution),
                             "--zip", str(tmp_path / f"b{run}.zip"), "--start", "2027-01-04"]) == 0
        finally:
            os.umask(old)
        zips.append((tmp_path / f"b{run}.zip").read_bytes())
    assert zips[0] == zips[1]
    with zipfile.ZipFile(tmp_path / "b0.zip") as archive:
        infos = archive.infolist()
    names = [i.filename for i in infos]
    assert names == sorted(names) and "scoring_program/score.py" in names and "pages/" in names
    assert {i.date_time for i in infos} == {(1980, 1, 1, 0, 0, 0)}
    assert {i.filename: i.external_attr >> 16 for i in infos}["pages/"] == 0o40755
    assert {i.external_attr >> 16 for i in infos if not i.is_dir()} == {0o100644}


def test_a_bundle_of_the_synthetic_demo_says_so_everywhere(bundle, demo_solution, tmp_path):
    """docs/kit.md: the demo is labelled SYNTHETIC wherever it is shown; the solution's manifest says it is."""
    config = yaml.safe_load((bundle / "competition.yaml").read_text())
    assert config["title"] == "TpuGraphs: predict AI model runtime (SYNTHETIC demo data)"
    assert config["description"].startswith("SYNTHETIC demo data")
    assert config["leaderboards"][0]["title"] == "Results (SYNTHETIC data)"
    for page in config["pages"]:
        text = (bundle / page["file"]).read_text()
        assert text.split("\n")[2].startswith("> **SYNTHETIC demo data.**"), page["file"]
    data_page = (bundle / "pages/data.md").read_text()
    assert "The TpuGraphs dataset" not in data_page and "The synthetic demo dataset" in data_page
    assert "uses the TpuGraphs dataset" not in (bundle / "pages/terms.md").read_text()
    for task in config["tasks"]:
        assert json.loads((bundle / task["reference_data"] / "settings.json").read_text())["synthetic"] is True
    data = (bundle / "sample_submission" / "submission.csv").read_bytes()
    done, _ = run_worker(bundle, 0, _zip(tmp_path / "s.zip", {"s.csv": data}), tmp_path / "w")
    assert done.returncode == 0 and done.stdout.startswith("SYNTHETIC demo data: these scores say nothing")
    bad, _ = run_worker(bundle, 0, _zip(tmp_path / "b.zip", {"s.csv": b"ID,TopConfigs\n"}), tmp_path / "b")
    assert bad.returncode == 1 and bad.stdout.startswith("SYNTHETIC demo data")


def test_a_bundle_of_real_data_is_not_labelled_synthetic(tiny_bundle, tmp_path):
    texts = [p.read_text() for p in sorted(tiny_bundle.rglob("*")) if p.suffix in (".md", ".yaml")]
    assert len(texts) == 6 and not any("synthetic" in text.lower() for text in texts)
    assert json.loads((tiny_bundle / "reference_data_public/settings.json").read_text())["synthetic"] is False
    config = yaml.safe_load((tiny_bundle / "competition.yaml").read_text())
    assert config["title"] == "TpuGraphs: predict AI model runtime"
    assert "The TpuGraphs dataset (`npz/tile/xla/…`" in (tiny_bundle / "pages/data.md").read_text()
    data = (tiny_bundle / "sample_submission" / "submission.csv").read_bytes()
    done, _ = run_worker(tiny_bundle, 0, _zip(tmp_path / "s.zip", {"s.csv": data}), tmp_path / "w")
    assert done.returncode == 0 and done.stdout.startswith("Public leaderboard"), done.stderr


def test_one_extra_field_is_one_extra_columns_error(bundle, tmp_path):
    """The sample submission with `,extra` after line 2: the CLI's one EXTRA_COLUMNS error on line 2 (a pandas
    reader shifted every column and reported 109 errors)."""
    lines = (bundle / "sample_submission" / "submission.csv").read_text().splitlines(keepends=True)
    lines[1] = lines[1].rstrip("\n") + ",extra\n"
    graph_id = lines[1].split(",")[0]
    done, scores_path = run_worker(bundle, 0, _zip(tmp_path / "e.zip", {"e.csv": "".join(lines).encode()}),
                                   tmp_path / "w")
    assert done.returncode == 1 and not scores_path.exists()
    assert done.stderr == (f"invalid submission: 1 error(s)\n  line 2 {graph_id}: EXTRA_COLUMNS: the line has 3 "
                           "comma-separated fields; expected 2 (`ID,TopConfigs`). The first two are read.\n")


@pytest.mark.parametrize("case, expected", [
    ("no_mode", "`mode` is None"), ("bogus_mode", "`mode` is 'bogus'"), ("list", "holds a list"),
    ("secret_usage", "`usage` is 'Secret'"), ("no_columns", "solution.csv has no runtimes, normalizers"),
    ("output_is_file", "is a file"),
    ("nested_settings", "settings.json is nested too deeply"),
    ("lower_case_usage", "solution.csv: Usage 'public' on some rows; every row's Usage must be Public or Private"),
    ("read_only_output", "the output folder /sys cannot be written"),
    ("fifo_settings", "settings.json is not a regular file"), ("fifo_solution", "solution.csv is not a regular file"),
    ("dev_zero_settings", "settings.json is not a regular file"),
    ("dev_zero_solution", "solution.csv is not a regular file"),
    ("negative_runtime", "RUNTIME_NOT_POSITIVE: solution row tile:xla:"),
    ("zero_runtime", "RUNTIME_NOT_POSITIVE: solution row tile:xla:")])
def test_a_wrong_bundle_or_call_is_exit_2_with_one_line_before_scoring(case, expected, bundle, tmp_path):
    """Each malformed reference/settings/output case is EXIT_SETUP (2), one line naming the file, no traceback
    (the old program raised KeyError, ValueError, AttributeError, FileExistsError or exited 0 for Secret; a
    100,000-deep settings.json raised RecursionError, a lower-case Usage a ValueError and a read-only output
    folder a PermissionError, all exit 1; a FIFO hung and /dev/zero grew without bound; a negative runtime
    was scored). read_only_output uses /sys, where no file can be made even by root."""
    config = yaml.safe_load((bundle / "competition.yaml").read_text())
    good = bundle / config["solutions"][0]["path"] / "submission.csv"
    work = tmp_path / "w"
    ref = bundle / config["tasks"][0]["reference_data"]
    (work / "input/res").mkdir(parents=True)
    (work / "input/ref").mkdir()
    (work / "input/res/submission.csv").write_bytes(good.read_bytes())
    settings = json.loads((ref / "settings.json").read_text())
    solution = (ref / "solution.csv").read_text()
    if case == "no_mode":
        del settings["mode"]
    elif case == "bogus_mode":
        settings["mode"] = "bogus"
    elif case == "list":
        settings = []
    elif case == "secret_usage":
        settings["usage"] = "Secret"
    elif case == "no_columns":
        solution = "\n".join(",".join(f for f in line.split(",")[:1] + line.split(",")[-1:])
                             for line in solution.splitlines()) + "\n"
    elif case == "lower_case_usage":
        solution = solution.replace(",Public\n", ",public\n")
    elif case in ("negative_runtime", "zero_runtime"):
        lines = solution.splitlines(keepends=True)
        graph_id, runtimes, rest = lines[1].split(",", 2)
        lines[1] = ",".join([graph_id, ("-5;" if case == "negative_runtime" else "0;") + runtimes.split(";", 1)[1],
                             rest])
        solution = "".join(lines)
    (work / "input/ref/settings.json").write_text(json.dumps(settings))
    if case == "nested_settings":
        (work / "input/ref/settings.json").write_text("[" * 100_000 + "]" * 100_000)
    (work / "input/ref/solution.csv").write_text(solution)
    if case.startswith(("fifo_", "dev_zero_")):
        target = work / "input/ref" / ("settings.json" if case.endswith("settings") else "solution.csv")
        target.unlink()
        if case.startswith("fifo_"):
            os.mkfifo(target)
        elif Path("/dev/zero").exists():
            target.symlink_to("/dev/zero")
        else:
            pytest.skip("no /dev/zero here")
    output = work / "output"
    if case == "output_is_file":
        output.write_text("x")
    if case == "read_only_output":
        if not Path("/sys").is_dir():
            pytest.skip("no /sys here (a folder where no file can be made, even by root)")
        output = Path("/sys")
    done = subprocess.run([sys.executable, str(bundle / "scoring_program/score.py"), str(work / "input"),
                           str(output)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert expected in done.stderr and not (output / "scores.json").exists()
    assert "leaderboard" not in done.stdout


def _task_folder(bundle: Path, work: Path) -> Path:
    """``work/input`` with the Public task's reference data in ref/ and an empty res/; returns the bundle's
    reference folder."""
    ref = bundle / yaml.safe_load((bundle / "competition.yaml").read_text())["tasks"][0]["reference_data"]
    (work / "input/res").mkdir(parents=True)
    (work / "input/ref").mkdir()
    for name in ("settings.json", "solution.csv"):
        (work / "input/ref" / name).write_bytes((ref / name).read_bytes())
    return ref


def test_a_hard_link_in_the_submission_is_refused_like_a_link(bundle, tmp_path):
    """A hard link to the reference solution (the old program scored it as the participant's file)."""
    work = tmp_path / "w"
    _task_folder(bundle, work)
    os.link(work / "input/ref/solution.csv", work / "input/res/s.csv")
    done = subprocess.run([sys.executable, str(bundle / "scoring_program/score.py"), str(work / "input"),
                           str(work / "output")], capture_output=True, text=True, timeout=300)
    assert done.returncode == 1 and not (work / "output/scores.json").exists()
    assert done.stderr.strip() == ("invalid submission: NOT_REGULAR_FILE: the submission holds s.csv (a hard link); "
                                   "zip the CSV file itself")


def test_a_link_in_the_submission_is_refused_unread(bundle, tmp_path):
    """A link to the reference solution is not scored, and no runtime of it is echoed (the old program scored
    it and printed INDEX_OUT_OF_RANGE with the runtimes)."""
    work = tmp_path / "w"
    ref = _task_folder(bundle, work)
    (work / "input/res/s.csv").symlink_to("../ref/solution.csv")
    done = subprocess.run([sys.executable, str(bundle / "scoring_program/score.py"), str(work / "input"),
                           str(work / "output")], capture_output=True, text=True, timeout=300)
    assert done.returncode == 1
    assert done.stderr.strip() == ("invalid submission: NOT_REGULAR_FILE: the submission holds s.csv (a link); "
                                   "zip the CSV file itself")
    runtime = (ref / "solution.csv").read_text().splitlines()[1].split(",")[1].split(";")[0]
    assert runtime not in done.stderr + done.stdout


def test_archive_and_non_regular_refusals_are_coded(bundle, tmp_path):
    """A zip holding only ``sub.csv.gz`` is ARCHIVE_UNREADABLE (the CLI's code for a zip without one CSV
    member) and a FIFO named s.csv is NOT_REGULAR_FILE by name (the old program: uncoded, "it holds: nothing")."""
    done, scores = run_worker(bundle, 0, _zip(tmp_path / "gz.zip", {"sub.csv.gz": b"\x1f\x8b\x08\x00"}),
                              tmp_path / "gz")
    assert done.returncode == 1 and not scores.exists()
    assert done.stderr.strip() == ("invalid submission: ARCHIVE_UNREADABLE: the submission holds no CSV file (it "
                                   "must zip exactly one ID,TopConfigs CSV) (a compressed file inside the zip is "
                                   "not unpacked: zip the CSV itself); it holds: sub.csv.gz")
    work = tmp_path / "fifo"
    _task_folder(bundle, work)
    os.mkfifo(work / "input/res/s.csv")
    done = subprocess.run([sys.executable, str(bundle / "scoring_program/score.py"), str(work / "input"),
                           str(work / "output")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr.strip() == ("invalid submission: NOT_REGULAR_FILE: the submission holds s.csv (not a regular "
                                   "file); zip the CSV file itself")


def _page_command(bundle: Path) -> list[str]:
    """The check command of the overview page, as argv after ``tpugraphs-eval``."""
    match = re.search(r"Check a file before submitting: `(tpugraphs-eval [^`]+)`", (bundle / "pages/overview.md").read_text())
    assert match, "the overview page gives no check command"
    return shlex.split(match[1])[1:]


@pytest.mark.parametrize("split", ["valid", "test"])
def test_the_pages_name_the_solutions_split_and_their_command_passes_on_the_sample(split, demo_root, tmp_path, capsys):
    """A valid-split bundle said "every graph of the test split" and gave `validate submission.csv --split test`,
    which failed on the bundle's own sample submission (41 errors)."""
    out = tmp_path / "b"
    assert cli.main(["export", "codabench", "-o", str(out), "--data-root", "demo", "--split", split]) == 0
    overview = (out / "pages/overview.md").read_text()
    assert f"every graph\nof the {split} split" in overview
    assert f"runtimes of the {split} graphs" in (out / "pages/terms.md").read_text()
    argv = _page_command(out)
    assert argv == ["validate", "submission.csv", "--data-root", "demo", "--split", split]
    capsys.readouterr()
    assert cli.main([str(out / "sample_submission/submission.csv") if a == "submission.csv" else a for a in argv]) == 0
    assert "valid" in capsys.readouterr().out.lower()


def test_a_real_data_bundle_gives_the_command_for_the_participants_data_root(tiny_bundle, tiny_root, monkeypatch):
    argv = _page_command(tiny_bundle)
    assert argv == ["validate", "submission.csv", "--split", "test"]  # the data root: $TPUGRAPHS_DATA or the default
    monkeypatch.setenv("TPUGRAPHS_DATA", str(tiny_root))
    sample = str(tiny_bundle / "sample_submission/submission.csv")
    assert cli.main([sample if a == "submission.csv" else a for a in argv]) == 0


def _page_text(page: str) -> str:
    """The text of an HTML page (tags removed), for the assertions below."""
    return re.sub(r"<[^>]+>", " ", page)


def test_detailed_results_show_the_leaderboard_row_and_nothing_more(bundle, demo_solution, tmp_path):
    """output/detailed_results.html (where Codabench's compute worker looks: compute_worker.py
    get_detailed_results_file_path): self-contained, the values of scores.json (the public rule's choice) and
    no graph ID of the solution. The demo's Public phase shows tile:xla and the overall only (1 public graph per
    layout collection); the Final phase every collection (2 private graphs each)."""
    truth = load_solution(demo_solution)
    data = csv_bytes(demo_rows(truth, "random", seed=5))
    submission = _zip(tmp_path / "s.zip", {"s.csv": data})
    ids = [line.split(",")[0] for line in (bundle / "reference_data_public/solution.csv").read_text().splitlines()[1:]]
    for task, board in ((0, "public"), (1, "private")):
        done, scores_path = run_worker(bundle, task, submission, tmp_path / board)
        assert done.returncode == 0, done.stderr
        page = (scores_path.parent / "detailed_results.html").read_text()
        assert sorted(p.name for p in scores_path.parent.iterdir()) == ["detailed_results.html", "scores.json"]
        assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
        assert not re.search(r"<script|<link|<img|src=|href=|https?:", page, re.I)  # self-contained
        scores = json.loads(scores_path.read_text())
        shown = re.findall(r"<tr><td>([^<]+)</td><td class=\"num\">([-0-9.]+)</td></tr>", page)
        names = {"overall": "Overall", **{_key(c.name): c.name for c in COLLECTIONS}}
        assert dict(shown) == {names[key]: f"{value:.5f}" for key, value in scores.items()} and shown[0][0] == "Overall"
        assert len(shown) == (2 if board == "public" else 6)
        assert not any(graph_id.split(":")[-1] in page for graph_id in ids)
        assert "SYNTHETIC demo data" in page and f"on the {board} leaderboard" in page
        text = _page_text(page)
        if board == "public":
            assert "layout:" not in text and public_rule.RULE_IN_WORDS in text
        else:
            assert "Private graphs (the Final phase)" in text


def test_an_invalid_submission_gets_a_page_of_its_own_errors(bundle, tmp_path):
    done, scores_path = run_worker(bundle, 0, _zip(tmp_path / "b.zip", {"s.csv": b"ID,TopConfigs\n"}), tmp_path / "w")
    assert done.returncode == 1 and not scores_path.exists()
    page = (scores_path.parent / "detailed_results.html").read_text()
    assert "Not scored" in page and "MISSING_IDS" in page and "MISSING_IDS" in done.stderr
    assert "<td class=\"num\">" not in page


def test_a_three_collection_bundle_says_three_and_shows_three_columns(demo_root, tmp_path):
    """Before: the Evaluation page said "the unweighted mean of the five collection values" and the board kept a
    column per collection when the solution held three (the overall is the mean of the collections present)."""
    import shutil

    from clients import check_codabench_bundle

    from tpugraphs_eval import resolve_data_root
    from tpugraphs_eval.hosting.codabench import write_bundle
    from tpugraphs_eval.truth.solution import build_solution

    shutil.copytree(demo_root.path / "npz", tmp_path / "root/npz")
    shutil.rmtree(tmp_path / "root/npz/layout/nlp")
    build_solution(resolve_data_root(tmp_path / "root"), "test", tmp_path / "test.parquet")
    write_bundle(tmp_path / "bundle", tmp_path / "test.parquet")
    text = " ".join((tmp_path / "bundle/pages/evaluation.md").read_text().split())
    assert ("the unweighted mean of the 3 collection values (`tile:xla`, `layout:xla:default`, `layout:xla:random`)"
            in text and "five" not in text)
    config = yaml.safe_load((tmp_path / "bundle/competition.yaml").read_text())
    assert [c["key"] for c in config["leaderboards"][0]["columns"]] == [
        "overall", "tile_xla", "layout_xla_default", "layout_xla_random"]
    check_codabench_bundle(tmp_path / "bundle")
