"""A console script writes to whatever standard streams it is given (entrypoint.py, ``_usable_streams``):
an ASCII-only terminal gets ``?`` for the characters it cannot show, and a closed standard output (``>&-``) is
written to nowhere, the exit code standing, instead of either ending in an internal error (exit 3)."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
VALID = REPO / "sample_submissions" / "demo_identity_test.csv"
INVALID = REPO / "sample_submissions" / "demo_kaggle_sample_test.csv"  # strict: INDEX_OUT_OF_RANGE, exit 1
ARGS = ["--split", "test", "--data-root", "demo"]


@pytest.mark.parametrize("command", [[], ["validate"]])
def test_an_ascii_terminal_gets_question_marks_not_an_internal_error(demo_root, command):
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    done = subprocess.run([sys.executable, "-m", "tpugraphs_eval", *command, str(VALID), *ARGS], capture_output=True,
                          env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert b"VALID (52 rows" in done.stdout and b"internal error" not in done.stderr
    assert done.stdout.isascii() and b"?" in done.stdout  # the table's middle dots, replaced


@pytest.mark.parametrize("submission, code", [(VALID, 0), (INVALID, 1)])
def test_a_closed_standard_output_keeps_the_runs_exit_code(demo_root, submission, code):
    line = shlex.join([sys.executable, "-m", "tpugraphs_eval", str(submission), *ARGS])
    done = subprocess.run(["sh", "-c", f"{line} >&-"], capture_output=True, timeout=120)
    assert done.returncode == code, done.stderr
    assert b"internal error" not in done.stderr and b"Traceback" not in done.stderr
