"""``tpugraphs-eval cv SUB --folds folds.csv --split S``: a submission's value on each fold, and mean ± sd."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from .. import display
from ..display import safe
from ..errors import EXIT_INVALID, EXIT_OK, UsageError
from .entrypoint import stop_at_closed_pipe
from .scoring_options import add_scoring_options, load_evaluator


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Add ``cv`` to ``tpugraphs-eval``'s commands."""
    text = ("Cross-validated scores: the submission scored on each fold of a fold file (tpugraphs-data folds), "
            "as --graphs FILE --fold K scores it, then mean ± sd (sample sd) per collection and overall.")
    sub = commands.add_parser("cv", help="a submission's values on each fold and their mean ± sd", description=text)
    sub.add_argument("submission", type=Path, metavar="SUBMISSION", help="the submission CSV (every graph of the split)")
    sub.add_argument("--folds", type=Path, required=True, metavar="FILE", help="a fold file (`ID,fold`)")
    add_scoring_options(sub)
    sub.add_argument("--json", metavar="PATH", help="also write the values as JSON to PATH (`-` for stdout)")


def run(args: argparse.Namespace) -> int:
    from ..prepare.folds import read_folds
    from ..scoring.cv import cross_validate
    from .outputs import graphs_root, refuse_output_is_input, write_stream

    if args.graphs is not None or args.fold is not None:
        raise UsageError("cv scores every fold of --folds: --graphs and --fold are not used with it")
    if args.public_only:
        raise UsageError("--public-only is not used with cv (a fold's public view could be single graphs' values)")
    refuse_output_is_input([("--json", args.json)], [args.submission, args.folds, args.solution],
                           data_root=graphs_root(args))
    folds = read_folds(args.folds)
    console = display.console(stderr=args.json == "-")
    evaluator = load_evaluator(args, progress=not args.no_progress and console.is_terminal)
    result, reports = cross_validate(evaluator, folds, args.submission)
    result["submission"] = str(args.submission)
    result["split"] = evaluator.catalog.split
    if args.json:
        write_stream(args.json, json.dumps(result, indent=2) + "\n", "the JSON report")
    with stop_at_closed_pipe():
        _show(console, result, reports)
    return EXIT_OK if all(r.valid for r in reports) else EXIT_INVALID


def _cell(value: float | None) -> str:
    return "—" if value is None else f"{value:.6f}"


def _show(console, result: dict, reports: list) -> None:
    from rich.table import Table

    from ..report.verdict import verdict

    for row, report in zip(result["folds"], reports):
        if not row["valid"]:
            verdict(console, report, False, label=f"fold {row['fold']}")
    names = list(result["mean"]["collections"])
    table = Table(title=f"{safe(result['submission'])}: {len(result['folds'])} folds of the {result['split']} split",
                  title_justify="left")
    for column in ("fold", "graphs", *names, "overall"):
        table.add_column(column, justify="right")
    for row in result["folds"]:
        table.add_row(str(row["fold"]), str(row["graphs"]), *(_cell(row["collections"].get(n)) for n in names),
                      _cell(row["overall"]))
    mean, sd = result["mean"], result["sd"]
    table.add_row("mean ± sd", "", *(f"{_cell(mean['collections'][n])} ± {_cell(sd['collections'][n])}"
                                     for n in names), f"{_cell(mean['overall'])} ± {_cell(sd['overall'])}")
    console.print(table)
