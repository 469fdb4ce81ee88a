"""``tpugraphs-eval compare A.csv B.csv``: is B better than A on the same graphs? (a thin layer)

Both files are scored by :class:`api.Evaluator` against one ground truth read once; the
comparison is :func:`scoring.compare.paired_bootstrap` on their per-graph primary metrics. Exit codes:
0 compared, 1 a submission is invalid (``INVALID_SUBMISSION``, nothing compared), 2 usage or data problem.

``--public-only`` (with a solution file): both files are compared on the public leaderboard's graphs only
(each report's ``leaderboards["public"]``), so every number is computed from public graphs, and the output shows what a
participant may see (:func:`public_comparison`): no graph ID and no per-graph number. **Decision**, per
row of the table (the reasoning: docs/public-view.md):

- A collection's values (A, B, B − A) are shown as every public view shows them
  (:func:`..rules.public_rule.shown_collections`): only with at least ``MIN_PUBLIC_GRAPHS`` (2) public
  graphs (with one, its value is that graph's metric), and none when the collections left out hold exactly
  one public graph between them (the overall less the shown collections would give that graph's value).
- A row's interval, B-wins share, undefined resamples and per-graph tally (+/-/=) are shown only when
  every collection the row is drawn from has at least :data:`FEW_GRAPHS` (10) public graphs (a collection
  row: its own; the overall: every collection). The per-collection intervals leak: with n graphs every
  draw of a resample is one same graph with probability n^(1-n) (50% at 2, 11% at 3, 1.6% at 4), so for
  n <= 3 the ends of a 95% percentile interval are exactly the smallest and largest per-graph differences,
  and for small n they stay close to them; a tally of 2 or 3 graphs tells each graph's direction. The
  overall inherits this from its smallest collection (with ``--collections`` it can be one collection).
  At 10 graphs a resample repeats one graph throughout with probability 1e-9.
- Left out as well: the data root's label and the ground truth's sha256 (a digest of every private runtime),
  as in the public leaderboard.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from .. import display
from ..display import safe
from ..errors import EXIT_OK, InvalidSubmissionError, UsageError
from ..report.report import Report
from ..rules.metric_table import BY_NAME
from ..rules.public_rule import MIN_PUBLIC_GRAPHS, overall_shown, shown_collections
from ..scoring.bootstrap import draw_positions
from ..scoring.compare import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    LEVEL,
    paired_bootstrap,
)
from .entrypoint import int_at_least, stop_at_closed_pipe
from .scoring_options import add_scoring_options, load_evaluator

COMPARE_FORMAT = 1
"""Version of the JSON layout of ``compare --json``."""

FEW_GRAPHS = 10
"""Below this many graphs a collection's bootstrap interval is flagged as rough (percentile intervals
undercover with small samples: Efron & Tibshirani 1993, ch. 13-14)."""

SIGN = "difference = B - A in the collection's metric; positive means B is better"

RESAMPLED_FIELDS = ("low", "high", "b_better", "tied", "b_wins", "undefined_resamples", "graphs")
"""The fields of a row that come from the per-graph values one by one: the bootstrap's and the per-graph tally."""
PUBLIC_FIELDS = ("compare_format", "a", "b", "split", "synthetic", "graphs_compared", "sign", "resamples", "seed",
                 "level", "selected_collections", "collections", "collections_not_shown", "overall", "options",
                 "provenance")
"""The keys of a ``--public-only`` comparison (no ``data_root``; ``provenance`` without ``ground_truth_sha256``)."""


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Add the ``compare`` command to the ``tpugraphs-eval`` sub-commands."""
    text = "paired bootstrap over graphs: is submission B better than A? (difference B - A, 95% interval)"
    # argparse %-formats help texts (a bare % crashed `tpugraphs-eval --help`), not descriptions
    sub = commands.add_parser("compare", help=text.replace("%", "%%"),
                              description=text + ". Positive differences mean B is better.")
    sub.add_argument("a", type=Path, metavar="A", help="the reference submission CSV")
    sub.add_argument("b", type=Path, metavar="B", help="the submission compared with A")
    add_scoring_options(sub)
    sub.add_argument("--resamples", type=int_at_least(1), default=DEFAULT_RESAMPLES, metavar="N",
                     help=f"bootstrap resamples (default {DEFAULT_RESAMPLES})")
    sub.add_argument("--seed", type=int_at_least(0), default=DEFAULT_SEED,
                     help=f"seed of the resampling (default {DEFAULT_SEED})")
    sub.add_argument("--json", metavar="PATH", help="write the comparison as JSON to PATH (`-`: stdout, the "
                                                    "table then goes to stderr)")


def _score_both(args: argparse.Namespace, progress: bool) -> tuple[Report, Report]:
    """The organiser reports of A and B (:meth:`Evaluator.score`): ``--public-only`` compares their public
    boards, and only :func:`public_comparison` of that is shown."""
    evaluator = load_evaluator(args, progress=progress)
    reports = [evaluator.score(path) for path in (args.a, args.b)]
    invalid = [f"{label} ({path}): {r.n_errors} error(s)"
               for label, path, r in zip("AB", (args.a, args.b), reports) if not r.valid]
    if invalid:
        mode = " --lenient" if args.lenient else ""
        raise InvalidSubmissionError(f"cannot compare, invalid submission: {'; '.join(invalid)}. "
                                     f"`tpugraphs-eval FILE --split {reports[0].split}{mode} ...` lists the problems")
    return reports[0], reports[1]


def compare_reports(a: Report, b: Report, *, public_only: bool = False, resamples: int = DEFAULT_RESAMPLES,
                    seed: int = DEFAULT_SEED) -> dict[str, Any]:
    """The comparison document of two scored reports of the same split (the ``--json`` output).

    Args:
        a, b: organiser reports (not :meth:`Report.public_view`, which holds no per-graph value).
        public_only: compare the public leaderboard's graphs (the reports' ``leaderboards["public"]``) and
            return :func:`public_comparison` of the document.
        resamples, seed: the bootstrap's.

    Returns:
        ``{compare_format, a, b, split, data_root, synthetic, graphs_compared, sign, resamples, seed, level,
        selected_collections, collections: {name: Difference.to_dict() + metric + n_graphs},
        overall: Difference.to_dict(), options, provenance}``; with ``public_only`` :func:`public_comparison` of it.

    Raises:
        UsageError: the reports are not over the same graphs; ``public_only`` without a public leaderboard.
    """
    if public_only and not all("public" in r.leaderboards for r in (a, b)):
        raise UsageError("--public-only compares the public leaderboard: score against a solution file")
    scores_a, scores_b = (r.leaderboards["public"] if public_only else r.scores for r in (a, b))
    if list(scores_a.collections) != list(scores_b.collections) or any(
            scores_a.collections[n].ids != scores_b.collections[n].ids for n in scores_a.collections):
        raise UsageError("A and B were not scored over the same graphs")
    metrics = {name: r.metric for name, r in scores_a.collections.items()}
    per_graph_a = {name: r.per_graph[r.metric] for name, r in scores_a.collections.items()}
    per_graph_b = {name: r.per_graph[r.metric] for name, r in scores_b.collections.items()}
    positions = draw_positions({name: v.size for name, v in per_graph_a.items()}, resamples, seed)
    # the primary metrics (tile score, tau-b) are all higher-is-better: B - A needs no flip
    collections, overall = paired_bootstrap(per_graph_a, per_graph_b, positions,
                                            higher_is_better=all(BY_NAME[m].higher_is_better for m in metrics.values()))
    document = {
        "compare_format": COMPARE_FORMAT,
        "a": a.submission, "b": b.submission, "split": a.split, "data_root": a.data_root, "synthetic": a.synthetic,
        "graphs_compared": "public leaderboard only" if public_only else "all",
        "sign": SIGN, "resamples": resamples, "seed": seed, "level": LEVEL,
        "selected_collections": a.selected_collections,
        "collections": {name: {"metric": metrics[name], "n_graphs": int(per_graph_a[name].size), **d.to_dict()}
                        for name, d in collections.items()},
        "overall": overall.to_dict(),
        "options": a.options.to_dict(),
        "provenance": {"a_sha256": a.provenance["submission_sha256"], "b_sha256": b.provenance["submission_sha256"],
                       "ground_truth_sha256": a.provenance["ground_truth_sha256"],
                       "evaluator_version": a.provenance["evaluator_version"]},
    }
    return public_comparison(document) if public_only else document


def public_rows(n_graphs: dict[str, int]) -> tuple[list[str], list[str], bool]:
    """Which rows of a ``--public-only`` comparison are shown, and which with their resampled fields.

    Args:
        n_graphs: collection → its number of public graphs, in table order.

    Returns:
        (collections shown, collections shown with :data:`RESAMPLED_FIELDS`, True when the overall row has
        them): the module docstring's decision.
    """
    shown = shown_collections(n_graphs)
    resampled = [name for name in shown if n_graphs[name] >= FEW_GRAPHS]
    return shown, resampled, all(n >= FEW_GRAPHS for n in n_graphs.values() if n > 0)


def public_comparison(document: dict[str, Any]) -> dict[str, Any]:
    """What a participant may see of a comparison over the public graphs (keys :data:`PUBLIC_FIELDS`).

    Rows and fields follow :func:`public_rows`; the overall keeps ``a``, ``b`` and ``difference`` when at
    least :data:`MIN_PUBLIC_GRAPHS` public graphs are compared. No graph ID is in a comparison at all.
    """
    n_graphs = {name: d["n_graphs"] for name, d in document["collections"].items()}
    shown, resampled, overall_resampled = public_rows(n_graphs)

    def row(d: dict[str, Any], full: bool) -> dict[str, Any]:
        return {key: value for key, value in d.items() if full or key not in RESAMPLED_FIELDS}

    overall = row(document["overall"], overall_resampled) if overall_shown(n_graphs) else {}
    provenance = {key: value for key, value in document["provenance"].items() if key != "ground_truth_sha256"}
    public = {**document, "collections": {name: row(document["collections"][name], name in resampled) for name in shown},
              "collections_not_shown": [name for name in n_graphs if name not in shown], "overall": overall,
              "provenance": provenance}
    return {key: public[key] for key in PUBLIC_FIELDS}


def _fmt(value: float | None, digits: int = 4, sign: bool = False) -> str:
    return "—" if value is None or np.isnan(value) else f"{value:{'+' if sign else ''}.{digits}f}"


def _show(console, document: dict[str, Any]) -> None:
    from rich import box
    from rich.table import Table
    from rich.text import Text

    console.print(Text(f"A: {safe(str(document['a']))}\nB: {safe(str(document['b']))}", style="bold"))
    if document["selected_collections"] is not None:
        console.print(f"[bold]collections {', '.join(document['selected_collections'])} only (--collections): "
                      "the overall is their mean[/]")
    if document["synthetic"]:
        console.print("[bold magenta]SYNTHETIC demo data: these numbers say nothing about real TpuGraphs "
                      "performance.[/]")
    public = " (public graphs only)" if document["graphs_compared"] != "all" else ""
    table = Table(title=f"B - A, split {document['split']}{public}: tile score, layout tau-b (positive: B better)",
                  title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1))
    for column in ("collection", "A", "B", "B - A", "95% interval", "B wins", "+/-/="):
        table.add_column(column, justify="left" if column == "collection" else "right", no_wrap=True)
    rows = list(document["collections"].items())
    for i, (name, d) in enumerate([*rows, ("overall", document["overall"])]):
        graphs = d.get("graphs")  # a public comparison may leave the resampled fields out (public_rows)
        counts = "—" if graphs is None else f"{graphs['wins']}/{graphs['losses']}/{graphs['ties']}"
        if graphs is not None and graphs["undefined"]:
            counts += f" ({graphs['undefined']} undef.)"
        interval = "—" if d.get("low") is None else f"{_fmt(d['low'], sign=True)} {_fmt(d['high'], sign=True)}"
        short = name.removeprefix("layout:").replace("default", "def").replace("random", "rnd")
        table.add_row(Text(short, style="bold" if name == "overall" else ""), _fmt(d.get("a")), _fmt(d.get("b")),
                      _fmt(d.get("difference"), sign=True), interval,
                      "—" if d.get("b_wins") is None else f"{100 * d['b_wins']:.1f}%", counts,
                      end_section=i == len(rows) - 1)
    console.print(table)
    console.print(f"[dim]Paired bootstrap over graphs, stratified by collection: {document['resamples']} "
                  f"resamples, seed {document['seed']}; {round(100 * document['level'])}% percentile interval. "
                  "B wins: share of resamples where B - A > 0 (ties count half). Graphs: B better (+), worse (-), "
                  "equal (=).[/]")
    if document["graphs_compared"] != "all":
        console.print(f"[bold]Public leaderboard only: every number is over the public graphs.[/] Shown: a "
                      f"collection with at least {MIN_PUBLIC_GRAPHS} public graphs; an interval, B wins and "
                      f"+/-/= where every collection drawn has at least {FEW_GRAPHS} (with fewer they come close "
                      "to single graphs' values).")
        if document["collections_not_shown"]:
            console.print(f"Not shown: {', '.join(document['collections_not_shown'])}.")
    few = [name for name, d in document["collections"].items() if d["n_graphs"] < FEW_GRAPHS and "low" in d]
    if few:
        console.print(f"[yellow]Fewer than {FEW_GRAPHS} graphs in {', '.join(few)}: a bootstrap over so few graphs "
                      "gives intervals that are too narrow; read them as rough.[/]")


def run_compare(args: argparse.Namespace) -> int:
    """The ``compare`` command: score A and B, compare, print the table and write ``--json``."""
    from .outputs import graphs_root, refuse_output_is_input, write_stream

    refuse_output_is_input([("--json", args.json)], [args.a, args.b, args.solution], data_root=graphs_root(args))
    console = display.console(stderr=args.json == "-")
    a, b = _score_both(args, progress=not args.no_progress and console.is_terminal)
    document = compare_reports(a, b, public_only=args.public_only, resamples=args.resamples, seed=args.seed)
    if args.json:
        write_stream(args.json, json.dumps(document, indent=2) + "\n", "the comparison")
    with stop_at_closed_pipe():
        _show(console, document)
    return EXIT_OK
