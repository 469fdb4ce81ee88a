"""Read a file of the submissions folder without following a link: what the folder listed is what is read.

Why and what is refused: docs/leaderboard.md, "Reading a hostile folder". A file is opened relative to its team
folder, itself opened relative to the submissions folder, each with ``O_NOFOLLOW`` and ``O_NONBLOCK``; then ``fstat``
of the open descriptor decides (:func:`refusal`), so nothing can be swapped between check and read. POSIX only.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from ..safeopen import file_type_in_words

DEFAULT_MAX_BYTES = 64 * 1024 * 1024
"""Submissions larger than this are recorded as ``SUBMISSION_TOO_LARGE`` unread (``--max-size``; real Kaggle
test submissions are about 10 MB)."""

_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


class RefusedFile(Exception):
    """A file of the submissions folder that is not read.

    Attributes:
        code: a leaderboard code (:data:`codes.LEADERBOARD_CODES`): ``SUBMISSION_SYMLINK``,
            ``SUBMISSION_HARDLINK``, ``SUBMISSION_NOT_REGULAR``, ``SUBMISSION_TOO_LARGE`` or
            ``SUBMISSION_UNREADABLE``.
        reason: what was found, for the message (no path: the caller names the entry).
    """

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code, self.reason = code, reason


def _open_at(name: str, dir_fd: int | None, flags: int, what: str) -> int:
    try:
        return os.open(name, flags, dir_fd=dir_fd)
    except OSError as err:
        try:
            mode: int | None = os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode
        except OSError:
            mode = None
        if stat.S_ISLNK(mode or 0) or (mode is None and err.errno == errno.ELOOP):
            raise RefusedFile("SUBMISSION_SYMLINK", f"{what} is a symbolic link; not followed, not read") from None
        if err.errno in (errno.ELOOP, errno.ENOTDIR):  # with O_DIRECTORY, Linux reports a link as ENOTDIR
            raise RefusedFile("SUBMISSION_NOT_REGULAR", f"{what} is no longer a folder; not read") from None
        if mode is not None and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):  # a socket cannot be opened (ENXIO)
            raise RefusedFile("SUBMISSION_NOT_REGULAR", f"{what} is {file_type_in_words(mode)}, not a regular file; "
                                                        "not read") from None
        raise RefusedFile("SUBMISSION_UNREADABLE", f"{what}: {err.strerror or err}") from None


def _team_folder(path: Path) -> int:
    """A descriptor of ``path``'s team folder, opened without following a link (nor the file's)."""
    root = _open_at(str(path.parent.parent), None, os.O_RDONLY | os.O_DIRECTORY, "the submissions folder")
    try:
        return _open_at(path.parent.name, root, _FLAGS | os.O_DIRECTORY, "the team folder")
    finally:
        os.close(root)


def refusal(info: os.stat_result, max_bytes: int) -> RefusedFile | None:
    """Why a file of that ``stat`` is not read (not regular, a hard link, too large), or None."""
    if not stat.S_ISREG(info.st_mode):
        return RefusedFile("SUBMISSION_NOT_REGULAR", f"the file is {file_type_in_words(info.st_mode)}, not a "
                                                     "regular file; not read")
    if info.st_nlink != 1:
        return RefusedFile("SUBMISSION_HARDLINK", f"a hard link ({info.st_nlink} names for one file; it may be "
                                                  "a file outside the folder); not read")
    if info.st_size > max_bytes:
        return RefusedFile("SUBMISSION_TOO_LARGE", f"{info.st_size} bytes, more than the limit of {max_bytes}")
    return None


def stat_readable(path: Path, max_bytes: int) -> os.stat_result | None:
    """The ``stat`` of ``path`` (as :func:`read_file_stat` finds it: no link followed, for the file or its team
    folder) when it is a file :func:`read_file_stat` would read (regular, one name, within ``max_bytes``); None
    otherwise (gone, a link, refused: reading it says why). Reads no byte of the file."""
    try:
        team = _team_folder(path)
    except RefusedFile:
        return None
    try:
        info = os.stat(path.name, dir_fd=team, follow_symlinks=False)
    except OSError:
        return None
    finally:
        os.close(team)
    return None if refusal(info, max_bytes) else info


def read_file_stat(path: Path, max_bytes: int) -> tuple[bytes, os.stat_result]:
    """The bytes of ``path`` = ``SUBMISSIONS/TEAM/NAME`` (as :func:`folder.read_folder` lists them; the submissions
    folder itself may be a link, the team folder and the file may not) read without following a link, and the
    ``fstat`` of the open file taken before reading (so a file changed while read has a newer ``st_mtime_ns`` than
    the one returned). Files over ``max_bytes`` are not read.

    Raises:
        RefusedFile: a link, a hard link, not a regular file, larger than ``max_bytes`` (also when it grows
            while being read), or unreadable; nothing of it was read.
    """
    path = Path(path)
    team = _team_folder(path)
    try:
        fd = _open_at(path.name, team, _FLAGS, "the file")
    finally:
        os.close(team)
    try:
        info = os.fstat(fd)
        refused = refusal(info, max_bytes)
        if refused:
            raise refused
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(max_bytes + 1)
    except OSError as err:
        raise RefusedFile("SUBMISSION_UNREADABLE", err.strerror or str(err)) from None
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise RefusedFile("SUBMISSION_TOO_LARGE", f"more than the limit of {max_bytes} bytes (it grew while read)")
    return data, info
