"""Stage 3: parsed rankings + ground truth → per-graph metrics → collection and overall values (SPEC §3).

Per graph: tile gets the Kaggle score and top-1/5/10 errors; layout gets Kendall's tau-b and
slowdown@1/10/100. A collection's value is the unweighted mean over its graphs (tile: the Kaggle
score; layout: tau-b, leaving out graphs whose tau is undefined); the overall score is the unweighted
mean of the collection values present.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .catalog import TILE_TOP_K, Collection, submission_id
from .evalindices import EvalIndices
from .groundtruth import CollectionTruth, GroundTruth
from .metrics import first_k_minima, kendall_tau_b, ranking_tau_b, tile_score, top_k_error
from .options import SLOWDOWN_KS, TOP_K_ERRORS
from .validation import ParsedSubmission

TILE_METRICS = ("score",) + tuple(f"top{k}_error" for k in TOP_K_ERRORS)
LAYOUT_METRICS = ("kendall_tau",) + tuple(f"slowdown{k}" for k in SLOWDOWN_KS)
PRIMARY_METRIC = {"tile": "score", "layout": "kendall_tau"}
_SLOWDOWN_KS = np.array(sorted(SLOWDOWN_KS))


@dataclass
class CollectionResult:
    """Scores of one collection.

    Attributes:
        collection: the collection.
        ids: (G,) submission IDs, in the catalog's order.
        per_graph: metric name → (G,) float64 values (NaN where undefined: tau of a graph whose
            scored runtimes are all equal or that has fewer than 2 scored configs).
        n_scored: (G,) number of configurations entering each graph's metrics.
    """

    collection: Collection
    ids: list[str]
    per_graph: dict[str, np.ndarray]
    n_scored: np.ndarray

    @property
    def metric(self) -> str:
        """The metric whose mean is the collection value: ``score`` (tile) or ``kendall_tau`` (layout)."""
        return PRIMARY_METRIC[self.collection.kind]

    def means(self) -> dict[str, float | None]:
        """Unweighted mean of each metric over the graphs where it is defined (None if none)."""
        out: dict[str, float | None] = {}
        for name, values in self.per_graph.items():
            defined = values[~np.isnan(values)]
            out[name] = float(defined.mean()) if defined.size else None
        return out

    @property
    def value(self) -> float | None:
        """The collection value (mean of :attr:`metric` over defined graphs), None if undefined everywhere."""
        return self.means()[self.metric]

    def programs(self) -> dict[str, dict[str, float]]:
        """Tile only: program → {metric: mean, ``n_graphs``}; {} for layout.

        The program is the graph name without its last ``_<hash>`` part, as the official
        ``tiles_evaluate.py`` groups graphs (test names, 32 hex digits, are each their own program).
        """
        if self.collection.kind != "tile":
            return {}
        names = [i.rpartition(":")[2] for i in self.ids]
        labels, group = np.unique([n.rsplit("_", 1)[0] if "_" in n else n for n in names], return_inverse=True)
        n_graphs = np.bincount(group)
        sums = {m: np.bincount(group, weights=v) for m, v in self.per_graph.items()}
        return {label: {**{m: float(sums[m][i] / n_graphs[i]) for m in sums}, "n_graphs": int(n_graphs[i])}
                for i, label in enumerate(labels.tolist())}

    @property
    def undefined(self) -> list[str]:
        """IDs whose primary metric is undefined and so left out of the mean (SPEC §3.2 Decision)."""
        values = self.per_graph[self.metric]
        return [i for i, v in zip(self.ids, values) if math.isnan(v)]


def _tile(truth: CollectionTruth, packed: dict[int, bytes]) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Vectorised over all graphs: gather each ranking's runtimes, take the best of its first k."""
    rows = [packed[g] for g in range(len(truth.runtimes))]
    lengths = np.array([len(row) for row in rows], dtype=np.int64) // 4
    flat = np.frombuffer(b"".join(rows), dtype=np.int32).astype(np.int64)
    sizes = np.array([y.size for y in truth.runtimes], dtype=np.int64)
    offsets = np.cumsum(sizes) - sizes
    values = np.concatenate(truth.runtimes)[np.repeat(offsets, lengths) + flat]
    ratios = {k: first_k_minima(values, lengths, k) / truth.best for k in sorted({TILE_TOP_K, *TOP_K_ERRORS})}
    metrics = {"score": tile_score(ratios[TILE_TOP_K])}
    metrics.update({f"top{k}_error": top_k_error(ratios[k]) for k in TOP_K_ERRORS})
    return metrics, lengths


def _layout_graph(runtime: np.ndarray, ranking: np.ndarray, best: float,
                  sampled: np.ndarray | None) -> tuple[list[float], int]:
    """tau-b and slowdowns of one layout graph; ``sampled`` is the official index list, or None for all configs."""
    if sampled is None:
        ordered = runtime[ranking]
        tau = ranking_tau_b(ordered)
    else:
        rank_of = np.full(runtime.size, -1, dtype=np.int64)
        rank_of[ranking] = np.arange(ranking.size)
        predicted = rank_of[sampled]
        listed = predicted >= 0
        predicted, sampled_runtime = predicted[listed], runtime[sampled][listed]
        tau = kendall_tau_b(predicted, sampled_runtime)
        ordered = sampled_runtime[np.argsort(predicted, kind="stable")]
        best = runtime[sampled].min()
    if ordered.size == 0:
        return [tau] + [math.nan] * len(SLOWDOWN_KS), 0
    best_of_first = np.minimum.accumulate(ordered[:_SLOWDOWN_KS[-1]])
    ratios = best_of_first[np.minimum(_SLOWDOWN_KS, ordered.size) - 1] / best
    return [tau, *top_k_error(ratios).tolist()], int(ordered.size)


def _layout(truth: CollectionTruth, packed: dict[int, bytes],
            sampled: dict[int, np.ndarray] | None) -> tuple[dict[str, np.ndarray], np.ndarray]:
    rows, counts = [], []
    for g, runtime in enumerate(truth.runtimes):
        ranking = np.frombuffer(packed[g], dtype=np.int32)
        values, n = _layout_graph(runtime, ranking, truth.best[g], None if sampled is None else sampled[g])
        rows.append(values)
        counts.append(n)
    table = np.array(rows, dtype=np.float64).reshape(len(rows), len(LAYOUT_METRICS))
    return {name: table[:, i] for i, name in enumerate(LAYOUT_METRICS)}, np.array(counts, dtype=np.int64)


def score_parsed(parsed: ParsedSubmission, truth: GroundTruth,
                 eval_indices: EvalIndices | None = None) -> dict[str, CollectionResult]:
    """Per-graph metrics of every present collection.

    Args:
        parsed: rankings of a submission that validated without errors (every graph has one).
        truth: the split's runtimes.
        eval_indices: the official sampled configs (``--configs official``), or None for all configs.

    Returns:
        Collection name → :class:`CollectionResult`, in :data:`catalog.COLLECTIONS` order.
    """
    results = {}
    for name, collection_truth in truth.collections.items():
        collection = collection_truth.graphs.collection
        packed = parsed.packed[name]
        ids = [submission_id(collection, g) for g in collection_truth.graphs.names]
        if collection.kind == "tile":
            per_graph, n_scored = _tile(collection_truth, packed)
        else:
            sampled = None if eval_indices is None else eval_indices[name]
            per_graph, n_scored = _layout(collection_truth, packed, sampled)
        results[name] = CollectionResult(collection, ids, per_graph, n_scored)
    return results

