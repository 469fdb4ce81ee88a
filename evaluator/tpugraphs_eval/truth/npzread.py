"""Reading ground truth from a data root's ``.npz`` files (the official layout, docs/data.md) through :mod:`.npz`.

Only ``config_runtime`` (and, for tile, ``config_runtime_normalizers``) is read from each ``.npz``, never a layout
file's multi-GB ``node_config_feat``. Every file's declared sizes are checked and summed before any member is
inflated (:data:`MAX_MEMBER_BYTES`, :data:`MAX_SPLIT_BYTES`; docs/options.md, "Size limits of the inputs").
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path
from typing import BinaryIO

from ..dataset import MAX_CONFIGS_PER_GRAPH
from ..progress import track
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
from .npz import MAX_NPZ_BYTES, Unusable, check_member, open_npz, open_source, read_array

__all__ = ["MAX_NPZ_BYTES", "load_ground_truth", "read_split", "scan_catalog"]

MAX_MEMBER_BYTES = 8 * MAX_CONFIGS_PER_GRAPH + 4096
"""Largest declared uncompressed size of a ground-truth member: the int64 runtimes of
:data:`~tpugraphs_eval.dataset.MAX_CONFIGS_PER_GRAPH` configurations (8 MiB) and a ``.npy`` header; a larger member,
or one declaring more configurations (narrower dtypes), is refused unread (``NPZ_MEMBER_TOO_LARGE``)."""
MAX_SPLIT_BYTES = 1 << 30
"""Largest total of the declared uncompressed sizes of the ground-truth members one read of a split decompresses:
1 GiB, beyond which nothing is read (``NPZ_SPLIT_TOO_LARGE``; **Decision** in docs/options.md, "Size limits")."""
MAX_HELD_BYTES = 16 << 20
"""Largest total size of the small ``.npz`` files whose archives (in memory) pass 1 keeps for pass 2 (16 MiB): such
a file is opened and parsed once; the others are opened again."""


def _checked(path: Path, keys: list[str]) -> tuple[BinaryIO, zipfile.ZipFile, dict[str, zipfile.ZipInfo]]:
    """``path``'s source (:func:`.npz.open_source`), archive and members by key, its members ``keys`` checked
    from the central directory (:func:`.npz.check_member`): nothing inflated. Raises :class:`.npz.Unusable`."""
    source = open_source(path)  # a FIFO or device swapped in after listing: refused
    try:
        archive, members = open_npz(source)
        if missing := [k for k in keys if k not in members]:
            raise Unusable("NPZ_KEY_MISSING", f"no {', '.join(missing)} (keys: {', '.join(members)})")
        for key in keys:
            check_member(members[key], key, MAX_MEMBER_BYTES)
    except BaseException:
        source.close()
        raise
    return source, archive, members


def _runtimes(archive: zipfile.ZipFile, members: dict[str, zipfile.ZipInfo], keys: list[str]) -> GraphRuntimes:
    """The arrays of the checked members ``keys`` (:func:`.npz.read_array`), checked together. Raises
    :class:`.npz.Unusable`."""
    runtime, *normalizer = (read_array(archive, members[key], key, vector=True) for key in keys)
    if runtime.shape[0] > MAX_CONFIGS_PER_GRAPH:
        raise Unusable("NPZ_MEMBER_TOO_LARGE", f"config_runtime holds {runtime.shape[0]:,} configurations, more than "
                       f"the scorable maximum of {MAX_CONFIGS_PER_GRAPH:,} (a full ranking must fit a TopConfigs field)")
    if normalizer and normalizer[0].shape != runtime.shape:
        raise Unusable("NPZ_ARRAY_INVALID", f"config_runtime_normalizers has shape {normalizer[0].shape}, "
                       f"config_runtime {runtime.shape}")
    return GraphRuntimes(runtime, normalizer[0] if normalizer else None)


def _graph(path: Path, keys: list[str]) -> GraphRuntimes:
    """The arrays of ``path``'s members ``keys`` (:func:`_checked`, :func:`_runtimes`): a file pass 1 did not keep.
    Raises :class:`.npz.Unusable`."""
    source, archive, members = _checked(path, keys)
    with source, archive:
        return _runtimes(archive, members, keys)


def read_split(root: DataRoot, split: str, with_runtimes: bool, progress: bool) -> GraphsRead:
    """Read every graph of ``split``; one DataError lists every bad file, in file order. Pass 1 checks every file's
    directory and sums the declared sizes, keeping small files' archives (:data:`MAX_HELD_BYTES`); pass 2, when the
    total is within :data:`MAX_SPLIT_BYTES`, reads the files pass 1 did not refuse."""
    present = present_collections(root, split)
    jobs = [(c, f, ["config_runtime"] + (["config_runtime_normalizers"] if with_runtimes and c.kind == "tile" else []))
            for c, files in present.items() for f in files]
    what, declared = f"cannot read the {split} split of {root.label}", 0
    faults: dict[int, Fault] = {}  # a file's position in jobs → its fault
    held: dict[int, tuple[zipfile.ZipFile, dict[str, zipfile.ZipInfo]]] = {}  # and → its archive, kept for pass 2
    held_bytes = 0
    for i, (_, path, keys) in enumerate(track(jobs, len(jobs), f"checking {split} graphs", progress)):
        try:
            source, archive, members = _checked(path, keys)
            declared += sum(members[key].file_size for key in keys)
            if isinstance(source, io.BytesIO) and held_bytes + source.seek(0, 2) <= MAX_HELD_BYTES:
                held[i], held_bytes = (archive, members), held_bytes + source.tell()
            else:
                source.close()
        except Unusable as err:
            faults[i] = (err.args[0], f"{path}: {err.args[1]}")
        if declared > MAX_SPLIT_BYTES:  # first, then the faults found so far; nothing is inflated
            raise_faults(what, [("NPZ_SPLIT_TOO_LARGE", f"its ground-truth members declare more than "
                                 f"{MAX_SPLIT_BYTES:,} bytes uncompressed in all, the limit for one split "
                                 "(MAX_SPLIT_BYTES, above what the real train split can hold); stopped at "
                                 f"{path}: nothing was decompressed"), *faults.values()])
    read: GraphsRead = {c: [] for c in present}
    for i, (collection, path, keys) in enumerate(track(jobs, len(jobs), f"reading {split} graphs", progress)):
        try:
            if i not in faults:
                read[collection].append((path.stem, _runtimes(*held.pop(i), keys) if i in held else _graph(path, keys)))
        except Unusable as err:
            faults[i] = (err.args[0], f"{path}: {err.args[1]}")
    raise_faults(what, [faults[i] for i in sorted(faults)])
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
