"""tpugraphs_eval: validate and score TpuGraphs runtime-ranking submissions exactly.

Quick use::

    from tpugraphs_eval import evaluate, Options
    report = evaluate("submission.csv", split="valid", data_root="demo")
    print(report.overall, report.to_json())

Definitions: docs/codes.md (format) and docs/metrics.md (metrics); see README.md.
"""

from typing import TYPE_CHECKING

from ._version import __version__

if TYPE_CHECKING:  # what a type checker sees; at run time each name is imported at first use (_EXPORTS, below)
    from .api import Evaluator, evaluate, score_predictions, score_submission, validation_report
    from .dataset import BY_NAME, COLLECTIONS, SPLITS, TILE_TOP_K, Collection
    from .errors import DataError, NoGroundTruthError, TpuGraphsEvalError, UsageError
    from .options import Options
    from .report.public import PublicReport
    from .report.report import Report
    from .roots import load_ground_truth, resolve_data_root, scan_catalog
    from .scoring.metrics import (
        UndefinedMetricError,
        kendall_tau_b,
        ordered_pair_accuracy,
        slowdown,
        tile_score,
        top_k_error,
    )
    from .scoring.references import References, collection_references
    from .submission.problems import CODES, Problem, Severity
    from .submission.validation import Validation, validate_submission
    from .truth.dataroot import DataRoot
    from .truth.eval_indices import load_eval_indices
    from .truth.groundtruth import GroundTruth, SplitCatalog
    from .truth.solution import load_solution

_EXPORTS = {name: module for module, names in (
    (".api", "Evaluator evaluate score_predictions score_submission validation_report"),
    (".dataset", "BY_NAME COLLECTIONS SPLITS TILE_TOP_K Collection"),
    (".errors", "DataError NoGroundTruthError TpuGraphsEvalError UsageError"),
    (".options", "Options"), (".report.public", "PublicReport"), (".report.report", "Report"),
    (".roots", "load_ground_truth resolve_data_root scan_catalog"),
    (".scoring.metrics", "UndefinedMetricError kendall_tau_b ordered_pair_accuracy slowdown tile_score top_k_error"),
    (".scoring.references", "References collection_references"), (".submission.problems", "CODES Problem Severity"),
    (".submission.validation", "Validation validate_submission"), (".truth.dataroot", "DataRoot"),
    (".truth.eval_indices", "load_eval_indices"), (".truth.groundtruth", "GroundTruth SplitCatalog"),
    (".truth.solution", "load_solution"),
) for name in names.split()}
"""Public name → the module defining it, imported at first use (PEP 562), so that ``import tpugraphs_eval``
and the CLI's ``--help`` / ``--version`` load only what they use (docs/performance.md, "Imports")."""


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


__all__ = [
    "BY_NAME", "CODES", "COLLECTIONS", "Collection", "DataError", "DataRoot", "Evaluator", "GroundTruth",
    "NoGroundTruthError", "Options", "Problem", "PublicReport", "UndefinedMetricError",
    "References", "Report", "SPLITS", "Severity", "SplitCatalog", "TILE_TOP_K", "TpuGraphsEvalError", "UsageError",
    "Validation", "__version__", "collection_references", "evaluate", "load_eval_indices", "load_ground_truth",
    "load_solution", "resolve_data_root", "scan_catalog", "score_submission", "validate_submission", "validation_report",
    "score_predictions", "kendall_tau_b", "ordered_pair_accuracy", "slowdown", "tile_score", "top_k_error",
]
