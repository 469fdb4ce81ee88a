"""What the kit's commands share: the error-to-exit-code wrapper, the synthetic-data notice, score tables.

Exit codes (same as ``tpugraphs-eval``): 0 ok, 1 invalid submission or failed check, 2 usage or data
problem, 3 internal error (a bug; ``TPUGRAPHS_EVAL_DEBUG=1`` shows the traceback). No bad input
produces a traceback.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable

from tpugraphs_eval import DataRoot, Report, TpuGraphsEvalError

from .errors import EXIT_OK
from .files import write_atomic

EXIT_INTERNAL = 3
SYNTHETIC_NOTICE = ("SYNTHETIC demo data: these numbers come from random synthetic graphs, not TPU measurements; "
                    "they show that the pipeline works, not how good a model is on TpuGraphs.")


def error_code(err: BaseException) -> str:
    """The stable code of an error: its ``code`` attribute, else its class name in upper snake case."""
    code = getattr(err, "code", None)
    return code or re.sub(r"(?<!^)(?=[A-Z])", "_", type(err).__name__).upper()


def run(main: Callable[[list[str] | None], int], argv: list[str] | None) -> int:
    """Call ``main(argv)`` and turn every failure into a message on stderr and an exit code."""
    try:
        return main(argv)
    except SystemExit as err:  # argparse: --help (0) or a usage error (2, message already printed)
        return err.code if isinstance(err.code, int) else (0 if err.code is None else 2)
    except TpuGraphsEvalError as err:
        message = str(err)
        prefix = "" if message.startswith("[") else f"[{error_code(err)}] "
        print(f"error: {prefix}{message}", file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception as err:  # noqa: BLE001 - a bug: say so without a traceback unless asked
        if os.environ.get("TPUGRAPHS_EVAL_DEBUG"):
            raise
        print(f"internal error ({type(err).__name__}: {err}); please report it. Set TPUGRAPHS_EVAL_DEBUG=1 to see "
              "the traceback.", file=sys.stderr)
        return EXIT_INTERNAL


def notice(root: DataRoot) -> None:
    """Print the synthetic-data notice when ``root`` is the demo."""
    if root.synthetic:
        print(SYNTHETIC_NOTICE)


def _fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.4f}"


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
    """Print ``title`` on its own line, then a rich table (plain box characters when not a terminal)."""
    from rich.console import Console
    from rich.table import Table

    print(title)
    table = Table()
    for i, header in enumerate(headers):
        table.add_column(header, justify="left" if i < 2 else "right")
    for row in rows:
        table.add_row(*row)
    Console(force_jupyter=False, width=200).print(table)


def print_scores(title: str, columns: list[tuple[str, dict[str, dict[str, object]], str]]) -> None:
    """A table: one row per collection; ``columns`` = (header, score_rows(...), key) triples."""
    names = list(columns[0][1]) if columns else []
    rows = [[name, str(columns[0][1][name]["metric"]),
             *(_fmt(by_name.get(name, {}).get(key)) for _, by_name, key in columns)] for name in names]
    print_table(title, ["collection", "metric", *(header for header, _, _ in columns)], rows)


def write_json(path: str | None, payload: dict) -> None:
    """Write ``payload`` as indented JSON to ``path`` (atomically); nothing when ``path`` is None."""
    if path is not None:
        write_atomic(path, (json.dumps(payload, indent=2, default=float) + "\n").encode())
