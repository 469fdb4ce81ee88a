"""The noise file: a split's measurement noise and noise ceilings, computed once (``tpugraphs-data noise``: reading
every feature row is a pass over each graph's largest member, GBs) and kept as JSON at
``<data root>/noise/<split>.json`` or where ``-o`` says; scoring reads the file given with ``--noise``, else the one
at that place (docs/metrics.md, "Measurement noise"; format: docs/report-json.md, "Noise file"). The file names the
ground truth it was computed from (``ground_truth_sha256``); another split's or data root's file is refused.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from .._version import __version__
from ..errors import DataError, UsageError
from ..truth.dataroot import DataRoot
from ..truth.groundtruth import CollectionTruth, GroundTruth
from ..truth.rowhash import FEATURE_KEYS, feature_row_hashes
from .noise import DRAWS, SEED, NoiseEstimate, duplicate_groups, noise_ceiling, noise_estimate, pooled

NOISE_FORMAT = 1
"""Version of the noise file's JSON layout."""


def default_noise_path(root: DataRoot, split: str) -> Path | None:
    """``<data root>/noise/<split>.json``, where scoring looks for a noise file; None for a solution file."""
    return None if root.noun != "data root" else root.path / "noise" / f"{split}.json"


def _finite(value: float) -> float | None:
    return None if math.isnan(value) else value


def ceilings(runtimes, sd: float | None, kind: str, sampled=None) -> dict[str, Any]:
    """``{ceiling, two_measurements}``: metric → ``[mean, spread]`` (:func:`.noise.noise_ceiling`, ``sd`` and
    ``sd * sqrt(2)``); {} without an ``sd``."""
    if sd is None:
        return {}
    return {label: {m: [_finite(a), _finite(b)] for m, (a, b) in noise_ceiling(runtimes, s, kind, sampled=sampled).items()}
            for label, s in (("ceiling", sd), ("two_measurements", sd * math.sqrt(2.0)))}


def noise_entries(paths: list[Path], runtimes: list, kind: str,
                  kept: list | None = None) -> tuple[list[dict[str, Any]], NoiseEstimate]:
    """The noise-file entries of one collection's graphs and their pooled estimate.

    Args:
        paths: each graph's ``.npz`` (its feature rows are hashed, :mod:`..truth.rowhash`).
        runtimes: each graph's (c,) runtimes.
        kind: ``tile`` or ``layout``.
        kept: per graph the config indices kept (a prepared test file's sample), or None for all.

    Returns:
        Per graph ``{configs, duplicate_configs, groups, sum_squares, dof, sd, sd_source, ceiling, two_measurements}``
        (sd: own, else the pooled one with ``sd_source`` ``pooled``, else null with ``sd_source`` null and no
        ceilings), and the pooled :class:`NoiseEstimate`.
    """
    kept = kept or [None] * len(paths)
    estimates, ys = [], []
    for path, y, keep in zip(paths, runtimes, kept):
        labels = duplicate_groups(feature_row_hashes(path, FEATURE_KEYS[kind]))
        y = np.asarray(y) if keep is None else np.asarray(y)[keep]
        estimates.append(noise_estimate(y, labels if keep is None else labels[keep]))
        ys.append(y)
    total = pooled(estimates)
    entries = []
    for y, own in zip(ys, estimates):
        sd, source = (own.sd, "own") if own.dof else (total.sd, "pooled" if total.dof else None)
        entries.append({"configs": int(y.size), "duplicate_configs": own.duplicates, "groups": own.groups,
                        "sum_squares": own.sum_squares, "dof": own.dof, "sd": sd, "sd_source": source,
                        **ceilings(y, sd, kind)})
    return entries, total


def _collection_noise(root: DataRoot, split: str, truth: CollectionTruth) -> dict[str, Any]:
    collection = truth.graphs.collection
    folder = root.path / collection.split_dir(split)
    entries, total = noise_entries([folder / f"{name}.npz" for name in truth.graphs.names], truth.runtimes,
                                   collection.kind)
    return {"sd": total.sd, "dof": total.dof, "duplicate_configs": total.duplicates,
            "graphs": dict(zip(truth.graphs.names, entries))}


def held_out_noise(root: DataRoot, names: list[dict[str, Any]], runtimes: dict) -> dict[str, Any]:
    """``prepare``'s held-out graphs' noise entries (:func:`noise_entries` on their kept configs, pooled per
    collection), by test ID ``<collection>:<test graph>``: for the private ``prepare.json`` only."""
    from ..dataset import BY_NAME

    out = {}
    for name in dict.fromkeys(n["collection"] for n in names):
        mine = [n for n in names if n["collection"] == name]
        c = BY_NAME[name]
        entries, _ = noise_entries([root.path / c.split_dir(n["split"]) / f"{n['graph']}.npz" for n in mine],
                                   [runtimes[(name, n["split"], n["graph"])].runtime for n in mine], c.kind,
                                   [n["kept_configs"] for n in mine])
        out.update({f"{name}:{n['test_graph']}": e for n, e in zip(mine, entries)})
    return out


def build_noise(root: DataRoot, truth: GroundTruth) -> dict[str, Any]:
    """The noise file's content for every graph of ``truth`` (read from ``root``'s ``.npz`` files): per graph
    :func:`noise_entries`' entry, per collection the pooled sd, dof and duplicate configs.

    Raises:
        DataError: a graph's feature member cannot be read (:func:`..truth.rowhash.feature_row_hashes`).
    """
    split = truth.catalog.split
    return {"noise_format": NOISE_FORMAT, "split": split, "data_root": root.label, "tile_runtime": truth.tile_runtime,
            "ground_truth_sha256": truth.sha256, "model": "y * (1 + e), e ~ N(0, sd)", "draws": DRAWS, "seed": SEED,
            "evaluator_version": __version__,
            "collections": {name: _collection_noise(root, split, t) for name, t in truth.collections.items()}}


def read_noise(path: Path, truth: GroundTruth) -> dict[str, Any]:
    """A noise file made from ``truth``'s runtimes (:func:`build_noise`'s content).

    Raises:
        DataError: unreadable, not a noise file of format :data:`NOISE_FORMAT`, or made from other runtimes (its
            ``ground_truth_sha256`` or tile runtime differs).
    """
    try:
        noise = json.loads(Path(path).read_text(encoding="utf-8"))
        same = (noise["noise_format"] == NOISE_FORMAT and noise["ground_truth_sha256"] == truth.sha256
                and noise["tile_runtime"] == truth.tile_runtime and isinstance(noise["collections"], dict))
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise DataError(f"{path}: not a readable noise file ({err})") from None
    if not same:
        raise DataError(f"{path}: a noise file of other runtimes (its ground_truth_sha256 or tile runtime differs from "
                        f"the {truth.catalog.split} split's); run `tpugraphs-data noise` on this data root and split")
    return noise


def attach_noise(truth: GroundTruth, given: str | Path | None = None) -> None:
    """Set ``truth.noise`` from the noise file ``given`` (``--noise``), else from :func:`default_noise_path` when a
    file is there (with its ``path``); left None otherwise (the report then says there is none).

    Raises:
        UsageError: ``given`` is not a file. DataError: as :func:`read_noise`.
    """
    path = Path(given) if given is not None else default_noise_path(truth.catalog.root, truth.catalog.split)
    if given is not None and not path.is_file():
        raise UsageError(f"--noise {given}: no such file (write one with `tpugraphs-data noise`)")
    if path is not None and path.is_file():
        truth.noise = {**read_noise(path, truth), "path": str(path)}

