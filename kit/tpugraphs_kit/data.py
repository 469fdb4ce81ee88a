"""Data access: the graphs of a collection and split, and one graph's arrays read lazily as numpy arrays.

The layout of a data root and the keys, dtypes and shapes of a graph file: docs/data.md (sources: the
google-research-datasets/tpu_graphs README and the real files). Every read goes through the evaluator's one
``.npz`` reader (:mod:`tpugraphs_eval.truth.npz`, nothing unpickled) and reads only the keys asked for, so a layout
graph's multi-GB ``node_config_feat`` is read only when asked for, by :meth:`Graph.iter_rows` a block of
configurations at a time.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from tpugraphs_eval import DataRoot, resolve_data_root
from tpugraphs_eval.dataset import BY_NAME, COLLECTIONS, SPLITS, Collection, submission_id
from tpugraphs_eval.progress import track
from tpugraphs_eval.truth import npz

from .errors import KitError

RootLike = DataRoot | str | os.PathLike[str] | None
"""A :class:`tpugraphs_eval.DataRoot`, a path, ``"demo"``, or None (``$TPUGRAPHS_DATA``, else ``~/data/tpugraphs``)."""


def data_root(root: RootLike = None) -> DataRoot:
    """Resolve ``root`` like the evaluator does. Raises :class:`tpugraphs_eval.DataError` if unusable."""
    return root if isinstance(root, DataRoot) else resolve_data_root(root)


def collection(name: str | Collection) -> Collection:
    """The collection named ``name`` (``tile:xla``, ``layout:xla:default``, …).

    Raises:
        KitError: ``UNKNOWN_COLLECTION``.
    """
    if isinstance(name, Collection):
        return name
    if name not in BY_NAME:
        raise KitError("UNKNOWN_COLLECTION", f"no collection {name!r}; the collections are "
                                             f"{', '.join(c.name for c in COLLECTIONS)}")
    return BY_NAME[name]


def check_split(split: str) -> str:
    """``split`` itself if it is train, valid or test. Raises :class:`KitError` ``UNKNOWN_SPLIT`` otherwise."""
    if split not in SPLITS:
        raise KitError("UNKNOWN_SPLIT", f"split must be one of {', '.join(SPLITS)}, not {split!r}")
    return split


def list_graphs(root: RootLike, collection_name: str | Collection, split: str) -> list[str]:
    """Graph names (file names without ``.npz``) of one collection and split, sorted; [] if the folder is absent.

    Raises:
        KitError: unknown collection or split.
        DataError: the folder exists but is empty or unreadable.
    """
    files = data_root(root).graph_files(collection(collection_name), check_split(split))
    return [p.stem for p in files or []]


def present_collections(root: RootLike, split: str) -> list[str]:
    """Names of the collections that have a folder for ``split`` under the data root."""
    root = data_root(root)
    check_split(split)
    return [c.name for c in COLLECTIONS if (root.path / c.split_dir(split)).is_dir()]


class Graph:
    """One graph file, read lazily: each key is read from disk on first access, then kept.

    Attributes:
        root: the data root.
        collection: its collection.
        split: ``train``, ``valid`` or ``test``.
        name: the graph name (file name without ``.npz``).
    """

    def __init__(self, root: DataRoot, coll: Collection, split: str, name: str) -> None:
        self.root, self.collection, self.split, self.name = root, coll, split, name
        self._arrays: dict[str, np.ndarray] = {}

    def __repr__(self) -> str:
        return f"Graph({self.id!r}, split={self.split!r}, loaded={sorted(self._arrays)})"

    @property
    def id(self) -> str:
        """The submission ID, ``<collection>:<name>``."""
        return submission_id(self.collection, self.name)

    @property
    def kind(self) -> str:
        """``tile`` or ``layout``."""
        return self.collection.kind

    @property
    def path(self) -> Path:
        """The ``.npz`` file."""
        return self.root.path / self.collection.split_dir(self.split) / f"{self.name}.npz"

    @property
    def loaded(self) -> list[str]:
        """Keys read so far."""
        return sorted(self._arrays)

    def keys(self) -> list[str]:
        """The keys stored in the file (reads the zip directory only)."""
        return self._read(())

    def __getitem__(self, key: str) -> np.ndarray:
        """The array stored under ``key``, read on first access (only that zip member).

        Raises:
            KitError: ``MISSING_KEY`` (the file has no such key), ``UNREADABLE_GRAPH``.
        """
        return self.load(key)[key]

    def load(self, *keys: str) -> dict[str, np.ndarray]:
        """Read ``keys`` (those not read yet) in one opening of the file; returns {key: array}."""
        todo = [k for k in keys if k not in self._arrays]
        if todo:
            self._read(todo)
        return {k: self._arrays[k] for k in keys}

    def _read(self, todo: Sequence[str]) -> list[str]:
        """Read the keys ``todo`` into the graph; the file's keys."""
        try:
            with npz.opened(self.path) as (archive, members):
                if missing := [k for k in todo if k not in members]:
                    raise KitError("MISSING_KEY", f"{self.path} has no {', '.join(missing)} "
                                                  f"(keys: {', '.join(members)})")
                for key in todo:
                    npz.check_member(members[key], key)
                    self._arrays[key] = npz.read_array(archive, members[key], key)
                return list(members)
        except npz.Unusable as err:
            raise _unreadable(self.path, err) from None

    def forget(self, *keys: str) -> None:
        """Drop arrays read earlier (all when no key is given), to free memory."""
        for key in keys or list(self._arrays):
            self._arrays.pop(key, None)

    @property
    def n_configs(self) -> int:
        """c, the number of configurations (reads ``config_runtime`` only)."""
        return int(self["config_runtime"].shape[0])

    def runtimes(self, tile_runtime: str = "normalized") -> np.ndarray:
        """(c,) runtimes in ns as the evaluator scores them (docs/metrics.md).

        Tile: ``config_runtime / config_runtime_normalizers`` (float64) when ``tile_runtime`` is
        ``normalized`` (default), else ``config_runtime``; layout: ``config_runtime`` (int64). The public
        test files hold zeros (no ground truth).
        """
        if self.kind == "tile" and tile_runtime == "normalized":
            arrays = self.load("config_runtime", "config_runtime_normalizers")
            return arrays["config_runtime"].astype(np.float64) / arrays["config_runtime_normalizers"]
        return self["config_runtime"]

    def iter_rows(self, key: str, rows: int = 1024) -> Iterator[tuple[int, np.ndarray]]:
        """Yield ``(start, block)`` with ``block = array[start:start + rows]``, reading the member piece by piece.

        For a layout graph's ``node_config_feat`` (c, nc, 18) this needs memory for ``rows`` configurations,
        not c. Arrays stored in Fortran order are read whole, then sliced. Nothing is cached.

        Raises:
            KitError: ``MISSING_KEY``, ``UNREADABLE_GRAPH``.
        """
        if key in self._arrays:
            array = self._arrays[key]
            for start in range(0, max(len(array), 1), rows):
                yield start, array[start:start + rows]
            return
        try:
            yield from npz.iter_member_chunks(self.path, key, rows)
        except npz.Unusable as err:
            raise _unreadable(self.path, err) from None


def _unreadable(path: Path, err: npz.Unusable) -> KitError:
    """The kit's error for a refusal of the ``.npz`` reader (``GRAPH_NOT_FOUND``, ``MISSING_KEY``,
    ``UNREADABLE_GRAPH``, with the reader's code in the message)."""
    code, reason = err.args
    if reason == "does not exist":
        return KitError("GRAPH_NOT_FOUND", f"no graph file {path}")
    if code == "NPZ_KEY_MISSING":
        return KitError("MISSING_KEY", f"{path} has {reason}")
    return KitError("UNREADABLE_GRAPH", f"graph file {path} {reason}" if code == "INPUT_NOT_A_FILE" else
                    f"graph file {path}: [{code}] {reason}")


def load_graph(root: RootLike, collection_name: str | Collection, split: str, name: str,
               keys: Sequence[str] = ()) -> Graph:
    """One graph; ``keys`` are read now, every other key on first access (``graph["node_feat"]``).

    Raises:
        KitError: ``UNKNOWN_COLLECTION``, ``UNKNOWN_SPLIT``, ``GRAPH_NOT_FOUND``, ``MISSING_KEY``,
            ``UNREADABLE_GRAPH``.
    """
    graph = Graph(data_root(root), collection(collection_name), check_split(split), name)
    if not graph.path.is_file():
        raise KitError("GRAPH_NOT_FOUND", f"no graph {name!r} in {graph.collection.name} {split} "
                                          f"({graph.path} is not a file)")
    graph.load(*keys)  # nothing without keys
    return graph


def iter_graphs(root: RootLike, collection_name: str | Collection, split: str, keys: Sequence[str] = (), *,
                progress: bool | None = None) -> Iterator[Graph]:
    """Every graph of one collection and split, in name order, with ``keys`` read; a progress bar on stderr.

    Args:
        progress: True or False; None (default) draws the bar when stderr is a terminal.
    """
    root, coll = data_root(root), collection(collection_name)
    names = list_graphs(root, coll, split)
    for name in track(names, len(names), f"{coll.name} {split}", progress, min_items=1):
        yield load_graph(root, coll, split, name, keys)


def iter_split(root: RootLike, split: str, keys: Sequence[str] = (), *, collections: Sequence[str] | None = None,
               progress: bool | None = None) -> Iterator[Graph]:
    """Every graph of ``split`` (collection after collection, in the official order), with ``keys`` read, under one
    progress bar on stderr.

    Args:
        collections: limit to these collections (default: all those present for ``split``).
        progress: True or False; None (default) draws the bar when stderr is a terminal.
    """
    root = data_root(root)
    names = list(collections) if collections is not None else present_collections(root, split)
    jobs = [(collection(name), graph) for name in names for graph in list_graphs(root, name, split)]
    for coll, name in track(jobs, len(jobs), f"{split} graphs", progress, min_items=1):
        yield load_graph(root, coll, split, name, keys)
