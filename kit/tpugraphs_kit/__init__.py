"""tpugraphs_kit: the participant kit for TpuGraphs — data access, baselines, submission files, download.

Quick use::

    from tpugraphs_kit import load_graph, iter_graphs, write_predictions, random_rankings
    graph = load_graph("demo", "layout:xla:default", "valid", "unet_3d.4x4.bf16", keys=["config_runtime"])

Every submission file the kit writes is validated first by the evaluator
(:func:`tpugraphs_eval.validate_submission`, strict mode) and written atomically. Commands:
``tpugraphs-baseline`` (random, learned, combine) and ``tpugraphs-data`` (info, urls, download).
"""

from .combine import Combined, combine_submissions
from .data import Graph, collection, data_root, iter_graphs, iter_split, list_graphs, load_graph, present_collections
from .errors import DownloadError, KitError, SubmissionError
from .learned import RidgeRanker, fit_collection, train, write_learned_submission
from .random_baseline import (
    RandomExpectation,
    random_expectations,
    random_ranking,
    random_rankings,
    write_random_submission,
)
from .submission import csv_bytes, rank_configs, write_predictions, write_submission

__all__ = [
    "Combined", "DownloadError", "Graph", "KitError", "RandomExpectation", "RidgeRanker", "SubmissionError",
    "collection", "combine_submissions", "csv_bytes", "data_root", "fit_collection", "iter_graphs", "iter_split",
    "list_graphs", "load_graph", "present_collections", "random_expectations", "random_ranking", "random_rankings",
    "rank_configs", "train", "write_learned_submission", "write_predictions", "write_random_submission",
    "write_submission",
]
