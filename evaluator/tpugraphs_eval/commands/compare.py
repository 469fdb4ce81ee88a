"""``tpugraphs-eval compare A.csv B.csv``: is B better than A on the same graphs? (a thin layer)

Both files are scored by :class:`api.Evaluator` against one ground truth read once; the
comparison is :func:`scoring.compare.paired_bootstrap` on their per-graph primary metrics. Exit codes:
0 compared, 1 a submission is invalid (``INVALID_SUBMISSION``, nothing compared), 2 usage or data problem.
``--public-only``: on the public graphs only, shown as
:func:`..report.public_comparison.public_comparison` (what a participant may see; docs/public-view.md).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from .. import display
from ..defaults import COMPARE_RESAMPLES, COMPARE_SEED, MAX_RESAMPLES
from ..display import number, safe
from ..entrypoint import int_at_least, stop_at_closed_pipe
from ..errors import EXIT_OK, InvalidSubmissionError
from .scoring_options import add_scoring_options, load_evaluator


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Add the ``compare`` command to the ``tpugraphs-eval`` sub-commands."""
    text = "paired bootstrap over graphs: is submission B better than A? (difference B - A, 95% interval)"
    # argparse %-formats help texts (a bare % crashed `tpugraphs-eval --help`), not descriptions
    sub = commands.add_parser("compare", help=text.replace("%", "%%"),
                              description=text + ". Positive differences mean B is better.")
    sub.add_argument("a", type=Path, metavar="A", help="the reference submission CSV")
    sub.add_argument("b", type=Path, metavar="B", help="the submission compared with A")
    add_scoring_options(sub)
    sub.add_argument("--resamples", type=int_at_least(1, MAX_RESAMPLES), default=COMPARE_RESAMPLES, metavar="N",
                     help=f"bootstrap resamples (default {COMPARE_RESAMPLES}, at most {MAX_RESAMPLES:,})")
    sub.add_argument("--seed", type=int_at_least(0), default=COMPARE_SEED,
                     help=f"seed of the resampling (default {COMPARE_SEED})")
    sub.add_argument("--json", metavar="PATH", help="write the comparison as JSON to PATH (`-`: stdout, the "
                                                    "table then goes to stderr)")


def _table(title: str, rows: list[tuple[str, dict[str, Any]]], *, counts: bool):
    """A rich table of Difference rows (``rows``: name → :meth:`..scoring.compare.Difference.to_dict`, a public
    comparison's possibly without the resampled fields); ``counts``: the last row is the overall, and a column
    gives the per-graph +/-/= tally."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1))
    for column in ("collection", "A", "B", "B - A", "95% interval", "B wins", *(("+/-/=",) if counts else ())):
        table.add_column(column, justify="left" if column == "collection" else "right", no_wrap=True)
    for i, (name, d) in enumerate(rows):
        interval = "—" if d.get("low") is None else f"{number(d['low'], 4, sign=True)} {number(d['high'], 4, sign=True)}"
        cells = [Text(name.removeprefix("layout:").replace("default", "def").replace("random", "rnd"),
                      style="bold" if name == "overall" else ""), number(d.get("a"), 4), number(d.get("b"), 4),
                 number(d.get("difference"), 4, sign=True), interval,  # B wins; tied: every resample a tie
                 "—" if d.get("b_wins") is None else "tied" if d["tied"] == 1 else f"{100 * d['b_wins']:.1f}%"]
        if counts:
            graphs = d.get("graphs")  # a public comparison may leave the resampled fields out (public_rows)
            tally = "—" if graphs is None else f"{graphs['wins']}/{graphs['losses']}/{graphs['ties']}"
            cells.append(tally + (f" ({graphs['undefined']} undef.)" if graphs is not None and graphs["undefined"]
                                  else ""))
        table.add_row(*cells, end_section=counts and i == len(rows) - 2)
    return table


def _show(console, document: dict[str, Any]) -> None:
    from rich.text import Text

    from ..report.public_comparison import FEW_GRAPHS
    from ..rules.metric_table import BY_NAME
    from ..rules.public_rule import MIN_PUBLIC_GRAPHS
    from ..scoring.compare import MIN_GRAPHS

    console.print(Text(f"A: {safe(str(document['a']))}\nB: {safe(str(document['b']))}", style="bold"))
    if document["selected_collections"] is not None:
        console.print(f"[bold]collections {', '.join(document['selected_collections'])} only (--collections): "
                      "the overall is their mean[/]")
    if document["synthetic"]:
        console.print("[bold magenta]SYNTHETIC demo data: these numbers say nothing about real TpuGraphs "
                      "performance.[/]")
    public = " (public graphs only)" if document["graphs_compared"] != "all" else ""
    console.print(_table(f"B - A, split {document['split']}{public}: tile score, layout tau-b (positive: B better)",
                         [*document["collections"].items(), ("overall", document["overall"])], counts=True))
    for metric, rows in document.get("secondary", {}).items():
        console.print(_table(f"B - A, secondary: layout {BY_NAME[metric].label} (not in the overall)",
                             list(rows.items()), counts=False))
    console.print(f"[dim]Paired bootstrap over graphs, stratified by collection: {document['resamples']} "
                  f"resamples, seed {document['seed']}; {round(100 * document['level'])}% percentile interval. "
                  "B wins: share of resamples where B - A > 0 (ties count half; tied: every one equal; —: fewer than "
                  f"{MIN_GRAPHS} graphs). Graphs: B better (+), worse (-), equal (=).[/]")
    if document["graphs_compared"] != "all":
        console.print(f"[bold]Public leaderboard only: every number is over the public graphs.[/] Shown: a "
                      f"collection with at least {MIN_PUBLIC_GRAPHS} public graphs; an interval, B wins and "
                      f"+/-/= where every collection drawn has at least {FEW_GRAPHS} (with fewer they come close "
                      "to single graphs' values).")
        if document["collections_not_shown"]:
            console.print(f"Not shown: {', '.join(document['collections_not_shown'])}.")
    noisy = [name for name, d in document["collections"].items() if d.get("within_noise")]
    if noisy:
        console.print(f"[yellow]Inside the measurement noise (|B - A| <= 2 x the spread noise alone gives a difference; "
                      f"docs/metrics.md): {', '.join(noisy)}.[/]")
    few = [name for name, d in document["collections"].items() if d["n_graphs"] < FEW_GRAPHS and "low" in d]
    if few:
        console.print(f"[yellow]Fewer than {FEW_GRAPHS} graphs in {', '.join(few)}: a bootstrap over so few graphs "
                      "gives intervals that are too narrow; read them as rough.[/]")


def run_compare(args: argparse.Namespace) -> int:
    """The ``compare`` command: score A and B, compare, print the table and write ``--json``."""
    from ..outputs import graphs_root, refuse_output_is_input, write_stream
    from ..report.public_comparison import public_comparison
    from ..scoring.compare import compare_reports

    refuse_output_is_input([("--json", args.json)], [args.a, args.b, args.solution], data_root=graphs_root(args))
    console = display.console(stderr=args.json == "-")
    evaluator = load_evaluator(args, progress=not args.no_progress and console.is_terminal)
    a, b = [evaluator.score(path) for path in (args.a, args.b)]  # the organiser reports
    invalid = [f"{label} ({path}): {r.n_errors} error(s)" for label, path, r in zip("AB", (args.a, args.b), (a, b))
               if not r.valid]
    if invalid:
        mode = " --lenient" if args.lenient else ""
        raise InvalidSubmissionError(f"cannot compare, invalid submission: {'; '.join(invalid)}. "
                                     f"`tpugraphs-eval FILE --split {a.split}{mode} ...` lists the problems")
    document, collections, overall = compare_reports(a, b, public_only=args.public_only, resamples=args.resamples,
                                                     seed=args.seed)
    if args.public_only:
        document = public_comparison(document, collections, overall).to_dict()
    if args.json:
        write_stream(args.json, json.dumps(document, indent=2) + "\n", "the comparison")
    with stop_at_closed_pipe():
        _show(console, document)
    return EXIT_OK
