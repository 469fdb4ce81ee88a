"""Output targets: a device, a FIFO or a folder is never replaced by an output file; no output overwrites an
input; every write failure carries a code (docs/options.md, "Output files").

Devices are made with os.mknod in the test's own folder (character devices 1,3 = null and 1,7 = full, as
/dev/null and /dev/full): even an old, broken writer only ever replaces those copies, never /dev itself.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tpugraphs_eval.atomicfile import write_atomically
from tpugraphs_eval.commands import evaluate as cli
from tpugraphs_eval.commands import leaderboard as leaderboard_cli
from tpugraphs_kit import cli_baseline

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample_submissions" / "demo_random_test.csv"
DEMO = ("--data-root", "demo", "--split", "test")


def run(capsys, main, *argv: str) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def device(folder: Path, name: str, minor: int) -> Path:
    """A character device 1,``minor`` in ``folder`` (3: null, 7: full); skips where mknod is not allowed."""
    path = folder / name
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, minor))
        with open(path, "w") as handle:  # a nodev mount refuses to open it
            handle.write("")
    except OSError as err:
        pytest.skip(f"cannot make a character device here: {err}")
    return path


@pytest.fixture
def submission(tmp_path) -> Path:
    path = tmp_path / "rv.csv"
    path.write_bytes(SAMPLE.read_bytes())
    return path


def writers(tmp_path: Path, target: Path, demo_solution: Path) -> dict[str, tuple]:
    """Every command that writes a complete file, with ``target`` as that file."""
    return {
        "solution build -o": (cli.main, "solution", "build", *DEMO, "-o", target),
        "score --html": (cli.main, SAMPLE, *DEMO, "--html", target, "-q"),
        "export kaggle-metric -o": (cli.main, "export", "kaggle-metric", "-o", target),
        "export codabench --zip": (cli.main, "export", "codabench", "-o", tmp_path / "bundle", "--solution",
                                   demo_solution, "--zip", target),
        "baseline random -o": (cli_baseline.main, "random", *DEMO, "-o", target),
        "baseline random --json": (cli_baseline.main, "random", *DEMO, "-o", tmp_path / "r.csv", "--json", target),
    }


WRITERS = ("solution build -o", "score --html", "export kaggle-metric -o", "export codabench --zip",
           "baseline random -o", "baseline random --json")


@pytest.mark.parametrize("writer", WRITERS)
def test_a_fifo_is_refused_not_replaced(capsys, tmp_path, demo_solution, writer):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    main, *argv = writers(tmp_path, fifo, demo_solution)[writer]
    code, _, err = run(capsys, main, *argv)
    assert code == 2, err
    assert "FIFO" in err and str(fifo) in err
    assert "[OUTPUT_WRITE_FAILED]" in err  # the kit too (it printed a code of its own, CANNOT_WRITE)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert not (tmp_path / "bundle").exists()  # export: no bundle beside a refused zip
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []  # no temporary file left


@pytest.mark.parametrize("writer", ("solution build -o", "score --html", "export kaggle-metric -o"))
def test_a_character_device_is_refused_and_stays_a_device(capsys, tmp_path, demo_solution, writer):
    null = device(tmp_path, "null", 3)
    main, *argv = writers(tmp_path, null, demo_solution)[writer]
    code, _, err = run(capsys, main, *argv)
    assert code == 2 and "[OUTPUT_WRITE_FAILED]" in err and "character device" in err and str(null) in err
    assert stat.S_ISCHR(os.stat(null).st_mode)


def test_a_folder_is_refused_by_write_atomically(tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    with pytest.raises(OSError, match="is a folder, not a regular file"):
        write_atomically(folder, lambda tmp: Path(tmp).write_text("x"))
    assert folder.is_dir() and list(tmp_path.iterdir()) == [folder]  # nothing written beside it


def test_json_stream_still_goes_into_a_fifo(capsys, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[str] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text(encoding="utf-8")))
    reader.start()
    code, _, err = run(capsys, cli.main, SAMPLE, *DEMO, "--json", fifo, "-q")
    reader.join(timeout=60)
    assert code == 0, err
    assert json.loads(received[0])["split"] == "test"
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_json_into_a_full_device_is_a_coded_error(capsys, tmp_path):
    full = device(tmp_path, "full", 7)
    code, _, err = run(capsys, cli.main, SAMPLE, *DEMO, "--json", full, "-q")
    assert code == 2 and "[OUTPUT_WRITE_FAILED]" in err and str(full) in err and "No space left" in err
    assert stat.S_ISCHR(os.stat(full).st_mode)


@pytest.mark.parametrize("option", ("--html", "--json"))
def test_a_report_never_overwrites_its_submission(capsys, tmp_path, submission, option):
    before = submission.read_bytes()
    link = tmp_path / "link.csv"
    link.symlink_to(submission)
    for target in (submission, tmp_path / "." / "rv.csv", link):  # the same file under three names
        code, out, err = run(capsys, cli.main, submission, *DEMO, option, target)
        assert code == 2 and "[OUTPUT_IS_INPUT]" in err and str(target) in err, err
        assert "overall" not in out  # refused before scoring
    assert submission.read_bytes() == before


def test_compare_json_never_overwrites_b(capsys, tmp_path, submission):
    before = submission.read_bytes()
    code, _, err = run(capsys, cli.main, "compare", SAMPLE, submission, *DEMO, "--json", submission)
    assert code == 2 and "[OUTPUT_IS_INPUT]" in err
    assert submission.read_bytes() == before


def test_no_output_overwrites_the_solution_file(capsys, tmp_path, demo_solution):
    solution = tmp_path / "s.parquet"
    solution.write_bytes(demo_solution.read_bytes())
    code, _, err = run(capsys, cli.main, SAMPLE, "--solution", solution, "--json", solution)
    assert code == 2 and "[OUTPUT_IS_INPUT]" in err
    code, _, err = run(capsys, cli.main, "export", "codabench", "-o", tmp_path / "b", "--solution", solution,
                       "--zip", solution)
    assert code == 2 and "[OUTPUT_IS_INPUT]" in err
    assert solution.read_bytes() == demo_solution.read_bytes()


def test_solution_build_never_overwrites_its_usage_file(capsys, tmp_path):
    usage = tmp_path / "usage.csv"
    usage.write_text("ID,Usage\n", encoding="utf-8")
    code, _, err = run(capsys, cli.main, "solution", "build", *DEMO, "--usage-file", usage, "-o", usage)
    assert code == 2 and "[OUTPUT_IS_INPUT]" in err
    assert usage.read_text(encoding="utf-8") == "ID,Usage\n"


def test_a_full_stdout_is_a_coded_error():
    if not stat.S_ISCHR(os.stat("/dev/full").st_mode):
        pytest.skip("no /dev/full character device")
    with open("/dev/full", "w") as full:  # only opened for writing, never replaced
        done = subprocess.run([sys.executable, "-m", "tpugraphs_eval", str(SAMPLE), *DEMO], stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=300)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "tpugraphs-eval: error: [OUTPUT_WRITE_FAILED] cannot write to standard output: No space left on device"]


def test_codabench_bundle_is_all_or_nothing(capsys, tmp_path, demo_solution):
    full = device(tmp_path, "full", 7)
    bundle = tmp_path / "cbx"
    code, _, err = run(capsys, cli.main, "export", "codabench", "-o", bundle, "--solution", demo_solution,
                       "--zip", full)
    assert code == 2 and "[OUTPUT_WRITE_FAILED]" in err and str(full) in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["full"]  # no bundle, no staging folder
    code, out, err = run(capsys, cli.main, "export", "codabench", "-o", bundle, "--solution", demo_solution)
    assert code == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cbx", "full"]
    assert (bundle / "competition.yaml").is_file() and (bundle / "sample_submission" / "submission.csv").is_file()
    assert stat.S_IMODE(os.stat(bundle).st_mode) == 0o777 & ~_umask()  # not mkdtemp's 0o700


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@pytest.mark.parametrize("option", ("--html", "--json"))
def test_a_missing_folder_is_output_write_failed_for_both_reports(capsys, tmp_path, option):
    target = tmp_path / "nonexist" / "dir" / "x.out"
    code, _, err = run(capsys, cli.main, SAMPLE, *DEMO, option, target, "-q")
    assert code == 2 and "[OUTPUT_WRITE_FAILED]" in err and str(target) in err
    assert not (tmp_path / "nonexist").exists()


def test_html_path_with_a_trailing_slash_is_a_folder(capsys, tmp_path, submission):
    code, _, err = run(capsys, cli.main, submission, *DEMO, "--html", f"{tmp_path / 'pages'}/", "-q")
    assert code == 0, err
    page = tmp_path / "pages" / "rv.html"
    assert page.is_file() and page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_leaderboard_output_that_is_not_a_folder_is_refused(capsys, tmp_path, demo_solution):
    (tmp_path / "subs").mkdir()
    (tmp_path / "subs" / "rv.csv").write_bytes(SAMPLE.read_bytes())
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    code, _, err = run(capsys, leaderboard_cli.main, "build", tmp_path / "subs", "--solution", demo_solution,
                       "-o", fifo, "-q")
    assert code == 2 and "[OUTPUT_NOT_A_FOLDER]" in err and str(fifo) in err
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
