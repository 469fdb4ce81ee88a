"""Writing a file (or replacing a symbolic link) so that readers see the old one or the new one, never half of
one: the one helper every output of the package uses (reports, solution files, bundles, the leaderboard's
generations and links)."""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Callable
from pathlib import Path

from .safeopen import file_type_in_words

ZIP_DATE = (1980, 1, 1, 0, 0, 0)
"""The timestamp of every zip member the package writes (the earliest a zip can hold): the bytes of a written
``.npz``, bundle or wheel depend on their content only, not on the clock."""


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
        raise OSError(errno.EEXIST, f"it exists and is {kind}, not a regular file", os.fspath(path))


def write_atomically(path: Path, write: Callable[[str], None], *, mode: int | None = None) -> None:
    """Call ``write(tmp)`` to fill a temporary file next to ``path``, flush it to disk, then move it over ``path``.

    The new file gets the usual permissions (0o666 less the umask, not the temporary file's 0o600; or
    ``mode``); on any error the temporary file (named ``.<name>.*.tmp``) is removed and ``path`` is left as
    it was. An existing ``path`` that is not a regular file is refused before anything is written
    (:func:`refuse_special`).

    Raises:
        OSError: from the file system, or from :func:`refuse_special` (callers turn it into their own usage
            or data error).
    """
    import tempfile

    refuse_special(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        write(tmp)
        with open(tmp, "rb") as written:
            os.fsync(written.fileno())
        os.chmod(tmp, 0o666 & ~umask() if mode is None else mode)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def symlink_atomically(target: str, at: Path) -> None:
    """Make ``at`` a symbolic link to ``target`` atomically: a new link is made next to it and renamed over
    whatever was there (readers see the old entry or the new link, never no entry). Nothing is done when
    ``at`` already is that link.

    Raises:
        OSError: from the file system (``at`` unchanged).
    """
    if at.is_symlink() and os.readlink(at) == target:
        return
    temporary = at.with_name(f".{at.name}.{os.getpid()}.new")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(temporary)
    os.symlink(target, temporary)
    try:
        os.replace(temporary, at)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)


def fsync_folder(folder: Path) -> None:
    """Flush ``folder``'s entries (names made, renamed or removed in it) to disk.

    Raises:
        OSError: from the file system.
    """
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
