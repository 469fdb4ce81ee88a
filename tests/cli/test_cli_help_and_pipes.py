"""Every console entry point's help (no crash on a `%` in a help text) and output into a closed pipe (`| head`)
keeping the run's own exit code."""

from __future__ import annotations

import argparse
import importlib
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "sample_submissions"
VALID = str(SAMPLES / "demo_random_test.csv")
INVALID = str(SAMPLES / "demo_kaggle_sample_test.csv")  # strict mode: INDEX_OUT_OF_RANGE, exit 1
SCRIPTS = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]


def _module(target: str):
    """The module holding a console script's parser: ``launch:NAME`` starts ``commands/NAME.py``."""
    module, function = target.split(":")
    if module == "tpugraphs_eval.commands.launch":
        module = f"tpugraphs_eval.commands.{function}"
    return importlib.import_module(module)


def _command_paths(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """Every (sub)command path of ``parser``, with whether it needs a sub-command of its own."""
    groups = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    yield path, bool(groups) and groups[0].required
    for group in groups:
        for name, sub in group.choices.items():
            yield from _command_paths(sub, (*path, name))


HELP_CASES = [(script, path, needs_command) for script, target in SCRIPTS.items()
              for path, needs_command in _command_paths(_module(target)._parser())]


def test_every_script_and_command_is_covered():
    assert set(SCRIPTS) == {"tpugraphs-eval", "tpugraphs-baseline", "tpugraphs-data", "tpugraphs-leaderboard"}
    paths = {(script, " ".join(path)) for script, path, _ in HELP_CASES}
    for expected in (("tpugraphs-eval", "compare"), ("tpugraphs-eval", "solution build"),
                     ("tpugraphs-eval", "export kaggle-metric"), ("tpugraphs-leaderboard", "build"),
                     ("tpugraphs-baseline", "combine")):
        assert expected in paths


@pytest.mark.parametrize(("script", "path", "needs_command"), HELP_CASES,
                         ids=[f"{s} {' '.join(p)}".strip() for s, p, _ in HELP_CASES])
def test_help_of_every_command(capsys, script, path, needs_command):
    main = _module(SCRIPTS[script]).main
    for flag in ("--help", "-h"):
        assert main([*path, flag]) == 0
        out, err = capsys.readouterr()
        assert out.startswith("usage: ") and "internal error" not in err and "%%" not in out
    if needs_command:  # `tpugraphs-eval solution`: a usage error naming the missing action
        assert main(list(path)) == 2
        out, err = capsys.readouterr()
        assert "usage: " in out + err and "internal error" not in err


def _parsers(parser: argparse.ArgumentParser):
    yield parser
    for group in (a for a in parser._actions if isinstance(a, argparse._SubParsersAction)):
        for sub in group.choices.values():
            yield from _parsers(sub)
        yield from ((parser, action) for action in group._choices_actions)


def test_no_help_text_holds_a_bare_percent():
    """argparse %-formats every help text: a bare `%` crashes (`95% interval`: "%i format") or silently
    eats text; only `%%` and `%(name)s` may appear."""
    bare = []
    for target in SCRIPTS.values():
        for item in _parsers(_module(target)._parser()):
            actions = [item[1]] if isinstance(item, tuple) else item._actions
            for action in actions:
                text = re.sub(r"%%|%\(\w+\)[sd]", "", action.help or "")
                if "%" in text:
                    bare.append(action.help)
    assert bare == []


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_console_scripts_help_and_bare(script):
    """The installed console scripts, as a user runs them: `--help`, `-h` exit 0; bare prints the usage and a
    coded error on stderr, exit 2 (bare `tpugraphs-eval` printed its help with no code)."""
    exe = Path(sys.executable).with_name(script)
    for flag in ("--help", "-h"):
        result = subprocess.run([exe, flag], capture_output=True, text=True, timeout=60)
        assert (result.returncode, result.stderr) == (0, "") and result.stdout.startswith("usage: ")
        assert "%%" not in result.stdout
    result = subprocess.run([exe], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and result.stderr.startswith("usage: ")
    assert f"{script}: error: [USAGE_ERROR] the following arguments are required: " in result.stderr
    assert "internal error" not in result.stderr


def _exit_code_into_closed_pipe(*argv: str, read_first_line: bool = False) -> tuple[int, str]:
    """Run the ``tpugraphs-eval`` script with stdout a pipe whose reader goes away (at once, or after one
    line, as `| head -1`); returns the exit code and stderr."""
    exe = Path(sys.executable).with_name("tpugraphs-eval")
    process = subprocess.Popen([exe, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if read_first_line:
        assert process.stdout.readline()
    process.stdout.close()  # no reader left: the next write fails with EPIPE
    try:
        process.wait(timeout=120)
    finally:
        process.kill()
    return process.returncode, process.stderr.read().decode()


@pytest.mark.parametrize(("argv", "expected"), [
    ((VALID,), 0),
    ((VALID, "--per-graph"), 0),
    (("validate", VALID), 0),
    ((INVALID, "--per-graph"), 1),
    (("compare", VALID, VALID), 0),
    ((INVALID, "--json", "-"), 1),
    (("compare", VALID, VALID, "--json", "-"), 0),
], ids=["score", "per-graph", "validate", "invalid-per-graph", "compare", "invalid-json", "compare-json"])
def test_closed_pipe_keeps_the_exit_code(argv, expected):
    """`tpugraphs-eval ... | head` used to exit 1 for a valid file (rich's own broken-pipe exit)."""
    code, err = _exit_code_into_closed_pipe(*argv, "--split", "test", "--data-root", "demo", "--no-progress")
    assert code == expected and "Traceback" not in err and "tpugraphs-eval: " not in err


def test_reader_leaving_after_one_line_keeps_the_exit_code():
    """More output than a pipe holds (about 100 KB > 64 KiB): the process is still writing when the reader
    leaves after the first line."""
    code, err = _exit_code_into_closed_pipe(*[VALID] * 8, "--per-graph", "--split", "test", "--data-root", "demo",
                                            "--no-progress", read_first_line=True)
    assert code == 0 and "Traceback" not in err
