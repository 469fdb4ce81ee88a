"""The problems a submission can have, as the package reports them: :class:`Code` records, :class:`Problem` and the
log that collects them. The codes and their severities are one table, :data:`..rules.codes.PROBLEM_CODES` (shared
with the Codabench scoring program and the exported Kaggle metric; docs/codes.md lists it). Codes never change
meaning once released: tools may match on them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from ..rules.codes import MODES, PROBLEM_CODES, preview  # noqa: F401 (MODES re-exported)

Mode = Literal["strict", "lenient"]
"""One of :data:`..rules.codes.MODES`."""


class Severity(StrEnum):
    """How much a problem matters: an error makes the submission invalid."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


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


CODES: dict[str, Code] = {name: Code(name, Severity(strict), Severity(lenient), meaning)
                          for name, strict, lenient, meaning in PROBLEM_CODES}
"""Code name → its :class:`Code`, in the order of :data:`..rules.codes.PROBLEM_CODES` (the one table)."""


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

    def withdraw(self, codes_by_line: dict[int, list[str]]) -> None:
        """Take back problems already added: line → the codes added on it (each code once per entry), for a
        file-level problem that explains them (INDICES_ONE_BASED)."""
        for codes in codes_by_line.values():
            self.counts.subtract(codes)
        self.counts = +self.counts  # drop the codes counted 0 times
        self.problems = [p for p in self.problems if p.code not in codes_by_line.get(p.line, ())]

    def listed(self) -> list[Problem]:
        """The problems listed one by one, then one summary per code that had more."""
        extra = [Problem(None, None, code, CODES[code].severity(self.mode),
                         f"{n - MAX_LISTED_PER_CODE} more {code} problems are counted but not listed one by one "
                         f"(the first {MAX_LISTED_PER_CODE} are); {n} in all.")
                 for code, n in self.counts.items() if n > MAX_LISTED_PER_CODE]
        return self.problems + extra


__all__ = ["CODES", "MODES", "Code", "Mode", "Problem", "ProblemLog", "Severity", "codes_markdown",
           "markdown_cell", "preview"]
