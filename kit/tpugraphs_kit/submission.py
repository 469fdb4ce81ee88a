"""From predictions to a submission file: rankings, ``ID,TopConfigs`` rows, strict validation, atomic write.

Format (docs/codes.md; Kaggle "Google - Fast or Slow? Predict AI Model Runtime"): header ``ID,TopConfigs``, one row
per graph, ``TopConfigs`` = config indices joined by ``;``, predicted fastest first; tile rows list the
top min(5, c), layout rows all c configurations. The evaluator validates every file before it is written
(:func:`write_submission`): the kit has no parser of its own.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np

from tpugraphs_eval import Severity, SplitCatalog, Validation, validate_submission
from tpugraphs_eval.dataset import TILE_TOP_K
from tpugraphs_eval.submission.problems import Mode

from .errors import KitError, SubmissionError
from .files import write_atomic

HEADER = b"ID,TopConfigs\n"


def _check_mapping(value: object, what: str) -> None:
    """``value`` must map submission IDs (str) to arrays. Raises :class:`KitError` ``BAD_PREDICTIONS``."""
    if not isinstance(value, Mapping) or not all(isinstance(key, str) for key in value):
        raise KitError("BAD_PREDICTIONS", f"{what} must be a mapping of submission IDs (str) to arrays, e.g. "
                                          "{'tile:xla:<graph>': array}")


def rank_configs(scores: np.ndarray, kind: str) -> np.ndarray:
    """Config indices ordered by ``scores``, lowest (predicted fastest) first.

    Args:
        scores: (c,) predicted runtimes in ns, or any score where lower means faster.
        kind: ``tile`` (keep the top min(5, c), Kaggle's K) or ``layout`` (keep all c: a full ranking).

    Returns:
        (min(5, c),) or (c,) int64 indices. Ties are broken by the lower config index (a stable sort),
        so equal scores always give the same file.

    Raises:
        KitError: ``BAD_PREDICTIONS`` (not 1-D, empty, or holding NaN or infinity).
    """
    scores = np.asarray(scores)
    if scores.ndim != 1 or scores.size == 0:
        raise KitError("BAD_PREDICTIONS", f"predictions must be a non-empty 1-D array, got shape {scores.shape}")
    if scores.dtype.kind not in "iuf" or (scores.dtype.kind == "f" and not np.isfinite(scores).all()):
        raise KitError("BAD_PREDICTIONS", "predictions must be finite numbers (found NaN, infinity or non-numbers)")
    order = np.argsort(scores, kind="stable").astype(np.int64)
    return order[:TILE_TOP_K] if kind == "tile" else order


def restrict(catalog: SplitCatalog, collections: Iterable[str] | None) -> SplitCatalog:
    """The catalog limited to ``collections`` (all when None), to validate a per-collection file.

    Raises:
        KitError: ``COLLECTION_NOT_IN_SPLIT`` when a named collection has no graphs in this split.
    """
    if collections is None:
        return catalog
    names = list(collections)
    if absent := [n for n in names if n not in catalog.collections]:
        raise KitError("COLLECTION_NOT_IN_SPLIT", f"the {catalog.split} split of {catalog.root.label} has no "
                                                  f"{', '.join(absent)} graphs")
    return catalog.restrict(names)


def csv_bytes(rankings: Mapping[str, np.ndarray], catalog: SplitCatalog | None = None) -> bytes:
    """The CSV text of ``rankings`` (submission ID → config indices): rows in the catalog's order
    (collection, then graph name), IDs the catalog does not know last (validation will name them)."""
    ids = list(rankings)
    if catalog is not None:
        order = {graph_id: i for i, graph_id in enumerate(catalog.index)}
        ids.sort(key=lambda graph_id: order.get(graph_id, len(order)))
    lines = [HEADER]
    for graph_id in ids:
        ranking = np.asarray(rankings[graph_id]).astype(np.int64, copy=False)
        lines.append(f"{graph_id},{';'.join(map(str, ranking.tolist()))}\n".encode())
    return b"".join(lines)


def write_submission(rankings: Mapping[str, np.ndarray], path: str | os.PathLike[str], catalog: SplitCatalog, *,
                     collections: Iterable[str] | None = None, mode: Mode = "strict") -> Validation:
    """Validate ``rankings`` as a strict (or, with ``mode="lenient"``, Kaggle-compatible) submission for
    ``catalog``'s split, then write it atomically.

    Args:
        rankings: submission ID (``tile:xla:<name>``) → (k,) config indices, fastest first.
        path: the CSV to write (replaced atomically; nothing is written when validation fails).
        catalog: the split's graphs (:func:`tpugraphs_eval.scan_catalog`).
        collections: write a per-collection file: rows of these collections only, validated against them
            (for :func:`tpugraphs_kit.combine.combine_submissions`).

    Returns:
        The evaluator's :class:`tpugraphs_eval.Validation` of the written bytes (valid).

    Raises:
        SubmissionError: the rows fail strict validation (code of the first error, e.g. ``MISSING_IDS``).
        KitError: ``OUTPUT_WRITE_FAILED``, ``COLLECTION_NOT_IN_SPLIT``.
    """
    target = restrict(catalog, collections)
    _check_mapping(rankings, "rankings")
    data = csv_bytes(rankings, target)
    validation = validate_submission(data, target, mode=mode)
    if not validation.valid:  # an invalid validation lists at least one problem of error severity
        first = next(p for p in validation.problems if p.severity == Severity.ERROR)
        counts = ", ".join(f"{code} x{n}" for code, n in sorted(validation.counts.items()))
        raise SubmissionError(first.code, f"the submission for {Path(path)} fails {mode} validation ({counts}); "
                                          f"first: {first.describe()}", validation.problems)
    write_atomic(path, data)
    return validation


def write_predictions(predictions: Mapping[str, np.ndarray], path: str | os.PathLike[str], catalog: SplitCatalog,
                      *, collections: Iterable[str] | None = None) -> Validation:
    """:func:`write_submission` from per-graph scores: submission ID → (c,) predicted runtimes (lower = faster).

    Each graph's rows come from :func:`rank_configs` (ties broken by the lower config index).

    Raises:
        KitError: ``BAD_PREDICTIONS`` (also when a graph's prediction count differs from its c).
        SubmissionError, KitError: as :func:`write_submission`.
    """
    _check_mapping(predictions, "predictions")
    rankings = {}
    for graph_id, scores in predictions.items():
        spec = catalog.index.get(graph_id)
        if spec is not None and np.shape(scores) != (spec.n_configs,):
            raise KitError("BAD_PREDICTIONS", f"{graph_id} has {spec.n_configs} configurations; got predictions of "
                                              f"shape {np.shape(scores)}")
        kind = spec.collection.kind if spec is not None else ("tile" if graph_id.startswith("tile:") else "layout")
        try:
            rankings[graph_id] = rank_configs(scores, kind)
        except KitError as err:
            raise KitError(err.code, f"{graph_id}: {err.message}") from None
    return write_submission(rankings, path, catalog, collections=collections)
