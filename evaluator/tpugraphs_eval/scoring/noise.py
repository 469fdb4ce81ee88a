"""Measurement noise, pure functions on arrays (docs/metrics.md, "Measurement noise": the model, the noise
ceiling and why a seeded simulation): configurations of one graph with byte-identical feature rows give the pooled
relative sd of their runtimes, and the **noise ceiling** is the expected metric of a perfect, noise-free predictor
against runtimes ``y * (1 + e)``, ``e ~ N(0, sd)``, over :data:`DRAWS` seeded draws.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from ..rules.metric_table import metrics_of
from .layout import pair_metrics

DRAWS = 40
"""Draws of the simulation; the standard error of a mean is its spread / sqrt(40)."""
SEED = 0
"""Seed of every graph's draws (each graph draws from ``default_rng(SEED)``: independent of the graph order)."""


def duplicate_groups(row_hashes: Sequence[bytes]) -> np.ndarray:
    """(c,) int64 label per configuration: configurations with equal row hashes (identical feature rows) share a
    label 0, 1, ... (in order of first appearance); a configuration whose row occurs once gets -1."""
    first: dict[bytes, int] = {}
    seen = np.array([first.setdefault(h, i) for i, h in enumerate(row_hashes)], dtype=np.int64)
    sizes = np.bincount(seen, minlength=seen.size)
    repeated = sizes[seen] > 1
    labels = np.full(seen.size, -1, dtype=np.int64)
    _, labels[repeated] = np.unique(seen[repeated], return_inverse=True)
    return labels


class NoiseEstimate(NamedTuple):
    """Within-group relative runtime variation of one graph (or pooled over graphs: fields added up).

    Attributes:
        duplicates: configurations in groups of identical feature rows.
        groups: number of such groups.
        sum_squares: ``sum_g sum_i ((y_i - m_g) / m_g) ** 2`` (m_g: the group's mean runtime).
        dof: degrees of freedom, ``sum_g (n_g - 1)``.
    """

    duplicates: int
    groups: int
    sum_squares: float
    dof: int

    @property
    def sd(self) -> float | None:
        """The pooled relative standard deviation ``sqrt(sum_squares / dof)``; None without a group."""
        return math.sqrt(self.sum_squares / self.dof) if self.dof else None


def noise_estimate(runtimes: np.ndarray, labels: np.ndarray) -> NoiseEstimate:
    """:class:`NoiseEstimate` of one graph from its (c,) runtimes (ns) and :func:`duplicate_groups` labels (a label
    left with one configuration, e.g. after sampling, is no group)."""
    _, group, n = np.unique(labels, return_inverse=True, return_counts=True)
    keep = (labels >= 0) & (n[group] > 1)
    if not keep.any():
        return NoiseEstimate(0, 0, 0.0, 0)
    _, g, n = np.unique(labels[keep], return_inverse=True, return_counts=True)
    y = np.asarray(runtimes, dtype=np.float64)[keep]
    mean = np.bincount(g, weights=y) / n
    deviation = (y - mean[g]) / mean[g]
    return NoiseEstimate(int(g.size), int(n.size), math.fsum((deviation * deviation).tolist()), int(g.size - n.size))


def pooled(estimates: Sequence[NoiseEstimate]) -> NoiseEstimate:
    """Several graphs' estimates pooled (sums of squares and degrees of freedom added): a collection's noise."""
    return NoiseEstimate(sum(e.duplicates for e in estimates), sum(e.groups for e in estimates),
                         math.fsum(e.sum_squares for e in estimates), sum(e.dof for e in estimates))


def _draw(kind: str, predicted: np.ndarray, order: np.ndarray, noisy: np.ndarray) -> list[float]:
    """One draw's metrics (:func:`..rules.metric_table.metrics_of` order) of ``predicted`` against ``noisy``."""
    tau, opa = pair_metrics(predicted, noisy) if kind == "layout" else (math.nan, math.nan)
    head = np.minimum.accumulate(noisy[order][:max(m.k or 1 for m in metrics_of(kind))])
    ratio = {m.k: float(head[min(m.k, head.size) - 1] / noisy.min()) for m in metrics_of(kind) if m.k}
    return [tau if m.name == "kendall_tau" else opa if m.name == "opa" else 2.0 - ratio[m.k] if m.name == "score"
            else ratio[m.k] - 1.0 for m in metrics_of(kind)]


def noise_ceiling(runtimes: np.ndarray, sd: float, kind: str, *, sampled: np.ndarray | None = None,
                  draws: int = DRAWS, seed: int = SEED) -> dict[str, tuple[float, float]]:
    """The expected metrics of a perfect, noise-free predictor against runtimes carrying relative noise ``sd``.

    Args:
        runtimes: (c,) recorded runtimes y (ns; tile: as scored).
        sd: relative noise sd (:attr:`NoiseEstimate.sd`; ``sd * sqrt(2)`` for two measurements).
        kind: ``layout`` (tau-b, OPA, slowdown@1/10/100) or ``tile`` (score, top-1/5/10 errors).
        sampled: the official protocol's sampled config indices (duplicates share their draw), or None for all.
        draws, seed: the simulation (module docstring): draw d scores predictions y against ``y * (1 + e_d)``.

    Returns:
        metric → (mean, spread): the mean over draws and their standard deviation (ddof 0; the standard error of
        the mean is spread / sqrt(draws)). NaN where a metric is undefined on every draw.
    """
    y = np.asarray(runtimes, dtype=np.float64)
    at = np.arange(y.size) if sampled is None else np.asarray(sampled)
    predicted = y[at]
    order = np.argsort(predicted, kind="stable")
    rng = np.random.default_rng(seed)
    table = np.array([_draw(kind, predicted, order, (y * (1.0 + rng.normal(0.0, sd, y.size)))[at])
                      for _ in range(draws)])
    with warnings.catch_warnings():  # a metric undefined on every draw: NaN, without numpy's warning
        warnings.simplefilter("ignore", RuntimeWarning)
        means, spreads = np.nanmean(table, axis=0), np.nanstd(table, axis=0)
    return {m.name: (float(a), float(b)) for m, a, b in zip(metrics_of(kind), means, spreads)}
