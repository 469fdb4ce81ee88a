"""The shape of a submission CSV: its bytes → lines → data rows ``(line, ID, TopConfigs)``, with every structural
problem and hint (docs/codes.md): byte-order marks, line ends, blank lines, encoding, the header, the delimiter, the
number of fields and RFC 4180 quoting. One mistake (Excel's ``sep=`` line, a pandas index column, a tab or ``;``
delimiter, a TopConfigs list split at its commas) gets one hint, not a problem per line.

Standard library only, Python >= 3.9: the validator (``submission/csvfile.py``) and the Codabench scoring program
(the bundle carries this file) read lines through :class:`ShapeReader`.
"""

from __future__ import annotations

import csv
import io
import re

HEADER = (b"ID", b"TopConfigs")
UTF8_BOM = b"\xef\xbb\xbf"
STOP = object()
"""What :meth:`ShapeReader.line` returns for binary data: nothing after this line is read."""
_SEP_LINE = re.compile(rb"\s*sep=.?\s*")
"""Excel's ``sep=X`` first line."""
_INDEX_NAMES = {b"", b"unnamed: 0", b"index"}
"""Header names of a pandas index column: ``to_csv()`` without ``index=False`` (``""``), a file read and
written again (``Unnamed: 0``), ``reset_index()`` (``index``)."""
_OTHER_DELIMITERS = ((b"\t", "a tab"), (b";", "`;`"))
_HEADER_LOWER = [h.lower() for h in HEADER]


def index_column(fields):
    """True for a header ``[<index name>, ID, TopConfigs]``: a pandas index column before the two columns."""
    return (len(fields) == 3 and fields[0].strip().lower() in _INDEX_NAMES
            and [f.strip() for f in fields[1:]] == list(HEADER))


def split_quoted(body, delimiter):
    """The fields of a line with RFC 4180 quotes removed (bytes), or the ``csv.Error`` text when they are malformed
    (unbalanced quotes, or a quote inside an unquoted field: ``"a double quote inside an unquoted field"``)."""
    text = body.decode("utf-8")
    previous_limit = csv.field_size_limit(max(len(text), 131072))  # a layout field can be ~600,000 chars
    try:
        fields = next(csv.reader([text], delimiter=delimiter.decode(), strict=True))
    except csv.Error as err:
        return f"cannot split the line into fields: {err}"
    finally:
        csv.field_size_limit(previous_limit)
    if any('"' in f for f in fields):
        return "a double quote inside an unquoted field"
    return [f.encode("utf-8") for f in fields]


def split_lines(data, add):
    """(line number, content without terminator) of every line of ``data`` (bytes, or a binary file read a line at a
    time); LF, CRLF, CR CR LF (a CSV writer's CRLF in a file opened in text mode on Windows, one line end for pandas)
    and lone CR all end a line, with one CRLF note for the file when any line ends otherwise than in LF."""
    number = cr_lines = 0
    for raw in io.BytesIO(data) if isinstance(data, bytes) else data:
        body = raw[:-1] if raw.endswith(b"\n") else raw
        if body.endswith(b"\r"):
            body = body[:-2] if raw.endswith(b"\r\r\n") else body[:-1]
            cr_lines += 1
        parts = body.split(b"\r") if b"\r" in body else (body,)
        cr_lines += len(parts) - 1
        for part in parts:
            number += 1
            yield number, part
    if cr_lines:
        add("CRLF", f"{cr_lines} line(s) end in CR, CRLF or CR CR LF instead of LF; they are read normally.")


def other_delimiter(header):
    """(delimiter, its name, index column) when a header line (bytes) is ``ID`` and ``TopConfigs`` joined by a tab or
    ``;`` (quoted or not, behind a pandas index column or not), else None."""
    for delimiter, name in _OTHER_DELIMITERS:
        if delimiter not in header:
            continue
        fields = header.split(delimiter) if b'"' not in header else split_quoted(header, delimiter)
        if not isinstance(fields, str) and (index_column(fields)
                                            or [f.strip().lower() for f in fields[:2]] == _HEADER_LOWER):
            return delimiter, name, index_column(fields)
    return None


def wrong_delimiter(name):
    """The WRONG_DELIMITER message's first sentence for a delimiter called ``name`` (``a tab``, ```;```)."""
    return f"columns are separated by {name}; use a comma: `ID,TopConfigs`."


class ShapeReader:
    """The rules of a submission's lines, with the state they need between lines (header seen, delimiter, index
    column, quoted lines).

    Args:
        add: ``add(code, message, line=None, id=None)``, called for every problem.
        collections: the collection names (``tile:xla``, …): a first line whose ID starts with one is a data row
            (HEADER_MISSING), not a renamed header.

    Attributes:
        header_seen: the header (or what stands for it) has been read.
        delimiter: ``b","``, or the tab or ``;`` the header was written with (WRONG_DELIMITER).
        index_column: the header starts with a pandas index column (INDEX_COLUMN): rows are read without it.
        last_line: the last line :meth:`read` has read.
    """

    def __init__(self, add, collections):
        self.add = add
        self.collections = frozenset(collections)
        self.header_seen = False
        self.delimiter = b","
        self.index_column = False
        self.last_line = 0
        self._quoted_lines = []  # the first few lines with quoted fields (for the note)
        self._n_quoted = self._last_quoted = 0

    def read(self, data):
        """Every data row ``(line, ID, TopConfigs bytes)`` of a whole file (bytes, or a binary file: its rows are
        streamed) read line by line, then :meth:`finish`; :attr:`last_line` is the number of the last line read."""
        for number, body in split_lines(data, self.add):
            self.last_line = number
            row = self.line(number, body)
            if row is STOP:
                break
            if row is not None:
                yield row
        self.finish()

    def finish(self):
        """The file's one QUOTED_FIELD note, when lines had quoted fields (call once, after the last line)."""
        if n := self._n_quoted:
            shown = ", ".join(str(line) for line in self._quoted_lines) + (f", … ({n} in all)" if n > 3 else "")
            self.add("QUOTED_FIELD", f"{n} line(s) (line {shown}) enclose fields in double quotes (RFC 4180); their "
                     "unquoted values are read, as every CSV reader does.", line=self._quoted_lines[0])

    def line(self, number, body):
        """Every check of one line (``body``: its bytes without terminator): a row ``(line, ID, TopConfigs)``, None
        (nothing to score on it), or :data:`STOP` (binary data: nothing after it is read)."""
        add = self.add
        if body.startswith(UTF8_BOM):
            if number == 1:
                add("BOM", "a UTF-8 byte-order mark starts the file; it is skipped, as CSV readers do.", line=1)
            else:
                add("BOM_INSIDE", "a UTF-8 byte-order mark starts this line (files concatenated?); a CSV "
                    "reader would read it into the ID. Save every part as UTF-8 without BOM.", line=number)
            body = body[len(UTF8_BOM):]
        if not body or body.isspace():
            add("BLANK_LINE", "blank line.", line=number)
            return None
        if b"\x00" in body:
            add("NOT_TEXT", "the line contains NUL bytes: binary data; nothing after it is read.", line=number)
            return STOP
        if not body.isascii():
            try:
                body.decode("utf-8")
            except UnicodeDecodeError as err:
                add("NOT_UTF8", f"byte 0x{body[err.start]:02x} at column {err.start + 1} is not UTF-8 "
                    "text; the line is skipped.", line=number)
                self.header_seen = True  # an unreadable first line stands for the header: no HEADER_MISSING
                return None
        if not self.header_seen:
            self.header_seen = True
            if not self._header(number, body):
                return None
        return self._row(number, body)

    def _fields(self, number, body, delimiter=None):
        """Split a line into fields, handling (and reporting) quotes; None if it cannot be split."""
        delimiter = delimiter or self.delimiter
        if b'"' not in body:
            return body.split(delimiter)
        fields = split_quoted(body, delimiter)
        if isinstance(fields, str):
            self.add("MALFORMED_QUOTES", f"{fields}.", line=number)
            return None
        if self._last_quoted != number:  # one note for the file (:meth:`finish`)
            self._last_quoted = number
            self._n_quoted += 1
            if len(self._quoted_lines) < 3:
                self._quoted_lines.append(number)
        return fields

    def _header(self, number, body):
        """Check the first non-blank line; True if it is really a data row to be read as such."""
        add = self.add
        if _SEP_LINE.fullmatch(body):
            add("SEP_LINE", f"the first line `{body.decode('utf-8', errors='replace').strip()}` is "
                "Excel's separator hint, not the header: delete it (Kaggle's reader takes it for the "
                "header). The next line is read as the header.", line=number)
            self.header_seen = False
            return False
        shown = body.decode("utf-8", errors="replace")
        other = None if b"," in body else other_delimiter(body)
        if other is not None:
            self.delimiter, name, self.index_column = other
            if b'"' in body:
                self._fields(number, body)  # counted for the QUOTED_FIELD note
            add("WRONG_DELIMITER", f"{wrong_delimiter(name)} Rows are read splitting at their first "
                f"{name.split()[-1]} instead (a row with a comma before it, at the comma).", line=number)
            if self.index_column:
                self._index_column_problem(number, shown)
            return False
        fields = self._fields(number, body)
        if fields is None or tuple(fields) == HEADER:
            return False
        if index_column(fields):
            self.index_column = True
            self._index_column_problem(number, shown)
            return False
        first = fields[0].split(b";")[0].decode("utf-8", errors="replace").strip()
        if first.rpartition(":")[0] in self.collections:
            add("HEADER_MISSING", "the first line is a data row; the file must start with the "
                "header `ID,TopConfigs`. The line is read as data.", line=number)
            return True
        if [f.strip().lower() for f in fields[:2]] == _HEADER_LOWER and len(fields) > 2:
            add("EXTRA_COLUMNS", f"the header has {len(fields)} columns; it must be exactly "
                "`ID,TopConfigs`.", line=number)
            return False
        add("HEADER_RENAMED", f"the header is `{shown[:80]}`; it must be exactly `ID,TopConfigs` "
            "(case and spaces matter).", line=number)
        return False

    def _index_column_problem(self, number, shown):
        self.add("INDEX_COLUMN", f"the header `{shown[:40]}` starts with a pandas index column: write the file "
                 "with `to_csv(path, index=False)`. Rows are read without their first field.", line=number)

    def _row(self, number, body):
        """The row ``(line, ID, TopConfigs)`` of a data line, or None when it has none (its problem is added)."""
        add = self.add
        delimiter = self.delimiter
        if delimiter != b"," and b"," in body and not -1 < body.find(delimiter) < body.find(b","):
            delimiter = b","  # a comma before any `;` or tab: a row written with commas (an ID holds none), read so
        wanted = 3 if self.index_column else 2  # `id;"0;1";2`: split at the first `;` or tab(s) only
        if delimiter != b"," and b'"' not in body:
            fields = body.split(delimiter, wanted - 1)
        elif (fields := self._fields(number, body, delimiter)) is None:
            return None
        elif delimiter != b"," and len(fields) > wanted:
            fields = fields[:wanted - 1] + [delimiter.join(fields[wanted - 1:])]
        if self.index_column and len(fields) > 2:
            fields = fields[1:]
        if len(fields) > 2 and ((fields[1].lstrip().startswith((b"[", b"(")) and fields[-1].rstrip().endswith((b"]", b")")))
                                or all(f.strip().isdigit() for f in fields[1:])):
            fields = [fields[0], b",".join(fields[1:])]  # `id,[0, 1, 2]`, `id,0,1,2`: reported once for the file
        if fields[0].strip() == HEADER[0] and len(fields) > 1 and fields[1].strip() == HEADER[1]:
            add("HEADER_REPEATED", "the header `ID,TopConfigs` appears again (concatenated files?).", line=number)
            return None
        id_text = fields[0].decode("utf-8")
        if len(fields) == 1:
            hint = " (a tab, `;` or space where the comma should be?)" if b":" in body and (
                b";" in body or b"\t" in body or b" " in body) else ""
            add("MISSING_COLUMN", f"the line has one field; expected `ID,TopConfigs`{hint}.", line=number, id=id_text)
            return None
        if len(fields) > 2:
            add("EXTRA_COLUMNS", f"the line has {len(fields)} comma-separated fields; expected 2 "
                "(`ID,TopConfigs`). The first two are read.", line=number, id=id_text)
        return number, id_text, fields[1]
