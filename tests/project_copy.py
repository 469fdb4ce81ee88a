"""A copy of the project's installable sources (evaluator/, kit/, pyproject.toml, README.md, LICENSE) without any built
module or cache, for the tests that install it into a fresh venv (tests/scoring/test_kernels.py,
tests/leaderboard/test_leaderboard_demo_installed.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def copy_project_source(target: Path) -> Path:
    """Copy the sources into ``target`` (made here) and return it."""
    junk = shutil.ignore_patterns("*.so", "*.pyd", "__pycache__", "*.egg-info", "build")
    for name in ("evaluator", "kit"):
        shutil.copytree(REPO / name, target / name, ignore=junk)
    for name in ("pyproject.toml", "README.md", "LICENSE"):  # LICENSE: pyproject's license-files
        shutil.copy2(REPO / name, target / name)
    return target
