"""What the kit's commands share: the synthetic-data notice, score tables, ``--json`` output, the ``codes`` command.

Exit codes (same as ``tpugraphs-eval``, by :func:`tpugraphs_eval.entrypoint.guarded_main`): 0 ok, 1 invalid
submission or failed check, 2 usage or data problem, 3 internal error (a bug); no bad input produces a traceback.
"""

from __future__ import annotations

import argparse
import json

from tpugraphs_eval import DataRoot, Report
from tpugraphs_eval.display import console

from .errors import KIT_ERROR_CODES, kit_error_codes_markdown
from .files import write_atomic

SYNTHETIC_NOTICE = ("SYNTHETIC demo data: these numbers come from random synthetic graphs, not TPU measurements; "
                    "they show that the pipeline works, not how good a model is on TpuGraphs.")


def notice(root: DataRoot) -> None:
    """Print the synthetic-data notice when ``root`` is the demo."""
    if root.synthetic:
        print(SYNTHETIC_NOTICE)


def score_rows(report: Report) -> dict[str, dict[str, object]]:
    """Collection → {metric, value, random, oracle, normalised} of a scored report (the evaluator's numbers)."""
    normalised = report.normalised()
    out = {}
    for name, result in report.collections.items():
        ref = report.references.get(name)
        out[name] = {"metric": result.metric, "value": result.value,
                     "random": ref.random if ref else None, "oracle": ref.oracle if ref else None,
                     "normalised": normalised.get(name)}
    return out


def print_table(title: str, headers: list[str], rows: list[list[str]]) -> None:
    """Print ``title`` on its own line, then a rich table (not wrapped at 80 columns in a pipe)."""
    from rich.table import Table

    print(title)
    table = Table()
    for i, header in enumerate(headers):
        table.add_column(header, justify="left" if i < 2 else "right")
    for row in rows:
        table.add_row(*row)
    console().print(table)


def write_json(path: str | None, payload: dict) -> None:
    """Write ``payload`` as indented JSON to ``path`` (atomically); nothing when ``path`` is None."""
    if path is not None:
        write_atomic(path, (json.dumps(payload, indent=2, default=float) + "\n").encode())


def add_codes_command(commands) -> None:
    """Add the ``codes`` command (the kit's own error codes) to a kit CLI's subcommands."""
    sub = commands.add_parser("codes", help="list the kit's own error codes (docs/codes.md, \"Kit error codes\")")
    sub.add_argument("--markdown", action="store_true", help="print the Markdown table of docs/codes.md")


def print_codes(args: argparse.Namespace) -> int:
    """The ``codes`` command: :data:`tpugraphs_kit.errors.KIT_ERROR_CODES` as a table, or as Markdown; exit 0."""
    if args.markdown:
        print(kit_error_codes_markdown(), end="")
    else:
        print_table("The kit's own error codes (printed as `[CODE] message`; see docs/codes.md)",
                    ["code", "meaning"], [[code, meaning] for code, meaning in KIT_ERROR_CODES.items()])
    return 0
