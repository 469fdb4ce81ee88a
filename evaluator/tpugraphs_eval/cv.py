"""Cross-validated scores: one submission scored on each fold of a fold file exactly as ``--graphs FILE --fold K``
scores it (:meth:`api.Evaluator.over` with the fold's graphs), then mean and sample sd (``statistics.stdev``) per
collection over the folds where a value is defined (docs/options.md, ``cv``).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from .api import Evaluator
from .dataset import COLLECTIONS
from .display import finite
from .report.report import Report
from .submission.csvfile import SubmissionSource


def cross_validate(evaluator: Evaluator, folds: Mapping[int, Mapping[str, int | None]], source: SubmissionSource,
                   collections: Sequence[str] | None = None) -> tuple[dict[str, Any], list[Report]]:
    """Score ``source`` on each fold (``evaluator`` holds the whole split's ground truth, read once).

    Args:
        evaluator: the split's evaluator (no selection of its own).
        folds: fold number → its graph IDs (ID → line of the fold file, or None).
        source: the submission (read once per fold).
        collections: score only these collections of each fold (``--collections``, applied after the fold's
            graphs are chosen, as ``--graphs FILE --fold K --collections`` applies it). None: all.

    Returns:
        ``({"folds": [{fold, graphs, valid, overall, collections}], "mean": {...}, "sd": {...}}, reports)``:
        ``mean`` and ``sd`` have keys ``overall`` and ``collections`` (collection → value or None).

    Raises:
        UsageError: a fold names an ID that is not a graph of the split (``GRAPHS_FILE_UNKNOWN_ID``); a bad
            ``collections`` (:func:`api.select_collections`).
    """
    rows, reports = [], []
    for fold, ids in folds.items():
        report = Evaluator.over(evaluator.catalog, evaluator.truth, evaluator.options, graphs=ids,
                                collections=collections).evaluate(source)
        reports.append(report)
        values = {k: finite(v) for k, v in report.collection_values().items()}
        rows.append({"fold": fold, "graphs": len(ids), "valid": report.valid, "overall": finite(report.overall),
                     "collections": values})
    names = [c.name for c in COLLECTIONS if any(c.name in r["collections"] for r in rows)]
    mean = {"overall": _mean([r["overall"] for r in rows]),
            "collections": {n: _mean([r["collections"].get(n) for r in rows]) for n in names}}
    sd = {"overall": _sd([r["overall"] for r in rows]),
          "collections": {n: _sd([r["collections"].get(n) for r in rows]) for n in names}}
    return {"folds": rows, "mean": mean, "sd": sd}, reports


def _mean(values: list[float | None]) -> float | None:
    defined = [v for v in values if v is not None]
    return math.fsum(defined) / len(defined) if defined else None


def _sd(values: list[float | None]) -> float | None:
    defined = [v for v in values if v is not None]
    return statistics.stdev(defined) if len(defined) >= 2 else None
