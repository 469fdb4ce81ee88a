"""Every metric once: its name, collection kind, K, direction, whether it is a collection's value, label,
definition and the source of that definition (standard library only, Python >= 3.9). Scoring, ``compare``, the
renderers, the JSON report, the table in docs/metrics.md and tests/scoring/test_metric_common.py all read
:data:`METRICS`.

To add a metric: add a :class:`Metric` row to :data:`METRICS` (its place among its kind's rows is its column
order), compute its per-graph column under ``name`` in ``scoring/score.py`` (tile) or ``scoring/layout.py``
(layout), and regenerate the table in docs/metrics.md (:func:`metrics_markdown`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Tuple

KINDS = ("tile", "layout")
"""The collection kinds (tile:xla; the four layout collections)."""


@dataclass(frozen=True)
class Metric:
    """One per-graph metric.

    Attributes:
        name: its key in the per-graph columns and the JSON report (``top5_error``).
        family: the definition it is one K of (``top_k_error``); equal to ``name`` for a metric without K.
        kind: the collection kind it is computed for, ``tile`` or ``layout``.
        k: the K of a top-K metric (entries of the ranking looked at), None for a metric of the whole ranking.
        higher_is_better: True when a larger value is better (``compare`` flips the sign of the others).
        primary: True for the metric whose mean over graphs is the collection's value (one per kind).
        label: the short label of tables (terminal, HTML).
        low, high: the range of a per-graph value (``-inf``/``inf``: unbounded); the oracle ranking reaches
            ``high`` (higher-is-better) or ``low`` where runtimes do not tie.
        definition: the per-graph formula, y the runtimes, A all configs, L the submitted list.
        source: where the definition comes from (paper section or official file).
    """

    name: str
    family: str
    kind: str
    k: Optional[int]
    higher_is_better: bool
    primary: bool
    label: str
    low: float
    high: float
    definition: str
    source: str

    @property
    def best(self) -> float:
        """The best value a graph can score (the oracle's where runtimes do not tie)."""
        return self.high if self.higher_is_better else self.low


def _top_k_error(k: int) -> Metric:
    return Metric(f"top{k}_error", "top_k_error", "tile", k, False, False, f"err@{k}", 0.0, math.inf,
                  f"`min_{{first {k} of L}} y / min_A y - 1` (undefined when L lists fewer than min({k}, c) "
                  "usable indices)",
                  "TpuGraphs paper (arXiv 2308.13490), tile top-K error; official "
                  "`tpu_graphs/baselines/tiles/metrics.py`")


def _slowdown(k: int) -> Metric:
    return Metric(f"slowdown{k}", "slowdown", "layout", k, False, False, f"slow@{k}", 0.0, math.inf,
                  f"`min_{{first {k} of L}} y / min_A y - 1`",
                  "official `layout_evaluate.py`")


METRICS: Tuple[Metric, ...] = (
    Metric("score", "score", "tile", 5, True, True, "score", -math.inf, 1.0,
           "`2 - min_{first 5 of L} y / min_A y`",
           "Kaggle \"Google - Fast or Slow? Predict AI Model Runtime\" (2023), evaluation page"),
    _top_k_error(1), _top_k_error(5), _top_k_error(10),
    Metric("kendall_tau", "kendall_tau", "layout", None, True, True, "tau-b", -1.0, 1.0,
           "Kendall's tau-b between predicted rank (L[k] has rank k) and y, as `scipy.stats.kendalltau`",
           "TpuGraphs paper (arXiv 2308.13490), layout ranking metric; official "
           "`tpu_graphs/baselines/layout/layout_evaluate.py`"),
    Metric("opa", "opa", "layout", None, True, False, "OPA", 0.0, 1.0,
           "ordered pair accuracy: of the pairs of configs with different y, the share that L orders strictly the "
           "faster first (a pair tied in prediction is not ordered)",
           "TF-Ranking `tfr.keras.metrics.OPAMetric` per graph; the official baselines' `val_opa` "
           "(`tpu_graphs/baselines/layout/train_lib.py`) weighs graphs by pairs, on float32 runtime / 1e7"),
    _slowdown(1), _slowdown(10), _slowdown(100),
)
"""Every metric, tile ones first; within a kind, the order of the report's columns (primary first)."""

BESIDE_PRIMARY = "opa"
"""The secondary metric the score tables and the organiser leaderboard show in a column of its own beside the
collection's value (:func:`beside_primary`); the other secondary metrics share one column."""

BY_NAME = {m.name: m for m in METRICS}
"""Metric name → :class:`Metric`."""


def metrics_of(kind: str) -> Tuple[Metric, ...]:
    """The metrics of collection kind ``kind`` (``tile``/``layout``), in column order."""
    return tuple(m for m in METRICS if m.kind == kind)


def primary(kind: str) -> Metric:
    """The metric whose mean is the value of a collection of kind ``kind``."""
    (metric,) = (m for m in METRICS if m.kind == kind and m.primary)
    return metric


def beside_primary(kind: str) -> Optional[Metric]:
    """The metric shown in a column of its own beside the value of a collection of kind ``kind``
    (:data:`BESIDE_PRIMARY` when it is of that kind: layout OPA), else None (tile)."""
    metric = BY_NAME[BESIDE_PRIMARY]
    return metric if metric.kind == kind else None


def ks(family: str) -> Tuple[int, ...]:
    """The Ks of a top-K family (``top_k_error``: (1, 5, 10); ``slowdown``: (1, 10, 100)), in table order."""
    return tuple(m.k for m in METRICS if m.family == family and m.k is not None)


def _number(value: float) -> str:
    return "−∞" if value == -math.inf else "∞" if value == math.inf else f"{value:g}"


def metrics_markdown() -> str:
    """The Markdown table of :data:`METRICS` (docs/metrics.md holds it verbatim)."""
    lines = ["| metric | kind | K | better | collection value | label | range | definition | source |",
             "|---|---|---|---|---|---|---|---|---|"]
    for m in METRICS:
        lines.append(f"| `{m.name}` | {m.kind} | {'—' if m.k is None else m.k} | "
                     f"{'higher' if m.higher_is_better else 'lower'} | {'yes' if m.primary else 'no'} | {m.label} | "
                     f"[{_number(m.low)}, {_number(m.high)}] | {m.definition} | {m.source} |")
    return "\n".join(lines) + "\n"
