"""Dependencies by role (pyproject.toml): the core (numpy, rich) validates and scores; a command that needs an
extra says which one to install, coded ``MISSING_EXTRA``, exit 2, no traceback.

A missing package is simulated in a subprocess by ``sys.modules[name] = None`` (Python's own way to make an
import raise ``ModuleNotFoundError``), so one venv stands for an install without the extras."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXTRA_MODULES = "polars,pandas,pyarrow,scipy"
_RUN_WITHOUT = """
import sys
for name in sys.argv[1].split(","):
    sys.modules[name] = None  # `import name` now raises ModuleNotFoundError, as where it is not installed
entry, *argv = sys.argv[2:]
sys.argv = [entry, *argv]
if entry == "tpugraphs-baseline":
    from tpugraphs_kit.cli_baseline import main
    sys.exit(main())
from tpugraphs_eval.commands.launch import evaluate, leaderboard
sys.exit(evaluate() if entry == "tpugraphs-eval" else leaderboard())
"""


def run_without(modules: str, *argv: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", _RUN_WITHOUT, modules, *argv], capture_output=True, text=True,
                          cwd=cwd, timeout=300)


def test_the_core_install_validates_and_scores_the_demo(tmp_path):
    """The README's first command (scoring the two sample submissions) and the random baseline, without any extra."""
    done = run_without(EXTRA_MODULES, "tpugraphs-eval", str(REPO / "sample_submissions/demo_random_test.csv"),
                       str(REPO / "sample_submissions/demo_identity_test.csv"), "--data-root", "demo", "--split",
                       "test", "--no-progress", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    done = run_without(EXTRA_MODULES, "tpugraphs-baseline", "random", "--split", "valid", "--data-root", "demo",
                       "-o", "random.csv", cwd=tmp_path)
    assert done.returncode == 0 and (tmp_path / "random.csv").is_file(), done.stderr


@pytest.mark.parametrize("argv, module, extra", [
    (("tpugraphs-eval", "solution", "build", "--data-root", "demo", "--split", "test", "-o", "s.parquet"),
     "polars", "organiser"),
    (("tpugraphs-eval", "export", "mlebench", "-o", "mle", "--data-root", "demo"), "pandas", "organiser"),
    (("tpugraphs-leaderboard", "demo", "-o", "board"), "polars", "organiser"),
    (("tpugraphs-baseline", "learned", "--split", "valid", "--data-root", "demo", "-o", "l.csv"), "scipy", "kit"),
])
def test_a_command_without_its_extra_names_the_extra(argv, module, extra, tmp_path):
    done = run_without(EXTRA_MODULES, *argv, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr == (f"{argv[0]}: error: [MISSING_EXTRA] this command needs {module}, which is not installed: "
                           f"pip install 'tpugraphs-eval[{extra}]' (or '.[{extra}]' in a checkout; '[all]' installs "
                           "every extra)\n")


def test_another_missing_module_is_an_internal_error_not_an_extra(tmp_path):
    """numpy is core: its absence is a broken install (exit 3), never advice to install an extra."""
    done = run_without("numpy", "tpugraphs-eval", "validate", str(REPO / "sample_submissions/demo_random_test.csv"),
                       "--data-root", "demo", "--split", "test", cwd=tmp_path)
    assert done.returncode == 3 and "MISSING_EXTRA" not in done.stderr and "Traceback" not in done.stderr, done.stderr
