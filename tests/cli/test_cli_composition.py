"""The CLI is a thin layer over :class:`tpugraphs_eval.api.Evaluator` (issue 8 item 4): the ground truth is read
once per run, each submission's report is made once, in the API, and piped output is not wrapped at 80 columns
(issue 9 item 4)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tpugraphs_eval import api
from tpugraphs_eval.commands import evaluate as cli

SAMPLES = Path(__file__).resolve().parents[2] / "sample_submissions"
FILES = [str(SAMPLES / n) for n in ("demo_random_test.csv", "demo_identity_test.csv")]


def _count(monkeypatch, module, name: str) -> list[int]:
    calls = [0]
    original = getattr(module, name)

    def counted(*args, **kwargs):
        calls[0] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


@pytest.mark.parametrize("command", ["score", "validate"])
def test_truth_read_once_and_each_report_built_once(monkeypatch, capsys, demo_root, command):
    reports = _count(monkeypatch, api, "Report")
    truths = _count(monkeypatch, api, "load_ground_truth")
    catalogs = _count(monkeypatch, api, "scan_catalog")
    assert cli.main([command, *FILES, "--data-root", "demo", "--split", "test", "-q"]) == 0
    capsys.readouterr()
    assert reports[0] == len(FILES)  # one Report per submission, made by the API
    assert (truths[0], catalogs[0]) == ((1, 0) if command == "score" else (0, 1))


def test_official_eval_indices_are_read_once(monkeypatch, capsys, tmp_path, demo_root):
    from tpugraphs_eval import load_ground_truth
    from tpugraphs_kit.random_baseline import write_random_submission

    catalog = load_ground_truth(demo_root, "valid").catalog
    files = [tmp_path / f"r{seed}.csv" for seed in (1, 2)]
    for seed, path in zip((1, 2), files):
        write_random_submission(catalog, path, seed)
    indices = _count(monkeypatch, api, "load_eval_indices")
    reports = _count(monkeypatch, api, "Report")
    argv = [*map(str, files), "--data-root", "demo", "--split", "valid", "--configs", "official", "-q"]
    assert cli.main(argv) == 0, capsys.readouterr()
    capsys.readouterr()
    assert (indices[0], reports[0]) == (1, 2)


def test_public_only_view_is_made_from_the_one_report(monkeypatch, capsys, demo_solution):
    reports = _count(monkeypatch, api, "Report")
    from tpugraphs_eval.truth import solution

    solutions = _count(monkeypatch, solution, "load_solution")  # imported by the API where a solution is read
    assert cli.main([FILES[0], "--solution", str(demo_solution), "--public-only", "-q"]) == 0
    assert "VALID" in capsys.readouterr().out
    assert (reports[0], solutions[0]) == (1, 1)


def test_the_cli_composes_nothing_itself():
    """The CLI modules reach the pipeline only through the API's Evaluator (made from the shared scoring options)."""
    from tpugraphs_eval.commands import compare, scoring_options

    for module in (cli, compare, scoring_options):
        names = vars(module)
        for stage in ("score_submission", "validation_report", "load_ground_truth", "scan_catalog", "load_solution"):
            assert stage not in names, (module.__name__, stage)
    # the Evaluator is imported when the options are used (not at parser building: docs/performance.md, "Imports")
    import argparse

    parser = argparse.ArgumentParser()
    scoring_options.add_scoring_options(parser)
    args = parser.parse_args(["--split", "test", "--data-root", "demo"])
    assert type(scoring_options.load_evaluator(args, progress=False)) is api.Evaluator
    assert cli.load_evaluator is compare.load_evaluator is scoring_options.load_evaluator


def test_cli_json_equals_the_api_report(capsys, tmp_path):
    target = tmp_path / "r.json"
    assert cli.main([FILES[1], "--data-root", "demo", "--split", "test", "--json", str(target), "-q"]) == 0
    capsys.readouterr()
    expected = api.evaluate(FILES[1], split="test", data_root="demo").to_json()
    assert target.read_text() == expected


def _piped(path: Path, **env: str) -> str:
    clean = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    return subprocess.run([sys.executable, "-m", "tpugraphs_eval", str(path), "--data-root", "demo", "--split", "test"],
                          capture_output=True, text=True, env={**clean, **env}, check=False).stdout


def test_piped_output_keeps_long_lines_whole(tmp_path):
    """A problem message of about 230 columns stays on one line when stdout is a pipe ($COLUMNS still wins)."""
    path = tmp_path / "s.csv"
    path.write_text("ID,TopConfigs\ntile:xla:bad," + ";".join(f"graph_{i}_{'x' * 30}" for i in range(8)) + "\n")
    head = "  line 2  tile:xla:bad: 8 entries are not non-negative integers: "
    (line,) = [line for line in _piped(path).splitlines() if line.startswith(head)]
    assert line.endswith("… (8 in all).") and len(line) > 200
    narrow = _piped(path, COLUMNS="80").splitlines()
    assert max(map(len, narrow)) <= 80 and not any(s.startswith(head) and s.endswith("(8 in all).") for s in narrow)
