"""``tpugraphs-eval compare A.csv B.csv``: is B better than A on the same graphs? (a thin layer)

Both files are scored by :class:`api.Evaluator` against one ground truth read once; the
comparison is :func:`scoring.compare.paired_bootstrap` on their per-graph primary metrics. Exit codes:
0 compared, 1 a submission is invalid (``INVALID_SUBMISSION``, nothing compared), 2 usage or data problem.

``--public-only`` (with a solution file): both files are compared on the public leaderboard's graphs only
(each report's ``leaderboards["public"]``), so every number is computed from public graphs, and the output is
what a participant may see: :func:`..report.public_comparison.public_comparison` (no graph ID, no per-graph
number; a collection with at least 2 public graphs, resampled fields only with at least 10 in every
collection drawn; the reasoning: docs/public-view.md).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import display
from ..defaults import COMPARE_RESAMPLES, COMPARE_SEED, MAX_RESAMPLES
from ..display import safe
from ..errors import EXIT_OK, InvalidSubmissionError, UsageError
from .entrypoint import int_at_least, stop_at_closed_pipe
from .scoring_options import add_scoring_options, load_evaluator

if TYPE_CHECKING:  # the bootstrap, numpy and the report modules are imported when the command runs, not by --help
    from ..report.report import Report

COMPARE_FORMAT = 1
"""Version of the JSON layout of ``compare --json``."""

SIGN = "difference = B - A in the collection's metric; positive means B is better"


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


def _score_both(args: argparse.Namespace, progress: bool) -> tuple[Report, Report]:
    """The organiser reports of A and B (:meth:`Evaluator.score`): ``--public-only`` compares their public
    boards, and only :func:`public_comparison` of that is shown."""
    evaluator = load_evaluator(args, progress=progress)
    reports = [evaluator.score(path) for path in (args.a, args.b)]
    invalid = [f"{label} ({path}): {r.n_errors} error(s)"
               for label, path, r in zip("AB", (args.a, args.b), reports, strict=True) if not r.valid]
    if invalid:
        mode = " --lenient" if args.lenient else ""
        raise InvalidSubmissionError(f"cannot compare, invalid submission: {'; '.join(invalid)}. "
                                     f"`tpugraphs-eval FILE --split {reports[0].split}{mode} ...` lists the problems")
    return reports[0], reports[1]


def compare_reports(a: Report, b: Report, *, public_only: bool = False, resamples: int = COMPARE_RESAMPLES,
                    seed: int = COMPARE_SEED) -> dict[str, Any]:
    """The comparison document of two scored reports of the same split (the ``--json`` output).

    Args:
        a, b: organiser reports (not a :class:`..report.public.PublicReport`, which holds no per-graph value).
        public_only: compare the public leaderboard's graphs (the reports' ``leaderboards["public"]``) and
            return :func:`public_comparison` of the document.
        resamples, seed: the bootstrap's.

    Returns:
        ``{compare_format, a, b, split, data_root, synthetic, graphs_compared, sign, resamples, seed, level,
        selected_collections, collections: {name: Difference.to_dict() + metric + n_graphs},
        overall: Difference.to_dict(), secondary: {opa: {name: Difference.to_dict() + n_graphs}} (the layout
        collections' OPA, the same resamples; the secondary metric is not in the overall), options,
        provenance}``; with ``public_only`` the
        :meth:`..report.public_comparison.PublicComparison.to_dict` of :func:`public_comparison` of it.

    Raises:
        UsageError: the reports are not over the same graphs; ``public_only`` without a public leaderboard.
    """
    from ..report.public_comparison import public_comparison
    from ..rules.metric_table import BY_NAME
    from ..scoring.bootstrap import draw_positions
    from ..scoring.compare import LEVEL, paired_bootstrap

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
        "collections": {name: {"metric": metrics[name], "n_graphs": int(per_graph_a[name].size), **d.to_dict(),
                               **({"within_noise": scores_a.noise[name].within_noise(d.difference),
                                   "noise_spread": scores_a.noise[name].spread} if name in scores_a.noise else {})}
                        for name, d in collections.items()},
        "overall": overall.to_dict(),
        "secondary": _secondary(scores_a, scores_b, positions),
        "options": a.options.to_dict(),
        "provenance": {"a_sha256": a.provenance["submission_sha256"], "b_sha256": b.provenance["submission_sha256"],
                       "ground_truth_sha256": a.provenance["ground_truth_sha256"],
                       "evaluator_version": a.provenance["evaluator_version"]},
    }
    return public_comparison(document, collections, overall).to_dict() if public_only else document


def _secondary(scores_a, scores_b, positions: dict) -> dict[str, dict[str, Any]]:
    """The paired bootstrap of the secondary metric shown beside the value (OPA) over the collections that have
    it (layout), with the primary comparison's resamples: ``{opa: {name: Difference.to_dict() + n_graphs}}``."""
    from ..rules.metric_table import BESIDE_PRIMARY, BY_NAME
    from ..scoring.compare import paired_bootstrap

    names = [n for n, r in scores_a.collections.items() if BESIDE_PRIMARY in r.per_graph]
    if not names:
        return {}
    a = {n: scores_a.collections[n].per_graph[BESIDE_PRIMARY] for n in names}
    b = {n: scores_b.collections[n].per_graph[BESIDE_PRIMARY] for n in names}
    differences, _ = paired_bootstrap(a, b, {n: positions[n] for n in names},
                                      higher_is_better=BY_NAME[BESIDE_PRIMARY].higher_is_better)
    return {BESIDE_PRIMARY: {n: {"n_graphs": int(a[n].size), **d.to_dict()} for n, d in differences.items()}}


def _wins(d: dict[str, Any]) -> str:
    """B's share of wins: "—" without one, "tied" when every resample is a tie (A and B equal there)."""
    return "—" if d.get("b_wins") is None else "tied" if d["tied"] == 1 else f"{100 * d['b_wins']:.1f}%"


def _fmt(value: float | None, digits: int = 4, sign: bool = False) -> str:
    return "—" if value is None or value != value else f"{value:{'+' if sign else ''}.{digits}f}"


def _show(console, document: dict[str, Any]) -> None:
    from rich import box
    from rich.table import Table
    from rich.text import Text

    from ..report.public_comparison import FEW_GRAPHS
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
                      _wins(d), counts,
                      end_section=i == len(rows) - 1)
    console.print(table)
    _show_secondary(console, document)
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


def _show_secondary(console, document: dict[str, Any]) -> None:
    """The table of the secondary metric's differences (layout OPA), when the document has one."""
    from rich import box
    from rich.table import Table

    from ..rules.metric_table import BY_NAME

    for metric, rows_of in document.get("secondary", {}).items():
        label = BY_NAME[metric].label
        extra = Table(title=f"B - A, secondary: layout {label} (not in the overall)", title_justify="left",
                      box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1))
        for column in ("collection", "A", "B", "B - A", "95% interval", "B wins"):
            extra.add_column(column, justify="left" if column == "collection" else "right", no_wrap=True)
        for name, d in rows_of.items():
            interval = "—" if d.get("low") is None else f"{_fmt(d['low'], sign=True)} {_fmt(d['high'], sign=True)}"
            extra.add_row(name.removeprefix("layout:").replace("default", "def").replace("random", "rnd"),
                          _fmt(d.get("a")), _fmt(d.get("b")), _fmt(d.get("difference"), sign=True), interval,
                          _wins(d))
        console.print(extra)


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
