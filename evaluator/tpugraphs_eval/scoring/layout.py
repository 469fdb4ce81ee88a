"""Per-graph layout metrics of a ranking (docs/metrics.md): Kendall's tau-b, ordered pair accuracy (OPA) and
slowdown@1/10/100, under two protocols: all configs (:func:`score_all_configs`: every layout graph of every
collection in one pass, the discordant pairs of all rankings counted by one C call, split over threads when large)
and the paper's 1000 sampled validation configs (:func:`score_official`, per graph).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from ..rules.metric_table import ks, metrics_of

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor
from ..submission.rankings import INDEX_DTYPE, Rankings
from ..truth.groundtruth import CollectionTruth
from .curve import LAYOUT_K
from .metrics import (
    discordant_pairs,
    error_from_ratio,
    opa_from_counts,
    pair_counts,
    search_curves,
    tau_b_from_counts,
)

SLOWDOWN_KS = ks("slowdown")
"""k of the layout slowdown@k (:data:`..rules.metric_table.METRICS`)."""
LAYOUT_METRICS = tuple(m.name for m in metrics_of("layout"))
"""The per-graph columns of a layout collection, in table order."""
_HEAD = max(SLOWDOWN_KS)
"""Entries of each ranking the slowdowns look at."""
_SLOWDOWN_COLUMNS = [k - 1 for k in SLOWDOWN_KS]  # slowdown@k is the search curve's column k - 1, minus 1
_BATCH_CONFIGS = 1 << 20
"""Layout configs gathered per vectorised step (bounds the temporary arrays to about 12 MB)."""
_PARALLEL_MIN_CONFIGS = 250_000
"""From this many layout configs the discordant pairs are counted on two threads (the C code releases the GIL);
below, the counting takes about a millisecond and handing work to a thread costs more than it saves."""
_pool: ThreadPoolExecutor | None = None


class GraphMetrics(NamedTuple):
    """Per-graph metrics of one collection.

    Attributes:
        per_graph: metric name → (G,) float64 values (NaN where undefined).
        n_scored: (G,) int64 configurations entering each graph's metrics.
        curves: (G, K) float64 search curves (:mod:`.curve`; NaN rows where none), or None (not computed).
    """

    per_graph: dict[str, np.ndarray]
    n_scored: np.ndarray
    curves: np.ndarray | None = None


def _threads() -> ThreadPoolExecutor | None:
    """A pool of two worker threads, made once and kept (starting threads costs more than small counts)."""
    global _pool
    if _pool is None and (os.cpu_count() or 1) > 1:
        from concurrent.futures import ThreadPoolExecutor  # imported by large runs only (docs/performance.md)

        _pool = ThreadPoolExecutor(2, thread_name_prefix="tpugraphs-eval")
    return _pool


def _discordant(ranks: np.ndarray, lengths: np.ndarray, n_values: np.ndarray) -> np.ndarray:
    """:func:`metrics.discordant_pairs`, split in two halves of about equal size on two threads when large."""
    pool = _threads() if ranks.size >= _PARALLEL_MIN_CONFIGS and lengths.size > 1 else None
    if pool is None:
        return discordant_pairs(ranks, lengths, n_values)
    ends = np.cumsum(lengths)
    cut = int(np.clip(np.searchsorted(ends, ends[-1] / 2), 1, lengths.size - 1))
    split = int(ends[cut - 1])
    first = pool.submit(discordant_pairs, ranks[:split], lengths[:cut], n_values[:cut])
    second = discordant_pairs(ranks[split:], lengths[cut:], n_values[cut:])
    return np.concatenate([first.result(), second])


def graph_batches(lengths: np.ndarray, limit: int) -> list[tuple[int, int]]:
    """Consecutive graph ranges [a, b) of at most ``limit`` configs each (at least one graph), for (G,) config counts
    ``lengths``: memory for a batch, not for the split."""
    ranges, start, total = [], 0, 0
    for g, n in enumerate(lengths.tolist()):
        if g > start and total + n > limit:
            ranges.append((start, g))
            start, total = g, 0
        total += n
    ranges.append((start, lengths.size))
    return ranges


def score_all_configs(truths: list[CollectionTruth], rankings: list[Rankings]) -> list[GraphMetrics]:
    """Per layout collection (``truths``, and its submitted ``rankings``, one per graph), the tau-b, OPA and
    slowdowns of every graph, every config scored. A lenient partial row ranks the configs it does not list tied
    after the listed ones (:func:`_predicted_ranks`); its slowdowns look at the listed configs and compare with the
    graph's best over all configs."""
    if not truths:
        return []
    rows = [r[g] for truth, r in zip(truths, rankings, strict=True) for g in range(truth.best.size)]
    lengths = np.array([len(row) for row in rows], dtype=np.int64) // INDEX_DTYPE.itemsize
    heads = np.minimum(lengths, _HEAD)
    ranks = np.empty(int(lengths.sum()), dtype=np.int32)
    head_values = np.empty(int(heads.sum()), dtype=np.result_type(*(t.values.dtype for t in truths)))
    graph = done = done_heads = 0
    for truth in truths:
        count = truth.best.size
        for a, b in graph_batches(lengths[graph:graph + count], _BATCH_CONFIGS):
            batch, batch_heads = lengths[graph + a:graph + b], heads[graph + a:graph + b]
            index = np.repeat(truth.offsets[a:b], batch) + np.frombuffer(b"".join(rows[graph + a:graph + b]),
                                                                          dtype=INDEX_DTYPE)
            ranks[done:done + index.size] = truth.ranks[index]
            row_starts, head_starts = np.cumsum(batch) - batch, np.cumsum(batch_heads) - batch_heads
            head_positions = np.arange(batch_heads.sum()) + np.repeat(row_starts - head_starts, batch_heads)
            head_values[done_heads:done_heads + head_positions.size] = truth.values[index[head_positions]]
            done += index.size
            done_heads += head_positions.size
        graph += count

    n_configs = np.concatenate([np.diff(t.offsets) for t in truths])
    discordant = _discordant(ranks, lengths, np.concatenate([t.n_distinct for t in truths]))
    counts = (lengths, 0, np.concatenate([t.tied_pairs for t in truths]), 0, discordant)
    taus, opas = (np.where(defined, values, np.nan)  # NaN: undefined, left out of the means
                  for values, defined in (tau_b_from_counts(*counts), opa_from_counts(*counts)))
    curves = search_curves(head_values, heads, np.concatenate([t.best for t in truths]), LAYOUT_K)
    metrics = {"kendall_tau": taus, "opa": opas,
               **{f"slowdown{k}": error_from_ratio(curves[:, k - 1]) for k in SLOWDOWN_KS}}

    out, graph = [], 0
    for truth, r in zip(truths, rankings, strict=True):
        part = slice(graph, graph + truth.best.size)
        for g in np.flatnonzero(lengths[part] != n_configs[part]):  # lenient partial rows
            runtime = truth.values[truth.offsets[g]:truth.offsets[g + 1]]  # (not .runtimes: a view per graph)
            taus[graph + g], opas[graph + g] = pair_metrics(_predicted_ranks(runtime.size, r.indices(int(g))), runtime)
        out.append(GraphMetrics({name: values[part] for name, values in metrics.items()}, n_configs[part],
                                curves[part]))
        graph += truth.best.size
    return out


def pair_metrics(predicted: np.ndarray, runtimes: np.ndarray) -> tuple[float, float]:
    """(tau-b, OPA) of one graph from predicted ranks or runtimes (lower = faster) and runtimes, both (n,),
    NaN where undefined: scoring's mark for a graph left out of the means (docs/metrics.md **Decision**). One
    count of the pairs (:func:`metrics.pair_counts`) gives both."""
    counts = pair_counts(predicted, runtimes)
    tau, defined = tau_b_from_counts(*counts)
    opa, opa_defined = opa_from_counts(*counts)
    pairs = counts.n * (counts.n - 1) // 2
    if not defined and counts.n >= 2 and counts.x_tied == pairs and counts.y_tied < pairs:
        # **Decision** (docs/metrics.md, "Decision: constant predictions score tau-b 0"), not a graph left out
        return 0.0, (float(opa) if opa_defined else math.nan)
    return (float(tau) if defined else math.nan), (float(opa) if opa_defined else math.nan)


def _predicted_ranks(n_configs: int, ranking: np.ndarray) -> np.ndarray:
    """(c,) predicted rank of every config: its place in ``ranking``; configs not listed share the last place, so
    tau-b is still over every config (**Decision**: docs/metrics.md, "Lenient partial rows")."""
    rank = np.full(n_configs, ranking.size, dtype=np.int64)
    rank[ranking] = np.arange(ranking.size)
    return rank


def layout_metrics(graphs: Iterable[tuple[np.ndarray, np.ndarray, int]]) -> GraphMetrics:
    """The metrics of one layout collection, graph by graph, from each graph's (n,) predicted ranks or runtimes (lower
    = faster), (n,) runtimes (every one scored) and ``listed``: the slowdowns look at the first ``listed`` configs in
    the stable order of the predictions (NaN when ``listed`` is 0) and compare with the best of the runtimes."""
    rows, counts, curves = [], [], []
    for predicted, runtimes, listed in graphs:
        if listed:
            head = runtimes[np.argsort(predicted, kind="stable")[:min(listed, _HEAD)]]
            curve = search_curves(head, np.array([head.size]), np.array([runtimes.min()]), LAYOUT_K)[0]
            slowdowns = error_from_ratio(curve[_SLOWDOWN_COLUMNS])
        else:  # a partial row that lists none of the sampled configs
            curve = np.full(LAYOUT_K, math.nan)
            slowdowns = curve[_SLOWDOWN_COLUMNS]
        rows.append([*pair_metrics(predicted, runtimes), *slowdowns.tolist()])
        counts.append(runtimes.size)
        curves.append(curve)
    table = np.array(rows, dtype=np.float64).reshape(len(rows), len(LAYOUT_METRICS))
    return GraphMetrics({name: table[:, i] for i, name in enumerate(LAYOUT_METRICS)}, np.array(counts, dtype=np.int64),
                        np.array(curves).reshape(len(rows), LAYOUT_K))


def score_official(truth: CollectionTruth, rankings: Rankings, sampled: dict[int, np.ndarray]) -> GraphMetrics:
    """tau-b, OPA and slowdowns of every graph of one layout collection under the paper's protocol (docs/metrics.md):
    the ranking restricted to the sampled indices, in their order, duplicates included (a duplicate ties with itself
    in predicted rank and runtime); the slowdowns' best runtime is the best over the sampled configs."""
    def graph(g: int, runtime: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
        ranking = rankings.indices(g)
        predicted = _predicted_ranks(runtime.size, ranking)[sampled[g]]  # lenient partial rows: unlisted tie last
        return predicted, runtime[sampled[g]], int(np.count_nonzero(predicted < ranking.size))

    return layout_metrics(graph(g, runtime) for g, runtime in enumerate(truth.runtimes))
