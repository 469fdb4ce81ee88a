"""``tpugraphs-eval`` builds the arguments of the command it runs only (:class:`commands.evaluate._OnlyCommand`):
the help of every command and of the program is the same as from the whole parser, and a line is parsed the
same way."""

from __future__ import annotations

import argparse

import pytest

from tpugraphs_eval.commands import evaluate as cli


def _choices(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices


def _helps(parser: argparse.ArgumentParser) -> dict[str, str]:
    """Each (sub-)command path's help text, sub-sub-commands included."""
    found = {(): parser.format_help()}
    for name, sub in _choices(parser).items():
        found[(name,)] = sub.format_help()
        if any(isinstance(a, argparse._SubParsersAction) for a in sub._actions):
            found.update({(name, *path): text for path, text in _helps(sub).items() if path})
    return found


@pytest.mark.parametrize("command", cli.COMMANDS)
def test_the_built_command_has_the_whole_parsers_help(command):
    whole, one = _helps(cli._parser()), _helps(cli._parser(command))
    assert one[()] == whole[()]  # the program's help lists every command alike
    for path, text in one.items():
        if path[:1] == (command,):
            assert text == whole[path], path
    assert {p for p in one if p[0:1] == (command,)} == {p for p in whole if p[0:1] == (command,)}


def test_the_other_commands_get_no_arguments():
    choices = _choices(cli._parser("validate"))
    assert set(choices) == set(cli.COMMANDS)
    assert [a.dest for a in choices["score"]._actions] == ["help"]  # not built
    assert "lenient" in [a.dest for a in choices["validate"]._actions]
    assert _helps(cli._parser(""))[()] == _helps(cli._parser())[()]


@pytest.mark.parametrize("line", [["validate", "a.csv", "--split", "test", "-q"],
                                  ["score", "a.csv", "b.csv", "--lenient", "--json", "-"],
                                  ["cv", "a.csv", "--folds", "f.json", "--split", "valid"]])
def test_a_line_parses_to_the_same_namespace(line):
    assert cli._parser(line[0]).parse_args(line) == cli._parser().parse_args(line)
