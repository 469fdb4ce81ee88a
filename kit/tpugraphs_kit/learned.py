"""The learned baseline: ridge regression of within-graph standardised log-runtime, one model per collection.

Model (numpy/scipy only): for each configuration, ``score = design(graph)[config] @ w`` where
:func:`tpugraphs_kit.features.design` gives config features centred within the graph and their
interactions with graph aggregates of the node features. ``w`` minimises

    sum_graphs (1 / c_g) * sum_configs (z - score)^2 + alpha * G * |w|^2      (features scaled to unit RMS)

with ``z = (log y - mean log y) / std log y`` over the graph's configurations (y: runtime in ns, as the
evaluator scores it), so every training graph weighs the same whatever its number of configurations,
and G = the number of training graphs. Lower scores mean faster, like runtimes: rank configs by score.
Graphs whose runtimes are all equal teach nothing and are skipped. Layout graphs train on at most
``max_configs`` configurations each (a seeded uniform sample).

**The same file on any machine**: ``w`` is solved in float64 by one method (Cholesky,
``scipy.linalg.solve(assume_a="pos")``) and every score is rounded to a multiple of :data:`SCORE_GRID` before
ranking, ties going to the lower config index (docs/kit.md, "The kit in Python": "The same file on any machine").
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from tpugraphs_eval import SplitCatalog, Validation

from .data import Graph, RootLike, collection, data_root, iter_graphs, present_collections
from .errors import KitError
from .features import design

DEFAULT_ALPHA = 1e-2
DEFAULT_MAX_CONFIGS = 2000
SCORE_GRID = 2.0 ** -20
"""Predicted scores are rounded to multiples of this (standardised log-runtime units) before ranking."""


@dataclass
class RidgeRanker:
    """A fitted model of one collection.

    Attributes:
        collection: the collection name.
        weights: (p,) coefficients on features scaled by :attr:`scale`.
        scale: (p,) root mean square of each training feature (1 where a feature never varied).
        alpha: the ridge penalty (relative to the number of training graphs).
        n_graphs: training graphs used (graphs with constant runtimes are skipped).
        n_rows: training configurations used.
    """

    collection: str
    weights: np.ndarray
    scale: np.ndarray
    alpha: float
    n_graphs: int
    n_rows: int

    def predict(self, graph: Graph) -> np.ndarray:
        """(c,) scores of every configuration of ``graph``, lower = predicted faster.

        In standardised log-runtime units, rounded to multiples of :data:`SCORE_GRID` so that
        floating-point noise of the BLAS in use cannot reorder configurations (see the module doc).
        """
        if graph.collection.name != self.collection:
            raise KitError("WRONG_COLLECTION", f"this model ranks {self.collection} graphs, not {graph.id}")
        return np.round(((design(graph) / self.scale) @ self.weights) / SCORE_GRID) * SCORE_GRID


def _target(runtimes: np.ndarray) -> np.ndarray | None:
    """Within-graph z-score of log runtime; None when the runtimes are constant or not positive."""
    y = np.asarray(runtimes, dtype=np.float64)
    if y.size < 2 or not (y > 0).all():
        return None
    log_y = np.log(y)
    std = log_y.std()
    return None if std == 0 else (log_y - log_y.mean()) / std


def fit_collection(root: RootLike, collection_name: str, split: str = "train", *, alpha: float = DEFAULT_ALPHA,
                   max_configs: int = DEFAULT_MAX_CONFIGS, seed: int = 0, progress: bool | None = None) -> RidgeRanker:
    """Fit the ridge model of one collection on ``split``.

    Raises:
        KitError: ``NO_TRAINING_DATA`` (no graph with varying positive runtimes: e.g. the public test
            files), ``USAGE_ERROR`` (alpha not a finite positive number, or max_configs < 2), and
            data-access errors.
    """
    sums = _sums(root, collection_name, split, {}, alpha=alpha, max_configs=max_configs, seed=seed, progress=progress)
    return _solve(collection_name, split, list(sums.values()), alpha)  # every graph in group None


def fit_folds(root: RootLike, collection_name: str, split: str, folds: Mapping[str, int], *,
              alpha: float = DEFAULT_ALPHA, max_configs: int = DEFAULT_MAX_CONFIGS, seed: int = 0,
              progress: bool | None = None) -> dict[int, RidgeRanker | KitError]:
    """Fold → the ridge model of one collection fitted on the graphs of ``split`` in the other folds, in one pass over
    the graphs (docs/kit.md, "Out-of-fold rankings").

    Args:
        folds: graph ID → its fold (a fold file, :func:`tpugraphs_eval.truth.graph_lists.read_folds`); graphs of the
            collection in no fold are not used.

    Returns:
        fold → model, or the ``NO_TRAINING_DATA`` :class:`KitError` of a fold whose other folds hold no graph of
        the collection to learn from (e.g. a collection whose every graph is in that fold).
    """
    sums = _sums(root, collection_name, split, folds, alpha=alpha, max_configs=max_configs, seed=seed,
                 progress=progress)
    out: dict[int, RidgeRanker | KitError] = {}
    for fold in sorted(set(folds.values())):
        try:
            out[fold] = _solve(collection_name, f"{split} (folds other than {fold})",
                               [t for f, t in sums.items() if f not in (fold, None)], alpha)
        except KitError as err:
            out[fold] = err
    return out


def _sums(root: RootLike, collection_name: str, split: str, groups: Mapping[str, int], *, alpha: float,
          max_configs: int, seed: int, progress: bool | None) -> dict[int | None, list]:
    """Group (``groups[graph ID]``, None for a graph in no group) → ``[x'Wx (p, p), x'Wz (p,), graphs, rows]``
    of its graphs with varying positive runtimes (W: 1 / c_g per row, the module doc's weights); ``alpha`` is
    only checked."""
    if not 0 < alpha < float("inf") or max_configs < 2:
        raise KitError("USAGE_ERROR", f"alpha must be > 0 and max_configs >= 2 (got {alpha}, {max_configs})")
    coll = collection(collection_name)
    rng = np.random.default_rng(seed)
    sums: dict[int | None, list] = {}
    for graph in iter_graphs(root, coll, split, progress=progress):
        z = _target(graph.runtimes())
        if z is None:
            continue
        rows = None
        if coll.kind == "layout" and z.size > max_configs:
            rows = np.sort(rng.choice(z.size, max_configs, replace=False))
            z = z[rows]
            z = (z - z.mean()) / z.std() if z.std() > 0 else z
        x = design(graph, rows)
        graph.forget()
        weight = 1.0 / z.size
        terms = [weight * (x.T @ x), weight * (x.T @ z), 1, z.size]
        group = groups.get(graph.id)
        sums[group] = terms if group not in sums else [a + b for a, b in zip(sums[group], terms)]
    return sums


def _solve(collection_name: str, source: str, terms: list[list], alpha: float) -> RidgeRanker:
    """The ridge model of the summed ``terms`` (:func:`_sums`' values); ``source`` names the graphs in errors."""
    if not terms:
        raise KitError("NO_TRAINING_DATA", f"no {collection_name} {source} graph has varying positive runtimes to "
                                           "learn from")
    xtx, xty, n_graphs, n_rows = (sum(parts[1:], parts[0]) for parts in zip(*terms))
    scale = np.sqrt(np.diag(xtx) / n_graphs)
    scale[scale == 0] = 1.0
    a = xtx / np.outer(scale, scale) + alpha * n_graphs * np.eye(scale.size)
    import scipy.linalg  # the [kit] extra: imported when a model is fitted, so that the rest of the kit needs no scipy

    weights = scipy.linalg.solve(a, xty / scale, assume_a="pos")
    return RidgeRanker(collection(collection_name).name, weights, scale, alpha, n_graphs, n_rows)


def train(root: RootLike, split: str = "train", *, collections: Iterable[str] | None = None,
          alpha: float = DEFAULT_ALPHA, max_configs: int = DEFAULT_MAX_CONFIGS, seed: int = 0,
          progress: bool | None = None) -> dict[str, RidgeRanker]:
    """One :class:`RidgeRanker` per collection (all those present in ``split`` when ``collections`` is None)."""
    root = data_root(root)
    names = list(collections) if collections is not None else present_collections(root, split)
    return {name: fit_collection(root, name, split, alpha=alpha, max_configs=max_configs, seed=seed,
                                 progress=progress) for name in names}


def write_learned_submission(models: dict[str, RidgeRanker] | dict[str, dict[int, RidgeRanker | KitError]],
                             catalog: SplitCatalog, path: str | os.PathLike[str], *, fill_seed: int | None = None,
                             progress: bool | None = None, folds: Mapping[str, int] | None = None) -> Validation:
    """Rank every graph of ``catalog``'s split with ``models`` and write a strict submission (atomic).

    Args:
        models: collection → its model; with ``folds``, collection → fold → the model fitted without that fold
            (:func:`fit_folds`): out-of-fold rankings, the file ``tpugraphs-eval cv`` needs.
        fill_seed: collections of the split without a model (with ``folds``: a fold's graphs without one) get the
            random baseline's rows (seeded as :func:`tpugraphs_kit.random_baseline.random_rankings`); when None
            they are an error.
        folds: graph ID → fold, naming every graph of the split once (:func:`check_folds`).

    Raises:
        KitError: ``NO_MODEL`` (a collection of the split has no model and no ``fill_seed``), ``NO_TRAINING_DATA``
            (a fold without a model and no ``fill_seed``), ``FOLDS_MISMATCH``, ``OUTPUT_WRITE_FAILED``.
    """
    from .random_baseline import random_rankings
    from .submission import rank_configs, write_submission

    if folds is not None:
        check_folds(catalog, folds)
    missing = [name for name in catalog.collections if name not in models]
    if missing and fill_seed is None:
        raise KitError("NO_MODEL", f"no model for {', '.join(missing)} (no training graphs?): train on a split that "
                                   "has them, or fill their rows with random rankings (--fill-random SEED, "
                                   "fill_seed=SEED)")
    rankings = {}
    for name in (n for n in catalog.collections if n in models):
        for graph in iter_graphs(catalog.root, name, catalog.split, progress=progress):
            model = models[name] if folds is None else models[name][folds[graph.id]]
            if isinstance(model, KitError) and fill_seed is None:
                raise KitError(model.code, f"{model.message}; add --fill-random SEED (fill_seed=SEED) to give "
                                           "that fold's graphs random rows")
            if not isinstance(model, KitError):
                rankings[graph.id] = rank_configs(model.predict(graph), graph.collection.kind)
            graph.forget()
    if len(rankings) < len(catalog.index):
        rankings.update(random_rankings(catalog, fill_seed, ids=[i for i in catalog.index if i not in rankings]))
    return write_submission(rankings, path, catalog)


def check_folds(catalog: SplitCatalog, folds: Mapping[str, int]) -> None:
    """Raise ``FOLDS_MISMATCH`` (:class:`KitError`) unless ``folds`` names every graph of ``catalog`` and only those."""
    outside = [i for i in catalog.index if i not in folds]
    unknown = [i for i in folds if i not in catalog.index]
    if outside or unknown:
        raise KitError("FOLDS_MISMATCH", f"the fold file must name every graph of the {catalog.split} split once: "
                       + "; ".join(f"{len(ids)} {what} (first {ids[0]})" for ids, what in (
                           (outside, "graph(s) of the split in no fold"), (unknown, "ID(s) not graphs of the split"))
                                   if ids))
