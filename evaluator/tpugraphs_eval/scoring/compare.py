"""Is submission B better than A on the same graphs? Per-graph wins and a paired, stratified bootstrap (pure
computation on per-graph metric arrays, no I/O; what each number means: docs/options.md, ``compare``).

- Orientation: every difference is B − A oriented so that **positive means B is better** (the sign of a
  lower-is-better metric is flipped); the point difference is ``value_B - value_A`` of the reported values. Per
  graph: a win for B, a loss, a tie (the same bits), or undefined when either value is NaN.
- Paired bootstrap over graphs (Efron & Tibshirani, *An Introduction to the Bootstrap*, 1993: ch. 6 for resampling
  the units, ch. 13 for the percentile interval; paired over the same test items as Koehn, "Statistical
  significance tests for machine translation evaluation", EMNLP 2004): A and B are evaluated on the *same* draws of
  :mod:`.bootstrap`. The 95% interval is the 2.5th and 97.5th percentiles of the resampled differences (numpy's
  linear interpolation); ``b_better`` and ``tied`` are the shares of resamples with a difference > 0 and == 0,
  ``b_wins`` = b_better + tied/2; resamples whose difference is undefined are counted in ``undefined_resamples``
  and left out of the shares.
- Fewer than :data:`MIN_GRAPHS` graphs with a defined value (overall: in every collection): every resample draws
  the same values, so there is no interval and no share (None, "—").
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ..defaults import COMPARE_RESAMPLES, COMPARE_SEED
from ..errors import UsageError
from ..rules.metric_table import BESIDE_PRIMARY, BY_NAME
from .bootstrap import draw_positions, resampled_means, resampled_overall_means
from .metrics import defined_mean

DEFAULT_RESAMPLES = COMPARE_RESAMPLES
DEFAULT_SEED = COMPARE_SEED
LEVEL = 0.95
COMPARE_FORMAT = 1
"""Version of the JSON layout of ``compare --json``."""
SIGN = "difference = B - A in the collection's metric; positive means B is better"
_TAILS = (100 * (1 - LEVEL) / 2, 100 * (1 + LEVEL) / 2)
MIN_GRAPHS = 2
"""A collection needs this many graphs with a defined value for an interval and B's share of wins."""


@dataclass(frozen=True)
class Tally:
    """Graphs where B is better (wins), worse (losses), equal (ties), or either value undefined."""

    wins: int
    losses: int
    ties: int
    undefined: int

    def __add__(self, other: Tally) -> Tally:
        return Tally(self.wins + other.wins, self.losses + other.losses, self.ties + other.ties,
                     self.undefined + other.undefined)


def tally(a: np.ndarray, b: np.ndarray, higher_is_better: bool = True) -> Tally:
    """Per-graph wins, losses and ties of B over A: ``a``, ``b`` are (G,) values of the same graphs."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"A and B need the same graphs: shapes {a.shape} and {b.shape}")
    undefined = np.isnan(a) | np.isnan(b)
    with np.errstate(invalid="ignore"):
        better, worse = (b > a, b < a) if higher_is_better else (b < a, b > a)
    return Tally(int((better & ~undefined).sum()), int((worse & ~undefined).sum()),
                 int(((a == b) & ~undefined).sum()), int(undefined.sum()))


@dataclass(frozen=True)
class Difference:
    """B − A (oriented: positive = B better) over one collection or overall, with its bootstrap summary.

    Attributes:
        a, b: the values of A and B over all graphs (None: undefined).
        difference: oriented B − A of those values (None when either is undefined).
        low, high: the 95% percentile interval of the resampled differences (None: no defined resample).
        b_better, tied: shares of the defined resamples with a difference > 0 and == 0.
        b_wins: ``b_better + tied / 2``.
        undefined_resamples: resamples whose difference is undefined (left out of the shares).
        graphs: per-graph :class:`Tally` (overall: summed over the collections).
    """

    a: float | None
    b: float | None
    difference: float | None
    low: float | None
    high: float | None
    b_better: float | None
    tied: float | None
    b_wins: float | None
    undefined_resamples: int
    graphs: Tally

    def to_dict(self) -> dict[str, object]:
        """JSON-ready: every attribute, ``graphs`` as ``{wins, losses, ties, undefined}``."""
        return asdict(self)


def _summary(a: float | None, b: float | None, sign: float, resampled: np.ndarray, graphs: Tally,
             varies: bool) -> Difference:
    """Summarise (R,) oriented resampled differences (NaN: undefined) beside the point values; ``varies``: False
    when too few graphs for the resamples to differ (:data:`MIN_GRAPHS`): no interval, no shares."""
    defined = resampled[~np.isnan(resampled)]
    low = high = better = tied = None
    if defined.size and varies:
        low, high = (float(v) for v in np.percentile(defined, _TAILS))
        better = float((defined > 0).sum() / defined.size)
        tied = float((defined == 0).sum() / defined.size)
    point = None if a is None or b is None else sign * (b - a)
    return Difference(a, b, point, low, high, better, tied, None if better is None else better + tied / 2,
                      int(resampled.size - defined.size), graphs)


def paired_bootstrap(a: dict[str, np.ndarray], b: dict[str, np.ndarray], positions: dict[str, np.ndarray], *,
                     higher_is_better: bool = True) -> tuple[dict[str, Difference], Difference]:
    """Compare B with A per collection and overall on the same resampled graphs.

    Args:
        a, b: collection → (G,) float64 per-graph values of the metric (NaN: undefined), the same
            graphs in the same order in both.
        positions: collection → (R, G) drawn graph positions (:func:`.bootstrap.draw_positions`), one entry per
            collection of ``a`` with graphs.
        higher_is_better: the metric's direction (:data:`..rules.metric_table.METRICS`); False flips the sign so that a
            positive difference still means B is better. The overall is meaningful for the primary metrics only.

    Returns:
        (collection → :class:`Difference`, the overall :class:`Difference`).

    Raises:
        ValueError: A and B do not hold the same collections and graph counts.
    """
    if a.keys() != b.keys():
        raise ValueError(f"A and B need the same collections: {sorted(a)} and {sorted(b)}")
    sign = 1.0 if higher_is_better else -1.0
    out: dict[str, Difference] = {}
    resampled_a, resampled_b = {}, {}
    for name in a:
        graphs = tally(a[name], b[name], higher_is_better)
        if name in positions:
            resampled_a[name], resampled_b[name] = resampled_means(np.stack([a[name], b[name]]), positions[name])
            resampled = sign * (resampled_b[name] - resampled_a[name])
        else:
            resampled = np.empty(0)
        out[name] = _summary(defined_mean(a[name]), defined_mean(b[name]), sign, resampled, graphs,
                             graphs.wins + graphs.losses + graphs.ties >= MIN_GRAPHS)
    overall_a = _overall([d.a for d in out.values()])
    overall_b = _overall([d.b for d in out.values()])
    resampled = (sign * (resampled_overall_means(resampled_b.values()) - resampled_overall_means(resampled_a.values()))
                 if resampled_a else np.empty(0))
    total = sum((d.graphs for d in out.values()), Tally(0, 0, 0, 0))
    return out, _summary(overall_a, overall_b, sign, resampled, total, any(d.low is not None for d in out.values()))


def _overall(values: list[float | None]) -> float | None:
    defined = [v for v in values if v is not None]
    return math.fsum(defined) / len(defined) if defined else None


def compare_reports(a, b, *, public_only: bool = False, resamples: int = COMPARE_RESAMPLES,
                    seed: int = COMPARE_SEED) -> tuple[dict[str, Any], dict[str, Difference], Difference]:
    """The comparison of two scored reports of the same split: the organiser's document (the ``--json`` output)
    and its :class:`Difference` rows.

    Args:
        a, b: organiser reports (:class:`..report.report.Report`; not a public report, which holds no per-graph
            value).
        public_only: compare the public leaderboard's graphs (the reports' ``leaderboards["public"]``); the
            participant's view is then :func:`..report.public_comparison.public_comparison` of the result.
        resamples, seed: the bootstrap's.

    Returns:
        ``(document, collections, overall)``: ``document`` is the ``--json`` output (its keys: docs/options.md,
        ``compare --json``; ``secondary``: the layout collections' OPA on the same resamples, not in the overall),
        ``collections`` and ``overall`` its :class:`Difference` rows.

    Raises:
        UsageError: the reports are not over the same graphs; ``public_only`` without a public leaderboard.
    """
    if public_only and not all("public" in r.leaderboards for r in (a, b)):
        raise UsageError("--public-only compares the public leaderboard: score against a solution file")
    scores_a, scores_b = (r.leaderboards["public"] if public_only else r.scores for r in (a, b))
    if list(scores_a.collections) != list(scores_b.collections) or any(
            scores_a.collections[n].ids != scores_b.collections[n].ids for n in scores_a.collections):
        raise UsageError("A and B were not scored over the same graphs")
    metrics = {name: r.metric for name, r in scores_a.collections.items()}
    per_graph_a = {name: r.per_graph[r.metric] for name, r in scores_a.collections.items()}
    per_graph_b = {name: r.per_graph[r.metric] for name, r in scores_b.collections.items()}
    positions = draw_positions({name: v.size for name, v in per_graph_a.items()}, resamples, seed)
    # the primary metrics (tile score, tau-b) are all higher-is-better: B - A needs no flip
    collections, overall = paired_bootstrap(per_graph_a, per_graph_b, positions,
                                            higher_is_better=all(BY_NAME[m].higher_is_better for m in metrics.values()))
    document = {
        "compare_format": COMPARE_FORMAT,
        "a": a.submission, "b": b.submission, "split": a.split, "data_root": a.data_root, "synthetic": a.synthetic,
        "graphs_compared": "public leaderboard only" if public_only else "all",
        "sign": SIGN, "resamples": resamples, "seed": seed, "level": LEVEL,
        "selected_collections": a.selected_collections,
        "collections": {name: {"metric": metrics[name], "n_graphs": int(per_graph_a[name].size), **d.to_dict(),
                               **({"within_noise": scores_a.noise[name].within_noise(d.difference),
                                   "noise_spread": scores_a.noise[name].spread} if name in scores_a.noise else {})}
                        for name, d in collections.items()},
        "overall": overall.to_dict(),
        "secondary": _secondary(scores_a, scores_b, positions),
        "options": a.options.to_dict(),
        "provenance": {"a_sha256": a.provenance["submission_sha256"], "b_sha256": b.provenance["submission_sha256"],
                       "ground_truth_sha256": a.provenance["ground_truth_sha256"],
                       "evaluator_version": a.provenance["evaluator_version"]},
    }
    return document, collections, overall


def _secondary(scores_a, scores_b, positions: dict[str, np.ndarray]) -> dict[str, dict[str, Any]]:
    """The paired bootstrap of the secondary metric shown beside the value (OPA) over the collections that have
    it (layout), with the primary comparison's resamples: ``{opa: {name: Difference.to_dict() + n_graphs}}``."""
    names = [n for n, r in scores_a.collections.items() if BESIDE_PRIMARY in r.per_graph]
    if not names:
        return {}
    a = {n: scores_a.collections[n].per_graph[BESIDE_PRIMARY] for n in names}
    b = {n: scores_b.collections[n].per_graph[BESIDE_PRIMARY] for n in names}
    differences, _ = paired_bootstrap(a, b, {n: positions[n] for n in names},
                                      higher_is_better=BY_NAME[BESIDE_PRIMARY].higher_is_better)
    return {BESIDE_PRIMARY: {n: {"n_graphs": int(a[n].size), **d.to_dict()} for n, d in differences.items()}}
