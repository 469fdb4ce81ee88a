"""The prepared-truth cache: a split's ground truth as the scorer uses it, in one file, so that scoring many
submissions against the same split reads its ``.npz`` files once (docs/performance.md, "Prepared-truth cache").

One file per data root, split and kind (``normalized`` or ``raw`` tile runtimes: the whole ground truth;
``catalog``: the config counts ``validate`` needs), in ``$XDG_CACHE_HOME/tpugraphs-eval/prepared/`` (else
``~/.cache/tpugraphs-eval/prepared/``). It holds, per collection, the graph names and the flat arrays of
:class:`.groundtruth.CollectionTruth` (config counts, runtimes, offsets, best runtimes; layout: dense ranks,
distinct counts, tied pairs) and the exact random and oracle references of every graph
(:func:`..scoring.references.graph_references`), plus the ground truth's sha256 (the report's provenance).

A file is used only when its key matches: every source file's path, size, mtime (ns) and inode (one ``stat``
each, the folder listing included), the package's version and source digest (:mod:`..source_digest`, remembered
under its files' stat by :func:`code_digest`), the
format and the kind. Its contents are checked against a sha256 stored in the file before anything is used: a
corrupt, truncated or foreign file is rebuilt, never trusted. Files are written atomically
(:func:`..atomicfile.write_atomically`); a cache folder that cannot be written only costs the speed-up.
``--no-cache`` (or ``TPUGRAPHS_NO_CACHE=1``) reads the ``.npz`` files and neither reads nor writes the cache.

File layout (little-endian): the 24-byte magic ``TPUGRAPHS-EVAL-PREPARED\\0``; the header length H (uint64);
the sha256 (32 bytes) of everything after it; the header, H bytes of UTF-8 JSON (format, key, kind, split,
tile runtime, sha256, and per collection its graph names and each array's dtype, length and offset);
zero padding to a multiple of 8; the arrays, each at its offset (a multiple of 8) from there.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import struct
from pathlib import Path
from typing import Any

import numpy as np

from ._version import __version__
from .dataset import COLLECTIONS
from .source_digest import source_digest
from .truth import npzread
from .truth.dataroot import DataRoot
from .truth.groundtruth import CollectionGraphs, CollectionTruth, GroundTruth, SplitCatalog, TileRuntime

FORMAT = 1
"""Version of the file layout; part of the key."""
MAGIC = b"TPUGRAPHS-EVAL-PREPARED\0"
_PREFIX = len(MAGIC) + 8 + 32
NO_CACHE_ENV = "TPUGRAPHS_NO_CACHE"
"""``TPUGRAPHS_NO_CACHE=1`` turns the cache off, as ``--no-cache`` does."""
_TRUTH_ARRAYS = ("values", "offsets", "best", "ranks", "n_distinct", "tied_pairs")


def cache_folder() -> Path:
    """``$XDG_CACHE_HOME/tpugraphs-eval/prepared``, else ``~/.cache/tpugraphs-eval/prepared`` (the demo data's
    cache folder, :func:`..demo.dataset.demo_data_root`, is its sibling)."""
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "tpugraphs-eval" / "prepared"


def enabled(use_cache: bool = True) -> bool:
    """Whether to use the cache: ``use_cache`` (False with ``--no-cache``) and ``$TPUGRAPHS_NO_CACHE`` not ``1``."""
    return use_cache and os.environ.get(NO_CACHE_ENV) != "1"


def _listing(root: DataRoot, split: str) -> str | None:
    """One line per ``.npz`` of the split (the files the reader opens): path, size, mtime in ns, inode, from one
    ``stat`` each; None when a folder cannot be listed or an entry is not a regular file (the reader then
    reports it)."""
    lines = []
    for collection in COLLECTIONS:
        folder = root.path / collection.split_dir(split)
        try:
            with os.scandir(folder) as entries:
                found = sorted((e for e in entries if e.name.endswith(".npz") and not e.name.startswith(".")),
                               key=lambda e: e.name)
            lines.append(f"{collection.name}\0{len(found)}")
            for entry in found:
                st = entry.stat()
                if not entry.is_file():
                    return None
                lines.append(f"{entry.name}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ino}")
        except FileNotFoundError:
            lines.append(f"{collection.name}\0absent")
        except OSError:
            return None
    return "\n".join(lines)


@functools.cache
def code_digest() -> str:
    """:func:`..source_digest.source_digest`, remembered in the cache folder under the stat of every source file
    (path, size, mtime in ns, inode), so that a warm run does not read and hash the package's ~100 files: any
    change of a source file changes its stat and the digest is computed again."""
    from .source_digest import source_files

    stats = hashlib.sha256(__version__.encode())
    try:
        for relative, st in source_files():
            stats.update(f"{relative}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ino}\n".encode("utf-8", "surrogateescape"))
    except OSError:
        return source_digest()
    memo = cache_folder() / f"code-{stats.hexdigest()[:32]}.digest"
    try:
        text = memo.read_text(encoding="ascii")
        if len(text) == 64 and all(ch in "0123456789abcdef" for ch in text):
            return text
    except (OSError, ValueError):
        pass
    digest = source_digest()
    try:
        memo.parent.mkdir(parents=True, exist_ok=True)
        from .atomicfile import write_atomically

        write_atomically(memo, lambda tmp: Path(tmp).write_text(digest, encoding="ascii"))
    except OSError:
        pass
    return digest


def _key(root: DataRoot, split: str, kind: str, listing: str) -> str:
    digest = hashlib.sha256()
    for part in (str(FORMAT), __version__, code_digest(), os.path.realpath(root.path), split, kind, listing):
        digest.update(part.encode("utf-8", "surrogateescape") + b"\0")
    return digest.hexdigest()


def cache_path(root: DataRoot, split: str, kind: str) -> Path:
    """The cache file of ``root``'s ``split`` for ``kind`` (``normalized``, ``raw`` or ``catalog``)."""
    name = hashlib.sha256(f"{os.path.realpath(root.path)}\0{split}".encode("utf-8", "surrogateescape")).hexdigest()
    return cache_folder() / f"{name[:32]}-{split}-{kind}.prepared"


class _Encoded:
    """A cache file's contents, written without joining them: the header bytes and the arrays (no copy of the
    arrays is made, so writing a large split's file costs no more memory than its ground truth)."""

    def __init__(self, header: dict[str, Any], arrays: list[np.ndarray]) -> None:
        offset, places = 0, []
        self.arrays = [np.ascontiguousarray(array) for array in arrays]
        for array in self.arrays:
            places.append([array.dtype.str, int(array.size), offset])
            offset += -(-array.nbytes // 8) * 8
        text = json.dumps({**header, "arrays": places}, separators=(",", ":")).encode("utf-8")
        self.length = len(text)
        self.head = text + b"\0" * (-len(text) % 8)

    def _parts(self):
        yield self.head
        for array in self.arrays:
            yield memoryview(array.reshape(-1).view(np.uint8))
            yield b"\0" * (-array.nbytes % 8)

    def write(self, tmp: str) -> None:
        """Write the file at ``tmp`` (see the module docstring): the checksum is computed over the parts as they
        are written, then filled in."""
        digest = hashlib.sha256()
        with open(tmp, "wb") as out:
            out.write(MAGIC + struct.pack("<Q", self.length) + bytes(32))
            for part in self._parts():
                digest.update(part)
                out.write(part)
            out.seek(len(MAGIC) + 8)
            out.write(digest.digest())


def _decode(path: Path, key: str) -> tuple[dict[str, Any], list[np.ndarray]] | None:
    """The header and arrays of the file at ``path`` if it is intact (magic, checksum, parsable header) and
    made for ``key``; None otherwise (missing, corrupt, truncated, foreign: then it is rebuilt)."""
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size < _PREFIX:
                return None
            buffer = bytearray(size)  # writable: the arrays are views of it
            if handle.readinto(buffer) != size:
                return None
    except OSError:
        return None
    view = memoryview(buffer)
    if view[:len(MAGIC)] != MAGIC:
        return None
    (length,) = struct.unpack_from("<Q", buffer, len(MAGIC))
    if hashlib.sha256(view[_PREFIX:]).digest() != view[len(MAGIC) + 8:_PREFIX]:
        return None
    start = _PREFIX + length + (-length % 8)
    try:
        header = json.loads(bytes(view[_PREFIX:_PREFIX + length]))
        if header.get("key") != key:
            return None
        arrays = []
        for dtype, count, at in header["arrays"]:
            dtype = np.dtype(dtype)
            if start + at + count * dtype.itemsize > size:
                return None
            arrays.append(np.frombuffer(buffer, dtype=dtype, count=count, offset=start + at))
    except (ValueError, TypeError, KeyError):
        return None
    return header, arrays


def _write(path: Path, data: _Encoded) -> None:
    """Write ``data`` at ``path`` atomically; a cache that cannot be written is skipped (it is only a speed-up)."""
    from .atomicfile import write_atomically

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, data.write)
    except OSError:
        pass


def _catalog_parts(catalog: SplitCatalog) -> tuple[list[dict[str, Any]], list[np.ndarray]]:
    collections, arrays = [], []
    for name, graphs in catalog.collections.items():
        collections.append({"name": name, "names": list(graphs.names), "n_configs": len(arrays)})
        arrays.append(graphs.n_configs.astype(np.int64, copy=False))
    return collections, arrays


def _catalog_from(root: DataRoot, split: str, header: dict[str, Any], arrays: list[np.ndarray]) -> SplitCatalog:
    from .dataset import BY_NAME

    collections = {}
    for part in header["collections"]:
        collections[part["name"]] = CollectionGraphs(BY_NAME[part["name"]], tuple(part["names"]),
                                                     arrays[part["n_configs"]])
    return SplitCatalog(root, split, collections)


def _encode_truth(truth: GroundTruth, key: str) -> _Encoded:
    from .scoring.references import graph_references

    references = graph_references(truth)  # computed once here, kept in truth.cache too
    collections, arrays = _catalog_parts(truth.catalog)
    for part in collections:
        collection_truth = truth.collections[part["name"]]
        for field in _TRUTH_ARRAYS:
            array = getattr(collection_truth, field)
            if array is not None:
                part[field] = len(arrays)
                arrays.append(array)
        for field, array in zip(("random", "oracle"), references[part["name"]]):
            part[field] = len(arrays)
            arrays.append(np.asarray(array, dtype=np.float64))
    header = {"format": FORMAT, "key": key, "kind": truth.tile_runtime, "split": truth.catalog.split,
              "sha256": truth.sha256, "collections": collections}
    return _Encoded(header, arrays)


def _truth_from(root: DataRoot, split: str, tile_runtime: TileRuntime, header: dict[str, Any],
                arrays: list[np.ndarray]) -> GroundTruth:
    from .scoring.references import GraphReferences

    catalog = _catalog_from(root, split, header, arrays)
    truths, references = {}, {}
    for part in header["collections"]:
        graphs = catalog.collections[part["name"]]
        fields = {field: arrays[part[field]] for field in _TRUTH_ARRAYS if field in part}
        truths[part["name"]] = CollectionTruth(graphs, **fields)
        references[part["name"]] = GraphReferences(arrays[part["random"]], arrays[part["oracle"]])
    truth = GroundTruth(catalog, tile_runtime, truths, header["sha256"])
    truth.cache["graph_references"] = references
    return truth


def load_ground_truth(root: DataRoot, split: str, *, tile_runtime: TileRuntime = "normalized",
                      progress: bool = False, use_cache: bool = True) -> GroundTruth:
    """:func:`.npzread.load_ground_truth` through the cache: the same :class:`GroundTruth` (same arrays, same
    sha256, the same references), from the cache file when its key matches, else read and then cached (with
    the catalog file of :func:`scan_catalog`).

    Raises:
        DataError, NoGroundTruthError, UsageError: as :func:`.npzread.load_ground_truth` (a split that cannot be
            read is never cached).
    """
    listing = _listing(root, split) if enabled(use_cache) and tile_runtime in ("normalized", "raw") else None
    if listing is None:
        return npzread.load_ground_truth(root, split, tile_runtime=tile_runtime, progress=progress)
    key = _key(root, split, tile_runtime, listing)
    path = cache_path(root, split, tile_runtime)
    found = _decode(path, key)
    if found is not None:
        return _truth_from(root, split, tile_runtime, *found)
    truth = npzread.load_ground_truth(root, split, tile_runtime=tile_runtime, progress=progress)
    _write(path, _encode_truth(truth, key))
    catalog_key = _key(root, split, "catalog", listing)
    if _decode(cache_path(root, split, "catalog"), catalog_key) is None:
        _write(cache_path(root, split, "catalog"), _encode_catalog(truth.catalog, catalog_key))
    return truth


def _encode_catalog(catalog: SplitCatalog, key: str) -> _Encoded:
    collections, arrays = _catalog_parts(catalog)
    return _Encoded({"format": FORMAT, "key": key, "kind": "catalog", "split": catalog.split,
                    "collections": collections}, arrays)


def scan_catalog(root: DataRoot, split: str, *, progress: bool = False, use_cache: bool = True) -> SplitCatalog:
    """:func:`.npzread.scan_catalog` through the cache (the config counts ``validate`` needs): from the catalog
    file when its key matches, else scanned and then cached.

    Raises:
        DataError, UsageError: as :func:`.npzread.scan_catalog`.
    """
    listing = _listing(root, split) if enabled(use_cache) else None
    if listing is None:
        return npzread.scan_catalog(root, split, progress=progress)
    key = _key(root, split, "catalog", listing)
    path = cache_path(root, split, "catalog")
    found = _decode(path, key)
    if found is not None:
        return _catalog_from(root, split, *found)
    catalog = npzread.scan_catalog(root, split, progress=progress)
    _write(path, _encode_catalog(catalog, key))
    return catalog
