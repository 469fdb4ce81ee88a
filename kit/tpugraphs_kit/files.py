"""Atomic file writing: a file is either fully written or not there at all (never half-written)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .errors import KitError


def write_atomic(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same folder, then rename it into place.

    The rename is atomic on POSIX file systems: readers see the old file or the new one, and an error
    (disk full, interrupt) leaves no partial file behind. Missing parent folders are created.

    Raises:
        KitError: ``CANNOT_WRITE`` (permissions, disk full, the path is a folder).
    """
    path = Path(path).expanduser()
    tmp_name = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_dir():
            raise IsADirectoryError(21, "is a folder")
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp_name, 0o644)
        os.replace(tmp_name, path)
        tmp_name = None
    except OSError as err:
        raise KitError("CANNOT_WRITE", f"cannot write {path}: {err.strerror or err}") from None
    finally:
        if tmp_name is not None and os.path.exists(tmp_name):
            os.unlink(tmp_name)
    return path
