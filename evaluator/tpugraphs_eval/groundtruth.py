"""Stage 0: data root → the split's catalog (graphs and config counts) and ground truth (runtimes).

Only ``config_runtime`` (and, for tile, ``config_runtime_normalizers``) is read from each ``.npz``,
with ``allow_pickle=False``: numpy's ``NpzFile`` reads one zip member per key asked for, so a layout
file's multi-GB ``node_config_feat`` is never loaded. Keys and dtypes: SPEC §1.
"""

from __future__ import annotations

import hashlib
import os
import zipfile
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Literal

import numpy as np

from .catalog import COLLECTIONS, TILE_TOP_K, Collection, Kind, submission_id
from .dataroot import DataRoot, check_split, present_collections
from .errors import DataError, UsageError
from .metrics import dense_ranks
from .progress import track

TileRuntime = Literal["normalized", "raw"]
TILE_RUNTIMES: tuple[TileRuntime, ...] = ("normalized", "raw")
_MAX_LISTED = 10


def expected_length(kind: Kind, n_configs: int) -> int:
    """How many indices a strict row lists: min(5, c) for tile (SPEC §2), c for layout."""
    return min(TILE_TOP_K, n_configs) if kind == "tile" else n_configs


@dataclass(frozen=True)
class CollectionGraphs:
    """The graphs of one collection in one split.

    Attributes:
        collection: the collection.
        names: graph IDs (file stems), sorted.
        n_configs: (G,) int64, the number of configurations c of each graph.
    """

    collection: Collection
    names: tuple[str, ...]
    n_configs: np.ndarray

    @cached_property
    def ids(self) -> list[str]:
        """Submission IDs of the graphs, ``<collection>:<name>``, in :attr:`names` order."""
        return [submission_id(self.collection, name) for name in self.names]


@dataclass
class SplitCatalog:
    """What validation needs: every graph of a split and its number of configurations.

    Attributes:
        root: the data root read.
        split: ``train``, ``valid`` or ``test``.
        collections: present collections by name, in the order of :data:`catalog.COLLECTIONS`.
        index: submission ID → (collection, graph position, c).
    """

    root: DataRoot
    split: str
    collections: dict[str, CollectionGraphs]
    index: dict[str, tuple[Collection, int, int]] = field(init=False)

    def __post_init__(self) -> None:
        self.index = {}
        for graphs in self.collections.values():
            for pos, (name, c) in enumerate(zip(graphs.names, graphs.n_configs.tolist())):
                self.index[submission_id(graphs.collection, name)] = (graphs.collection, pos, c)

    @cached_property
    def row_specs(self) -> dict[str, tuple[str, int, int, int, Kind]]:
        """Submission ID → (collection name, graph position, c, strict row length, kind): one lookup per row."""
        return {graph_id: (collection.name, position, c, expected_length(collection.kind, c), collection.kind)
                for graph_id, (collection, position, c) in self.index.items()}

    @property
    def missing_collections(self) -> list[str]:
        """Collections with no folder for this split under the data root."""
        return [c.name for c in COLLECTIONS if c.name not in self.collections]


@dataclass
class CollectionTruth:
    """Runtimes of every graph of one collection, stored back to back.

    Attributes:
        graphs: the collection's graphs (G of them).
        values: (N,) every graph's runtimes in ns, graph after graph: as stored (int64) for layout;
            float64 for tile, divided by ``config_runtime_normalizers`` when the tile runtime is
            ``normalized`` (SPEC §3).
        offsets: (G+1,) int64, graph g's runtimes are ``values[offsets[g]:offsets[g+1]]``.
        best: (G,) the fastest runtime of each graph (min over all its configurations).
        ranks: layout only, (N,) int32 dense rank of each config's runtime within its graph (0 = fastest),
            prepared once here so that scoring a ranking needs no sort (see :func:`metrics.discordant_pairs`).
        n_distinct: layout only, (G,) int64 number of distinct runtimes of each graph.
        tied_pairs: layout only, (G,) int64 pairs of configs with equal runtime in each graph.
    """

    graphs: CollectionGraphs
    values: np.ndarray
    offsets: np.ndarray
    best: np.ndarray
    ranks: np.ndarray | None = None
    n_distinct: np.ndarray | None = None
    tied_pairs: np.ndarray | None = None

    @classmethod
    def from_graphs(cls, graphs: CollectionGraphs, runtimes: list[np.ndarray]) -> CollectionTruth:
        """Pack per-graph runtime arrays; layout collections also get their dense ranks and tie counts."""
        sizes = np.array([y.size for y in runtimes], dtype=np.int64)
        truth = cls(graphs, np.concatenate(runtimes), np.concatenate(([0], np.cumsum(sizes))),
                    np.array([y.min() for y in runtimes]))
        if graphs.collection.kind == "layout":
            ranked = [dense_ranks(y) for y in runtimes]
            truth.ranks = np.concatenate([r for r, _, _ in ranked])
            truth.n_distinct = np.array([m for _, m, _ in ranked], dtype=np.int64)
            truth.tied_pairs = np.array([t for _, _, t in ranked], dtype=np.int64)
        return truth

    @property
    def runtimes(self) -> list[np.ndarray]:
        """Per graph, a (c,) view of its runtimes in :attr:`values`."""
        return [self.values[a:b] for a, b in zip(self.offsets[:-1].tolist(), self.offsets[1:].tolist())]


@dataclass
class GroundTruth:
    """The scoring side of a split: its catalog plus every graph's runtimes.

    Attributes:
        catalog: graphs and config counts.
        tile_runtime: ``normalized`` (default, Kaggle) or ``raw`` (SPEC §3 **Decision**).
        collections: per present collection, its runtimes.
        sha256: hex digest over every runtime and normalizer read (the report's provenance).
    """

    catalog: SplitCatalog
    tile_runtime: TileRuntime
    collections: dict[str, CollectionTruth]
    sha256: str
    cache: dict = field(default_factory=dict, repr=False, compare=False)
    """Values derived from the runtimes alone (e.g. the random and oracle references), computed once."""


@dataclass
class _GraphArrays:
    runtime: np.ndarray
    normalizer: np.ndarray | None


def _read_graph(path: Path, collection: Collection, with_normalizers: bool, faults: list[str]) -> _GraphArrays | None:
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
    return _GraphArrays(runtime, normalizer)


def _check_values(path: Path, arrays: _GraphArrays, faults: list[str]) -> None:
    """Runtimes and normalizers must be finite and positive; the message never shows their values."""
    for key, array in (("config_runtime", arrays.runtime), ("config_runtime_normalizers", arrays.normalizer)):
        if array is None:
            continue
        bad = ~np.isfinite(array) if array.dtype.kind == "f" else np.zeros(array.shape, bool)
        bad |= ~(array > 0)
        if bad.any():
            faults.append(f"{path}: {int(bad.sum())} of {array.size} {key} values are not finite and positive")


def _canonical_bytes(array: np.ndarray) -> bytes:
    """Little-endian int64 (integer arrays) or float64 bytes, so the digest does not depend on dtype width."""
    return np.ascontiguousarray(array, dtype="<i8" if array.dtype.kind in "iu" else "<f8").tobytes()


def _raise_faults(what: str, faults: list[str]) -> None:
    if faults:
        listed = "\n  ".join(faults[:_MAX_LISTED])
        more = f"\n  … and {len(faults) - _MAX_LISTED} more" if len(faults) > _MAX_LISTED else ""
        raise DataError(f"{what}:\n  {listed}{more}")


def _read_split(root: DataRoot, split: str, with_runtimes: bool, progress: bool):
    """Read every graph of ``split``; yields (collection, names, arrays) per present collection."""
    present = present_collections(root, split)
    total = sum(len(files) for files in present.values())
    jobs = [(c, f) for c, files in present.items() for f in files]
    faults: list[str] = []
    read: dict[Collection, list[tuple[str, _GraphArrays]]] = {c: [] for c in present}
    for collection, path in track(jobs, total, f"reading {split} graphs", progress):
        arrays = _read_graph(path, collection, with_runtimes and collection.kind == "tile", faults)
        if arrays is not None:
            read[collection].append((path.stem, arrays))
    _raise_faults(f"cannot read the {split} split of {root.label}", faults)
    return read


def _catalog(root: DataRoot, split: str, read) -> SplitCatalog:
    collections = {}
    for collection, graphs in read.items():
        names = tuple(name for name, _ in graphs)
        counts = np.array([a.runtime.size for _, a in graphs], dtype=np.int64)
        collections[collection.name] = CollectionGraphs(collection, names, counts)
    return SplitCatalog(root, split, collections)


def scan_catalog(root: DataRoot, split: str, *, progress: bool = False) -> SplitCatalog:
    """The graphs of ``split`` and their config counts; runtimes are not checked (they may be all 0).

    Raises:
        DataError: no graph in the split, an empty collection folder, an unreadable ``.npz``, a
            missing ``config_runtime``.
        UsageError: ``split`` is not train, valid or test.
    """
    check_split(split)
    return _catalog(root, split, _read_split(root, split, with_runtimes=False, progress=progress))


def load_ground_truth(root: DataRoot, split: str, *, tile_runtime: TileRuntime = "normalized",
                      progress: bool = False) -> GroundTruth:
    """Catalog plus runtimes of ``split``, checked for scoring.

    Raises:
        DataError: as :func:`scan_catalog`, plus: every runtime of the split is 0 (the public test
            files, which hold no ground truth); a runtime or normalizer that is not finite and positive.
        UsageError: ``split`` or ``tile_runtime`` not recognised.
    """
    check_split(split)
    if tile_runtime not in TILE_RUNTIMES:
        raise UsageError(f"tile runtime must be one of {', '.join(TILE_RUNTIMES)}, not {tile_runtime!r}")
    read = _read_split(root, split, with_runtimes=True, progress=progress)
    graphs_read = [a for graphs in read.values() for _, a in graphs]
    if all(not a.runtime.any() for a in graphs_read):
        raise DataError(
            f"every config_runtime of the {split} split of {root.label} is 0: these look like the public "
            "test files, which hold no ground truth (the real test runtimes exist only in the organisers' "
            "files). Validation still works: add --validate-only.")
    faults: list[str] = []
    for collection, graphs in read.items():
        for name, arrays in graphs:
            _check_values(root.path / collection.split_dir(split) / f"{name}.npz", arrays, faults)
    _raise_faults(f"the {split} split of {root.label} cannot be scored", faults)

    catalog = _catalog(root, split, read)
    digest = hashlib.sha256()
    truths = {}
    for collection, graphs in read.items():
        runtimes = []
        for name, arrays in graphs:
            digest.update(f"{collection.name}:{name}\0".encode())
            digest.update(_canonical_bytes(arrays.runtime))
            if collection.kind == "tile":
                digest.update(_canonical_bytes(arrays.normalizer))
                y = arrays.runtime.astype(np.float64)
                if tile_runtime == "normalized":
                    y = y / arrays.normalizer
                runtimes.append(y)
            else:
                runtimes.append(arrays.runtime)
        truths[collection.name] = CollectionTruth.from_graphs(catalog.collections[collection.name], runtimes)
    return GroundTruth(catalog, tile_runtime, truths, digest.hexdigest())
