"""Stage 2 of scoring: a submission file + a split catalog → every problem, and the parsed rankings.

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
from ..rules.topconfigs import MAX_FIELD_BYTES, ONE_BASED_FOLLOWS, TILE_MAX_LISTED, one_based, too_long
from ..truth.groundtruth import SplitCatalog
from .csvfile import SubmissionCsv, SubmissionSource, read_submission_bytes
from .hints import FieldHints, IdHints, code_of, collections_hint
from .problems import CODES, Mode, Problem, ProblemLog, Severity, errors_in, preview
from .rankings import INDEX_DTYPE, Rankings
from .topconfigs import diagnose

_MISSING_NAMED = 5
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
    """The outcome of validating one submission against one split.

    Its ``repr`` and notebook table (``_repr_html_``) are short: the verdict and the count of each problem code
    (the problems themselves: :attr:`problems`, or ``tpugraphs-eval validate``).

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
        return errors_in(self.counts, self.mode)

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
    """Check a submission against the graphs of a split, reporting every problem in one pass.

    Every row first gets the fast check ``scan_indices`` (:mod:`kernels`: plain integers, in range, no
    repeats, in one pass); only rows it does not pass as clean are diagnosed in detail
    (:func:`topconfigs.diagnose`), after :class:`hints.FieldHints` has recognised indices joined by
    spaces or written as a list (one problem for the file, not one per row).

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
    scan_indices = kernels.active().scan_indices
    log = ProblemLog(mode)
    csv_file = SubmissionCsv(read_submission_bytes(source), log)
    hints = IdHints(catalog)
    field_hints = FieldHints()
    parsed = ParsedSubmission(rankings={name: Rankings() for name in catalog.collections})
    specs = catalog.row_specs
    rankings_of = parsed.rankings
    lines = parsed.lines
    absent: dict[str, list[int]] = {}  # rows of collections absent or left out: collection → line numbers
    one_past_end: dict[int, list[str]] = {}  # rows whose only out-of-range index is c: line → their problem codes
    n_rows = 0

    for line, graph_id, configs in csv_file:
        n_rows += 1
        spec = specs.get(graph_id)
        if len(configs) > MAX_FIELD_BYTES:
            log.add(*too_long(len(configs)), line=line, id=shorten(graph_id))
            if spec is not None:
                lines.setdefault(graph_id, line)  # the row exists: its ID is not missing
            continue
        if spec is None:
            _unknown_row(line, graph_id, configs, catalog, hints, field_hints, log, absent)
            continue
        first = lines.setdefault(graph_id, line)
        if first != line:
            log.add("DUPLICATE_ID", f"second row for this ID (first at line {first}).", line=line, id=graph_id)
            continue
        collection, position, n_configs, need, kind = spec
        values, n_tokens, flags = scan_indices(configs, n_configs)
        if flags == 0 and (n_tokens == need or (kind == "tile" and need < n_tokens <= TILE_MAX_LISTED)):
            rankings_of[collection][position] = values
            continue
        scanned = Scanned(values, n_tokens, flags)
        if flags & FLAG_BAD_TOKEN and (rewritten := field_hints.rewrite(configs, line)) is not None:
            configs, scanned = rewritten, Scanned(*scan_indices(rewritten, n_configs))
        diagnosis = diagnose(configs, kind, n_configs, scanned)
        for code, message in diagnosis.problems:
            log.add(code, message, line=line, id=graph_id)
        if diagnosis.one_past_end:
            one_past_end[line] = [code for code, _ in diagnosis.problems if code in ONE_BASED_FOLLOWS]
        if diagnosis.usable.size:
            rankings_of[collection][position] = diagnosis.usable.astype(INDEX_DTYPE).tobytes()

    if one_past_end:
        _one_based(one_past_end, rankings_of, lines, log)
    field_hints.report(log)
    unselected = absent.pop(_UNSELECTED, None)
    if unselected:
        log.add("GRAPH_NOT_SELECTED", f"{len(unselected)} row(s) (line {preview(unselected, 3)}) are not scored: "
                "--graphs leaves their graphs out.")
    for name, at in absent.items():
        if name in catalog.left_out:
            log.add("COLLECTION_NOT_SELECTED", f"{len(at)} row(s) of {name} (line {preview(at, 3)}) are not "
                    f"scored: --collections leaves {name} out.")
        else:
            log.add("COLLECTION_ABSENT", f"{len(at)} row(s) of {name} (line {preview(at, 3)}) are not scored: "
                    f"the {catalog.root.noun} has no {name} {catalog.split} graphs.")
    if csv_file.last_line and not csv_file.ends_with_newline:
        last = [p for p in log.problems if p.line == csv_file.last_line and p.code not in _NOT_TRUNCATION]
        if last:
            log.add("NO_FINAL_NEWLINE", "the file ends without a newline right after a line with problems: "
                    "was it cut off?", line=csv_file.last_line, id=last[0].id)

    missing_ids = _missing_ids(catalog, lines, log)
    return Validation(mode, log.listed(), log.counts, parsed, missing_ids, csv_file.sha256, n_rows)


_UNSELECTED = ""
"""The key of :func:`_unknown_row`'s ``absent`` under which rows of graphs left out by ``--graphs`` are counted."""


def _unknown_row(line: int, graph_id: str, configs: bytes | memoryview, catalog: SplitCatalog, hints: IdHints,
                 field_hints: FieldHints, log: ProblemLog, absent: dict[str, list[int]]) -> None:
    """A row whose ID is not a graph of the split: the ID's problem (with a hint while problems are listed
    one by one), then the field's syntax; rows of a collection the data root lacks (or a selection leaves
    out) are only counted."""
    if graph_id in catalog.unselected:
        absent.setdefault(_UNSELECTED, []).append(line)
        return
    parts = split_submission_id(graph_id.strip())
    if parts is not None and parts[0].name not in catalog.collections:
        absent.setdefault(parts[0].name, []).append(line)
        return
    code = code_of(graph_id)
    if log.listing(code):
        log.add(*hints.explain(graph_id), line=line, id=shorten(graph_id))
    else:
        log.add(code, "", line=line)  # counted, not listed: no need to work out a hint
    scanned = Scanned(*kernels.active().scan_indices(configs, -1))
    if scanned.flags and (rewritten := field_hints.rewrite(configs, line)) is not None:
        configs, scanned = rewritten, Scanned(*kernels.active().scan_indices(rewritten, -1))
    if scanned.flags:
        for code, message in diagnose(configs, "layout", None, scanned).problems:
            log.add(code, message, line=line, id=shorten(graph_id))


def _one_based(one_past_end: dict[int, list[str]], rankings_of: dict[str, Rankings], lines: dict[str, int],
               log: ProblemLog) -> None:
    """One INDICES_ONE_BASED problem in place of the rows' own when the file counts from 1
    (:func:`..rules.topconfigs.one_based`: no row lists configuration 0; checked only when some row lists c)."""
    stored = [ranking for rankings in rankings_of.values() for ranking in rankings.values()]
    zero_listed = bool((np.frombuffer(b"".join(stored), dtype=INDEX_DTYPE) == 0).any())
    found = one_based(sorted(one_past_end), len(lines), zero_listed)
    if found is not None:
        log.withdraw(one_past_end)
        code, message, line = found
        log.add(code, message, line=line)


def _missing_ids(catalog: SplitCatalog, lines: dict[str, int], log: ProblemLog) -> dict[str, list[str]]:
    """IDs of the split without a row, and one MISSING_IDS problem per collection that has some."""
    missing: dict[str, list[str]] = {}
    if not lines and any(log.counts[code] for code in _NOTHING_READ):
        return missing  # nothing was readable: one problem says so, no need for five more
    if len(lines) == len(catalog.index):
        return missing  # every ID of the split has a row (lines holds known IDs only)
    hint = collections_hint(catalog, lines)  # said once, on the first MISSING_IDS
    for name, graphs in catalog.collections.items():
        absent = [graph_id for graph_id in graphs.ids if graph_id not in lines]
        if absent:
            missing[name] = absent
            log.add("MISSING_IDS", f"{len(absent)} of the {len(graphs.names)} {name} "
                    f"{catalog.split} graphs have no row: {preview(absent, _MISSING_NAMED)}.{hint}")
            hint = ""
    return missing
