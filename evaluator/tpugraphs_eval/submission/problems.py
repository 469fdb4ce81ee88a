"""The problems a submission can have: stable codes, their severity per mode, and the log that collects them.

The list follows SPEC §2 (``../shared/SPEC.md``). A code's severity depends on the validation mode:
``strict`` (default) makes every problem an error except what changes no value (RFC 4180 quoting, a
UTF-8 byte-order mark, CRLF line endings and a zip or gzip wrapper: notes) and blank lines (warnings);
``lenient`` (Kaggle-compatible, SPEC §2 **Decision**) turns the problems Kaggle's scorer tolerated into
warnings and scores what remains. Codes never change meaning once released: tools may match on them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

Mode = Literal["strict", "lenient"]
MODES: tuple[Mode, ...] = ("strict", "lenient")


class Severity(StrEnum):
    """How much a problem matters: an error makes the submission invalid."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO  # noqa: E741 (the table's severity columns)


@dataclass(frozen=True)
class Code:
    """A problem code: its name, its severity in strict and lenient mode, and what it means."""

    name: str
    strict: Severity
    lenient: Severity
    meaning: str

    def severity(self, mode: Mode) -> Severity:
        """The severity of this code under ``mode``."""
        return self.strict if mode == "strict" else self.lenient


_TABLE: tuple[Code, ...] = (
    # the file as a whole
    Code("EMPTY_FILE", E, E, "The file is empty: no header and no rows."),
    Code("NOT_TEXT", E, E, "The file is binary data (NUL bytes or UTF-16), not CSV text; nothing after this is read."),
    Code("NOT_UTF8", E, E, "A line holds bytes that are not UTF-8 text; the line is skipped."),
    Code("COMPRESSED", I, I, "A zip (one CSV member) or gzip submission, as Kaggle accepts: the CSV inside is read."),
    Code("ARCHIVE_UNREADABLE", E, E, "A zip or gzip file that cannot be read: corrupt, encrypted, or a zip without exactly one CSV member."),
    Code("ARCHIVE_TOO_LARGE", E, E, "A zip or gzip submission that unpacks to more than 256 MiB (a zip bomb?): unpacking stops there, it is not read."),
    Code("BOM", I, I, "A UTF-8 byte-order mark starts the file (Excel \"CSV UTF-8\"); every CSV reader skips it."),
    Code("BOM_INSIDE", E, E, "A UTF-8 byte-order mark starts a line below the first (concatenated files?)."),
    Code("CRLF", I, I, "Windows (CRLF, or CR CR LF from a CSV writer in text mode) or old Mac (CR) line endings: read normally."),
    Code("BLANK_LINE", W, W, "An empty or whitespace-only line; it is skipped, as CSV readers do."),
    Code("NO_FINAL_NEWLINE", I, I, "The last line has problems and no line terminator: the file may be cut off."),
    # the header
    Code("HEADER_MISSING", E, E, "The first line is a data row, not the header `ID,TopConfigs`; it is read as data."),
    Code("HEADER_RENAMED", E, E, "The header names other columns than exactly `ID,TopConfigs`."),
    Code("HEADER_REPEATED", E, E, "The header line appears again below the first line (concatenated files?)."),
    Code("SEP_LINE", E, E, "The first line is Excel's `sep=` hint, not the header (Kaggle's reader takes it for the header)."),
    Code("INDEX_COLUMN", E, E, "A pandas index column before ID (header `,ID,TopConfigs` or `Unnamed: 0,ID,TopConfigs`): one problem for the file."),
    Code("WRONG_DELIMITER", E, E, "Columns are separated by a tab or `;` instead of `,` (quoted fields included): one problem for the file."),
    # the shape of a row
    Code("EXTRA_COLUMNS", E, E, "A line has more than two comma-separated fields."),
    Code("MISSING_COLUMN", E, E, "A line has one field only: no comma between ID and TopConfigs."),
    Code("QUOTED_FIELD", I, I, "RFC 4180 double-quoted fields (pandas QUOTE_NONNUMERIC, Excel): their unquoted values are read."),
    Code("MALFORMED_QUOTES", E, E, "Unbalanced or stray double quotes: the line cannot be split into fields."),
    # the ID
    Code("UNKNOWN_COLLECTION", E, E, "The ID does not start with one of the five collection prefixes."),
    Code("UNKNOWN_ID", E, E, "The ID names no graph of this collection and split (a hint names a near miss)."),
    Code("DUPLICATE_ID", E, E, "A second row for an ID that already has one."),
    Code("MISSING_IDS", E, E, "Graphs of the split that have no row, counted per collection."),
    # TopConfigs
    Code("EMPTY_CONFIGS", E, E, "TopConfigs is empty."),
    Code("INDICES_SPACE_SEPARATED", E, E, "Indices joined by spaces (`0 1 2`) instead of `;`: one problem for the file, naming the rows."),
    Code("INDICES_AS_LIST", E, E, "Indices written as a Python or numpy list (`[0, 1, 2]`) instead of `0;1;2`: one problem for the file."),
    Code("EMPTY_TOKEN", E, E, "An empty entry between separators (`1;;2`) or a leading/trailing `;`."),
    Code("NON_INTEGER", E, E, "An entry that is not a plain decimal integer (`3.0`, `1e3`, `abc`, ` 3`, `+3`)."),
    Code("NEGATIVE_INDEX", E, W, "A negative configuration index; lenient mode drops it."),
    Code("INDEX_OUT_OF_RANGE", E, W, "An index >= the graph's number of configurations c; lenient mode drops it."),
    Code("DUPLICATE_INDEX", E, W, "An index listed twice in a row; lenient mode keeps its first occurrence."),
    Code("TILE_TOO_MANY", E, W, "A tile row lists more than 10 indices (the Kaggle score uses the first 5, the top-K errors the first K)."),
    Code("TILE_TOO_FEW", E, W, "A tile row lists fewer than min(5, c) distinct valid indices."),
    Code("LAYOUT_NOT_PERMUTATION", E, W, "A layout row does not list every configuration 0..c-1; lenient mode ranks the listed ones first, the others tied last."),
    Code("NO_USABLE_CONFIGS", E, E, "Nothing in the row is a valid index of the graph: there is nothing to score."),
    Code("FIELD_TOO_LONG", E, E, "TopConfigs is longer than 8 MiB (over 10 times the longest real field); it is not read."),
    # predictions (``--predictions``, ``score_predictions``) instead of a ranking: errors in both modes
    Code("PREDICTIONS_UNREADABLE", E, E, "The predictions file cannot be read as a Parquet or CSV table or an npz archive (corrupt, truncated, not that format)."),
    Code("PREDICTIONS_COLUMNS", E, E, "The predictions table does not have exactly the columns `ID`, `config`, `prediction` (one row per graph and configuration)."),
    Code("PREDICTION_WRONG_SHAPE", E, E, "A graph's array of predictions is not 1-D of length c (or, with `--configs official`, of the official list's length), or an npz member is larger than any graph needs."),
    Code("PREDICTION_BAD_CONFIG", E, E, "A table row's `config` is not an integer 0..c-1 of its graph."),
    Code("PREDICTION_DUPLICATE_CONFIG", E, E, "A configuration of a graph has more than one row in the predictions table."),
    Code("PREDICTION_MISSING_CONFIGS", E, E, "Configurations of a graph (with `--configs official`: of its sampled configs) have no prediction."),
    Code("PREDICTION_NOT_NUMBER", E, E, "A prediction is empty or not a number (`abc`; an array of text or objects)."),
    Code("PREDICTION_NAN", E, E, "A prediction is NaN: its order against the others is undefined."),
    Code("PREDICTION_INFINITE", E, E, "A prediction is infinite: `inf` ties with `inf`, so it would order nothing (rescale or clip the model's outputs)."),
    Code("COLLECTION_ABSENT", W, W, "Rows of a collection the ground truth (data root or solution) lacks for this split: counted, not scored."),
    Code("COLLECTION_NOT_SELECTED", I, I, "Rows of a collection that `--collections` leaves out: counted, not scored."),
)

CODES: dict[str, Code] = {code.name: code for code in _TABLE}


def markdown_cell(text: str) -> str:
    """``text`` made safe for one cell of a Markdown table (``|`` escaped)."""
    return text.replace("|", "\\|")


def codes_markdown() -> str:
    """The problem codes as a Markdown table (``| code | strict | lenient | meaning |``), one row per code of
    :data:`CODES` in registry order; ``docs/codes.md`` holds exactly this text (``tpugraphs-eval codes --markdown``)."""
    rows = ["| code | strict | lenient | meaning |", "|---|---|---|---|"]
    rows += [f"| `{c.name}` | {c.strict} | {c.lenient} | {markdown_cell(c.meaning)} |" for c in CODES.values()]
    return "\n".join(rows) + "\n"


@dataclass(frozen=True)
class Problem:
    """One problem found in a submission.

    Attributes:
        line: 1-based line number in the CSV file, or None for file-level problems (missing IDs).
        id: the submission ID of the row, or None.
        code: a key of :data:`CODES`.
        severity: the code's severity under the mode in force.
        message: a human sentence. It may name configuration counts, never runtimes.
    """

    line: int | None
    id: str | None
    code: str
    severity: Severity
    message: str

    def describe(self) -> str:
        """``line N ID: message`` (the parts it lacks left out), for one-line summaries."""
        where = " ".join(x for x in (f"line {self.line}" if self.line else "", self.id or "") if x)
        return f"{where}: {self.message}" if where else self.message

    def to_dict(self) -> dict[str, object]:
        """The JSON form: ``{line, id, code, severity, message}``."""
        return {"line": self.line, "id": self.id, "code": self.code,
                "severity": str(self.severity), "message": self.message}


MAX_LISTED_PER_CODE = 1000
"""Problems of one code listed one by one; further ones are counted exactly and summarised in one problem."""


def errors_in(counts: Counter[str], mode: Mode) -> int:
    """How many of the counted problems are errors under ``mode``."""
    return sum(n for code, n in counts.items() if CODES[code].severity(mode) == Severity.ERROR)


class ProblemLog:
    """Collects problems in file order for one validation run under one mode.

    Every problem is counted (:attr:`counts`); the first :data:`MAX_LISTED_PER_CODE` of each code are
    kept one by one and :meth:`listed` adds one summary problem for the rest, so that a file of millions
    of bad rows cannot exhaust memory while nothing goes uncounted.
    """

    def __init__(self, mode: Mode) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
        self.mode: Mode = mode
        self.problems: list[Problem] = []
        self.counts: Counter[str] = Counter()

    def listing(self, code: str) -> bool:
        """Whether a new problem of ``code`` would still be listed one by one (else only counted)."""
        return self.counts[code] < MAX_LISTED_PER_CODE

    def add(self, code: str, message: str, *, line: int | None = None, id: str | None = None) -> Severity:
        """Record a problem; returns its severity under this log's mode."""
        severity = CODES[code].severity(self.mode)
        self.counts[code] += 1
        if self.counts[code] <= MAX_LISTED_PER_CODE:
            self.problems.append(Problem(line, id, code, severity, message))
        return severity

    def listed(self) -> list[Problem]:
        """The problems listed one by one, then one summary per code that had more."""
        extra = [Problem(None, None, code, CODES[code].severity(self.mode),
                         f"{n - MAX_LISTED_PER_CODE} more {code} problems are counted but not listed one by one "
                         f"(the first {MAX_LISTED_PER_CODE} are); {n} in all.")
                 for code, n in self.counts.items() if n > MAX_LISTED_PER_CODE]
        return self.problems + extra


def preview(values: list[object] | tuple[object, ...], limit: int = 5) -> str:
    """``"3, 7, 9"`` or ``"3, 7, 9, 11, 12, … (40 in all)"``: a short list for messages.

    Only the first ``limit`` values are shown, so callers may pad a long list with placeholders
    (``[3, 7, 9, 11, 12] + [None] * 35``) instead of building every item's text.
    """
    shown = ", ".join(str(v) for v in values[:limit])
    return shown if len(values) <= limit else f"{shown}, … ({len(values)} in all)"
