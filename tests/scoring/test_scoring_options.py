"""One definition of the scoring options: `score`, `validate` and `compare` take the same ones, with the same
help texts, choices, defaults and types (commands/scoring_options.py), so they cannot drift apart."""

from __future__ import annotations

import argparse

import pytest
from conftest import REPO

from tpugraphs_eval.commands import evaluate as cli

SCORING = {"--split", "--data-root", "--solution", "--public-only", "--collections", "--graphs", "--fold", "--lenient",
           "--tile-runtime", "--configs", "--eval-indices", "--noise", "--no-progress"}
"""Written out here (not imported) so that an option added to one command only fails this test."""
SCORE_ONLY = {"-h", "--help", "--json", "--max-problems", "--quiet", "-q", "--validate-only", "--html", "--per-graph",
              "--predictions"}
"""``--predictions FILE``: an input instead of submission CSVs (score and validate; compare compares two CSVs)."""
COMPARE_ONLY = {"-h", "--help", "--json", "--resamples", "--seed"}
SCORE_CHANGES_ONLY = {"--tile-runtime", "--configs", "--eval-indices", "--noise"}


def _command(name: str) -> argparse.ArgumentParser:
    commands = next(a for a in cli._parser()._actions if isinstance(a, argparse._SubParsersAction))
    return commands.choices[name]


def _options(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {option: action for action in parser._actions for option in action.option_strings}


def _definition(action: argparse.Action) -> tuple:
    return (type(action).__name__, action.dest, action.default, action.choices, action.type, action.help,
            action.metavar, action.nargs, action.const, action.required)


def test_score_validate_and_compare_take_the_same_scoring_options():
    score, validate, compare = (_options(_command(name)) for name in ("score", "validate", "compare"))
    assert set(score) - SCORE_ONLY == SCORING
    assert set(compare) - COMPARE_ONLY == SCORING
    assert set(validate) - SCORE_ONLY == SCORING - SCORE_CHANGES_ONLY
    for option in SCORING:
        assert _definition(compare[option]) == _definition(score[option]), option
        if option not in SCORE_CHANGES_ONLY:
            assert _definition(validate[option]) == _definition(score[option]), option
    for name in ("score", "validate", "compare"):
        exclusive = [{o for a in g._group_actions for o in a.option_strings}
                     for g in _command(name)._mutually_exclusive_groups]
        assert {"--data-root", "--solution"} in exclusive, name


def test_the_defaults_parse_the_same():
    parsed_score = vars(cli._parser().parse_args(["score", "s.csv"]))
    parsed_compare = vars(cli._parser().parse_args(["compare", "a.csv", "b.csv"]))
    dests = {_options(_command("score"))[o].dest for o in SCORING}
    assert {d: parsed_score[d] for d in dests} == {d: parsed_compare[d] for d in dests}
    assert parsed_compare["tile_runtime"] == "normalized" and parsed_compare["configs"] == "all"
    assert parsed_compare["public_only"] is False and parsed_compare["collections"] is None
    chosen = cli._parser().parse_args(["compare", "a.csv", "b.csv", "--collections", "tile:xla, layout:nlp:random"])
    assert chosen.collections == ["tile:xla", "layout:nlp:random"]


@pytest.mark.parametrize("command", [["score", "S"], ["validate", "S"], ["compare", "S", "S"]])
def test_the_data_root_is_resolved_once_per_command_line(command, demo_root, monkeypatch, capsys):
    """The output checks and the ground truth read use one resolution of --data-root (issue 21 item 4): the old
    code resolved it twice (outputs.py, then api.Evaluator.load)."""
    from tpugraphs_eval import api, outputs, roots

    calls = []

    def counted(arg=None):
        calls.append(arg)
        return roots.resolve_data_root(arg)

    monkeypatch.setattr(outputs, "resolve_data_root", counted)
    monkeypatch.setattr(api, "resolve_data_root", counted)
    sample = str(REPO / "sample_submissions" / "demo_random_test.csv")
    argv = [sample if word == "S" else word for word in command]
    quiet = ["--resamples", "10"] if command[0] == "compare" else ["-q"]
    assert cli.main([*argv, "--data-root", "demo", "--split", "test", "--no-progress", *quiet]) == 0
    capsys.readouterr()
    from tpugraphs_eval.truth.dataroot import DataRoot

    assert [arg for arg in calls if not isinstance(arg, DataRoot)] == ["demo"]  # a DataRoot passes through as it is
