"""The random baseline: uniformly random rankings, and what random ranking scores in expectation.

Tile rows list min(5, c) distinct configs drawn uniformly; layout rows are a uniformly random permutation of
0..c-1. Each graph draws from its own generator, ``numpy.random.default_rng([seed, crc32(submission ID)])``, so the
same seed gives the same file, and a graph's row does not depend on which other graphs the data root holds.
Expected scores: :func:`random_expectations` (the evaluator's closed forms, and estimates from scored draws).
"""

from __future__ import annotations

import math
import os
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from tpugraphs_eval import (
    GroundTruth,
    Options,
    SplitCatalog,
    Validation,
    collection_references,
    score_submission,
)
from tpugraphs_eval.api import official_indices
from tpugraphs_eval.dataset import TILE_TOP_K

from .errors import KitError
from .submission import csv_bytes, write_submission


def graph_rng(seed: int, graph_id: str) -> np.random.Generator:
    """The generator of one graph: ``default_rng([seed, crc32(graph_id)])``.

    Raises:
        KitError: ``BAD_SEED`` (not an integer in [0, 2**63)).
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= int(seed) < 2**63:
        raise KitError("BAD_SEED", f"the seed must be an integer from 0 to 2**63 - 1, not {seed!r}")
    return np.random.default_rng([int(seed), zlib.crc32(graph_id.encode())])


def random_ranking(n_configs: int, kind: str, rng: np.random.Generator) -> np.ndarray:
    """Tile: (min(5, c),) distinct configs drawn uniformly, in draw order; layout: (c,) a uniform permutation."""
    if kind == "tile":
        return rng.choice(n_configs, size=min(TILE_TOP_K, n_configs), replace=False).astype(np.int64)
    return rng.permutation(n_configs).astype(np.int64)


def random_rankings(catalog: SplitCatalog, seed: int, *, ids: Iterable[str] | None = None) -> dict[str, np.ndarray]:
    """Submission ID → random ranking for every graph of ``catalog`` (or only ``ids``), reproducible by ``seed``."""
    out = {}
    for graph_id in catalog.index if ids is None else ids:
        collection, _, n_configs = catalog.index[graph_id]
        out[graph_id] = random_ranking(n_configs, collection.kind, graph_rng(seed, graph_id))
    return out


def write_random_submission(catalog: SplitCatalog, path: str | os.PathLike[str], seed: int) -> Validation:
    """Write the random baseline's submission for ``catalog``'s split (strictly valid; atomic).

    Raises:
        KitError: ``BAD_SEED``, ``OUTPUT_WRITE_FAILED``.
    """
    return write_submission(random_rankings(catalog, seed), path, catalog)


@dataclass
class RandomExpectation:
    """What random ranking scores on one collection.

    Attributes:
        collection: the collection name.
        metric: ``score`` (tile Kaggle score) or ``kendall_tau`` (layout tau-b).
        expected: exact expected value of the collection's metric under random ranking (unweighted mean
            over graphs).
        oracle: the value of the oracle ranking (configs sorted by runtime).
        method: how ``expected`` was obtained (a closed form, named).
        draws: number of random submissions scored for ``estimated`` (0: none).
        estimated: metric → mean over the draws of the collection mean (every metric the evaluator reports).
        spread: metric → standard deviation over the draws of the collection mean.
        graphs: metric → (graphs its mean is over, graphs of the collection) in the draws: a tile row lists
            min(5, c) indices, so a top-K error with K > 5 covers only the graphs with at most 5 configurations.
    """

    collection: str
    metric: str
    expected: float
    oracle: float
    method: str
    draws: int = 0
    estimated: dict[str, float] = field(default_factory=dict)
    spread: dict[str, float] = field(default_factory=dict)
    graphs: dict[str, tuple[int, int]] = field(default_factory=dict)


_METHOD = {"tile": "exact: 2 - E[min runtime of a uniform min(5,c)-subset] / min runtime, mean over graphs",
           "layout": "exact: 0 (a random permutation and its reverse are equally likely)"}


def random_expectations(truth: GroundTruth, *, draws: int = 0, seed: int = 0, options: Options | None = None,
                        eval_indices_dir: str | os.PathLike[str] | None = None) -> dict[str, RandomExpectation]:
    """Expected random score of every collection of ``truth`` (exact), plus ``draws`` scored random files.

    The exact values are the evaluator's references (:func:`tpugraphs_eval.scoring.references.collection_references`,
    as :func:`tpugraphs_eval.score_submission` attaches them to a report under ``options``' config protocol).

    Args:
        truth: a split with runtimes (:func:`tpugraphs_eval.load_ground_truth`).
        draws: random submissions (seeds ``seed + 1 … seed + draws``) scored by the evaluator to estimate
            every metric, including those without a closed form here (tile top-K errors, slowdowns).
        seed: base seed of the draws.
        options: scoring options (default: strict, all configs, the ground truth's tile runtime).
        eval_indices_dir: the official index lists, for ``options.configs == "official"``.

    Raises:
        KitError: ``BAD_SEED``; ``BAD_DRAWS`` (negative).
        UsageError, DataError: as :func:`tpugraphs_eval.score_submission`.
    """
    if draws < 0:
        raise KitError("BAD_DRAWS", f"the number of draws must be 0 or more, not {draws}")
    options = options or Options(tile_runtime=truth.tile_runtime)
    catalog = truth.catalog
    loaded = official_indices(eval_indices_dir, catalog) if options.configs == "official" else None  # read once
    out = {}
    for name, ref in collection_references(truth, None if loaded is None else loaded[0]).items():
        kind = truth.collections[name].graphs.collection.kind
        out[name] = RandomExpectation(name, "score" if kind == "tile" else "kendall_tau", ref.random, ref.oracle,
                                      _METHOD[kind])
    samples: dict[str, dict[str, list[float]]] = {name: {} for name in out}
    for i in range(draws):
        data = csv_bytes(random_rankings(catalog, seed + 1 + i), catalog)
        report = score_submission(data, truth, options, eval_indices=loaded)
        for name, result in report.collections.items():
            if name in samples:
                out[name].graphs = {m: (n, len(result.ids)) for m, n in result.counts().items()}
                for metric, value in result.means().items():
                    if value is not None:
                        samples[name].setdefault(metric, []).append(value)
    for name, metrics in samples.items():
        out[name].draws = draws
        out[name].estimated = {m: math.fsum(v) / len(v) for m, v in metrics.items()}  # tpugraphs_eval.scoring.metrics: Means
        out[name].spread = {m: float(np.std(v, ddof=1)) if len(v) > 1 else 0.0 for m, v in metrics.items()}
    return out
