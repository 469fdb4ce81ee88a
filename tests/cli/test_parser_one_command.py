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


def test_a_misspelt_command_is_named_not_read_as_a_file(capsys, demo_root):
    """Before, `valdate FILE` scored FILE and said that a submission `valdate` does not exist."""
    assert cli.main(["valdate", "sample.csv", "--split", "test", "--data-root", "demo"]) == 2
    err = capsys.readouterr().err
    assert "[USAGE_ERROR] `valdate` is neither a command nor a file: did you mean the command `validate`?" in err


def test_a_file_named_like_a_command_is_still_a_submission(tmp_path, monkeypatch, capsys, demo_root):
    from pathlib import Path

    sample = Path(__file__).resolve().parents[2] / "sample_submissions" / "demo_identity_test.csv"
    (tmp_path / "valdate").write_bytes(sample.read_bytes())
    monkeypatch.chdir(tmp_path)
    assert cli.main(["valdate", "--split", "test", "--data-root", "demo", "-q"]) == 0
    assert "VALID (52 rows" in capsys.readouterr().out


def test_resamples_have_a_ceiling(capsys):
    """Before, `compare --resamples 100000000` ran out of memory with an internal error (exit 3)."""
    from tpugraphs_eval.commands import leaderboard
    from tpugraphs_eval.defaults import MAX_RESAMPLES

    assert cli.main(["compare", "a.csv", "b.csv", "--split", "test", "--resamples", str(MAX_RESAMPLES + 1)]) == 2
    assert "[USAGE_ERROR] argument --resamples: must be 100,000 or less" in capsys.readouterr().err
    assert leaderboard.main(["build", "subs", "--solution", "s.parquet", "-o", "out", "--resamples", "100001"]) == 2
    assert "must be 100,000 or less" in capsys.readouterr().err
    parsed = cli._parser("compare").parse_args(["compare", "a.csv", "b.csv", "--resamples", str(MAX_RESAMPLES)])
    assert parsed.resamples == MAX_RESAMPLES
