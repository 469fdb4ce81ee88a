"""report/ has no import circle (issue 13 item 6): its modules import one another in one direction only,
report.py (the organiser's result) first, public.py (the participant's view of it) next, the renderers last."""

from __future__ import annotations

import ast
from pathlib import Path

import tpugraphs_eval.report as report_package

FOLDER = Path(report_package.__file__).parent


def _imports() -> dict[str, set[str]]:
    """Module of report/ → the report/ modules it imports (``from .x import``, also under TYPE_CHECKING)."""
    graph = {}
    for path in FOLDER.glob("*.py"):
        names = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
                names.add(node.module.split(".")[0])
        graph[path.stem] = names & {p.stem for p in FOLDER.glob("*.py")}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> list[str] | None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*path, node, nxt]
            if nxt not in state and (found := visit(nxt, [*path, node])):
                return found
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start, [])):
            return found
    return None


def test_report_modules_import_in_one_direction():
    graph = _imports()
    assert _cycle(graph) is None, _cycle(graph)
    assert "public" not in graph["report"] and "report" in graph["public"]
    assert {"public", "report"} <= graph["terminal"] and {"public", "report"} <= graph["html"]


def test_the_cycle_finder_finds_a_cycle():
    assert _cycle({"report": {"public"}, "public": {"report"}}) == ["public", "report", "public"]
    assert _cycle({"a": {"b"}, "b": set()}) is None
