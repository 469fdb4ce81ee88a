"""tpugraphs_eval: validate and score TpuGraphs runtime-ranking submissions exactly.

Quick use::

    from tpugraphs_eval import evaluate, Options
    report = evaluate("submission.csv", split="valid", data_root="demo")
    print(report.overall, report.to_json())

Definitions: SPEC §2 (format) and §3 (metrics); see README.md.
"""

__version__ = "0.1.0"

from .api import evaluate, score_submission, validation_report  # noqa: E402
from .catalog import BY_NAME, COLLECTIONS, SPLITS, TILE_TOP_K, Collection  # noqa: E402
from .dataroot import DataRoot, resolve_data_root  # noqa: E402
from .errors import DataError, TpuGraphsEvalError, UsageError  # noqa: E402
from .groundtruth import GroundTruth, SplitCatalog  # noqa: E402
from .npzread import load_ground_truth, scan_catalog  # noqa: E402
from .options import Options  # noqa: E402
from .evalindices import load_eval_indices  # noqa: E402
from .problems import CODES, Problem, Severity  # noqa: E402
from .references import References, collection_references  # noqa: E402
from .report import Report  # noqa: E402
from .validation import Validation, validate_submission  # noqa: E402

__all__ = [
    "BY_NAME", "CODES", "COLLECTIONS", "Collection", "DataError", "DataRoot", "GroundTruth", "Options", "Problem",
    "References", "Report", "SPLITS", "Severity", "SplitCatalog", "TILE_TOP_K", "TpuGraphsEvalError", "UsageError",
    "Validation", "__version__", "collection_references", "evaluate", "load_eval_indices", "load_ground_truth",
    "resolve_data_root", "scan_catalog", "score_submission", "validate_submission", "validation_report",
]
