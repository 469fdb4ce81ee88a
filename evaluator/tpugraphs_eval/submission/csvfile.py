"""Reading a submission: the bytes of a submission file → data rows ``(line, ID, TopConfigs)``.

Everything about the *shape* of the file is checked here (docs/codes.md), by the rules of :mod:`..rules.csvshape`
(shared with the Codabench scoring program): a zip or gzip wrapper (:mod:`.compressed`), encoding, byte-order mark,
line endings, blank lines, header, delimiter, column count, quoting; what the fields *mean* is checked by
:mod:`.validation`. A *plain* file (ASCII, LF line ends, no quotes, no NUL) is cut at its commas and newlines without
copying its TopConfigs fields (an accelerator: tests/submission/test_fuzz.py holds it equal to the rules on every
input); any line that is not simply ``ID,TopConfigs`` there, and every line of any other file, goes through
:meth:`..rules.csvshape.ShapeReader.line`, which knows every problem.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, NoReturn, Union

from ..dataset import BY_NAME
from ..errors import UsageError
from ..rules.csvshape import HEADER, ShapeReader
from ..rules.sniff import refusal
from ..safeopen import InputRefused, read_regular_file, read_stream, too_large
from .compressed import MAX_UNPACKED_BYTES, unpack
from .problems import ProblemLog

_SPLIT_MAX_BYTES = 4 << 20
"""Plain files up to this size are split into lines at once (one copy of the file, fast for many rows)."""
_HASH_IN_THREAD_BYTES = 64 << 10
"""Files from this size are hashed on a second thread while they are parsed (hashlib releases the GIL)."""

MAX_SUBMISSION_BYTES = MAX_UNPACKED_BYTES
"""Largest submission read (bytes), from a path, as bytes or from a file object: as much CSV as an archive may
unpack to."""

SubmissionSource = Union[str, os.PathLike, bytes, BinaryIO]
"""A submission: a path, the file's bytes, or a binary file object."""
Row = tuple[int, str, Union[bytes, memoryview]]
"""One data row: its 1-based line number, the ID field as text (not yet checked against the split) and the raw
TopConfigs field (bytes, or a memoryview into the file's bytes; not parsed)."""


def read_submission_bytes(source: SubmissionSource) -> bytes:
    """The submission's bytes from a path (checked with ``fstat`` before it is read), bytes-like object or binary file
    object (read from its current position, stopping one byte past the cap), at most :data:`MAX_SUBMISSION_BYTES`
    (256 MiB) of them whatever the source.

    Raises:
        UsageError: the path does not exist (``SUBMISSION_NOT_FOUND``), is not a regular file
            (``SUBMISSION_NOT_A_FILE``: a folder, a FIFO, a device); the path, the bytes or the file object hold
            more than :data:`MAX_SUBMISSION_BYTES` bytes (``SUBMISSION_TOO_LARGE``); the path or the file object
            cannot be read (``SUBMISSION_UNREADABLE``: an I/O error, a non-blocking stream with no data ready);
            the file object is in text mode, or ``source`` is none of these.
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        size = memoryview(source).nbytes
        if size > MAX_SUBMISSION_BYTES:
            _refuse("the submission given as bytes", too_large(MAX_SUBMISSION_BYTES, size))
        return source if isinstance(source, bytes) else bytes(source)
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        try:
            return read_regular_file(path, MAX_SUBMISSION_BYTES)
        except InputRefused as refused:
            if isinstance(source, str) and "\n" in source:  # the CSV's text, not the path of a file
                raise UsageError("the submission is a str holding line breaks, read as a file path: pass the CSV's "
                                 "text as bytes (text.encode())", code=_SUBMISSION_CODES[refused.kind]) from None
            _refuse(f"submission file {path}", refused)
    if getattr(source, "read", None) is None:
        raise UsageError(f"a submission is a path, bytes or a binary file object, not {type(source).__name__}")
    what = "the submission file object"
    try:
        data = read_stream(source, MAX_SUBMISSION_BYTES)
    except TypeError as err:
        raise UsageError(f"{what} is in text mode ({err}): open it in binary mode ('rb')") from None
    except InputRefused as refused:
        _refuse(what, refused)
    except OSError as err:
        _refuse(what, InputRefused("unreadable", f"cannot be read: {err.strerror or err}"))
    if data is None:
        _refuse(what, too_large(MAX_SUBMISSION_BYTES))
    return data


_SUBMISSION_CODES = {"missing": "SUBMISSION_NOT_FOUND", "not_a_file": "SUBMISSION_NOT_A_FILE",
                     "too_large": "SUBMISSION_TOO_LARGE", "unreadable": "SUBMISSION_UNREADABLE"}


def _refuse(what: str, refused: InputRefused) -> NoReturn:
    """Raise the coded :class:`UsageError` of a submission (``what``: "submission file PATH", ...) not read."""
    raise UsageError(f"{what} {refused.reason}", code=_SUBMISSION_CODES[refused.kind]) from None


class SubmissionCsv:
    """Iterates the data rows of a submission file, logging structural problems to ``log``.

    Attributes (final once iteration has ended):
        sha256: hex digest of the file's bytes (of the zip or gzip file itself when compressed).
        n_bytes: file size in bytes (compressed size when compressed).
        ends_with_newline: whether the last line is terminated (False hints at a cut-off file).
        last_line: number of the last line read.
    """

    def __init__(self, data: bytes, log: ProblemLog) -> None:
        self._log = log
        self.n_bytes = len(data)
        self.last_line = 0
        self._shape = ShapeReader(log.add, BY_NAME)
        self._hasher = hashlib.sha256()
        self._hashing: threading.Thread | None = None
        if len(data) >= _HASH_IN_THREAD_BYTES:
            self._hashing = threading.Thread(target=self._hasher.update, args=(data,), daemon=True)
            self._hashing.start()
        else:
            self._hasher.update(data)
        unpacked = unpack(data, log)
        self.unreadable = unpacked is None
        """True when a zip or gzip file could not be read (its problem is logged): no rows."""
        self._data = b"" if unpacked is None else unpacked
        self.ends_with_newline = self._data.endswith((b"\n", b"\r"))

    @property
    def sha256(self) -> str:
        """Hex sha256 of the file's bytes."""
        if self._hashing is not None:
            self._hashing.join()
            self._hashing = None
        return self._hasher.hexdigest()

    # -- rows ----------------------------------------------------------------------------------
    def __iter__(self) -> Iterator[Row]:
        data = self._data
        if self.unreadable:
            return iter(())
        refused = refusal(data)
        if refused:
            code, message, line = refused
            self._log.add(code, message, line=line)
            return iter(())
        if not (data.isascii() and b"\r" not in data and b'"' not in data and b"\x00" not in data):
            return self._rows()
        return self._small_plain_rows() if len(data) <= _SPLIT_MAX_BYTES else self._plain_rows()

    def _small_plain_rows(self) -> Iterator[Row]:
        """:meth:`_plain_rows` for files small enough to split into lines at once (faster for many rows)."""
        lines = self._data.split(b"\n")
        if lines[-1] == b"":
            lines.pop()
        self.last_line = len(lines)
        shape = self._shape
        for number, line in enumerate(lines, start=1):
            ident, comma, configs = line.partition(b",")
            if shape.header_seen and comma and ident and b"," not in configs and shape.delimiter == b"," \
                    and ident.strip() != HEADER[0]:
                yield number, ident.decode("ascii"), configs  # a Row
            elif (row := shape.line(number, line)) is not None:
                yield row

    def _plain_rows(self) -> Iterator[Row]:
        """Rows of a plain file: each ``ID,TopConfigs`` line is cut without copying its TopConfigs."""
        data, view = self._data, memoryview(self._data)
        shape = self._shape
        size = len(data)
        pos = number = 0
        while pos < size:
            newline = data.find(b"\n", pos)
            if newline < 0:
                newline = size
            number += 1
            comma = data.find(b",", pos, newline)
            if (shape.header_seen and shape.delimiter == b"," and comma > pos
                    and data.find(b",", comma + 1, newline) < 0 and (ident := data[pos:comma]).strip() != HEADER[0]):
                yield number, ident.decode("ascii"), view[comma + 1:newline]  # a Row
            elif (row := shape.line(number, data[pos:newline])) is not None:  # never STOP: a plain file holds no NUL
                yield row
            pos = newline + 1
        self.last_line = number

    def _rows(self) -> Iterator[Row]:
        """Rows of any other file, line by line by the rules; then the file's notes."""
        yield from self._shape.read(self._data)
        self.last_line = self._shape.last_line
