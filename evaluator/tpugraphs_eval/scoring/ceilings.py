"""What the report shows beside a score: each graph's noise ceiling (from the noise file, :mod:`.noisefile`) and a
random ranking's search curve (docs/metrics.md, "Measurement noise", "Search curve").

Under ``--configs official`` the ceilings are computed here on the sampled configurations, from the sd the noise file
gives each graph; otherwise they are the file's own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..rules.metric_table import primary
from ..truth.eval_indices import EvalIndices
from ..truth.groundtruth import GroundTruth
from .curve import LAYOUT_K, TILE_K, random_curve
from .metrics import defined_mean
from .noisefile import ceilings

NOISE_SPREADS = 2.0
"""A difference of two collection values is inside the noise when it is at most this many standard deviations of
the difference that noise alone gives two values (each :attr:`CollectionNoise.spread`: ``spread * sqrt(2)``)."""


@dataclass(frozen=True)
class CollectionNoise:
    """The noise of one collection's graphs.

    Attributes:
        metric: the collection's primary metric.
        graphs: per graph, its noise-file entry (``sd``, ``sd_source``, ``ceiling``, ``two_measurements``, ...), or
            None when the file has none for it.
        sd, dof: the collection's pooled relative sd (None without a duplicate) and its degrees of freedom.
    """

    metric: str
    graphs: list[dict[str, Any] | None]
    sd: float | None
    dof: int

    def _primary(self, index: int) -> np.ndarray:
        return np.array([g["ceiling"][self.metric][index] if g and "ceiling" in g and g["ceiling"][self.metric][index]
                         is not None else math.nan for g in self.graphs], dtype=np.float64)

    @property
    def ceilings(self) -> np.ndarray:
        """(G,) each graph's ceiling of the primary metric (mean over draws); NaN without an estimate."""
        return self._primary(0)

    @property
    def ceiling(self) -> float | None:
        """The mean ceiling over the graphs that have one (``math.fsum``), None when none has."""
        return defined_mean(self.ceilings)

    @property
    def spread(self) -> float | None:
        """The standard deviation that noise alone gives the collection value: ``sqrt(sum spread_g^2) / G`` over the
        graphs with a ceiling (their draws are independent), None when none has."""
        variance = defined_mean(self._primary(1) ** 2)
        return None if variance is None else math.sqrt(variance / np.count_nonzero(~np.isnan(self.ceilings)))

    def within_noise(self, difference: float | None) -> bool | None:
        """True when ``|difference|`` between two values of this collection is at most
        ``NOISE_SPREADS * spread * sqrt(2)`` (noise alone could make it); None without a spread or a difference."""
        if difference is None or self.spread is None:
            return None
        return abs(difference) <= NOISE_SPREADS * self.spread * math.sqrt(2.0)

    def to_dict(self) -> dict[str, Any]:
        """The report's collection-level noise block."""
        pooled = sum(1 for g in self.graphs if g and g.get("sd_source") == "pooled")
        return {"sd": self.sd, "dof": self.dof, "ceiling": self.ceiling, "noise_spread": self.spread,
                "graphs_with_ceiling": int(np.count_nonzero(~np.isnan(self.ceilings))), "graphs_pooled": pooled}


def collection_noise(truth: GroundTruth, noise: dict[str, Any] | None, eval_indices: EvalIndices | None = None,
                     masks: dict[str, np.ndarray] | None = None) -> dict[str, CollectionNoise]:
    """Collection → :class:`CollectionNoise` over its graphs (``masks[collection]``'s, when given); {} without a noise
    file. Under the official protocol, the ceilings of the sampled configurations."""
    if noise is None:
        return {}
    out, sampled_ceilings = {}, truth.cache.setdefault("sampled_ceilings", {})  # computed once per graph
    for name, t in truth.collections.items():
        entry = noise["collections"].get(name, {"graphs": {}, "sd": None, "dof": 0})
        keep = np.ones(t.best.size, bool) if masks is None else masks[name]
        graphs = []
        for g in np.flatnonzero(keep).tolist():
            graph = entry["graphs"].get(t.graphs.names[g])
            if graph is not None and eval_indices is not None and name in eval_indices:
                sampled = eval_indices[name][g]
                key = (name, g, sampled.tobytes())
                if key not in sampled_ceilings:
                    sampled_ceilings[key] = ceilings(t.runtimes[g], graph["sd"], t.graphs.collection.kind, sampled)
                graph = {**graph, "configs": int(sampled.size), **sampled_ceilings[key]}
            graphs.append(graph)
        out[name] = CollectionNoise(primary(t.graphs.collection.kind).name, graphs, entry["sd"], entry["dof"])
    return out


def random_curves(truth: GroundTruth, eval_indices: EvalIndices | None = None) -> dict[str, np.ndarray]:
    """Collection → (G, K) exact search curves of a uniformly random ranking (:func:`.curve.random_curve`; the
    official protocol: of its sampled configurations). Computed once per ground truth for all configs."""
    key = "random_curves"
    if eval_indices is None and key in truth.cache:
        return truth.cache[key]
    out = {}
    for name, t in truth.collections.items():
        k = TILE_K if t.graphs.collection.kind == "tile" else LAYOUT_K
        runtimes = t.runtimes
        if eval_indices is not None and name in eval_indices:
            runtimes = [y[eval_indices[name][g]] for g, y in enumerate(runtimes)]
        out[name] = np.array([random_curve(y, k) for y in runtimes]).reshape(len(runtimes), k)
    if eval_indices is None:
        truth.cache[key] = out
    return out
