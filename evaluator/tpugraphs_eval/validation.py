"""Stage 2 of scoring: a submission file + a split catalog → every problem, and the parsed rankings.

Validation is the first stage of scoring: :func:`validate_submission` is the only parser of
submissions, and :mod:`tpugraphs_eval.scoring` scores what it returns. Format: SPEC §2.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ._native import scan_indices
from .csvfile import SubmissionCsv, SubmissionSource, read_submission_bytes
from .groundtruth import SplitCatalog
from .hints import IdHints
from .indices import diagnose
from .problems import Mode, Problem, ProblemLog, Severity, preview

_MISSING_NAMED = 5
_NOT_TRUNCATION = {"UNKNOWN_COLLECTION", "DUPLICATE_ID", "NOT_UTF8", "NON_INTEGER", "NEGATIVE_INDEX", "CRLF",
                   "QUOTED_FIELD"}
"""Problems on a last line that a cut-off file would not explain (UNKNOWN_ID may: a cut ID)."""


@dataclass
class ParsedSubmission:
    """What scoring needs from a submission.

    Attributes:
        packed: collection name → {graph position → the ranking as native int32 bytes}: config
            indices, predicted fastest first. Strict: exactly the row's indices. Lenient: its
            distinct valid indices in order. (Bytes, so that tile rows join into one array at once.)
        lines: submission ID → line number of its row.
    """

    packed: dict[str, dict[int, bytes]] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)


@dataclass
class Validation:
    """The outcome of validating one submission against one split.

    Attributes:
        mode: ``strict`` or ``lenient``.
        problems: every problem, in file order (file-level ones last).
        submission: the parsed rankings (complete only when ``valid``).
        missing_ids: collection name → IDs of the split with no row.
        sha256: hex digest of the submission file's bytes.
        n_rows: data rows read.
    """

    mode: Mode
    problems: list[Problem]
    submission: ParsedSubmission
    missing_ids: dict[str, list[str]]
    sha256: str
    n_rows: int

    @property
    def n_errors(self) -> int:
        """Number of error-severity problems."""
        return sum(p.severity == Severity.ERROR for p in self.problems)

    @property
    def valid(self) -> bool:
        """True when no problem is an error under the mode in force."""
        return self.n_errors == 0


def validate_submission(source: SubmissionSource, catalog: SplitCatalog, *, mode: Mode = "strict") -> Validation:
    """Check a submission against the graphs of a split, reporting every problem in one pass.

    Args:
        source: path, bytes or binary file object of the CSV.
        catalog: the split's graphs and config counts (:func:`groundtruth.scan_catalog`, or
            ``GroundTruth.catalog``).
        mode: ``strict`` (every problem an error) or ``lenient`` (Kaggle-compatible, SPEC §2).

    Returns:
        A :class:`Validation`; never raises for bad content.

    Raises:
        UsageError: ``source`` is a path that cannot be read.
    """
    log = ProblemLog(mode)
    csv_file = SubmissionCsv(read_submission_bytes(source), log)
    hints = IdHints(catalog)
    parsed = ParsedSubmission(packed={name: {} for name in catalog.collections})
    specs = catalog.row_specs
    packed_of = parsed.packed
    lines = parsed.lines
    n_rows = 0

    for line, graph_id, configs in csv_file:
        n_rows += 1
        spec = specs.get(graph_id)
        if spec is None:
            code, message = hints.explain(graph_id)
            log.add(code, message, line=line, id=graph_id)
            for code, message in diagnose(configs, "layout", None).problems:
                log.add(code, message, line=line, id=graph_id)
            continue
        first = lines.setdefault(graph_id, line)
        if first != line:
            log.add("DUPLICATE_ID", f"second row for this ID (first at line {first}).", line=line, id=graph_id)
            continue
        collection, position, n_configs, need, kind = spec
        packed, n_tokens, flags = scan_indices(configs, n_configs)
        if flags == 0 and n_tokens == need:
            packed_of[collection][position] = packed
            continue
        diagnosis = diagnose(configs, kind, n_configs)
        for code, message in diagnosis.problems:
            log.add(code, message, line=line, id=graph_id)
        if diagnosis.usable.size:
            packed_of[collection][position] = diagnosis.usable.astype(np.int32).tobytes()

    if csv_file.last_line and not csv_file.ends_with_newline:
        last = [p for p in log.problems if p.line == csv_file.last_line and p.code not in _NOT_TRUNCATION]
        if last:
            log.add("NO_FINAL_NEWLINE", "the file ends without a newline right after a line with problems: "
                    "was it cut off?", line=csv_file.last_line, id=last[0].id)

    missing_ids = _missing_ids(catalog, lines, log)
    return Validation(mode, log.problems, parsed, missing_ids, csv_file.sha256, n_rows)


def _missing_ids(catalog: SplitCatalog, lines: dict[str, int], log: ProblemLog) -> dict[str, list[str]]:
    """IDs of the split without a row, and one MISSING_IDS problem per collection that has some."""
    missing: dict[str, list[str]] = {}
    if not lines and log.problems and log.problems[0].code in ("EMPTY_FILE", "NOT_TEXT"):
        return missing  # nothing was readable: one problem says so, no need for five more
    if len(lines) == len(catalog.index):
        return missing  # every ID of the split has a row (lines holds known IDs only)
    for name, graphs in catalog.collections.items():
        absent = [graph_id for graph_id in graphs.ids if graph_id not in lines]
        if absent:
            missing[name] = absent
            log.add("MISSING_IDS", f"{len(absent)} of the {len(graphs.names)} {name} "
                    f"{catalog.split} graphs have no row: {preview(absent, _MISSING_NAMED)}.")
    return missing
