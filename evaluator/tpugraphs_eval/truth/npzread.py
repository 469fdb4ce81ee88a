"""Reading ground truth from a data root's ``.npz`` files (the official layout, SPEC §1).

Only ``config_runtime`` (and, for tile, ``config_runtime_normalizers``) is read from each ``.npz``,
with ``allow_pickle=False``: numpy's ``NpzFile`` reads one zip member per key asked for, so a layout
file's multi-GB ``node_config_feat`` is never loaded.
"""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import numpy as np

from ..dataset import Collection
from ..progress import track
from .dataroot import DataRoot, check_split, present_collections
from .groundtruth import (
    GraphRuntimes,
    GraphsRead,
    GroundTruth,
    SplitCatalog,
    TileRuntime,
    build_ground_truth,
    catalog_of,
    raise_faults,
)


def _read_graph(path: Path, collection: Collection, with_normalizers: bool, faults: list[str]) -> GraphRuntimes | None:
    """Read the ground-truth keys of one ``.npz``; append a message to ``faults`` and return None if unusable."""
    keys = ["config_runtime"] + (["config_runtime_normalizers"] if with_normalizers else [])
    if not os.access(path, os.R_OK):
        faults.append(f"{path}: cannot be read (permission denied)")
        return None
    if not zipfile.is_zipfile(path):
        faults.append(f"{path}: not a readable .npz file (not a zip archive: a corrupt or partial download?)")
        return None
    try:
        with np.load(path, allow_pickle=False) as npz:
            missing = [k for k in keys if k not in npz.files]
            if missing:
                faults.append(f"{path}: no {', '.join(missing)} (keys: {', '.join(npz.files)})")
                return None
            arrays = [npz[k] for k in keys]
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, KeyError) as err:
        faults.append(f"{path}: not a readable .npz file ({type(err).__name__}: {err})")
        return None
    for key, array in zip(keys, arrays):
        if not isinstance(array, np.ndarray):
            faults.append(f"{path}: {key} is not a numpy array (.npy) member")
            return None
        if array.ndim != 1 or array.size == 0 or array.dtype.kind not in "iuf":
            faults.append(f"{path}: {key} must be a non-empty 1-D numeric array, found {array.dtype} {array.shape}")
            return None
    runtime = arrays[0]
    normalizer = arrays[1] if with_normalizers else None
    if normalizer is not None and normalizer.shape != runtime.shape:
        faults.append(f"{path}: config_runtime_normalizers has shape {normalizer.shape}, "
                      f"config_runtime {runtime.shape}")
        return None
    return GraphRuntimes(runtime, normalizer)


def read_split(root: DataRoot, split: str, with_runtimes: bool, progress: bool) -> GraphsRead:
    """Read every graph of ``split`` (with a progress bar when asked); one DataError lists every bad file."""
    present = present_collections(root, split)
    total = sum(len(files) for files in present.values())
    jobs = [(c, f) for c, files in present.items() for f in files]
    faults: list[str] = []
    read: GraphsRead = {c: [] for c in present}
    for collection, path in track(jobs, total, f"reading {split} graphs", progress):
        arrays = _read_graph(path, collection, with_runtimes and collection.kind == "tile", faults)
        if arrays is not None:
            read[collection].append((path.stem, arrays))
    raise_faults(f"cannot read the {split} split of {root.label}", faults)
    return read


def scan_catalog(root: DataRoot, split: str, *, progress: bool = False) -> SplitCatalog:
    """The graphs of ``split`` and their config counts; runtimes are not checked (they may be all 0).

    Raises:
        DataError: no graph in the split, an empty collection folder, an unreadable ``.npz``, a
            missing ``config_runtime``.
        UsageError: ``split`` is not train, valid or test.
    """
    check_split(split)
    return catalog_of(root, split, read_split(root, split, with_runtimes=False, progress=progress))


def load_ground_truth(root: DataRoot, split: str, *, tile_runtime: TileRuntime = "normalized",
                      progress: bool = False) -> GroundTruth:
    """Catalog plus runtimes of ``split``, read from the data root's ``.npz`` files and checked for scoring.

    Raises:
        DataError: as :func:`scan_catalog`, plus: every runtime of the split is 0 (the public test
            files, which hold no ground truth); a runtime or normalizer that is not finite and positive.
        UsageError: ``split`` or ``tile_runtime`` not recognised.
    """
    check_split(split)
    read = read_split(root, split, with_runtimes=True, progress=progress)
    return build_ground_truth(root, split, read, tile_runtime=tile_runtime,
                              where=lambda collection, name: str(root.path / collection.split_dir(split) / f"{name}.npz"))
