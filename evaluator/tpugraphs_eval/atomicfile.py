"""Writing a file so that readers see the old file or the new one, never half of one."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from pathlib import Path

from .safeopen import file_type_in_words


def umask() -> int:
    """The process's umask (read without changing it)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def special_kind(path: str | os.PathLike[str]) -> str | None:
    """What ``path`` is when it exists and is not a regular file (links followed), in the words of
    :func:`tpugraphs_eval.safeopen.file_type_in_words` (``"a folder"``, ``"a character device"``, ...); None for
    a regular file, a missing path (or a dangling link) and a path that cannot be examined."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    return file_type_in_words(mode)


def refuse_special(path: str | os.PathLike[str]) -> None:
    """Raise unless ``path`` is missing or a regular file: an output that must be a complete file never
    replaces (or writes into) a device, a FIFO, a socket or a folder.

    Raises:
        OSError: ``EEXIST`` with the strerror "exists and is <kind>, not a regular file" and the path as
            ``filename`` (callers turn it into their coded error, as every other OSError of a write).
    """
    kind = special_kind(path)
    if kind is not None:
        raise OSError(errno.EEXIST, f"it exists and is {kind}, not a regular file",
                      os.fspath(path))


def write_atomically(path: Path, write: Callable[[str], None]) -> None:
    """Call ``write(tmp)`` to fill a temporary file next to ``path``, then move it over ``path``.

    The new file gets the usual permissions (0o666 less the umask, not the temporary file's 0o600) and
    is flushed to disk before the move; on any error the temporary file is removed and ``path`` is left
    as it was.

    An existing ``path`` that is not a regular file (a device such as /dev/full, a FIFO, a socket, a
    folder; links followed) is refused before anything is written: it is never replaced (see
    :func:`refuse_special`).

    Raises:
        OSError: from the file system, or from :func:`refuse_special` (callers turn it into their own usage
            or data error).
    """
    import tempfile

    path = Path(path)
    refuse_special(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        write(tmp)
        with open(tmp, "rb") as written:
            os.fsync(written.fileno())
        os.chmod(tmp, 0o666 & ~umask())
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
