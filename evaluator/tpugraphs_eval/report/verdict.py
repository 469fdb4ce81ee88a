"""The one-line verdict of a report (``-q``), written without rich: a quiet run into a pipe or a file imports no
table or console code (docs/performance.md, "Imports")."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..display import number, safe
from ..submission.problems import CODES, Severity

if TYPE_CHECKING:
    from rich.console import Console

    from .public import PublicReport
    from .report import Report


def verdict(console: Console, report: Report | PublicReport, validate_only: bool, label: str | None = None, *,
            hint: bool = True) -> None:
    """One line: VALID (with the overall score when scored) or INVALID with the counts; ``label`` names the file.

    ``hint``: after an INVALID line whose errors Kaggle tolerated, a second line pointing to ``--lenient``
    (``-q`` passes False: the verdict line only)."""
    counts = report.validation.counts
    errors = report.n_errors
    warnings = report.validation.by_severity()[Severity.WARNING]
    head = f"{safe(label)}: " if label else ""
    if errors:
        console.print(f"{head}[bold red]INVALID[/]: {errors} error(s), {warnings} warning(s) in {report.n_rows} "
                      "rows. Nothing was scored.")
        relaxable = {code for code in counts if CODES[code].severity(report.options.mode) == Severity.ERROR}
        if hint and report.options.mode == "strict" and all(CODES[c].lenient != Severity.ERROR for c in relaxable):
            console.print("Every error is one that Kaggle tolerated: --lenient accepts them as warnings and "
                          "scores what remains.")
        return
    scored = "" if validate_only or not report.scored else f": overall {number(report.overall)}"
    console.print(f"{head}[bold green]VALID[/] ({report.n_rows} rows, {warnings} warning(s)){scored}")
