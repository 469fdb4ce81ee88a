"""The ground truth of a split — its catalog (graphs and config counts) and runtimes — and :func:`build_ground_truth`,
which makes it from per-graph arrays of any source: a data root (:mod:`npzread`), a solution file (:mod:`solution`), a
Kaggle-style solution table (:mod:`..hosting.kaggle_metric`). Keys and dtypes: docs/data.md.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from itertools import pairwise
from typing import NamedTuple

import numpy as np

from ..dataset import COLLECTIONS, TILE_TOP_K, Collection, Kind, submission_id
from ..defaults import TILE_RUNTIMES, TileRuntime  # noqa: E402,F401 (re-exported)
from ..errors import NoGroundTruthError, UsageError
from .dataroot import DataRoot
from .faults import raise_faults
from .ranks import dense_ranks_into


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


class GraphRef(NamedTuple):
    """Where a submission ID's graph is in a :class:`SplitCatalog`.

    Attributes:
        collection: its collection.
        position: its index in the collection's :attr:`CollectionGraphs.names`.
        n_configs: its number of configurations c.
    """

    collection: Collection
    position: int
    n_configs: int


class RowSpec(NamedTuple):
    """What validating one row of a known ID needs, in one lookup (:attr:`SplitCatalog.row_specs`).

    Attributes:
        collection: the collection's name.
        position: the graph's index in its collection.
        n_configs: the graph's number of configurations c.
        length: the number of indices a strict row lists: min(5, c) for tile (docs/codes.md), c for layout.
        kind: ``tile`` or ``layout``.
    """

    collection: str
    position: int
    n_configs: int
    length: int
    kind: Kind


@dataclass
class SplitCatalog:
    """What validation needs: every graph of a split and its number of configurations.

    Attributes:
        root: the data root read.
        split: ``train``, ``valid`` or ``test``.
        collections: present collections by name, in the order of :data:`tpugraphs_eval.dataset.COLLECTIONS`.
        left_out: collections of the split that a selection (:meth:`restrict`, ``--collections``) leaves
            out: their rows are counted, not scored, and they are not reported missing.
        unselected: submission IDs of graphs of the split that a graph selection (:meth:`restrict_graphs`,
            ``--graphs``) leaves out: their rows are counted, not scored, and they are not missing.
        index: submission ID → :class:`GraphRef` (collection, graph position, c).
    """

    root: DataRoot
    split: str
    collections: dict[str, CollectionGraphs]
    left_out: tuple[str, ...] = ()
    unselected: frozenset[str] = frozenset()
    index: dict[str, GraphRef] = field(init=False)

    def __post_init__(self) -> None:
        self.index = {submission_id(g.collection, name): GraphRef(g.collection, pos, c) for g in self.collections.values()
                      for pos, (name, c) in enumerate(zip(g.names, g.n_configs.tolist(), strict=True))}

    @cached_property
    def row_specs(self) -> dict[str, RowSpec]:
        """Submission ID → :class:`RowSpec` (collection name, graph position, c, strict row length, kind)."""
        return {graph_id: RowSpec(collection.name, position, c, min(TILE_TOP_K, c) if collection.kind == "tile" else c,
                                  collection.kind) for graph_id, (collection, position, c) in self.index.items()}

    def restrict(self, names: list[str]) -> SplitCatalog:
        """The same split limited to the collections ``names`` (e.g. to validate a per-collection file);
        every other collection of the dataset is :attr:`left_out` (in :data:`COLLECTIONS` order).

        Raises:
            KeyError: a name is not a present collection.
        """
        chosen = {name: self.collections[name] for name in names}
        return SplitCatalog(self.root, self.split, {c.name: chosen[c.name] for c in COLLECTIONS if c.name in chosen},
                            tuple(c.name for c in COLLECTIONS if c.name not in chosen), self.unselected)

    def restrict_graphs(self, ids: frozenset[str]) -> SplitCatalog:
        """The same split limited to the graphs ``ids`` (submission IDs of this split, ``--graphs``): the others
        are :attr:`unselected`; a collection left with no graph is :attr:`left_out`.

        Raises:
            KeyError: an ID is not a graph of the split.
        """
        if unknown := ids - self.index.keys():
            raise KeyError(sorted(unknown)[0])
        kept = {}
        for name, graphs in self.collections.items():
            if keep := [i for i, graph_id in enumerate(graphs.ids) if graph_id in ids]:
                kept[name] = CollectionGraphs(graphs.collection, tuple(graphs.names[i] for i in keep),
                                              graphs.n_configs[keep])
        return SplitCatalog(self.root, self.split, kept,
                            tuple(c.name for c in COLLECTIONS if c.name not in kept and (c.name in self.collections
                                                                                          or c.name in self.left_out)),
                            self.unselected | (frozenset(self.index) - ids))

    @property
    def missing_collections(self) -> list[str]:
        """Collections with no folder for this split under the data root (none left out by a selection)."""
        return [c.name for c in COLLECTIONS if c.name not in self.collections and c.name not in self.left_out]


@dataclass
class CollectionTruth:
    """Runtimes of every graph of one collection, stored back to back.

    Attributes:
        graphs: the collection's graphs (G of them).
        values: (N,) every graph's runtimes in ns, graph after graph: as stored (int64) for layout;
            float64 for tile, divided by ``config_runtime_normalizers`` when the tile runtime is
            ``normalized`` (docs/metrics.md).
        offsets: (G+1,) int64, graph g's runtimes are ``values[offsets[g]:offsets[g+1]]``.
        best: (G,) the fastest runtime of each graph (min over all its configurations).
        ranks: layout only, (N,) int32 dense rank of each config's runtime within its graph (0 = fastest),
            prepared once here so that scoring a ranking needs no sort (see :func:`metrics.discordant_pairs`).
        n_distinct: layout only, (G,) int64 number of distinct runtimes of each graph.
        tied_pairs: layout only, (G,) int64 pairs of configs with equal runtime in each graph.
        public: (G,) bool, True for the graphs of the public leaderboard, or None when the ground
            truth has no Public/Private split (see :mod:`solution`).
    """

    graphs: CollectionGraphs
    values: np.ndarray
    offsets: np.ndarray
    best: np.ndarray
    ranks: np.ndarray | None = None
    n_distinct: np.ndarray | None = None
    tied_pairs: np.ndarray | None = None
    public: np.ndarray | None = None

    @classmethod
    def from_values(cls, graphs: CollectionGraphs, values: np.ndarray, public: np.ndarray | None = None) -> CollectionTruth:
        """Pack the runtimes of every graph, stored back to back in ``graphs`` order ((sum c,) ns), with the (G,)
        Public mask ``public``; layout collections also get their dense ranks and tie counts."""
        offsets = np.concatenate(([0], np.cumsum(graphs.n_configs)))
        truth = cls(graphs, values, offsets, np.minimum.reduceat(values, offsets[:-1]), public=public)
        if graphs.collection.kind == "layout":
            truth.ranks = np.empty(values.size, dtype=np.int32)  # filled graph by graph: no per-graph arrays kept
            truth.n_distinct = np.empty(offsets.size - 1, dtype=np.int64)
            truth.tied_pairs = np.empty(offsets.size - 1, dtype=np.int64)
            for g, (a, b) in enumerate(pairwise(offsets.tolist())):
                truth.n_distinct[g], truth.tied_pairs[g] = dense_ranks_into(values[a:b], truth.ranks[a:b])
        return truth

    @property
    def runtimes(self) -> list[np.ndarray]:
        """Per graph, a (c,) view of its runtimes in :attr:`values`."""
        return [self.values[a:b] for a, b in pairwise(self.offsets.tolist())]


@dataclass
class GroundTruth:
    """The scoring side of a split: its catalog plus every graph's runtimes.

    Attributes:
        catalog: graphs and config counts.
        tile_runtime: ``normalized`` (default, Kaggle) or ``raw`` (docs/metrics.md **Decision**).
        collections: per present collection, its runtimes.
        sha256: hex digest over every runtime and normalizer read (the report's provenance).
        noise: the split's noise file (``scoring.noisefile``), or None when there is none.
    """

    catalog: SplitCatalog
    tile_runtime: TileRuntime
    collections: dict[str, CollectionTruth]
    sha256: str
    noise: dict | None = None
    cache: dict = field(default_factory=dict, repr=False, compare=False)
    """Values derived from the runtimes alone (e.g. the random and oracle references), computed once."""

    def restrict(self, names: list[str]) -> GroundTruth:
        """The runtimes of the collections ``names`` only (``--collections``); :attr:`sha256` still names
        everything read.

        Raises:
            KeyError: a name is not a present collection.
        """
        catalog = self.catalog.restrict(names)
        return GroundTruth(catalog, self.tile_runtime, {name: self.collections[name] for name in catalog.collections},
                           self.sha256, self.noise)

    def restrict_graphs(self, catalog: SplitCatalog) -> GroundTruth:
        """The runtimes of the graphs of ``catalog`` only (:meth:`SplitCatalog.restrict_graphs` of this truth's
        catalog, ``--graphs``), Public/Private usage kept; :attr:`sha256` still names everything read."""
        collections = {}
        for name, graphs in catalog.collections.items():
            old = self.collections[name]
            where = {n: i for i, n in enumerate(old.graphs.names)}
            positions = [where[n] for n in graphs.names]
            runtimes = old.runtimes
            collections[name] = CollectionTruth.from_values(graphs, np.concatenate([runtimes[i] for i in positions]),
                                                            None if old.public is None else old.public[positions])
        return GroundTruth(catalog, self.tile_runtime, collections, self.sha256, self.noise)

    @property
    def has_usage(self) -> bool:
        """True when every graph is marked Public or Private (a solution file's ground truth)."""
        return all(t.public is not None for t in self.collections.values())


@dataclass
class GraphRuntimes:
    """One graph's ground-truth arrays as stored: ``config_runtime`` (c,) and, for tile,
    ``config_runtime_normalizers`` (c,), both in ns (int64 in the real files)."""

    runtime: np.ndarray
    normalizer: np.ndarray | None = None


GraphsRead = dict[Collection, list[tuple[str, GraphRuntimes]]]
"""Per present collection, (graph name, arrays) sorted by name: what a ground-truth source yields."""


def catalog_of(root: DataRoot, split: str, read: GraphsRead) -> SplitCatalog:
    """The catalog of the graphs read (config counts from the runtime arrays' lengths)."""
    return SplitCatalog(root, split, {c.name: CollectionGraphs(c, tuple(name for name, _ in graphs),
                                                               np.array([a.runtime.size for _, a in graphs], np.int64))
                                      for c, graphs in read.items()})


def _bad_graphs(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """(G,) count of values that are not finite and positive, per graph of a back-to-back array."""
    bad = ~(values > 0)
    if values.dtype.kind == "f":
        bad |= ~np.isfinite(values)
    return np.add.reduceat(bad, offsets[:-1], dtype=np.int64) if bad.any() else np.zeros(offsets.size - 1, np.int64)


def as_int64_exact(array: np.ndarray) -> np.ndarray | None:
    """``array`` as int64 when every value is a whole number in [-2^63, 2^63) (so stored without loss), else None."""
    if array.dtype.kind == "u" and array.dtype.itemsize == 8 and array.size and array.max() >= 2**63:
        return None
    if array.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            whole = np.isfinite(array) & (np.floor(array) == array) & (array >= -2.0**63) & (array < 2.0**63)
        if not whole.all():
            return None
    return array.astype(np.int64, copy=False)


def _canonical_bytes(array: np.ndarray) -> np.ndarray:
    """Little-endian int64 values when they are whole numbers that fit (any integer or float dtype), else float64
    values, as a contiguous array that hashlib reads in place (no bytes copy): the digest depends on the values,
    not on the dtype they are stored in."""
    exact = as_int64_exact(array) if array.dtype.kind in "iuf" else None
    return np.ascontiguousarray(array if exact is None else exact, dtype="<f8" if exact is None else "<i8")


def runtimes_sha256(read: GraphsRead) -> str:
    """Hex sha256 over every graph's name, runtimes and (tile) normalizers in ``read`` order: a report's
    ``ground_truth_sha256`` and a solution manifest's checksum."""
    digest = hashlib.sha256()
    for collection, graphs in read.items():
        for name, arrays in graphs:
            digest.update(f"{collection.name}:{name}\0".encode())
            digest.update(_canonical_bytes(arrays.runtime))
            if collection.kind == "tile":
                digest.update(_canonical_bytes(arrays.normalizer))
    return digest.hexdigest()


def build_ground_truth(root: DataRoot, split: str, read: GraphsRead, *, tile_runtime: TileRuntime = "normalized",
                       public: dict[str, np.ndarray] | None = None,
                       where: Callable[[Collection, str], str] | None = None) -> GroundTruth:
    """Check and pack the runtimes read from any source into a :class:`GroundTruth`.

    Args:
        root: where they came from (names the source in messages and reports).
        split: ``train``, ``valid`` or ``test``.
        read: per collection, (graph name, :class:`GraphRuntimes`) sorted by name.
        tile_runtime: ``normalized`` (runtime / normalizer) or ``raw``.
        public: optional collection name → (G,) bool Public mask, aligned with ``read``.
        where: names a graph's source in messages (default ``<collection>:<graph>``).

    Raises:
        NoGroundTruthError: every runtime is 0 (``NO_GROUND_TRUTH``: the public test files hold no ground truth).
        DataError: a runtime or normalizer that is not finite and positive (``RUNTIME_NOT_POSITIVE``); a float
            tile quotient or a graph's slowest / fastest ratio that overflows float64 (``RUNTIME_OVERFLOW``: the
            metrics would be inf or NaN). Files are named, values never shown.
        UsageError: ``tile_runtime`` is not recognised.
    """
    if tile_runtime not in TILE_RUNTIMES:
        raise UsageError(f"tile runtime must be one of {', '.join(TILE_RUNTIMES)}, not {tile_runtime!r}")
    where = where or submission_id
    catalog = catalog_of(root, split, read)
    stored = {c: (np.concatenate([a.runtime for _, a in graphs]),  # every graph's runtimes and normalizers, back to back
                  np.concatenate([a.normalizer for _, a in graphs]) if c.kind == "tile" else None)
              for c, graphs in read.items()}
    if not any(runtime.any() for runtime, _ in stored.values()):
        raise NoGroundTruthError(
            f"every config_runtime of the {split} split of {root.label} is 0: these look like the public "
            "test files, which hold no ground truth (the real test runtimes exist only in the organisers' "
            "files).")  # each command adds what it can do instead (commands/no_truth_hint.py)
    raise_faults(f"the {split} split of {root.label} cannot be scored", _not_positive(stored, catalog, where))
    values, faults = _scored_values(stored, catalog, tile_runtime, where)
    raise_faults(f"the {split} split of {root.label} cannot be scored", faults)
    truths = {c.name: CollectionTruth.from_values(catalog.collections[c.name], runtime,
                                                  None if public is None else np.asarray(public[c.name], dtype=bool))
              for c, runtime in values.items()}
    return GroundTruth(catalog, tile_runtime, truths, runtimes_sha256(read))


def _not_positive(stored, catalog: SplitCatalog, where) -> list[tuple[str, str]]:
    """RUNTIME_NOT_POSITIVE faults: a graph with a runtime or normalizer that is not finite and positive
    (``stored``: collection → every graph's runtimes and normalizers, back to back)."""
    faults = []
    for collection, (runtime, normalizer) in stored.items():
        graphs = catalog.collections[collection.name]
        offsets = np.concatenate(([0], np.cumsum(graphs.n_configs)))
        for key, array in (("config_runtime", runtime), ("config_runtime_normalizers", normalizer)):
            if array is None:
                continue
            for g in np.flatnonzero(bad := _bad_graphs(array, offsets)):
                faults.append(("RUNTIME_NOT_POSITIVE", f"{where(collection, graphs.names[g])}: {bad[g]} of "
                               f"{graphs.n_configs[g]} {key} values are not finite and positive"))
    return faults


def _scored_values(stored, catalog: SplitCatalog, tile_runtime: TileRuntime, where):
    """``(values, faults)``: collection → the runtimes scored (tile: float64, divided by the normalizer when
    ``normalized``), and the RUNTIME_OVERFLOW faults of graphs whose values or ratios are not finite."""
    values, faults = {}, []
    for collection, (runtime, normalizer) in stored.items():
        if collection.kind == "tile" and tile_runtime == "normalized":
            with np.errstate(over="ignore", under="ignore"):
                runtime = np.divide(runtime, normalizer, dtype=np.float64)
        elif collection.kind == "tile":
            runtime = runtime.astype(np.float64)
        graphs = catalog.collections[collection.name]
        for g in _overflowing_graphs(runtime, np.concatenate(([0], np.cumsum(graphs.n_configs)))):
            faults.append(("RUNTIME_OVERFLOW", f"{where(collection, graphs.names[g])}: the {tile_runtime} "
                           f"{'runtime / normalizer quotient' if collection.kind == 'tile' else 'runtime'} or the "
                           "slowest / fastest ratio is not a finite positive float64"))
        values[collection] = runtime
    return values, faults


def _overflowing_graphs(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Positions of the graphs (of a back-to-back array of positive runtimes) whose values are not finite and
    positive after a division, or whose slowest / fastest ratio overflows: the metrics' ratios would be inf or
    NaN there. Integer values (int64 ns) cannot overflow a float64 ratio; only float values are checked."""
    if values.dtype.kind != "f":
        return np.zeros(0, dtype=np.int64)
    starts = offsets[:-1]
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        bad = ~(np.isfinite(values) & (values > 0))
        ratio = np.maximum.reduceat(values, starts) / np.minimum.reduceat(values, starts)
    return np.flatnonzero((np.add.reduceat(bad, starts, dtype=np.int64) > 0) | ~np.isfinite(ratio))
