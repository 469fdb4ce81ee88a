"""Validation: a submission file + a split catalog → every problem, and the parsed rankings.

Validation is the first stage of scoring: :func:`validate_submission` is the only parser of
submissions, and :mod:`tpugraphs_eval.scoring.score` scores what it returns. Format: docs/codes.md.
"""

from __future__ import annotations

import html
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from .. import kernels
from ..dataset import split_submission_id
from ..display import shorten
from ..kernels import FLAG_BAD_TOKEN, Scanned
from ..rules.ids import IdLedger, missing_ids
from ..rules.topconfigs import MAX_FIELD_BYTES, TILE_MAX_LISTED, too_long
from ..truth.groundtruth import SplitCatalog
from .csvfile import SubmissionCsv, SubmissionSource, read_submission_bytes
from .hints import FieldHints, IdHints, code_of, collections_hint
from .problems import CODES, Mode, Problem, ProblemLog, Severity, preview
from .rankings import INDEX_DTYPE, Rankings
from .topconfigs import diagnose

_NOT_TRUNCATION = {"UNKNOWN_COLLECTION", "DUPLICATE_ID", "NOT_UTF8", "NON_INTEGER", "NEGATIVE_INDEX", "CRLF",
                   "QUOTED_FIELD", "INDICES_SPACE_SEPARATED", "INDICES_AS_LIST", "INDICES_COMMA_SEPARATED",
                   "INDICES_ONE_BASED"}
"""Problems on a last line that a cut-off file would not explain (UNKNOWN_ID may: a cut ID)."""
_NOTHING_READ = ("EMPTY_FILE", "NOT_TEXT", "ARCHIVE_UNREADABLE", "ARCHIVE_TOO_LARGE")
"""Problems that mean no row could be read: one problem says so, no MISSING_IDS follow."""


@dataclass
class ParsedSubmission:
    """What scoring needs from a submission.

    Attributes:
        rankings: collection name → its :class:`Rankings` (graph position → config indices as native
            int32 bytes, predicted fastest first). Strict: exactly the row's indices (tile: 5 to 10 of them,
            or min(5, c) to c when c < 10). Lenient: its distinct valid indices in order.
        lines: submission ID → line number of its row.
    """

    rankings: dict[str, Rankings] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)


_SHOWN_CODES = 8
"""Problem codes a ``repr`` or notebook table names (the most frequent first); the rest are summed as ``...``."""


@dataclass(repr=False)
class Validation:
    """The outcome of validating one submission against one split (its ``repr`` and notebook table are short: the
    verdict and the count of each problem code).

    Attributes:
        mode: ``strict`` or ``lenient``.
        problems: the problems in file order (file-level ones last); beyond
            :data:`problems.MAX_LISTED_PER_CODE` of one code, one summary problem stands for the rest.
        counts: the exact number of problems of each code.
        submission: the parsed rankings (complete only when ``valid``).
        missing_ids: collection name → IDs of the split with no row.
        sha256: hex digest of the submission file's bytes.
        n_rows: data rows read.
    """

    mode: Mode
    problems: list[Problem]
    counts: Counter[str]
    submission: ParsedSubmission
    missing_ids: dict[str, list[str]]
    sha256: str
    n_rows: int

    @property
    def n_errors(self) -> int:
        """Number of error-severity problems."""
        return self.by_severity()[Severity.ERROR]

    @property
    def valid(self) -> bool:
        """True when no problem is an error under the mode in force."""
        return self.n_errors == 0

    def by_severity(self) -> dict[Severity, int]:
        """Severity → exact number of problems of that severity under the mode in force (from :attr:`counts`,
        so beyond :data:`problems.MAX_LISTED_PER_CODE` listed problems of one code every one is still counted)."""
        tally = dict.fromkeys(Severity, 0)
        for code, n in self.counts.items():
            tally[CODES[code].severity(self.mode)] += n
        return tally

    def code_counts(self) -> dict[str, int]:
        """The :data:`_SHOWN_CODES` most frequent problem codes → their exact counts, and ``...`` → the rest."""
        ranked = sorted(self.counts.items(), key=lambda item: (-item[1], item[0]))
        shown = dict(ranked[:_SHOWN_CODES])
        rest = sum(n for _, n in ranked[_SHOWN_CODES:])
        return {**shown, "...": rest} if rest else shown

    def __repr__(self) -> str:
        return (f"Validation(mode={self.mode!r}, valid={self.valid}, n_rows={self.n_rows}, n_errors={self.n_errors}, "
                f"problems={self.code_counts()})")

    def _repr_html_(self) -> str:
        """A notebook's table: one row per problem code (the most frequent :data:`_SHOWN_CODES`) with its count."""
        verdict = "valid" if self.valid else f"invalid ({self.n_errors} errors)"
        rows = "".join(f"<tr><td><code>{html.escape(code)}</code></td><td>{n}</td></tr>"
                       for code, n in self.code_counts().items())
        return (f"<p>{self.mode}: {verdict}, {self.n_rows} rows</p>"
                + (f"<table><tr><th>problem</th><th>count</th></tr>{rows}</table>" if rows else ""))


def validate_submission(source: SubmissionSource, catalog: SplitCatalog, *, mode: Mode = "strict") -> Validation:
    """Check a submission against the graphs of a split, reporting every problem in one pass: every row first gets
    the fast check ``scan_indices`` (:mod:`kernels`), and only rows it does not pass as clean are diagnosed in detail.

    Args:
        source: path, bytes or binary file object of the CSV, at most 256 MiB whatever the source
            (:func:`.csvfile.read_submission_bytes`).
        catalog: the split's graphs and config counts (:func:`npzread.scan_catalog`, or
            ``GroundTruth.catalog``).
        mode: ``strict`` (every problem an error) or ``lenient`` (Kaggle-compatible, docs/codes.md).

    Returns:
        A :class:`Validation`; never raises for bad content.

    Raises:
        UsageError: ``source`` cannot be read (a missing path, a folder, a text-mode file object) or holds more
            than 256 MiB (``SUBMISSION_TOO_LARGE``).
    """
    log = ProblemLog(mode)
    csv_file = SubmissionCsv(read_submission_bytes(source), log)
    rows = _Rows(catalog, log)
    for line, graph_id, configs in csv_file:
        rows.read(line, graph_id, configs)
    rows.finish()
    if csv_file.last_line and not csv_file.ends_with_newline:  # right after a line with problems a cut would explain?
        last = [p for p in log.problems if p.line == csv_file.last_line and p.code not in _NOT_TRUNCATION]
        if last:
            log.add("NO_FINAL_NEWLINE", "the file ends without a newline right after a line with problems: "
                    "was it cut off?", line=csv_file.last_line, id=last[0].id)
    missing = _missing_ids(catalog, rows.ledger.lines, log)
    return Validation(mode, log.listed(), log.counts, rows.parsed, missing, csv_file.sha256, rows.n_rows)


_UNSELECTED = ""
"""The key of :attr:`_Rows.absent` under which rows of graphs left out by ``--graphs`` are counted."""


class _Rows:
    """The rows of one submission, read one by one: the ID rules (:class:`..rules.ids.IdLedger`), each field's check,
    the parsed rankings, and rows of collections absent or left out (only counted)."""

    def __init__(self, catalog: SplitCatalog, log: ProblemLog) -> None:
        self.catalog, self.log = catalog, log
        self.scan_indices = kernels.active().scan_indices
        self.hints, self.field_hints = IdHints(catalog), FieldHints()
        self.ledger = IdLedger()
        self.parsed = ParsedSubmission(rankings={name: Rankings() for name in catalog.collections},
                                       lines=self.ledger.lines)
        self.absent: dict[str, list[int]] = {}  # collection (or _UNSELECTED) → line numbers
        self.n_rows = 0

    def read(self, line: int, graph_id: str, configs: bytes | memoryview) -> None:
        """Check one row."""
        self.n_rows += 1
        spec = self.catalog.row_specs.get(graph_id)
        if len(configs) > MAX_FIELD_BYTES:
            self.log.add(*too_long(len(configs)), line=line, id=shorten(graph_id))
            if spec is not None:
                self.ledger.lines.setdefault(graph_id, line)  # the row exists: its ID is not missing
            return
        if spec is None:
            return self._unknown(line, graph_id, configs)
        repeated = self.ledger.first(line, graph_id)
        if repeated is not None:
            self.log.add(*repeated, line=line, id=graph_id)
            return
        collection, position, n_configs, need, kind = spec
        values, n_tokens, flags = self.scan_indices(configs, n_configs)
        if flags == 0 and (n_tokens == need or (kind == "tile" and need < n_tokens <= TILE_MAX_LISTED)):
            self.parsed.rankings[collection][position] = values
            return
        diagnosis = self._diagnose(configs, kind, n_configs, Scanned(values, n_tokens, flags), line)
        for code, message in diagnosis.problems:
            self.log.add(code, message, line=line, id=graph_id)
        if diagnosis.one_past_end:
            self.ledger.lists_one_past_end(line, [code for code, _ in diagnosis.problems])
        if diagnosis.usable.size:
            self.parsed.rankings[collection][position] = diagnosis.usable.astype(INDEX_DTYPE).tobytes()

    def _diagnose(self, configs, kind: str, n_configs: int | None, scanned: Scanned, line: int):
        """:func:`.topconfigs.diagnose` of a field, after :class:`.hints.FieldHints` has recognised indices joined by
        spaces or written as a list (one problem for the file, not one per row)."""
        if scanned.flags & FLAG_BAD_TOKEN and (rewritten := self.field_hints.rewrite(configs, line)) is not None:
            configs, scanned = rewritten, Scanned(*self.scan_indices(rewritten, -1 if n_configs is None else n_configs))
        return diagnose(configs, kind, n_configs, scanned)

    def _unknown(self, line: int, graph_id: str, configs: bytes | memoryview) -> None:
        """A row whose ID is not a graph of the split: the ID's problem (with a hint while problems are listed one
        by one), then the field's syntax; rows of a collection the data root lacks (or a selection leaves out) are
        only counted."""
        if graph_id in self.catalog.unselected:
            self.absent.setdefault(_UNSELECTED, []).append(line)
            return
        parts = split_submission_id(graph_id.strip())
        if parts is not None and parts[0].name not in self.catalog.collections:
            self.absent.setdefault(parts[0].name, []).append(line)
            return
        code = code_of(graph_id)
        if self.log.listing(code):
            self.log.add(*self.hints.explain(graph_id), line=line, id=shorten(graph_id))
        else:
            self.log.add(code, "", line=line)  # counted, not listed: no need to work out a hint
        scanned = Scanned(*self.scan_indices(configs, -1))
        if scanned.flags:
            for code, message in self._diagnose(configs, "layout", None, scanned, line).problems:
                self.log.add(code, message, line=line, id=shorten(graph_id))

    def finish(self) -> None:
        """The problems of the whole file: counting from 1, the field hints, rows not scored."""
        if self.ledger.one_past_end:
            stored = [ranking for rankings in self.parsed.rankings.values() for ranking in rankings.values()]
            found = self.ledger.one_based(bool((np.frombuffer(b"".join(stored), dtype=INDEX_DTYPE) == 0).any()))
            if found is not None:
                (code, message, line), withdrawn = found
                self.log.withdraw(withdrawn)
                self.log.add(code, message, line=line)
        self.field_hints.report(self.log)
        catalog, unselected = self.catalog, self.absent.pop(_UNSELECTED, None)
        if unselected:
            self.log.add("GRAPH_NOT_SELECTED", f"{len(unselected)} row(s) (line {preview(unselected, 3)}) are not "
                         "scored: --graphs leaves their graphs out.")
        for name, at in self.absent.items():
            if name in catalog.left_out:
                self.log.add("COLLECTION_NOT_SELECTED", f"{len(at)} row(s) of {name} (line {preview(at, 3)}) are "
                             f"not scored: --collections leaves {name} out.")
            else:
                self.log.add("COLLECTION_ABSENT", f"{len(at)} row(s) of {name} (line {preview(at, 3)}) are not "
                             f"scored: the {catalog.root.noun} has no {name} {catalog.split} graphs.")


def _missing_ids(catalog: SplitCatalog, lines: dict[str, int], log: ProblemLog) -> dict[str, list[str]]:
    """IDs of the split without a row (``lines``: the known IDs with one), and one MISSING_IDS problem per collection
    that has some."""
    if (not lines and any(log.counts[code] for code in _NOTHING_READ)) or len(lines) == len(catalog.index):
        return {}  # nothing was readable (one problem says so), or every ID has a row (lines holds known IDs only)
    missing = missing_ids(lines, {name: graphs.ids for name, graphs in catalog.collections.items()}, catalog.split)
    hint = collections_hint(catalog, lines)  # said once, on the first MISSING_IDS
    for _, _, message in missing:
        log.add("MISSING_IDS", message + hint)
        hint = ""
    return {name: ids for name, ids, _ in missing}
