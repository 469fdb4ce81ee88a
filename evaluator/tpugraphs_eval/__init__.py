"""tpugraphs_eval: validate and score TpuGraphs runtime-ranking submissions exactly.

Quick use::

    from tpugraphs_eval import evaluate, Options
    report = evaluate("submission.csv", split="valid", data_root="demo")
    print(report.overall, report.to_json())

Definitions: docs/codes.md (format) and docs/metrics.md (metrics); see README.md.
"""

from ._version import __version__
from .api import Evaluator, evaluate, score_predictions, score_submission, validation_report
from .dataset import BY_NAME, COLLECTIONS, SPLITS, TILE_TOP_K, Collection
from .errors import DataError, NoGroundTruthError, TpuGraphsEvalError, UsageError
from .options import Options
from .report.public import PublicReport
from .report.report import Report
from .roots import resolve_data_root
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
from .truth.npzread import load_ground_truth, scan_catalog
from .truth.solution import load_solution

__all__ = [
    "BY_NAME", "CODES", "COLLECTIONS", "Collection", "DataError", "DataRoot", "Evaluator", "GroundTruth",
    "NoGroundTruthError", "Options", "Problem", "PublicReport", "UndefinedMetricError",
    "References", "Report", "SPLITS", "Severity", "SplitCatalog", "TILE_TOP_K", "TpuGraphsEvalError", "UsageError",
    "Validation", "__version__", "collection_references", "evaluate", "load_eval_indices", "load_ground_truth",
    "load_solution", "resolve_data_root", "scan_catalog", "score_submission", "validate_submission", "validation_report",
    "score_predictions", "kendall_tau_b", "ordered_pair_accuracy", "slowdown", "tile_score", "top_k_error",
]
