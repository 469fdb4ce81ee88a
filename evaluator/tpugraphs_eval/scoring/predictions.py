"""Scoring predictions: valid predicted runtimes + ground truth → the same per-graph metrics as a ranking's, as the
official code scores model outputs (docs/metrics.md, "Predictions"): layout tau-b and OPA with tied predictions as
ties, and every top k (slowdowns, tile score and errors) from a stable argsort of the predictions."""

from __future__ import annotations

import numpy as np

from ..rules.topconfigs import TILE_MAX_LISTED
from ..submission.predictions import ParsedPredictions
from ..submission.rankings import INDEX_DTYPE, Rankings
from ..truth.eval_indices import EvalIndices
from ..truth.groundtruth import GroundTruth
from .layout import layout_metrics
from .score import CollectionResult, tile_metrics


def score_predictions_parsed(parsed: ParsedPredictions, truth: GroundTruth,
                             eval_indices: EvalIndices | None = None) -> dict[str, CollectionResult]:
    """:func:`.score.score_parsed` of predictions that validated without errors
    (:func:`..submission.predictions.validate_predictions` with the same ``eval_indices``); ``n_scored``: the
    configurations each graph's predictions were compared over (tile: c; layout: c, or the official list's m)."""
    results = {}
    for name, t in truth.collections.items():
        values = parsed.values[name]
        if t.graphs.collection.kind == "tile":  # the ranking route on each graph's first 10 by stable argsort
            rankings = Rankings({g: np.argsort(values[g], kind="stable")[:TILE_MAX_LISTED].astype(INDEX_DTYPE).tobytes()
                                 for g in range(t.best.size)})
            scored = tile_metrics(t, rankings)._replace(n_scored=t.graphs.n_configs.astype(np.int64))  # all compared
        else:
            runtimes = t.runtimes
            if eval_indices is not None:
                runtimes = [y[eval_indices[name][g]] for g, y in enumerate(runtimes)]
            scored = layout_metrics((values[g], y, y.size) for g, y in enumerate(runtimes))
        results[name] = CollectionResult(t.graphs.collection, t.graphs.ids, *scored)
    return results
