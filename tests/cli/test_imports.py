"""Each command imports only what it needs (issue 17 item 3; docs/performance.md, "Imports").

Every case runs ``tpugraphs-eval`` in a fresh interpreter and lists ``sys.modules`` at its exit: a scoring run
imports no hosting, comparison, solution-file, prepare or HTML module and none of polars, pandas, scipy,
pyarrow; a quiet run into a pipe and ``--help`` / ``--version`` import no rich either. Not a timing test:
the times are in ``bench/bench_speed.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DEMO_CSV = REPO / "sample_submissions" / "demo_random_test.csv"

_PROBE = """
import json, sys
from tpugraphs_eval.commands.evaluate import main
try:
    main(sys.argv[2:])
finally:
    with open(sys.argv[1], "w") as out:
        json.dump(sorted(sys.modules), out)
"""

HEAVY_LIBRARIES = ("polars", "pandas", "scipy", "pyarrow", "matplotlib")
HEAVY_OWN = ("tpugraphs_eval.hosting", "tpugraphs_eval.scoring.compare",
             "tpugraphs_eval.scoring.bootstrap", "tpugraphs_eval.report.public_comparison",
             "tpugraphs_eval.report.html", "tpugraphs_eval.report.charts", "tpugraphs_eval.truth.solution",
             "tpugraphs_eval.prepare", "tpugraphs_eval.leaderboard", "tpugraphs_eval.commands.no_truth_hint")
"""Module prefixes no scoring run imports (a prefix matches the module and its sub-modules)."""


def imported(tmp_path: Path, *argv: str) -> list[str]:
    """The modules loaded when ``tpugraphs-eval argv`` exits (stdout and stderr to pipes, not a terminal)."""
    listing = tmp_path / "modules.json"
    env = dict(os.environ)
    subprocess.run([sys.executable, "-c", _PROBE, str(listing), *argv], capture_output=True, text=True, env=env,
                   cwd=REPO, timeout=120)
    return json.loads(listing.read_text())


def heavy(modules: list[str], prefixes: tuple[str, ...]) -> list[str]:
    return [m for m in modules if any(m == p or m.startswith(p + ".") for p in prefixes)]


@pytest.mark.parametrize("argv", [("--version",), ("--help",), ("score", "--help")])
def test_help_and_version_import_no_rich_and_no_scoring(tmp_path, argv):
    modules = imported(tmp_path, *argv)
    assert "tpugraphs_eval.commands.evaluate" in modules  # the probe ran the command
    assert heavy(modules, HEAVY_LIBRARIES + HEAVY_OWN + ("rich",)) == []
    assert heavy(modules, ("tpugraphs_eval.api", "tpugraphs_eval.submission", "tpugraphs_eval.scoring")) == []
    # only --version names the kernel in use, whose module imports numpy
    assert ("numpy" in modules) == (argv == ("--version",))


def test_quiet_score_imports_no_rich_nor_heavy_module(tmp_path, demo_root):
    modules = imported(tmp_path, str(DEMO_CSV), "--data-root", "demo", "--split", "test", "-q")
    assert "tpugraphs_eval.scoring.score" in modules  # it did score
    assert heavy(modules, HEAVY_LIBRARIES + HEAVY_OWN + ("rich",)) == []


def test_score_with_tables_imports_rich_but_no_heavy_module(tmp_path, demo_root):
    modules = imported(tmp_path, str(DEMO_CSV), "--data-root", "demo", "--split", "test",
                       "--json", str(tmp_path / "r.json"))
    assert "rich.table" in modules  # the tables are drawn with rich
    assert heavy(modules, HEAVY_LIBRARIES + HEAVY_OWN) == []


def test_validate_imports_no_heavy_module(tmp_path, demo_root):
    modules = imported(tmp_path, "validate", str(DEMO_CSV), "--data-root", "demo", "--split", "test", "-q")
    assert "tpugraphs_eval.submission.validation" in modules
    assert heavy(modules, HEAVY_LIBRARIES + HEAVY_OWN + ("rich",)) == []
    # validation scores nothing: the scoring modules and the predictions reader stay unloaded
    assert heavy(modules, ("tpugraphs_eval.scoring", "tpugraphs_eval.submission.predictions")) == []


def test_probe_sees_a_heavy_import(tmp_path, demo_solution):
    """The listing is not vacuous: scoring against a solution file does load its reader and polars/pyarrow."""
    modules = imported(tmp_path, str(DEMO_CSV), "--solution", str(demo_solution), "-q")
    assert "tpugraphs_eval.truth.solution" in modules
