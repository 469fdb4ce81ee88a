"""argparse's usage errors start with a code, as every other error does (docs/options.md): `[USAGE_ERROR]`, exit 2,
in every console entry point; a forgotten submission path is said to be missing."""

from __future__ import annotations

import pytest
from badinput import VALID

from tpugraphs_eval.commands import evaluate as eval_cli
from tpugraphs_eval.commands import leaderboard as leaderboard_cli
from tpugraphs_kit import cli_baseline, cli_data

PROGRAMS = {"tpugraphs-eval": eval_cli.main, "tpugraphs-leaderboard": leaderboard_cli.main,
            "tpugraphs-baseline": cli_baseline.main, "tpugraphs-data": cli_data.main}

CASES = [
    ("tpugraphs-eval", ["x.csv", "--split", "bogus", "--data-root", "demo"], "argument --split: invalid choice: 'bogus'"),
    ("tpugraphs-eval", ["x.csv", "--split", "test", "--frobnicate"], "unrecognized arguments: --frobnicate"),
    ("tpugraphs-eval", ["x.csv", "--max-problems", "-1"], "argument --max-problems: must be 0 or more"),
    ("tpugraphs-eval", ["x.csv", "--max-problems", "many"], "argument --max-problems: invalid integer value"),
    ("tpugraphs-eval", ["solution", "build", "--split", "test"], "the following arguments are required: -o/--output"),
    ("tpugraphs-eval", ["solution"], "the following arguments are required: ACTION"),
    ("tpugraphs-eval", ["compare", "a.csv"], "the following arguments are required: B"),
    ("tpugraphs-eval", ["export", "codabench", "-o", "b"], "one of the arguments --solution --data-root --prepared is required"),
    ("tpugraphs-leaderboard", [], "the following arguments are required: COMMAND"),
    ("tpugraphs-leaderboard", ["build", "subs", "-o", "out"], "the following arguments are required: --solution"),
    ("tpugraphs-leaderboard", ["build", "s", "--solution", "x", "-o", "o", "--workers", "0"], "must be 1 or more"),
    ("tpugraphs-baseline", ["random", "--split", "nope", "-o", "r.csv"], "argument --split: invalid choice: 'nope'"),
    ("tpugraphs-baseline", ["frobnicate"], "argument COMMAND: invalid choice: 'frobnicate'"),
    ("tpugraphs-data", ["list", "--split", "test"], "the following arguments are required: --collection"),
    ("tpugraphs-data", ["--zzz"], "the following arguments are required: COMMAND"),
]


@pytest.mark.parametrize("program, argv, phrase", CASES, ids=[f"{p}:{' '.join(a)}" for p, a, _ in CASES])
def test_argparse_usage_errors_start_with_the_code(program, argv, phrase, capsys):
    assert PROGRAMS[program](argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("usage: ")  # argparse's usage line stays
    message = err.strip().splitlines()[-1]
    assert message.startswith(f"{program}") and ": error: [USAGE_ERROR] " in message, err
    assert phrase in message, err


@pytest.mark.parametrize("argv", [["--split", "test", "--data-root", "demo"], ["score", "--split", "test"],
                                  ["validate", "-q"]])
def test_a_forgotten_submission_is_named_missing(argv, capsys):
    assert eval_cli.main(argv) == 2
    err = capsys.readouterr().err
    assert "tpugraphs-eval: error: [USAGE_ERROR] no submission given: name the submission file(s) first" in err
    assert "invalid choice" not in err


def test_stdin_dash_is_refused_with_how_to_pass_a_file(capsys, monkeypatch, demo_root):
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(VALID)))  # `cat x.csv | tpugraphs-eval - ...`
    assert eval_cli.main(["-", "--split", "test", "--data-root", "demo"]) == 2
    err = capsys.readouterr().err
    assert "[USAGE_ERROR] `-`: a submission is read from a file, not from standard input" in err
    assert "give its path" in err and "invalid choice" not in err
    assert sys.stdin.buffer.read() == VALID  # not read


def test_options_may_come_before_the_submission(capsys, demo_root, tmp_path):
    path = tmp_path / "s.csv"
    path.write_bytes(b"ID,TopConfigs\n")
    assert eval_cli.main(["--split", "test", "--data-root", "demo", "-q", str(path)]) == 1
    assert "INVALID" in capsys.readouterr().out


def test_top_level_options_stay_top_level(capsys):
    with pytest.raises(SystemExit) as exit_:
        eval_cli.run(["--version"])
    assert exit_.value.code == 0 and capsys.readouterr().out.startswith("tpugraphs-eval ")
    assert eval_cli.main(["--help"]) == 0
    assert "COMMAND" in capsys.readouterr().out
