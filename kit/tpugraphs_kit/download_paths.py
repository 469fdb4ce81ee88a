"""The local paths of a download, checked before they are opened: the ``.downloads`` folder, the partial file
(``.part``) and the done-marker. None is ever written through a link, and none that is not a regular file (a
FIFO, a folder, a device) is opened: opening a FIFO would block.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from tpugraphs_eval.safeopen import file_type_in_words

from .errors import DownloadError, KitError

DOWNLOADS = ".downloads"
"""The folder of the data root holding partial downloads and done-markers."""


def refuse_special(part: Path) -> None:
    """Refuse a ``part`` that exists and is not a regular file (a folder, a FIFO, a device, a socket), found by
    ``lstat`` so that it is never opened (opening a FIFO blocks): a local problem, not retried.

    Raises:
        DownloadError: ``UNSAFE_TARGET``, naming the path and what it is.
    """
    try:
        mode = os.lstat(part).st_mode
    except FileNotFoundError:
        return
    except OSError as err:
        raise DownloadError("UNSAFE_TARGET", f"{part}: cannot be checked: {err.strerror or err}") from None
    kind = file_type_in_words(mode)
    if kind is not None:
        raise DownloadError("UNSAFE_TARGET", f"{part} is {kind}, not a regular file: the kit writes downloads "
                                             "only to regular files; move it away and run again")


def open_part(part: Path, append: bool):
    """``part`` for writing, never through a link (O_NOFOLLOW): appended to, or emptied."""
    flags = (os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
             | (os.O_APPEND if append else os.O_TRUNC))
    fd = os.open(part, flags, 0o644)  # O_NONBLOCK: a FIFO put here meanwhile fails (ENXIO) instead of blocking
    kind = file_type_in_words(os.fstat(fd).st_mode)
    if kind is not None:
        os.close(fd)
        raise DownloadError("UNSAFE_TARGET", f"{part} is {kind}, not a regular file; move it away and run again")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "ab" if append else "wb")


def marked_done(marker: Path, name: str) -> bool:
    """Whether ``marker`` is a done-marker of the archive file ``name``: a regular file (not a link, checked with
    ``fstat`` on a non-blocking open, so a FIFO is never waited on) whose first line is its URL."""
    try:
        fd = os.open(marker, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return False
    with os.fdopen(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        try:
            first = file.readline(4096).decode("utf-8", "replace").strip()
        except OSError:
            return False
    return first.endswith("/" + name)  # the URL it came from (any base URL)


def downloads_folder(root: Path) -> Path:
    """``root/.downloads``, created if missing; refused when it is a link or a file (never written through)."""
    folder = root / DOWNLOADS
    try:
        root.mkdir(parents=True, exist_ok=True)
        kind = "a folder"
        with contextlib.suppress(FileNotFoundError):
            kind = file_type_in_words(os.lstat(folder).st_mode) or "a regular file"
        if kind != "a folder":
            raise DownloadError("UNSAFE_TARGET", f"{folder} is {kind}, not a folder: the kit never writes "
                                                 "through links or special files; move it away and run again")
        folder.mkdir(exist_ok=True)
    except OSError as err:
        raise KitError("OUTPUT_WRITE_FAILED", f"cannot create {folder}: {err.strerror or err}") from None
    return folder
