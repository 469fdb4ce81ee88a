"""Shared by the tests of the participant-facing views (``--public-only``): the numbers a view must not show,
and a scan of its text for them and for graph names."""

from __future__ import annotations

import math
import re
from pathlib import Path

from tpugraphs_eval.api import score_submission
from tpugraphs_eval.truth.solution import load_solution

NUMBER = re.compile(r"(?<![\w.])-?\d+\.\d+(?:e-?\d+)?(?![\d.])")
"""A decimal number as written by repr or a format (not part of a version like 0.1.0 or a name)."""


def numbers(text: str) -> set[str]:
    """Every decimal number written in ``text``."""
    return set(NUMBER.findall(text))


def scored_values(paths: list[Path], solution: Path) -> tuple[set[float], set[float], dict[Path, dict]]:
    """Each valid submission of ``paths`` scored alone against ``solution``: every private value (overall and
    collections, private board and all graphs), every per-graph value (every metric of every graph) and each
    submission's public board summary (``{overall, collections, normalised}``)."""
    truth = load_solution(solution)
    private, per_graph, public = set(), set(), {}
    for path in paths:
        report = score_submission(path.read_bytes(), truth)
        if not report.scored:
            continue
        public[path] = report.leaderboards["public"].summary()
        for scores in (report.leaderboards["private"], report.scores):
            private |= {scores.overall, *(r.value for r in scores.collections.values())} - {None}
        per_graph |= {v for metrics in report.graph_metrics().values() for v in metrics.values()
                      if isinstance(v, float) and math.isfinite(v)}
    return private, per_graph, public


def graph_names(solution: Path) -> list[str]:
    """Every graph name of the solution's split (the last part of its IDs)."""
    return [name for t in load_solution(solution).collections.values() for name in t.graphs.names]
