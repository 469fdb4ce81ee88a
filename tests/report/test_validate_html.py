"""`validate --html` (and `score --validate-only --html`): a participant with only the public test files (no
runtimes) gets the HTML page of the verdict and the problems; docs/options.md says which options `validate` takes."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from tpugraphs_eval import evaluate
from tpugraphs_eval.commands import evaluate as cli
from tpugraphs_eval.report.html import render_html

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample_submissions" / "demo_random_test.csv"


def _text(page: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", page.split("</style>")[1]).split())


@pytest.mark.parametrize("command", [["validate", str(SAMPLE)], [str(SAMPLE), "--validate-only"]])
def test_validate_writes_the_verdict_page(command, tmp_path, capsys, demo_root):
    page = tmp_path / "v.html"
    assert cli.main([*command, "--split", "test", "--data-root", "demo", "-q", "--html", str(page)]) == 0
    assert "VALID (52 rows, 0 warning(s))" in capsys.readouterr().out
    text = page.read_text(encoding="utf-8")
    assert text == render_html(evaluate(SAMPLE, split="test", data_root="demo", validate_only=True))
    assert "VALID (52 rows); not scored." in _text(text)


def test_public_test_files_give_the_problem_page(realdata, tmp_path, capsys):
    """The real public test files hold no runtimes: the page still shows the verdict and every problem code."""
    page = tmp_path / "sample.html"
    sample = realdata / "kaggle/sample_submission.csv"
    code = cli.main(["validate", str(sample), "--split", "test", "--data-root", str(realdata / "tpugraphs"), "-q",
                     "--html", str(page), "--no-progress"])
    assert code == 1
    capsys.readouterr()
    report = evaluate(sample, split="test", data_root=realdata / "tpugraphs", validate_only=True)
    text = _text(page.read_text(encoding="utf-8"))
    assert f"INVALID: {report.n_errors} error(s) in 894 rows" in text and report.n_errors > 0
    for code_name in {p.code for p in report.problems}:
        assert code_name in text


def _options(name: str) -> set[str]:
    commands = next(a for a in cli._parser()._actions if isinstance(a, argparse._SubParsersAction))
    return {o for a in commands.choices[name]._actions for o in a.option_strings}


def test_options_md_names_exactly_the_options_validate_lacks():
    docs = " ".join((REPO / "docs/options.md").read_text(encoding="utf-8").split())
    sentence = re.search(r"`validate` takes every option above but ([^.]*)\.", docs)
    assert sentence, "docs/options.md must say which options validate takes"
    named = set(re.findall(r"`(--[a-z-]+)`", sentence.group(1)))
    assert named == _options("score") - _options("validate")
    assert "--html" in _options("validate")


@pytest.mark.parametrize("option", [["--per-graph"], ["--configs", "official"]])
def test_score_only_options_are_a_coded_usage_error_for_validate(option, capsys):
    assert cli.main(["validate", str(SAMPLE), "--split", "test", "--data-root", "demo", *option]) == 2
    assert f"[USAGE_ERROR] unrecognized arguments: {' '.join(option)}" in capsys.readouterr().err
