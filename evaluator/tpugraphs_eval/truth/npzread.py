"""Reading ground truth from a data root's ``.npz`` files (the official layout, docs/data.md).

Only ``config_runtime`` (and, for tile, ``config_runtime_normalizers``) is read from each ``.npz``: one
zip member per key, so a layout file's multi-GB ``node_config_feat`` is never touched. Each file's zip
directory is parsed once (:mod:`npzmembers`, not :mod:`zipfile`), and a member is checked before it is
decompressed, so that a hostile or broken file costs neither memory nor time: its name not stored twice,
not encrypted, stored or deflate (the two methods numpy writes), a declared uncompressed size of at most
:data:`MAX_MEMBER_BYTES`, and a ``.npy`` header (format 1.0 or 2.0, parsed by a strict grammar, never
evaluated) declaring a 1-D integer or float array no larger than the member. Its bytes are then read and
CRC-checked; nothing is unpickled. A split's members may declare at most :data:`MAX_SPLIT_BYTES` in all.
"""

from __future__ import annotations

import os
import zlib
from pathlib import Path
from typing import BinaryIO

import numpy as np

from ..dataset import MAX_CONFIGS_PER_GRAPH, Collection
from ..progress import track
from ..safeopen import InputRefused, open_regular_file
from .dataroot import DataRoot, check_split, present_collections
from .faults import Fault, raise_faults
from .groundtruth import (
    GraphRuntimes,
    GraphsRead,
    GroundTruth,
    SplitCatalog,
    TileRuntime,
    build_ground_truth,
    catalog_of,
)
from .npzmembers import (
    MAX_NPY_HEADER_BYTES,
    METHODS,
    Directory,
    Member,
    NotAZip,
    Unusable,
    npy_header,
    open_member,
    read_directory,
)

MAX_NPZ_BYTES = 16 << 30
"""Largest ``.npz`` file opened: 16 GiB (the largest real layout graph with its features is well under 1 GB);
only its ground-truth members are read."""
MAX_MEMBER_BYTES = 8 * MAX_CONFIGS_PER_GRAPH + 4096
"""Largest declared uncompressed size of a ground-truth member: the int64 runtimes of
:data:`~tpugraphs_eval.dataset.MAX_CONFIGS_PER_GRAPH` configurations (8 MiB) and a ``.npy`` header. A larger
member is refused unread (``NPZ_MEMBER_TOO_LARGE``: a zip bomb), and so is one declaring more configurations
(narrower dtypes), so that every graph read can be ranked in full within the TopConfigs field limit."""
MAX_SPLIT_BYTES = 1 << 30
"""Largest total of the declared uncompressed sizes of the ground-truth members one read of a split
decompresses (every graph's ``config_runtime``, and for tile its ``config_runtime_normalizers`` when
runtimes are read): 1 GiB. The largest real split, train (5709 tile and 535 layout graphs), holds at most
535 x 800 KB = 428 MB of layout runtimes even if every layout graph were as large as the largest real one
(about 100k configs), which leaves 645 MB for tile, 7,000 configs per tile graph on average. Beyond it the
read stops (``NPZ_SPLIT_TOO_LARGE``): 30 files of 2.8 MB on disk could otherwise unpack to 2 GB."""
_READ_WHOLE = 1 << 20
"""A member of up to 1 MiB (every real one) is decompressed in one call, then its header parsed; a larger one
has its header parsed and its shape checked before the rest is decompressed."""


def _member(directory: Directory, key: str) -> Member:
    """Where ``key``'s member is and its declared size, checked before decompressing (module docstring)."""
    member = directory.members.get(f"{key}.npy") or directory.members.get(key)
    if member.flags & 0x1:
        raise Unusable("NPZ_ENCRYPTED", f"{key} is encrypted (zip flag bit 0)")
    if member.method not in METHODS:
        raise Unusable("NPZ_COMPRESSION_UNSUPPORTED", f"{key} uses zip compression method {member.method}, "
                       "not stored (0) or deflate (8)")
    if member.size > MAX_MEMBER_BYTES:
        raise Unusable("NPZ_MEMBER_TOO_LARGE", f"{key} declares {member.size:,} bytes uncompressed, more than "
                       f"the limit of {MAX_MEMBER_BYTES:,}")
    return member


def _read_member(handle: BinaryIO, member: Member, key: str) -> np.ndarray:
    """The 1-D array stored in ``member`` (already checked by :func:`_member`).

    Raises:
        Unusable: with a code of :data:`errors.ERROR_CODES` and the reason.
        zlib.error: a corrupt deflate stream.
    """
    data = open_member(handle, member, key)
    prefix = data.read(member.size if member.size <= _READ_WHOLE else 12 + MAX_NPY_HEADER_BYTES)
    dtype, shape, at = npy_header(prefix, key)
    if dtype.hasobject or dtype.kind not in "iuf" or len(shape) != 1 or shape[0] == 0:
        raise Unusable("NPZ_ARRAY_INVALID", f"{key} must be a non-empty 1-D numeric array, found {dtype} {shape}")
    need = shape[0] * dtype.itemsize
    if at + need > member.size:
        raise Unusable("NPZ_MEMBER_TOO_LARGE", f"{key}'s .npy header declares shape {shape} ({need:,} bytes), "
                       f"more than the {member.size:,} bytes the member holds")
    if shape[0] > MAX_CONFIGS_PER_GRAPH:
        raise Unusable("NPZ_MEMBER_TOO_LARGE", f"{key} holds {shape[0]:,} configurations, more than the "
                       f"scorable maximum of {MAX_CONFIGS_PER_GRAPH:,} (a full ranking must fit a TopConfigs field)")
    values = memoryview(prefix)[at:at + need]
    if len(values) < need:  # a member over _READ_WHOLE: the rest of its data, read in place
        whole = bytearray(need)
        whole[:len(values)] = values
        values = memoryview(whole)[:len(values) + data.read_into(memoryview(whole)[len(values):])]
    while data.read(_READ_WHOLE):  # to the end of the member, where its CRC-32 is checked
        pass
    if data.allowed:
        raise Unusable("NPZ_CORRUPT", f"{key} ends after {member.size - data.allowed:,} of the {member.size:,} "
                       "bytes it declares")
    if data.crc != member.crc:
        raise Unusable("NPZ_CORRUPT", f"a ground-truth member does not decompress (Bad CRC-32 for file "
                       f"{member.name!r}: its bytes are not the ones stored)")
    if len(values) != need:
        raise Unusable("NPZ_CORRUPT", f"{key} ends after {len(values):,} of its {need:,} data bytes")
    array = np.frombuffer(values, dtype=dtype)
    array.flags.writeable = False  # as read: never changed in place (a bytearray's view would allow it)
    return array


class _Budget:
    """The uncompressed bytes a split's read may still decompress (:data:`MAX_SPLIT_BYTES`)."""

    def __init__(self, total: int) -> None:
        self.total = self.left = total


class _SplitTooLarge(Exception):
    """The members of the file being read would take the split's read beyond its budget."""


def _read_graph(path: Path, collection: Collection, with_normalizers: bool,
                faults: list[Fault], budget: _Budget | None = None) -> GraphRuntimes | None:
    """Read the ground-truth keys of one ``.npz``; append a coded fault and return None if unusable.

    Raises:
        _SplitTooLarge: its members' declared sizes exceed what ``budget`` has left (nothing decompressed).
    """
    keys = ["config_runtime"] + (["config_runtime_normalizers"] if with_normalizers else [])
    if not os.access(path, os.R_OK):
        faults.append(("NPZ_UNREADABLE", f"{path}: cannot be read (permission denied)"))
        return None
    try:
        handle = open_regular_file(path, MAX_NPZ_BYTES)  # a FIFO or device swapped in after listing: refused
    except InputRefused as refused:
        code = "INPUT_NOT_A_FILE" if refused.kind == "not_a_file" else "NPZ_UNREADABLE"
        faults.append((code, f"{path} {refused.reason}"))
        return None
    with handle:
        try:
            return _read_open_graph(path, handle, keys, with_normalizers, budget)
        except NotAZip:
            fault = ("NPZ_UNREADABLE", f"{path}: not a readable .npz file (not a zip archive: a corrupt or "
                     "partial download?)")
        except Unusable as err:
            code, reason = err.args
            fault = (code, f"{path}: {reason}")
        except zlib.error as err:
            fault = ("NPZ_CORRUPT", f"{path}: a ground-truth member does not decompress ({type(err).__name__}: "
                     f"{err})")
        except OSError as err:
            fault = ("NPZ_UNREADABLE", f"{path}: not a readable .npz file ({type(err).__name__}: {err})")
    faults.append(fault)
    return None


def _read_open_graph(path: Path, handle: BinaryIO, keys: list[str], with_normalizers: bool,
                     budget: _Budget | None) -> GraphRuntimes:
    """:func:`_read_graph` once ``path`` is open as ``handle``; raises what it turns into faults."""
    directory = read_directory(handle, handle.seek(0, os.SEEK_END))
    names = [n.removesuffix(".npy") for n in directory.members]
    twice = sorted({n.removesuffix(".npy") for n in directory.duplicates} |
                   {k for k in keys if f"{k}.npy" in directory.members and k in directory.members})
    if twice:
        raise Unusable("NPZ_DUPLICATE_MEMBER", f"{', '.join(twice)} stored more than once (a zip archive "
                       "numpy does not write: which copy is meant is unknown)")
    if missing := [k for k in keys if k not in names]:
        raise Unusable("NPZ_KEY_MISSING", f"no {', '.join(missing)} (keys: {', '.join(names)})")
    members = [_member(directory, k) for k in keys]
    if budget is not None:
        declared = sum(m.size for m in members)
        if declared > budget.left:
            raise _SplitTooLarge
        budget.left -= declared
    arrays = [_read_member(handle, m, k) for m, k in zip(members, keys)]
    runtime = arrays[0]
    normalizer = arrays[1] if with_normalizers else None
    if normalizer is not None and normalizer.shape != runtime.shape:
        raise Unusable("NPZ_ARRAY_INVALID", f"config_runtime_normalizers has shape {normalizer.shape}, "
                       f"config_runtime {runtime.shape}")
    return GraphRuntimes(runtime, normalizer)


def read_split(root: DataRoot, split: str, with_runtimes: bool, progress: bool) -> GraphsRead:
    """Read every graph of ``split`` (with a progress bar when asked); one DataError lists every bad file."""
    present = present_collections(root, split)
    total = sum(len(files) for files in present.values())
    jobs = [(c, f) for c, files in present.items() for f in files]
    faults: list[Fault] = []
    read: GraphsRead = {c: [] for c in present}
    budget = _Budget(MAX_SPLIT_BYTES)
    for collection, path in track(jobs, total, f"reading {split} graphs", progress):
        try:
            arrays = _read_graph(path, collection, with_runtimes and collection.kind == "tile", faults, budget)
        except _SplitTooLarge:  # first, then the faults found so far; no file after this one is read
            faults.insert(0, ("NPZ_SPLIT_TOO_LARGE", f"its ground-truth members declare more than {budget.total:,} "
                              "bytes uncompressed in all, the limit for one split (MAX_SPLIT_BYTES, above what the "
                              f"real train split can hold); stopped at {path}, which was not decompressed"))
            break
        if arrays is not None:
            read[collection].append((path.stem, arrays))
    raise_faults(f"cannot read the {split} split of {root.label}", faults)
    return read


def scan_catalog(root: DataRoot, split: str, *, progress: bool = False) -> SplitCatalog:
    """The graphs of ``split`` and their config counts; runtimes are not checked (they may be all 0).

    Raises:
        DataError: no graph in the split, an empty collection folder, an unreadable, corrupt or hostile
            ``.npz``, a missing ``config_runtime`` (each file listed with its code: ``NPZ_*`` of
            :data:`errors.ERROR_CODES`).
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
