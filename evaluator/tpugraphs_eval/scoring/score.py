"""Scoring: parsed rankings + ground truth → per-graph metrics → collection and overall values (docs/metrics.md).
Every mean is over the graphs where its metric is defined, and says over how many (:meth:`CollectionResult.counts`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..dataset import TILE_TOP_K, Collection, tile_program
from ..rules.metric_table import ks, primary
from ..submission.rankings import Rankings
from ..submission.validation import ParsedSubmission
from ..truth.eval_indices import EvalIndices
from ..truth.groundtruth import CollectionTruth, GroundTruth
from .curve import TILE_K
from .layout import GraphMetrics, score_all_configs, score_official
from .metrics import defined_mean, error_from_ratio, search_curves, tile_score_from_ratio

TOP_K_ERRORS = ks("top_k_error")
"""K of the tile top-K errors (:data:`..rules.metric_table.METRICS`)."""


@dataclass
class CollectionResult:
    """Scores of one collection.

    Attributes:
        collection: the collection.
        ids: (G,) submission IDs, in the catalog's order.
        per_graph: metric name → (G,) float64 values (NaN where undefined: tau of a graph whose
            scored runtimes are all equal or that has fewer than 2 scored configs; the top-K error of a
            tile row listing fewer than min(K, c) usable indices).
        n_scored: (G,) number of configurations entering each graph's metrics.
        curves: (G, K) search curves (:mod:`.curve`: layout K = 100, tile K = 10), or None (not computed).
    """

    collection: Collection
    ids: list[str]
    per_graph: dict[str, np.ndarray]
    n_scored: np.ndarray
    curves: np.ndarray | None = None

    def restrict(self, keep: np.ndarray) -> CollectionResult:
        """The same results for the graphs where ``keep`` ((G,) bool) is True, e.g. the public leaderboard's."""
        return CollectionResult(self.collection, [i for i, k in zip(self.ids, keep.tolist(), strict=True) if k],
                                {m: v[keep] for m, v in self.per_graph.items()}, self.n_scored[keep],
                                None if self.curves is None else self.curves[keep])

    @property
    def metric(self) -> str:
        """The metric whose mean is the collection value (:func:`..rules.metric_table.primary`): ``score`` (tile) or
        ``kendall_tau`` (layout)."""
        return primary(self.collection.kind).name

    def means(self) -> dict[str, float | None]:
        """Unweighted mean of each metric over the graphs where it is defined (None if none)."""
        return dict(self._means)

    @cached_property
    def _means(self) -> dict[str, float | None]:  # results are not changed once made: computed once
        return {name: defined_mean(values) for name, values in self.per_graph.items()}

    def counts(self) -> dict[str, int]:
        """Metric → the number of graphs its mean is over (those where it is defined)."""
        return {name: int(np.count_nonzero(~np.isnan(values))) for name, values in self.per_graph.items()}

    @property
    def value(self) -> float | None:
        """The collection value (mean of :attr:`metric` over defined graphs), None if undefined everywhere."""
        return self._means[self.metric]

    def programs(self) -> dict[str, dict[str, float | None]]:
        """Tile only ({} for layout): program (:func:`..dataset.tile_program` of the graph name, as the official
        ``tiles_evaluate.py`` groups graphs) → {metric: mean over its graphs where it is defined (None if none),
        ``n_graphs``}."""
        if self.collection.kind != "tile":
            return {}
        names = [i.rpartition(":")[2] for i in self.ids]
        labels, group = np.unique([tile_program(n) for n in names], return_inverse=True)
        members = np.split(np.argsort(group, kind="stable"), np.cumsum(np.bincount(group))[:-1])
        return {label: {**{m: defined_mean(v[at]) for m, v in self.per_graph.items()}, "n_graphs": int(at.size)}
                for label, at in zip(labels.tolist(), members, strict=True)}

    @property
    def undefined(self) -> list[str]:
        """IDs whose primary metric is undefined and so left out of the mean (docs/metrics.md, collection value **Decision**)."""
        values = self.per_graph[self.metric]
        return [i for i, v in zip(self.ids, values, strict=True) if math.isnan(v)]


def tile_metrics(truth: CollectionTruth, rankings: Rankings) -> GraphMetrics:
    """Tile score and top-K errors of every graph of a collection (every graph has a ranking), vectorised over all
    graphs. The top-K error of a row listing fewer than min(K, c) usable indices is NaN (undefined; docs/metrics.md,
    tile:xla **Decision**)."""
    flat, lengths = rankings.joined(truth.best.size)
    values = truth.values[np.repeat(truth.offsets[:-1], lengths) + flat]
    curves = search_curves(values, lengths, truth.best, TILE_K)
    errors = {f"top{k}_error": np.where(lengths >= np.minimum(k, truth.graphs.n_configs),
                                        error_from_ratio(curves[:, k - 1]), np.nan) for k in TOP_K_ERRORS}
    return GraphMetrics({"score": tile_score_from_ratio(curves[:, TILE_TOP_K - 1]), **errors}, lengths, curves)


def score_parsed(parsed: ParsedSubmission, truth: GroundTruth,
                 eval_indices: EvalIndices | None = None) -> dict[str, CollectionResult]:
    """Collection name → :class:`CollectionResult` of every present collection (in
    :data:`tpugraphs_eval.dataset.COLLECTIONS` order), from the rankings of a submission that validated without
    errors, against all configs or, with ``eval_indices``, the official sampled ones (``--configs official``)."""
    layouts = [name for name, t in truth.collections.items() if t.graphs.collection.kind == "layout"]
    if eval_indices is None:  # every layout collection in one pass: one C call for all tau-b
        scored = score_all_configs([truth.collections[n] for n in layouts], [parsed.rankings[n] for n in layouts])
    else:
        scored = [score_official(truth.collections[n], parsed.rankings[n], eval_indices[n]) for n in layouts]
    by_name = dict(zip(layouts, scored, strict=True))
    return {name: CollectionResult(t.graphs.collection, t.graphs.ids,
                                   *(by_name[name] if name in by_name else tile_metrics(t, parsed.rankings[name])))
            for name, t in truth.collections.items()}

