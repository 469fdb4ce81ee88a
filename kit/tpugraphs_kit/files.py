"""Atomic file writing: a file is either fully written or not there at all (never half-written)."""

from __future__ import annotations

import os
from pathlib import Path

from tpugraphs_eval.atomicfile import write_atomically

from .errors import KitError


def write_atomic(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same folder, then rename it into place.

    The rename is atomic on POSIX file systems: readers see the old file or the new one, and an error
    (disk full, interrupt) leaves no partial file behind. Missing parent folders are created.

    Raises:
        KitError: ``CANNOT_WRITE`` (permissions, disk full, the path is a folder).
    """
    path = Path(path).expanduser()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_dir():
            raise IsADirectoryError(21, "is a folder")
        write_atomically(path, lambda tmp: Path(tmp).write_bytes(data))
    except OSError as err:
        raise KitError("CANNOT_WRITE", f"cannot write {path}: {err.strerror or err}") from None
    return path
