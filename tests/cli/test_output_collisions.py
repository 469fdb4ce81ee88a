"""Outputs that collide are refused before any work, with a code that says how: an output that is an input
(`OUTPUT_IS_INPUT`), two outputs at one path or one inside the other's folder (`SAME_OUTPUT_TWICE`), a file
where an output's folder must be (`OUTPUT_WRITE_FAILED`: "PATH is a file, not a folder")."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tpugraphs_eval.commands import evaluate as cli

SAMPLE = Path(__file__).resolve().parents[2] / "sample_submissions" / "demo_random_test.csv"


@pytest.fixture()
def work(tmp_path, monkeypatch, demo_root):
    """A working folder with two submissions b2.csv, b3.csv and a plain file `afile`."""
    monkeypatch.chdir(tmp_path)
    for name in ("b2.csv", "b3.csv"):
        shutil.copy(SAMPLE, name)
    Path("afile").write_text("not a folder\n")
    return tmp_path


def _refused(capsys, argv: list[str], message: str) -> None:
    assert cli.main(argv) == 2
    out, err = capsys.readouterr()
    assert err.strip() == f"tpugraphs-eval: error: {message}", err


def _listing(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir()}


SCORE = ["--split", "test", "--data-root", "demo", "-q"]


@pytest.mark.parametrize("argv, message", [
    (["export", "codabench", "-o", "nb", "--zip", "nb"],
     "[SAME_OUTPUT_TWICE] -o nb and --zip nb are the same path: one would overwrite the other; give two different "
     "paths"),
    (["export", "codabench", "-o", "nb", "--zip", "./nb/../nb"],
     "[SAME_OUTPUT_TWICE] -o nb and --zip nb/../nb are the same path: one would overwrite the other; give two "
     "different paths"),
    (["export", "codabench", "-o", "nb", "--zip", "nb/x.zip"],
     "[SAME_OUTPUT_TWICE] --zip nb/x.zip is inside the folder -o nb: give a path outside it"),
    (["export", "codabench", "-o", "nb", "--zip", "afile/x.zip"],
     "[OUTPUT_WRITE_FAILED] cannot write --zip afile/x.zip: afile is a file, not a folder"),
])
def test_export_outputs_that_collide(argv, message, work, demo_solution, capsys):
    before = _listing(work)
    _refused(capsys, [*argv, "--solution", str(demo_solution)], message)
    assert _listing(work) == before  # nothing written, nothing staged


@pytest.mark.parametrize("argv, message", [
    (["b2.csv", "b3.csv", "--html", "b3.csv"],
     "[OUTPUT_IS_INPUT] --html b3.csv is the input b3.csv: it would be overwritten; give another output path"),
    (["b2.csv", "b3.csv", "--html", "afile"],
     "[OUTPUT_WRITE_FAILED] cannot write --html afile: afile is a file, not a folder"),
    (["b2.csv", "--html", "afile/"], "[OUTPUT_WRITE_FAILED] cannot write --html afile: afile is a file, not a folder"),
    (["b2.csv", "--html", "r.x", "--json", "r.x"],
     "[SAME_OUTPUT_TWICE] --json r.x and --html r.x are the same path: one would overwrite the other; give two "
     "different paths"),
    (["b2.csv", "--json", "afile/r.json"],
     "[OUTPUT_WRITE_FAILED] cannot write --json afile/r.json: afile is a file, not a folder"),
    (["compare", "b2.csv", "b3.csv", "--json", "afile/c.json"],
     "[OUTPUT_WRITE_FAILED] cannot write --json afile/c.json: afile is a file, not a folder"),
    (["solution", "build", "-o", "afile/s.parquet"],
     "[OUTPUT_WRITE_FAILED] cannot write -o afile/s.parquet: afile is a file, not a folder"),
])
def test_score_and_solution_outputs_that_collide(argv, message, work, capsys):
    before = _listing(work)
    _refused(capsys, [*argv, *(SCORE[:4] if argv[0] in ("solution", "compare") else SCORE)], message)
    assert _listing(work) == before


def test_a_folder_of_pages_still_works(work, capsys):
    assert cli.main(["b2.csv", "b3.csv", "--html", "pages", "--json", "pages.json", *SCORE]) == 0
    assert sorted(p.name for p in (work / "pages").iterdir()) == ["b2.html", "b3.html"]
    capsys.readouterr()


@pytest.mark.parametrize("argv, pages", [
    (["b2.csv", "--html", "pg/"], ["pg/b2.html"]),
    (["b2.csv", "b3.csv", "--html", "pg"], ["pg/b2.html", "pg/b3.html"]),
    (["validate", "b2.csv", "--html", "pg"], ["pg"]),
    (["validate", "b2.csv", "b3.csv", "--html", "pg/"], ["pg/b2.html", "pg/b3.html"]),
    (["b2.csv", "--html", "r.html"], ["r.html"]),
])
def test_html_pages_are_replaced_on_a_re_run(argv, pages, work, capsys):
    """A second run replaces its own pages (regular files) in every form of --html, never refusing them."""
    argv = [*argv, *SCORE]
    assert cli.main(argv) == 0
    for page in pages:
        Path(page).write_text("stale\n")
    assert cli.main(argv) == 0, capsys.readouterr().err
    assert all(Path(page).read_text().startswith("<!DOCTYPE html>") for page in pages)
    capsys.readouterr()


@pytest.mark.parametrize("argv, option", [
    (["solution", "build", "--split", "test"], "-o"),
    (["export", "codabench", "--split", "test", "-o", "nb"], "--zip"),
    (["export", "codabench", "--split", "test"], "-o"),
    (["b2.csv", "--split", "test", "-q"], "--json"),
    (["b2.csv", "--split", "test", "-q"], "--html"),
    (["validate", "b2.csv", "--split", "test", "-q"], "--json"),
    (["compare", "b2.csv", "b3.csv", "--split", "test"], "--json"),
])
def test_outputs_onto_a_graph_file_are_refused_before_any_work(argv, option, work, demo_root, capsys):
    """`solution build -o R/npz/tile/xla/test/<graph>.npz` exited 0 and replaced the graph with Parquet; every
    output of a command that reads the data root's graphs is refused inside its npz/ folder."""
    root = Path(shutil.copytree(demo_root.path, work / "root"))
    graph = sorted((root / "npz/tile/xla/test").glob("*.npz"))[0]
    before = graph.read_bytes()
    _refused(capsys, [*argv, "--data-root", str(root), option, str(graph)],
             f"[OUTPUT_IS_INPUT] {option} {graph} is inside the data root's npz/ folder {root / 'npz'}: it could "
             "overwrite a graph file; give an output path outside it")
    assert graph.read_bytes() == before
