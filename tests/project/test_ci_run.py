""".ci/run runs the README's set-up command and test command on python3.11 and on every newer python3.1N it
finds, each in its own venv (before, the newer ones ran the tests only: the set-up command, which installs
without the test extras and scores the demo, was never tried on them). Checked with ``CI_DRY_RUN=1``, which
prints each command instead of running it, on a PATH holding only the tools the script needs and, for the
second interpreter, a stand-in ``python3.12``. Expected commands: the README's blocks with python3.11 and .venv
replaced (read here from README.md)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _block(marker: str) -> str:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    return re.search(rf"{re.escape(marker)}\n```sh\n(.*?)\n```", readme, flags=re.DOTALL).group(1)


def _dry_run(tmp_path: Path, pythons: dict[str, str]) -> list[str]:
    """.ci/run's printed commands with a PATH of bash, awk, seq, dirname and ``pythons`` (name → sh script)."""
    tools = tmp_path / "bin"
    tools.mkdir()
    for tool in ("bash", "awk", "seq", "dirname"):
        (tools / tool).symlink_to(shutil.which(tool))
    for name, script in pythons.items():
        (tools / name).write_text(f"#!/bin/sh\n{script}\n")
        (tools / name).chmod(0o755)
    done = subprocess.run([str(tools / "bash"), str(REPO / ".ci" / "run")], capture_output=True, text=True,
                          env={"PATH": str(tools), "CI_DRY_RUN": "1", "HOME": str(tmp_path)}, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith("ci: ok\n")
    return [line.removeprefix("ci: would run: ") for line in done.stdout.splitlines() if "would run" in line]


def test_every_python_runs_the_readme_setup_and_tests(tmp_path):
    setup, tests = _block("<!-- ci:setup -->"), _block("<!-- ci:test -->")
    python = str(tmp_path / "bin" / "python3.12")
    assert _dry_run(tmp_path, {"python3.12": "exit 0"}) == [
        setup, tests,
        setup.replace("python3.11", python).replace("-m venv .venv ", "-m venv .venv-3.12 ").replace(".venv/",
                                                                                                    ".venv-3.12/"),
        tests.replace(".venv/", ".venv-3.12/")]


def test_a_machine_with_only_python311_runs_the_readme_commands_once(tmp_path):
    assert _dry_run(tmp_path, {"python3.13": "exit 1"}) == [_block("<!-- ci:setup -->"), _block("<!-- ci:test -->")]
