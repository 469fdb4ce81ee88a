"""NO_GROUND_TRUTH (the public test files: every config_runtime 0) tells each command what it can do instead,
and only with options that command has: `score` adds --validate-only, `compare` gets a `validate` command
that runs, the organiser tools (`solution build`, `export codabench --data-root`) need the labelled files."""

from __future__ import annotations

import argparse
import re
import shlex

import pytest
from badinput import LAYOUT6, LAYOUT_TEST, TILE3, TILE_TEST, VALID, _layout, _tile, run_cli

from tpugraphs_eval.commands import evaluate as cli


@pytest.fixture()
def unlabelled(tmp_path):
    """A data root shaped like the public test files: every config_runtime is 0; and a valid submission."""
    root = tmp_path / "root"
    _tile(root / TILE_TEST, TILE3, [0, 0, 0], [10, 10, 10])
    _tile(root / TILE_TEST, "matmul_fedcba9876543210", [0] * 25, [5] * 25)
    _layout(root / LAYOUT_TEST, LAYOUT6, [0] * 6)
    submission = tmp_path / "s.csv"
    submission.write_bytes(VALID)
    return root, submission


def _parser_of(words: list[str]) -> argparse.ArgumentParser:
    """The (sub)parser of ``tpugraphs-eval`` that parses ``words`` (e.g. ["solution", "build"])."""
    parser = cli._parser()
    for word in words:
        parser = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[word]
    return parser


def _options(parser: argparse.ArgumentParser) -> set[str]:
    return {option for action in parser._actions for option in action.option_strings}


def _no_truth_message(capsys, argv: list[str]) -> str:
    code, text = run_cli(capsys, *argv)
    assert code == 2, text
    assert "[NO_GROUND_TRUTH]" in text and "public test files" in text
    return " ".join(text.split())


@pytest.mark.parametrize("command", [["score"], ["solution", "build"], ["export", "codabench"], ["compare"]])
def test_the_hint_names_only_options_the_command_has(command, unlabelled, capsys, tmp_path):
    root, submission = unlabelled
    source = ["--data-root", str(root), "--split", "test"]
    argv = {"score": [str(submission), *source, "--no-progress"],
            "solution": ["solution", "build", *source, "-o", str(tmp_path / "sol.parquet"), "--no-progress"],
            "export": ["export", "codabench", "-o", str(tmp_path / "bundle"), *source],
            "compare": ["compare", str(submission), str(submission), *source, "--no-progress"]}[command[0]]
    message = _no_truth_message(capsys, argv)
    options = _options(_parser_of(command))
    hinted = set(re.findall(r"(?<![\w-])--[a-z][a-z-]+", message.split("public test files")[1]))
    backticked = re.findall(r"`(tpugraphs-eval [^`]*)`", message)
    for words in map(shlex.split, backticked):  # a command in the hint: its options are its own
        hinted -= _options(_parser_of(words[1:2])) if len(words) > 1 else set()
    assert hinted <= options, (hinted - options, message)
    assert not (tmp_path / "sol.parquet").exists() and not (tmp_path / "bundle").exists()


def test_score_hint_validate_only_runs(unlabelled, capsys):
    root, submission = unlabelled
    argv = [str(submission), "--data-root", str(root), "--split", "test", "--no-progress"]
    assert "Validation still works: add --validate-only." in _no_truth_message(capsys, argv)
    code, text = run_cli(capsys, *argv, "--validate-only")
    assert code == 0 and "VALID (3 rows" in text


def test_compare_hint_is_a_validate_command_that_runs(unlabelled, capsys):
    root, submission = unlabelled
    message = _no_truth_message(capsys, ["compare", str(submission), str(submission), "--data-root", str(root),
                                         "--split", "test", "--lenient", "--no-progress"])
    assert "--validate-only" not in message
    command = re.search(r"validation still works: `([^`]*)`", message).group(1)
    words = shlex.split(command)
    assert words[:2] == ["tpugraphs-eval", "validate"] and "--lenient" in words
    code, text = run_cli(capsys, *words[1:], "-q")
    assert code == 0 and text.count("VALID (3 rows") == 2


@pytest.mark.parametrize("argv", [
    ["solution", "build", "--split", "test", "-o", "{tmp}/x.parquet"],
    ["export", "codabench", "-o", "{tmp}/b", "--split", "test"],
])
def test_organiser_tools_on_the_real_public_test_files_ask_for_the_labelled_files(argv, realdata, capsys, tmp_path):
    """The tester's commands on the real public test files (../shared/realdata)."""
    argv = [a.format(tmp=tmp_path) for a in argv] + ["--data-root", str(realdata / "tpugraphs")]
    message = _no_truth_message(capsys, argv)
    assert "--validate-only" not in message
    assert "build it from the organisers' labelled test files (their config_runtime)" in message
    assert list(tmp_path.iterdir()) == []
