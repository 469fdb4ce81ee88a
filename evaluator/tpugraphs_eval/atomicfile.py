"""Writing a file so that readers see the old file or the new one, never half of one."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path


def write_atomically(path: Path, write: Callable[[str], None]) -> None:
    """Call ``write(tmp)`` to fill a temporary file next to ``path``, then move it over ``path``.

    On any error the temporary file is removed and ``path`` is left as it was.

    Raises:
        OSError: from the file system (the caller turns it into a usage or data error).
    """
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
