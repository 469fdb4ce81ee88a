"""Every name the docs give as top-level API (`from tpugraphs_eval import X`, `tpugraphs_eval.X`, `te.X`, the
names of docs/report-json.md's "Python API" section) is importable from `tpugraphs_eval` and in its `__all__`."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import tpugraphs_eval

REPO = Path(__file__).resolve().parents[2]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
NOT_NAMES = {"exit_code"}
"""Backticked words of the Python API section that are not top-level names: an attribute of the errors."""


def _is_module(name: str) -> bool:
    return importlib.util.find_spec(f"tpugraphs_eval.{name}") is not None


def documented_names() -> dict[str, str]:
    """name → the doc that gives it as top-level API."""
    names = {}
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for line in re.findall(r"from tpugraphs_eval import ([^\n]+)", text):
            names.update((n.strip(), doc.name) for n in line.strip("()").split(",") if n.strip())
        for name in re.findall(r"\btpugraphs_eval\.([A-Za-z_]\w*)\b(?!\.)", text):
            names[name] = doc.name
        if "import tpugraphs_eval as te" in text:
            names.update((n, doc.name) for n in re.findall(r"\bte\.([A-Za-z_]\w*)", text))
    text = (REPO / "docs/report-json.md").read_text(encoding="utf-8")
    section = text.split("## Python API", 1)[1].split("\n## ", 1)[0]
    for token in re.findall(r"`([^`\n]+)`", section):
        match = re.fullmatch(r"([A-Za-z_]\w*)(\(.*\)|\.\w+)?", token)
        if match and not match.group(1).isupper() and match.group(1) not in NOT_NAMES:
            names[match.group(1)] = "report-json.md"
    return {n: doc for n, doc in names.items() if not _is_module(n)}


def test_the_docs_name_the_api_they_are_checked_for():
    names = documented_names()
    assert {"load_solution", "load_ground_truth", "evaluate", "Evaluator", "scan_catalog",
            "validate_submission", "resolve_data_root"} <= set(names)


def test_every_documented_top_level_name_is_exported():
    missing = {n: doc for n, doc in documented_names().items()
               if n not in tpugraphs_eval.__all__ or not hasattr(tpugraphs_eval, n)}
    assert missing == {}


def test_all_names_only_what_exists():
    namespace: dict[str, object] = {}
    exec("from tpugraphs_eval import *", namespace)
    assert set(tpugraphs_eval.__all__) <= set(namespace)
    assert len(tpugraphs_eval.__all__) == len(set(tpugraphs_eval.__all__))


def test_load_solution_at_top_level_reads_a_solution(demo_solution):
    from tpugraphs_eval.truth.solution import load_solution

    assert tpugraphs_eval.load_solution is load_solution
    truth = tpugraphs_eval.load_solution(demo_solution)
    assert truth.has_usage and truth.catalog.split == "test"
