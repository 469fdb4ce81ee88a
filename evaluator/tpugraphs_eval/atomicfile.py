"""Writing a file so that readers see the old file or the new one, never half of one."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_atomically(path: Path, write: Callable[[str], None]) -> None:
    """Call ``write(tmp)`` to fill a temporary file next to ``path``, then move it over ``path``.

    The new file gets the usual permissions (0o666 less the umask, not the temporary file's 0o600) and
    is flushed to disk before the move; on any error the temporary file is removed and ``path`` is left
    as it was.

    Raises:
        OSError: from the file system (callers turn it into their own usage or data error).
    """
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        write(tmp)
        with open(tmp, "rb") as written:
            os.fsync(written.fileno())
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
