"""Reading ground truth from a data root's ``.npz`` files (the official layout, SPEC §1).

Only ``config_runtime`` (and, for tile, ``config_runtime_normalizers``) is read from each ``.npz``: one
zip member per key, so a layout file's multi-GB ``node_config_feat`` is never touched. A member is
checked before it is decompressed, so that a hostile or broken file costs neither memory nor time: not
encrypted, stored or deflate (the two methods numpy writes), a declared uncompressed size of at most
:data:`MAX_MEMBER_BYTES`, and a ``.npy`` header (format 1.0 or 2.0) declaring a 1-D integer or float
array no larger than the member. Its bytes are then read and CRC-checked; nothing is unpickled.
"""

from __future__ import annotations

import os
import zipfile
import zlib
from pathlib import Path
from typing import BinaryIO

import numpy as np

from ..dataset import MAX_CONFIGS_PER_GRAPH, Collection
from ..progress import track
from ..safeopen import InputRefused, open_regular_file
from .dataroot import DataRoot, check_split, present_collections
from .groundtruth import (
    Fault,
    GraphRuntimes,
    GraphsRead,
    GroundTruth,
    SplitCatalog,
    TileRuntime,
    build_ground_truth,
    catalog_of,
    raise_faults,
)

MAX_NPZ_BYTES = 16 << 30
"""Largest ``.npz`` file opened: 16 GiB (the largest real layout graph with its features is well under 1 GB);
only its ground-truth members are read."""
MAX_MEMBER_BYTES = 8 * MAX_CONFIGS_PER_GRAPH + 4096
"""Largest declared uncompressed size of a ground-truth member: the int64 runtimes of
:data:`~tpugraphs_eval.dataset.MAX_CONFIGS_PER_GRAPH` configurations (8 MiB) and a ``.npy`` header. A larger
member is refused unread (``NPZ_MEMBER_TOO_LARGE``: a zip bomb), and so is one declaring more configurations
(narrower dtypes), so that every graph read can be ranked in full within the TopConfigs field limit."""
_METHODS = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflate"}
_HEADER_READERS = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}


class _Unusable(Exception):
    """A ground-truth member that cannot be used: ``(code, message without the path)``."""


def _read_member(archive: zipfile.ZipFile, key: str) -> np.ndarray:
    """The 1-D array stored under ``key``, checked before decompressing (see the module docstring).

    Raises:
        _Unusable: with a code of :data:`errors.ERROR_CODES` and the reason.
    """
    try:
        info = archive.getinfo(f"{key}.npy")
    except KeyError:  # a member without the .npy suffix: not an array numpy wrote (refused below)
        info = archive.getinfo(key)
    if info.flag_bits & 0x1:
        raise _Unusable("NPZ_ENCRYPTED", f"{key} is encrypted (zip flag bit 0)")
    if info.compress_type not in _METHODS:
        raise _Unusable("NPZ_COMPRESSION_UNSUPPORTED", f"{key} uses zip compression method {info.compress_type}, "
                        "not stored (0) or deflate (8)")
    if info.file_size > MAX_MEMBER_BYTES:
        raise _Unusable("NPZ_MEMBER_TOO_LARGE", f"{key} declares {info.file_size:,} bytes uncompressed, more than "
                        f"the limit of {MAX_MEMBER_BYTES:,}")
    with archive.open(info) as member:
        try:
            version = np.lib.format.read_magic(member)
            shape, _, dtype = _HEADER_READERS[version](member)
        except (ValueError, KeyError):
            raise _Unusable("NPZ_UNREADABLE", f"{key} is not a numpy array (.npy format 1.0 or 2.0) member") from None
        if dtype.hasobject or dtype.kind not in "iuf" or len(shape) != 1 or shape[0] == 0:
            raise _Unusable("NPZ_ARRAY_INVALID", f"{key} must be a non-empty 1-D numeric array, found {dtype} {shape}")
        need = shape[0] * dtype.itemsize
        if member.tell() + need > info.file_size:
            raise _Unusable("NPZ_MEMBER_TOO_LARGE", f"{key}'s .npy header declares shape {shape} ({need:,} bytes), "
                            f"more than the {info.file_size:,} bytes the member holds")
        if shape[0] > MAX_CONFIGS_PER_GRAPH:
            raise _Unusable("NPZ_MEMBER_TOO_LARGE", f"{key} holds {shape[0]:,} configurations, more than the "
                            f"scorable maximum of {MAX_CONFIGS_PER_GRAPH:,} (a full ranking must fit a TopConfigs "
                            "field)")
        data = member.read(need)
        member.read()  # to the end of the member, where its CRC-32 is checked
    if len(data) != need:
        raise _Unusable("NPZ_CORRUPT", f"{key} ends after {len(data):,} of its {need:,} data bytes")
    return np.frombuffer(data, dtype=dtype)


def _read_graph(path: Path, collection: Collection, with_normalizers: bool,
                faults: list[Fault]) -> GraphRuntimes | None:
    """Read the ground-truth keys of one ``.npz``; append a coded fault and return None if unusable."""
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
        if not zipfile.is_zipfile(handle):
            faults.append(("NPZ_UNREADABLE", f"{path}: not a readable .npz file (not a zip archive: a corrupt or "
                           "partial download?)"))
            return None
        return _read_open_graph(path, handle, keys, with_normalizers, faults)


def _read_open_graph(path: Path, handle: BinaryIO, keys: list[str], with_normalizers: bool,
                     faults: list[Fault]) -> GraphRuntimes | None:
    """:func:`_read_graph` once ``path`` is open as ``handle`` and known to be a zip archive."""
    try:
        with zipfile.ZipFile(handle) as archive:
            names = [n.removesuffix(".npy") for n in archive.namelist()]
            missing = [k for k in keys if k not in names]
            if missing:
                faults.append(("NPZ_KEY_MISSING", f"{path}: no {', '.join(missing)} (keys: {', '.join(names)})"))
                return None
            arrays = [_read_member(archive, k) for k in keys]
    except _Unusable as err:
        code, reason = err.args
        faults.append((code, f"{path}: {reason}"))
        return None
    except (zlib.error, zipfile.BadZipFile, EOFError) as err:
        faults.append(("NPZ_CORRUPT", f"{path}: a ground-truth member does not decompress ({type(err).__name__}: "
                       f"{err})"))
        return None
    except (OSError, ValueError, NotImplementedError, RuntimeError) as err:
        faults.append(("NPZ_UNREADABLE", f"{path}: not a readable .npz file ({type(err).__name__}: {err})"))
        return None
    runtime = arrays[0]
    normalizer = arrays[1] if with_normalizers else None
    if normalizer is not None and normalizer.shape != runtime.shape:
        faults.append(("NPZ_ARRAY_INVALID", f"{path}: config_runtime_normalizers has shape {normalizer.shape}, "
                       f"config_runtime {runtime.shape}"))
        return None
    return GraphRuntimes(runtime, normalizer)


def read_split(root: DataRoot, split: str, with_runtimes: bool, progress: bool) -> GraphsRead:
    """Read every graph of ``split`` (with a progress bar when asked); one DataError lists every bad file."""
    present = present_collections(root, split)
    total = sum(len(files) for files in present.values())
    jobs = [(c, f) for c, files in present.items() for f in files]
    faults: list[Fault] = []
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
