"""Opening an input file so that a hostile path neither hangs nor fills memory (docs/codes.md, the guarantees
after the table): every file the evaluator reads from a path is opened here without blocking (``O_NONBLOCK``: a
FIFO does not wait for a writer), and its final target (links followed) checked with ``fstat`` before one byte
is read. Callers turn :class:`InputRefused` into their own coded error.
"""

from __future__ import annotations

import os
import stat
from typing import BinaryIO, Literal

from .errors import DataError

Refusal = Literal["missing", "not_a_file", "too_large", "unreadable"]
CHUNK_BYTES = 1 << 20
"""Bytes asked of a stream at a time by :func:`read_stream` (1 MiB)."""


class InputRefused(Exception):
    """An input path that was not read.

    Attributes:
        kind: ``missing`` (no such path), ``not_a_file`` (a folder, FIFO, device or socket),
            ``too_large`` (over the caller's cap, also when it grows while read) or ``unreadable``
            (permissions, an I/O error).
        reason: what was found, in words, without the path (the caller names the file).
    """

    def __init__(self, kind: Refusal, reason: str) -> None:
        super().__init__(reason)
        self.kind, self.reason = kind, reason


_FILE_TYPES = ((stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
               (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"), (stat.S_ISLNK, "a symbolic link"))


def file_type_in_words(mode: int) -> str | None:
    """The file type of an ``st_mode`` (``os.stat``, ``fstat`` or ``lstat``) in words, the one wording of input and
    output refusals: None for a regular file, else one of :data:`_FILE_TYPES` (``"a folder"``, ...) or ``"a special
    file"`` for any other type (a Solaris door, ...)."""
    if stat.S_ISREG(mode):
        return None
    return next((words for test, words in _FILE_TYPES if test(mode)), "a special file")


def too_large(max_bytes: int, size: int | None = None) -> InputRefused:
    """The ``too_large`` refusal of an input over ``max_bytes`` bytes: its ``size`` in bytes when known (``fstat``,
    the length of bytes given), else (a stream read up to one byte past the cap) "more than" the limit."""
    held = (f"{size:,} bytes, more than the limit of {max_bytes:,}" if size is not None
            else f"more than the limit of {max_bytes:,} bytes")
    return InputRefused("too_large", f"holds {held}; it is not read")


def read_stream(stream: BinaryIO, max_bytes: int, *, keep: bool = True) -> bytes | None:
    """The bytes of a binary ``stream`` (a file object, a decompressing reader), read :data:`CHUNK_BYTES` at a
    time and never more than ``max_bytes + 1`` bytes in all, so that an endless stream cannot fill memory.

    Args:
        stream: read from its current position with ``read(n)`` until it returns ``b""``.
        max_bytes: the most bytes it may hold.
        keep: False to count without keeping (returns ``b""`` when under the cap): a first pass over a stream
            that does not say its size, holding one chunk at a time.

    Returns:
        The bytes (``b""`` when not ``keep``), or None when the stream holds more than ``max_bytes`` bytes (it
        is read no further).

    Raises:
        TypeError: ``read`` returned something other than bytes (a text-mode file object gives str).
        InputRefused: ``unreadable`` when ``read`` returned None (a non-blocking stream with no data ready).
        OSError: from ``read``.
    """
    chunks: list[bytes] = []
    total = 0
    while total <= max_bytes:
        chunk = stream.read(min(CHUNK_BYTES, max_bytes + 1 - total))
        if chunk is None:
            raise InputRefused("unreadable", "had no data ready (a non-blocking stream); it is not read")
        if not isinstance(chunk, (bytes, bytearray)):
            raise TypeError(f"read() returned {type(chunk).__name__}, not bytes")
        if not chunk:
            break
        total += len(chunk)
        if keep and total <= max_bytes:
            chunks.append(chunk)
    return None if total > max_bytes else b"".join(chunks)


def open_regular_file(path: str | os.PathLike[str], max_bytes: int) -> BinaryIO:
    """A binary file object (blocking, positioned at 0) for the regular file at ``path``.

    Args:
        path: the file; symbolic links are followed, the final target is checked.
        max_bytes: a file larger than this (bytes, from ``fstat``) is refused.

    Raises:
        InputRefused: missing, not a regular file, larger than ``max_bytes``, or cannot be opened.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise InputRefused("missing", "does not exist") from None
    except OSError as err:
        raise InputRefused("unreadable", f"cannot be opened: {err.strerror or err}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise InputRefused("not_a_file", f"is {file_type_in_words(info.st_mode)}, not a regular file; "
                                             "it is not read")
        if info.st_size > max_bytes:
            raise too_large(max_bytes, info.st_size)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular_file(path: str | os.PathLike[str], max_bytes: int) -> bytes:
    """The bytes of the regular file at ``path`` (:func:`open_regular_file`), at most ``max_bytes`` of them.

    Raises:
        InputRefused: as :func:`open_regular_file`; ``too_large`` also when the file grows past
            ``max_bytes`` while it is read; ``unreadable`` on an I/O error or when it grows while read.
    """
    with open_regular_file(path, max_bytes) as handle:
        size = os.fstat(handle.fileno()).st_size  # read what fstat saw, plus one byte to see growth
        try:
            data = handle.read(min(size, max_bytes) + 1)
        except OSError as err:
            raise InputRefused("unreadable", f"cannot be read: {err.strerror or err}") from None
    if len(data) > max_bytes:
        raise InputRefused("too_large", f"grew past the limit of {max_bytes:,} bytes while read; it is not used")
    if len(data) > size:
        raise InputRefused("unreadable", "grew while it was read (is it still being written?); it is not used")
    return data


def input_error(path: str | os.PathLike[str], what: str, refused: InputRefused,
                missing_code: str | None = None) -> DataError:
    """The :class:`DataError` for an organiser's input (``what``: "usage file", "solution file", ...) that was
    refused: ``INPUT_NOT_A_FILE``, ``INPUT_TOO_LARGE``, else ``missing_code`` (None: ``DATA_ERROR``)."""
    code = {"not_a_file": "INPUT_NOT_A_FILE", "too_large": "INPUT_TOO_LARGE"}.get(refused.kind, missing_code)
    return DataError(f"{what} {path} {refused.reason}", code=code)


def open_input(path: str | os.PathLike[str], max_bytes: int, what: str, *,
               missing_code: str | None = None) -> BinaryIO:
    """:func:`open_regular_file` for an organiser's input; a refusal is a :class:`DataError` (:func:`input_error`)."""
    try:
        return open_regular_file(path, max_bytes)
    except InputRefused as refused:
        raise input_error(path, what, refused, missing_code) from None


def read_input(path: str | os.PathLike[str], max_bytes: int, what: str, *, missing_code: str | None = None) -> bytes:
    """:func:`read_regular_file` for an organiser's input; a refusal is a :class:`DataError` (:func:`input_error`)."""
    try:
        return read_regular_file(path, max_bytes)
    except InputRefused as refused:
        raise input_error(path, what, refused, missing_code) from None
