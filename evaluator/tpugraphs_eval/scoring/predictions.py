"""Scoring predictions: valid predicted runtimes + ground truth → the same per-graph metrics as a ranking's.

Scored as the official code scores model outputs (docs/metrics.md, "Predictions"):
- layout: Kendall's tau-b of the predictions against the runtimes, as ``scipy.stats.kendalltau`` (tied
  predictions are ties; official ``layout_evaluate.py``), OPA from the same pair counts (a tied pair is not
  correctly ordered), and slowdown@k over the first k of a stable argsort of the predictions;
- tile: the Kaggle score and top-K errors of the first K of a stable argsort of the predictions (official
  ``tpu_graphs/baselines/tiles/metrics.py`` takes ``argsort(preds)[:k]``), through the ranking route's code.
"""

from __future__ import annotations

import numpy as np

from ..rules.topconfigs import TILE_MAX_LISTED
from ..submission.predictions import ParsedPredictions
from ..submission.rankings import INDEX_DTYPE, Rankings
from ..truth.eval_indices import EvalIndices
from ..truth.groundtruth import CollectionTruth, GroundTruth
from .layout import GraphMetrics, layout_metrics
from .score import CollectionResult, tile_metrics


def _layout(truth: CollectionTruth, values: dict[int, np.ndarray], sampled: dict[int, np.ndarray] | None
            ) -> GraphMetrics:
    scored = truth.runtimes if sampled is None else [y[sampled[g]] for g, y in enumerate(truth.runtimes)]
    return layout_metrics((values[g], y, y.size) for g, y in enumerate(scored))


def _tile(truth: CollectionTruth, values: dict[int, np.ndarray]) -> GraphMetrics:
    """The ranking route's tile metrics of each graph's first 10 configs by stable argsort of its predictions."""
    rankings = Rankings({g: np.argsort(values[g], kind="stable")[:TILE_MAX_LISTED].astype(INDEX_DTYPE).tobytes()
                         for g in range(truth.best.size)})
    scored = tile_metrics(truth, rankings)
    return GraphMetrics(scored.per_graph, truth.graphs.n_configs.astype(np.int64), scored.curves)  # all in the argsort


def score_predictions_parsed(parsed: ParsedPredictions, truth: GroundTruth,
                             eval_indices: EvalIndices | None = None) -> dict[str, CollectionResult]:
    """Per-graph metrics of every present collection from valid predictions.

    Args:
        parsed: predictions that validated without errors (:func:`..submission.predictions.validate_predictions`
            with the same ``eval_indices``): every graph has its scored entries.
        truth: the split's runtimes.
        eval_indices: the official sampled configs (``--configs official``), or None for all configs.

    Returns:
        Collection name → :class:`CollectionResult` (the metrics of :func:`.score.score_parsed`), in
        :data:`catalog.COLLECTIONS` order; ``n_scored``: the configurations each graph's predictions were
        compared over (tile: c; layout: c, or the official list's m).
    """
    results = {}
    for name, collection_truth in truth.collections.items():
        graphs = collection_truth.graphs
        values = parsed.values[name]
        if graphs.collection.kind == "tile":
            scored = _tile(collection_truth, values)
        else:
            scored = _layout(collection_truth, values, None if eval_indices is None else eval_indices[name])
        results[name] = CollectionResult(graphs.collection, graphs.ids, *scored)
    return results
