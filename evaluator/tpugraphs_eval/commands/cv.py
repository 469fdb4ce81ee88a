"""``tpugraphs-eval cv SUB --folds folds.csv --split S``: a submission's value on each fold, and mean ± sd."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from .. import display
from ..display import number, safe
from ..entrypoint import stop_at_closed_pipe
from ..errors import EXIT_INVALID, EXIT_OK, UsageError
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
    sub.add_argument("--quiet", "-q", action="store_true", help="print only the mean ± sd line (and warnings)")


def run(args: argparse.Namespace) -> int:
    from ..cv import cross_validate
    from ..outputs import graphs_root, refuse_output_is_input, write_stream
    from ..truth.graph_lists import read_folds

    if args.graphs is not None or args.fold is not None:
        raise UsageError("cv scores every fold of --folds: --graphs and --fold are not used with it")
    if args.public_only:
        raise UsageError("--public-only is not used with cv (a fold's public view could be single graphs' values)")
    refuse_output_is_input([("--json", args.json)], [args.submission, args.folds, args.solution],
                           data_root=graphs_root(args))
    folds = read_folds(args.folds)
    console = (display.quiet_console if args.quiet else display.console)(stderr=args.json == "-")
    selected, args.collections = args.collections, None  # applied to each fold, after its graphs (as --fold K does)
    evaluator = load_evaluator(args, progress=not (args.no_progress or args.quiet) and console.is_terminal)
    result, reports = cross_validate(evaluator, folds, args.submission, selected)
    result["submission"] = str(args.submission)
    result["split"] = evaluator.catalog.split
    result["warnings"] = in_sample_warnings(result)
    if args.json:
        write_stream(args.json, json.dumps(result, indent=2) + "\n", "the JSON report")
    with stop_at_closed_pipe():
        _show(console, result, reports, args.quiet)
    return EXIT_OK if all(r.valid for r in reports) else EXIT_INVALID


IN_SAMPLE_TAU = 0.9
"""A layout collection's mean tau-b on a fold at or above this makes ``cv`` warn that the file looks in-sample."""


def in_sample_warnings(result: dict) -> list[str]:
    """Warnings for folds whose layout values look in-sample: a mean tau-b of :data:`IN_SAMPLE_TAU` or more; tile
    values are not judged (why, and the limits: docs/options.md, "Out-of-fold files")."""
    high = [f"fold {row['fold']}: {name} {value:.3f}" for row in result["folds"]
            for name, value in row["collections"].items()
            if name.startswith("layout:") and value is not None and value >= IN_SAMPLE_TAU]
    if not high:
        return []
    return [f"the file looks in-sample: mean tau-b of {IN_SAMPLE_TAU} or more ({'; '.join(high)}) is what rankings "
            "made by a model that saw these graphs' runtimes score. cv needs out-of-fold rankings, each fold ranked "
            "by a model trained without it (tpugraphs-baseline learned --folds FILE makes them)"]


def _show(console, result: dict, reports: list, quiet: bool) -> None:
    from ..report.verdict import verdict

    for row, report in zip(result["folds"], reports, strict=True):
        if not row["valid"]:
            verdict(console, report, False, label=f"fold {row['fold']}", hint=not quiet)
    if quiet:
        console.print(f"{safe(result['submission'])}: {len(result['folds'])} folds, overall "
                      f"{number(result['mean']['overall'])} ± {number(result['sd']['overall'])}")
    else:
        from rich.table import Table

        names, mean, sd = list(result["mean"]["collections"]), result["mean"], result["sd"]
        table = Table(title=f"{safe(result['submission'])}: {len(result['folds'])} folds of the {result['split']} "
                            "split", title_justify="left")
        for column in ("fold", "graphs", *names, "overall"):
            table.add_column(column, justify="right")
        for row in result["folds"]:
            table.add_row(str(row["fold"]), str(row["graphs"]), *(number(row["collections"].get(n)) for n in names),
                          number(row["overall"]))
        table.add_row("mean ± sd", "", *(f"{number(mean['collections'][n])} ± {number(sd['collections'][n])}"
                                         for n in names), f"{number(mean['overall'])} ± {number(sd['overall'])}")
        console.print(table)
    for warning in result["warnings"]:
        console.print(f"[yellow]warning: {safe(warning)}[/]")
