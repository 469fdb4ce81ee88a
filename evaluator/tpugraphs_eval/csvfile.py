"""Stage 1 of validation: the bytes of a submission file → data rows ``(line, ID, TopConfigs)``.

Everything about the *shape* of the file is checked here (SPEC §2): encoding, byte-order mark,
line endings, blank lines, header, delimiter, column count, quoting. What the fields *mean* (IDs,
configuration indices) is checked by :mod:`tpugraphs_eval.validation`. Rows are yielded as they are
read, so a 100,000-config layout field is held once, as bytes.
"""

from __future__ import annotations

import csv
import hashlib
import io
import os
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, NamedTuple, Union

from .catalog import BY_NAME
from .errors import UsageError
from .problems import ProblemLog

HEADER = (b"ID", b"TopConfigs")
UTF8_BOM = b"\xef\xbb\xbf"
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_SNIFF_BYTES = 8192
_SPLIT_MAX_BYTES = 4 << 20
"""Plain files up to this size are split into lines at once; larger ones are streamed (less memory)."""
_CONTROL_BYTES = bytes(b for b in range(32) if b not in b"\t\r\n")

SubmissionSource = Union[str, os.PathLike, bytes, BinaryIO]
"""A submission: a path, the file's bytes, or a binary file object."""


class Row(NamedTuple):
    """One data row of a submission.

    Attributes:
        line: 1-based line number in the file.
        id: the ID field as text (not yet checked against the split).
        configs: the TopConfigs field as raw bytes (not yet parsed).
    """

    line: int
    id: str
    configs: bytes


def read_submission_bytes(source: SubmissionSource) -> bytes:
    """The submission's bytes. Raises :class:`UsageError` when a path cannot be read."""
    if isinstance(source, bytes):
        return source
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        try:
            return path.read_bytes()
        except IsADirectoryError:
            raise UsageError(f"{path} is a folder, not a submission CSV file") from None
        except FileNotFoundError:
            raise UsageError(f"submission file {path} does not exist") from None
        except OSError as err:
            raise UsageError(f"cannot read submission file {path}: {err.strerror}") from None
    return source.read()


def _looks_binary(head: bytes) -> str | None:
    """Why the first bytes of a file are not CSV text, or None if they could be."""
    if head.startswith(UTF16_BOMS):
        return "it is UTF-16 text (save it as UTF-8)"
    if b"\x00" in head:
        return "it contains NUL bytes (binary data)"
    text = head.decode("utf-8", errors="replace")
    controls = len(head) - len(head.translate(None, _CONTROL_BYTES))
    if text and text.count("\ufffd") + controls > 0.05 * len(text):
        return "most of it is not UTF-8 text (binary data)"
    return None


class SubmissionCsv:
    """Iterates the data rows of a submission file, logging structural problems to ``log``.

    Attributes (final once iteration has ended):
        sha256: hex digest of the file's bytes (known from the start).
        n_bytes: file size in bytes.
        ends_with_newline: whether the last line is terminated (False hints at a cut-off file).
        last_line: number of the last line read.
    """

    def __init__(self, data: bytes, log: ProblemLog) -> None:
        self._data = data
        self._log = log
        self.sha256 = hashlib.sha256(data).hexdigest()
        self.n_bytes = len(data)
        self.ends_with_newline = data.endswith((b"\n", b"\r"))
        self.last_line = 0
        self._delimiter = b","

    # -- lines ---------------------------------------------------------------------------------
    def _lines(self) -> Iterator[tuple[int, bytes]]:
        """(line number, content without terminator); LF, CRLF and lone CR all end a line."""
        number = 0
        cr_lines = 0
        for raw in io.BytesIO(self._data):
            if b"\r" not in raw:
                number += 1
                yield number, raw[:-1] if raw[-1:] == b"\n" else raw
                continue
            body = raw[:-1] if raw.endswith(b"\n") else raw
            if body.endswith(b"\r"):
                body = body[:-1]
                cr_lines += 1
            parts = body.split(b"\r")
            cr_lines += len(parts) - 1
            for part in parts:
                number += 1
                yield number, part
        self.last_line = number
        if cr_lines:
            self._log.add("CRLF", f"{cr_lines} line(s) end in CR or CRLF instead of LF; they are read normally.")

    def _is_plain(self) -> bool:
        """Small ASCII file with LF line ends, no quotes, no NUL: its lines can be split in one call."""
        data = self._data
        return (len(data) <= _SPLIT_MAX_BYTES and data.isascii() and b"\r" not in data
                and b'"' not in data and b"\x00" not in data)

    def _split_lines(self) -> Iterator[tuple[int, bytes]]:
        """:meth:`_lines` for a plain file: one ``split`` (fast for many short rows, one extra copy)."""
        lines = self._data.split(b"\n")
        if lines[-1] == b"":
            lines.pop()
        self.last_line = len(lines)
        return enumerate(lines, start=1)

    # -- fields --------------------------------------------------------------------------------
    def _fields(self, number: int, body: bytes) -> list[bytes] | None:
        """Split a line into fields, handling (and reporting) quotes; None if it cannot be split."""
        if b'"' not in body:
            return body.split(self._delimiter)
        text = body.decode("utf-8")
        try:
            fields = next(csv.reader([text], delimiter=self._delimiter.decode(), strict=True))
        except csv.Error as err:
            self._log.add("MALFORMED_QUOTES", f"cannot split the line into fields: {err}.", line=number)
            return None
        if any('"' in f for f in fields):
            self._log.add("MALFORMED_QUOTES", "a double quote inside an unquoted field.", line=number)
            return None
        self._log.add("QUOTED_FIELD", "fields are enclosed in double quotes; their unquoted values are used.",
                      line=number)
        return [f.encode("utf-8") for f in fields]

    # -- header --------------------------------------------------------------------------------
    def _read_header(self, number: int, body: bytes) -> bool:
        """Check the first non-blank line; True if it is really a data row to be read as such."""
        fields = self._fields(number, body)
        if fields is None or tuple(fields) == HEADER:
            return False
        if len(fields) == 1:
            for delimiter, name in ((b"\t", "a tab"), (b";", "`;`")):
                parts = body.split(delimiter)
                if [p.strip().lower() for p in parts[:2]] == [h.lower() for h in HEADER]:
                    self._delimiter = delimiter
                    self._log.add("WRONG_DELIMITER", f"columns are separated by {name}; use a comma: "
                                  "`ID,TopConfigs`. Rows are read splitting at the first "
                                  f"{name} instead.", line=number)
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

    # -- rows ----------------------------------------------------------------------------------
    def __iter__(self) -> Iterator[Row]:
        log = self._log
        if not self._data.strip():
            log.add("EMPTY_FILE", "the file is empty; it must start with the header `ID,TopConfigs`.",
                    line=1 if self._data else None)
            return
        why = _looks_binary(self._data[:_SNIFF_BYTES])
        if why:
            log.add("NOT_TEXT", f"this is not a CSV text file: {why}.")
            return
        header_seen = False
        for number, body in self._split_lines() if self._is_plain() else self._lines():
            if header_seen and b'"' not in body and body.isascii() and self._delimiter == b",":
                # the common case, kept short: a plain ASCII line `ID,TopConfigs`
                fields = body.split(b",")
                if len(fields) == 2 and fields[0] and fields[0] != HEADER[0] and b"\x00" not in body:
                    yield Row(number, fields[0].decode("ascii"), fields[1])
                    continue
            if number == 1 and body.startswith(UTF8_BOM):
                log.add("BOM", "the file starts with a UTF-8 byte-order mark; save it without (UTF-8, no BOM).",
                        line=1)
                body = body[len(UTF8_BOM):]
            if not body or body.isspace():
                log.add("BLANK_LINE", "blank line.", line=number)
                continue
            if b"\x00" in body:
                log.add("NOT_TEXT", "the line contains NUL bytes: binary data; nothing after it is read.",
                        line=number)
                return
            if not body.isascii():
                try:
                    body.decode("utf-8")
                except UnicodeDecodeError as err:
                    log.add("NOT_UTF8", f"byte 0x{body[err.start]:02x} at column {err.start + 1} is not "
                            "UTF-8 text; the line is skipped.", line=number)
                    continue
            if not header_seen:
                header_seen = True
                if not self._read_header(number, body):
                    continue
            row = self._row(number, body)
            if row is not None:
                yield row

    def _row(self, number: int, body: bytes) -> Row | None:
        log = self._log
        if self._delimiter != b",":
            fields = body.split(self._delimiter, 1)
        else:
            fields = self._fields(number, body)
            if fields is None:
                return None
        if fields[0].strip() == HEADER[0] and len(fields) > 1 and fields[1].strip() == HEADER[1]:
            log.add("HEADER_REPEATED", "the header `ID,TopConfigs` appears again (concatenated files?).",
                    line=number)
            return None
        id_text = fields[0].decode("utf-8")
        if len(fields) == 1:
            hint = ""
            if b";" in body and b":" in body:
                hint = " (a `;` or space where the comma should be?)"
            log.add("MISSING_COLUMN", f"the line has one field; expected `ID,TopConfigs`{hint}.",
                    line=number, id=id_text)
            return None
        if len(fields) > 2:
            log.add("EXTRA_COLUMNS", f"the line has {len(fields)} comma-separated fields; expected 2 "
                    "(`ID,TopConfigs`). The first two are read.", line=number, id=id_text)
        return Row(number, id_text, fields[1])
