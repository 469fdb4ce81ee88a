"""The console scripts' set-up (:mod:`tpugraphs_eval.commands.launch`; docs/performance.md, "Threads"):
numpy's OpenBLAS on one thread unless the user says otherwise. Each case starts a fresh interpreter,
runs the command's entry point as the console script does, and reports at exit what numpy was imported under."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

_PROBE = """
import json, os, sys
listing, entry = sys.argv[1:3]
try:
    if entry == "library":  # the package used as a library: nothing is set
        from tpugraphs_eval.commands.evaluate import main
        main(["--version"])
    else:
        from tpugraphs_eval.commands import launch
        sys.argv = [entry, "--version"]
        getattr(launch, entry)()
finally:
    with open(listing, "w") as out:
        json.dump({"threads": os.environ.get("OPENBLAS_NUM_THREADS"), "numpy": "numpy" in sys.modules}, out)
"""


def probe(tmp_path, entry: str, **env: str) -> dict:
    listing = tmp_path / "probe.json"
    environment = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"} | env
    subprocess.run([sys.executable, "-c", _PROBE, str(listing), entry], capture_output=True, env=environment,
                   cwd=tmp_path, timeout=120)
    return json.loads(listing.read_text())


@pytest.mark.parametrize("entry", ["evaluate", "leaderboard"])
def test_console_scripts_ask_openblas_for_one_thread(tmp_path, entry):
    assert probe(tmp_path, entry) == {"threads": "1", "numpy": True}  # set before numpy was imported


@pytest.mark.parametrize("entry", ["evaluate", "leaderboard"])
def test_an_empty_thread_count_counts_as_unset(tmp_path, entry):
    assert probe(tmp_path, entry, OPENBLAS_NUM_THREADS="")["threads"] == "1"


@pytest.mark.parametrize("entry", ["evaluate", "leaderboard"])
def test_a_thread_count_the_user_set_is_kept(tmp_path, entry):
    assert probe(tmp_path, entry, OPENBLAS_NUM_THREADS="3")["threads"] == "3"


def test_the_package_used_as_a_library_sets_nothing(tmp_path):
    assert probe(tmp_path, "library") == {"threads": None, "numpy": True}


def test_pyproject_points_the_console_scripts_at_the_launcher():
    import tomllib
    from pathlib import Path

    scripts = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["tpugraphs-eval"] == "tpugraphs_eval.commands.launch:evaluate"
    assert scripts["tpugraphs-leaderboard"] == "tpugraphs_eval.commands.launch:leaderboard"
