"""Stage 1 of validation: the bytes of a submission file → data rows ``(line, ID, TopConfigs)``.

Everything about the *shape* of the file is checked here (SPEC §2): a zip or gzip wrapper
(:mod:`.compressed`), encoding, byte-order mark, line endings, blank lines, header, delimiter, column
count, quoting. What the fields *mean* (IDs, configuration indices) is checked by
:mod:`tpugraphs_eval.submission.validation`. What changes no value (RFC 4180 quoting, a BOM, CRLF or
CR CR LF line ends) is read as every CSV reader reads it, with one note per file.

Two ways through a file, one set of rules: a *plain* file (ASCII, LF line ends, no quotes, no NUL —
what every CSV writer produces) is cut at its commas and newlines without copying its TopConfigs
fields; any line that is not simply ``ID,TopConfigs`` there, and every line of any other file, goes
through :meth:`SubmissionCsv._line`, which knows every problem.
"""

from __future__ import annotations

import csv
import hashlib
import io
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, NamedTuple, NoReturn, Union

from ..dataset import BY_NAME
from ..errors import UsageError
from ..rules.sniff import not_text
from ..safeopen import InputRefused, read_regular_file, read_stream, too_large
from .compressed import MAX_UNPACKED_BYTES, unpack
from .hints import index_column, looks_like_list, sep_line
from .problems import ProblemLog, preview

HEADER = (b"ID", b"TopConfigs")
UTF8_BOM = b"\xef\xbb\xbf"
_SPLIT_MAX_BYTES = 4 << 20
"""Plain files up to this size are split into lines at once (one copy of the file, fast for many rows)."""
_HASH_IN_THREAD_BYTES = 64 << 10
"""Files from this size are hashed on a second thread while they are parsed (hashlib releases the GIL)."""
_STOP = object()

MAX_SUBMISSION_BYTES = MAX_UNPACKED_BYTES
"""Largest submission read (bytes), from a path, as bytes or from a file object: as much CSV as an archive may
unpack to."""

SubmissionSource = Union[str, os.PathLike, bytes, BinaryIO]
"""A submission: a path, the file's bytes, or a binary file object."""


class Row(NamedTuple):
    """One data row of a submission.

    Attributes:
        line: 1-based line number in the file.
        id: the ID field as text (not yet checked against the split).
        configs: the TopConfigs field, raw (bytes, or a memoryview into the file's bytes; not parsed).
    """

    line: int
    id: str
    configs: bytes | memoryview


def read_submission_bytes(source: SubmissionSource) -> bytes:
    """The submission's bytes from a path, bytes-like object or binary file object, at most
    :data:`MAX_SUBMISSION_BYTES` (256 MiB) of them whatever the source.

    A path is checked with ``fstat`` before it is read (:func:`tpugraphs_eval.safeopen.read_regular_file`);
    bytes by their length; a file object is read from its current position in chunks of 1 MiB
    (:func:`tpugraphs_eval.safeopen.read_stream`) and reading stops one byte past the cap, so an endless stream
    never fills memory.

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
        self._delimiter = b","
        self._header_seen = False
        self._index_column = False
        self._quoted_lines: list[int] = []  # the first few lines with quoted fields (for the note)
        self._n_quoted = 0
        self._last_quoted = 0
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
        if not data or data.isspace():
            what = "is empty" if not data else "holds only blank lines and spaces"
            self._log.add("EMPTY_FILE", f"the file {what}; it must start with the header `ID,TopConfigs`.",
                          line=1 if data else None)
            return iter(())
        binary = not_text(data)
        if binary:
            self._log.add("NOT_TEXT", f"this is not a CSV text file: {binary[0]}.", line=binary[1])
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
        for number, line in enumerate(lines, start=1):
            ident, comma, configs = line.partition(b",")
            if self._header_seen and comma and ident and b"," not in configs and self._delimiter == b"," \
                    and ident.strip() != HEADER[0]:
                yield number, ident.decode("ascii"), configs  # a Row, as a plain tuple
                continue
            row = self._line(number, line)
            if row is not None:
                yield row

    def _plain_rows(self) -> Iterator[Row]:
        """Rows of a plain file: each ``ID,TopConfigs`` line is cut without copying its TopConfigs."""
        data, view = self._data, memoryview(self._data)
        size = len(data)
        pos = number = 0
        while pos < size:
            newline = data.find(b"\n", pos)
            if newline < 0:
                newline = size
            number += 1
            comma = data.find(b",", pos, newline)
            if (self._header_seen and self._delimiter == b"," and comma > pos
                    and data.find(b",", comma + 1, newline) < 0):
                ident = data[pos:comma]
                if ident.strip() != HEADER[0]:
                    yield number, ident.decode("ascii"), view[comma + 1:newline]  # a Row, as a plain tuple
                    pos = newline + 1
                    continue
            row = self._line(number, data[pos:newline])
            if row is _STOP:
                return
            if row is not None:
                yield row
            pos = newline + 1
        self.last_line = number

    def _rows(self) -> Iterator[Row]:
        """Rows of any other file, line by line; then one note for its quoted lines."""
        for number, body in self._lines():
            row = self._line(number, body)
            if row is _STOP:
                break
            if row is not None:
                yield row
        if self._n_quoted:
            lines = self._quoted_lines + [None] * (self._n_quoted - len(self._quoted_lines))  # preview's padding
            self._log.add("QUOTED_FIELD", f"{len(lines)} line(s) (line {preview(lines, 3)}) enclose fields in double "
                          "quotes (RFC 4180); their unquoted values are read, as every CSV reader does.", line=lines[0])

    def _lines(self) -> Iterator[tuple[int, bytes]]:
        """(line number, content without terminator); LF, CRLF, CR CR LF and lone CR all end a line.

        CR CR LF is what a CSV writer's CRLF becomes in a file opened in text mode on Windows; pandas reads
        it as one line end, Python's csv module as a line end and an empty row (tests/submission/test_csv_forgiving.py).
        """
        number = 0
        cr_lines = 0
        for raw in io.BytesIO(self._data):
            body = raw[:-1] if raw.endswith(b"\n") else raw
            if body.endswith(b"\r"):
                body = body[:-2] if raw.endswith(b"\r\r\n") else body[:-1]
                cr_lines += 1
            parts = body.split(b"\r") if b"\r" in body else (body,)
            cr_lines += len(parts) - 1
            for part in parts:
                number += 1
                self.last_line = number
                yield number, part
        if cr_lines:
            self._log.add("CRLF", f"{cr_lines} line(s) end in CR, CRLF or CR CR LF instead of LF; they are read "
                          "normally.")

    def _line(self, number: int, body: bytes):
        """Every check of one line: a :class:`Row`, None (nothing to score on it), or _STOP (binary data)."""
        log = self._log
        if body.startswith(UTF8_BOM):
            if number == 1:
                log.add("BOM", "a UTF-8 byte-order mark starts the file; it is skipped, as CSV readers do.", line=1)
            else:
                log.add("BOM_INSIDE", "a UTF-8 byte-order mark starts this line (files concatenated?); a CSV "
                        "reader would read it into the ID. Save every part as UTF-8 without BOM.", line=number)
            body = body[len(UTF8_BOM):]
        if not body or body.isspace():
            log.add("BLANK_LINE", "blank line.", line=number)
            return None
        if b"\x00" in body:
            log.add("NOT_TEXT", "the line contains NUL bytes: binary data; nothing after it is read.", line=number)
            return _STOP
        if not body.isascii():
            try:
                body.decode("utf-8")
            except UnicodeDecodeError as err:
                log.add("NOT_UTF8", f"byte 0x{body[err.start]:02x} at column {err.start + 1} is not UTF-8 "
                        "text; the line is skipped.", line=number)
                self._header_seen = True  # an unreadable first line stands for the header: no HEADER_MISSING
                return None
        if not self._header_seen:
            self._header_seen = True
            if not self._read_header(number, body):
                return None
        return self._row(number, body)

    # -- fields --------------------------------------------------------------------------------
    def _fields(self, number: int, body: bytes) -> list[bytes] | None:
        """Split a line into fields, handling (and reporting) quotes; None if it cannot be split."""
        if b'"' not in body:
            return body.split(self._delimiter)
        text = body.decode("utf-8")
        previous_limit = csv.field_size_limit(max(len(text), 131072))  # a layout field can be ~600,000 chars
        try:
            fields = next(csv.reader([text], delimiter=self._delimiter.decode(), strict=True))
        except csv.Error as err:
            self._log.add("MALFORMED_QUOTES", f"cannot split the line into fields: {err}.", line=number)
            return None
        finally:
            csv.field_size_limit(previous_limit)
        if any('"' in f for f in fields):
            self._log.add("MALFORMED_QUOTES", "a double quote inside an unquoted field.", line=number)
            return None
        if self._last_quoted != number:  # one note for the file (:meth:`_rows`)
            self._last_quoted = number
            self._n_quoted += 1
            if len(self._quoted_lines) < 3:
                self._quoted_lines.append(number)
        return [f.encode("utf-8") for f in fields]

    # -- header --------------------------------------------------------------------------------
    def _read_header(self, number: int, body: bytes) -> bool:
        """Check the first non-blank line; True if it is really a data row to be read as such."""
        if sep_line(body) is not None:
            self._log.add("SEP_LINE", f"the first line `{body.decode('utf-8', errors='replace').strip()}` is "
                          "Excel's separator hint, not the header: delete it (Kaggle's reader takes it for the "
                          "header). The next line is read as the header.", line=number)
            self._header_seen = False
            return False
        fields = self._fields(number, body)
        if fields is None or tuple(fields) == HEADER:
            return False
        if index_column(fields):
            self._index_column = True
            self._log.add("INDEX_COLUMN", f"the header `{body.decode('utf-8', errors='replace')[:40]}` starts with a "
                          "pandas index column: write the file with `to_csv(path, index=False)`. Rows are read "
                          "without their first field.", line=number)
            return False
        if len(fields) == 1:
            for delimiter, name in ((b"\t", "a tab"), (b";", "`;`")):
                parts = body.split(delimiter)
                if [p.strip().lower() for p in parts[:2]] == [h.lower() for h in HEADER]:
                    self._delimiter = delimiter
                    self._log.add("WRONG_DELIMITER", f"columns are separated by {name}; use a comma: "
                                  f"`ID,TopConfigs`. Rows are read splitting at their first {name.split()[-1]} "
                                  "instead.", line=number)
                    return False
        first = fields[0].split(b";")[0].decode("utf-8", errors="replace").strip()
        if first.rpartition(":")[0] in BY_NAME:
            self._log.add("HEADER_MISSING", "the first line is a data row; the file must start with the "
                          "header `ID,TopConfigs`. The line is read as data.", line=number)
            return True
        if [f.strip().lower() for f in fields[:2]] == [h.lower() for h in HEADER] and len(fields) > 2:
            self._log.add("EXTRA_COLUMNS", f"the header has {len(fields)} columns; it must be exactly "
                          "`ID,TopConfigs`.", line=number)
            return False
        shown = body.decode("utf-8", errors="replace")
        self._log.add("HEADER_RENAMED", f"the header is `{shown[:80]}`; it must be exactly `ID,TopConfigs` "
                      "(case and spaces matter).", line=number)
        return False

    def _row(self, number: int, body: bytes) -> Row | None:
        log = self._log
        if self._delimiter != b"," and b'"' not in body:
            fields = body.split(self._delimiter, 1)
        else:
            fields = self._fields(number, body)
            if fields is None:
                return None
            if self._delimiter != b"," and len(fields) > 2:  # `id;"0;1";2`: split at the first delimiter only
                fields = [fields[0], self._delimiter.join(fields[1:])]
        if self._index_column and len(fields) > 2:
            fields = fields[1:]
        if looks_like_list(fields):  # `id,[0, 1, 2]`: validation reports the list once for the file
            fields = [fields[0], b",".join(fields[1:])]
        if fields[0].strip() == HEADER[0] and len(fields) > 1 and fields[1].strip() == HEADER[1]:
            log.add("HEADER_REPEATED", "the header `ID,TopConfigs` appears again (concatenated files?).",
                    line=number)
            return None
        id_text = fields[0].decode("utf-8")
        if len(fields) == 1:
            hint = ""
            if b":" in body and (b";" in body or b"\t" in body or b" " in body):
                hint = " (a tab, `;` or space where the comma should be?)"
            log.add("MISSING_COLUMN", f"the line has one field; expected `ID,TopConfigs`{hint}.",
                    line=number, id=id_text)
            return None
        if len(fields) > 2:
            log.add("EXTRA_COLUMNS", f"the line has {len(fields)} comma-separated fields; expected 2 "
                    "(`ID,TopConfigs`). The first two are read.", line=number, id=id_text)
        return Row(number, id_text, fields[1])
