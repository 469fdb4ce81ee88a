"""Atomic file writing: a file is either fully written or not there at all (never half-written)."""

from __future__ import annotations

import os
from pathlib import Path

from tpugraphs_eval.atomicfile import write_atomically

from .errors import KitError


def write_atomic(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same folder, then rename it into place.

    The rename is atomic on POSIX file systems: readers see the old file or the new one, and an error
    (disk full, interrupt) leaves no partial file behind. The folder must exist.

    Raises:
        KitError: ``CANNOT_WRITE`` (permissions, disk full, the path is a folder).
    """
    path = Path(path).expanduser()
    if not path.parent.is_dir():  # a typo in the folder must not create folders
        raise KitError("CANNOT_WRITE", f"cannot write {path}: the folder {path.parent} does not exist")
    try:
        if path.is_dir():
            raise IsADirectoryError(21, "is a folder")
        write_atomically(path, lambda tmp: Path(tmp).write_bytes(data))
    except OSError as err:
        raise KitError("CANNOT_WRITE", f"cannot write {path}: {err.strerror or err}") from None
    return path
