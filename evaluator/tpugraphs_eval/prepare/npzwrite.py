"""Writing one public test file from a labelled graph, member by member, never holding a whole member.

The output is a zip archive as ``np.savez_compressed`` writes one (deflate, one ``<key>.npy`` member per array, in
the source's order), with fixed timestamps (1980-01-01) and permissions: the same input and sample give the same
bytes. ``config_runtime`` becomes zeros and tile's ``config_runtime_normalizers`` ones (the source dtype), one per
kept config; layout's ``node_config_feat`` ((c, nc, 18)) keeps the kept configs' rows, read one row at a time; every
other member (tile's ``config_feat`` too: a tile graph keeps every config) is copied unchanged. Peak memory is one
row of ``node_config_feat`` plus a 1 MiB copy buffer, whatever the member's size.
"""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import numpy as np

from ..atomicfile import ZIP_DATE
from ..errors import DataError
from ..truth.npz import CHUNK, READ_ERRORS, Unusable, check_member, coded, opened, read_header

ZEROED = "config_runtime"
ONES = "config_runtime_normalizers"
ROW_SAMPLED = ("node_config_feat", "config_feat")
"""Members with one row per config: sampled like ``config_runtime``."""


def write_public_test_file(source: Path, target: Path, keep: np.ndarray | None) -> None:
    """Write ``target``: the public test file of the labelled graph ``source`` (see the module docstring).

    Args:
        source: a labelled ``.npz`` (``config_runtime`` (c,), ...).
        target: the ``.npz`` to write (a new file).
        keep: sorted distinct config indices to keep, (c',) int; None keeps all c.

    Raises:
        DataError: ``NPZ_UNREADABLE`` / ``NPZ_CORRUPT`` / ``NPZ_KEY_MISSING`` (the path named): not a zip of
            ``.npy`` members, a member in Fortran order that must be sampled, row members whose first
            dimension is not the config count, no ``config_runtime``.
    """
    try:
        with opened(source) as (archive, members), zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as written:
            if ZEROED not in members:
                raise Unusable("NPZ_KEY_MISSING", f"no config_runtime (keys: {', '.join(members)})")
            for key, info in members.items():
                check_member(info, key)
            with archive.open(members[ZEROED]) as member:
                shape, _, _ = read_header(member, ZEROED)
            configs = int(shape[0]) if len(shape) == 1 else -1
            if configs < 1:
                raise Unusable("NPZ_ARRAY_INVALID", f"config_runtime has shape {shape}, not (c,)")
            for key, info in members.items():
                _write_member(archive, written, info, key, configs, keep)
        return
    except READ_ERRORS as err:
        if isinstance(err, OSError) and err.filename is not None and Path(err.filename) == target:
            raise
        refused = coded(err)
    except Unusable as err:
        refused = err
    raise DataError(f"{source}: {refused.args[1]}", code=refused.args[0])


def _write_member(archive: zipfile.ZipFile, written: zipfile.ZipFile, info: zipfile.ZipInfo, key: str,
                  configs: int, keep: np.ndarray | None) -> None:
    out_info = zipfile.ZipInfo(info.filename, date_time=ZIP_DATE)
    out_info.compress_type, out_info.external_attr = zipfile.ZIP_DEFLATED, 0o644 << 16
    sampled = key in ROW_SAMPLED and keep is not None
    with archive.open(info) as member, written.open(out_info, "w", force_zip64=info.file_size >= zipfile.ZIP64_LIMIT) as out:
        if key not in (ZEROED, ONES) and not sampled:  # unchanged: its bytes, header included
            shutil.copyfileobj(member, out, CHUNK)  # zipfile: EOFError or a bad CRC-32 if it ends early
            return
        shape, fortran, dtype = read_header(member, key)
        if dtype.hasobject:
            raise Unusable("NPZ_UNREADABLE", f"{key} holds Python objects (a pickle): not read")
        if key in (ZEROED, ONES):
            n = configs if keep is None else keep.size
            np.lib.format.write_array(out, np.full(n, 0 if key == ZEROED else 1, dtype=dtype))
            return
        if fortran or not shape or shape[0] != configs:
            raise Unusable("NPZ_ARRAY_INVALID", f"{key} has shape {shape}{' in Fortran order' if fortran else ''}: "
                           f"its rows cannot be sampled with the {configs} configs")
        row_bytes = int(np.prod(shape[1:], dtype=np.int64)) * dtype.itemsize
        np.lib.format.write_array_header_1_0(out, {"descr": np.lib.format.dtype_to_descr(dtype),
                                                   "fortran_order": False, "shape": (int(keep.size), *shape[1:])})
        kept = set(keep.tolist())
        for i in range(max(kept) + 1):  # row by row, to the last kept one
            row = member.read(row_bytes)
            if len(row) != row_bytes:
                raise Unusable("NPZ_CORRUPT", "a member ends early")
            if i in kept:
                out.write(row)
        while member.read(CHUNK):  # to the end of the member, where its CRC-32 is checked
            pass
