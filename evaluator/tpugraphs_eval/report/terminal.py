"""Terminal view of a :class:`Report` or a participant's :class:`.public.PublicReport` with rich: header, problem
summary, score tables, verdict. A public report has no per-graph value to show (docs/public-view.md)."""

from __future__ import annotations

from collections import defaultdict

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from .._version import __version__
from ..display import number, safe
from ..rules.metric_table import BESIDE_PRIMARY as BESIDE
from ..rules.metric_table import BY_NAME, ks
from ..rules.public_rule import RULE_IN_WORDS
from ..submission.problems import CODES, MAX_LISTED_PER_CODE, Problem, Severity
from ..submission.validation import Validation
from .public import PublicReport
from .report import Report
from .verdict import verdict  # noqa: F401 (re-exported: the one-line view needs no rich)

_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}


def _label(metric: str) -> str:
    """A metric's short label (:data:`..rules.metric_table.METRICS`)."""
    return BY_NAME[metric].label


def _header(report: Report | PublicReport) -> Text:
    o = report.options
    text = Text(f"tpugraphs-eval {__version__}", style="bold")
    text.append(f" · split {report.split} · data {safe(report.data_root)}")
    text.append(f"\nmode {o.mode} · tile runtime {o.tile_runtime} · layout configs {o.configs}", style="dim")
    if report.synthetic:
        text.append("\nSYNTHETIC demo data: these numbers say nothing about real TpuGraphs performance.",
                    style="bold magenta")
    if report.selected_collections is not None:
        text.append(f"\ncollections {', '.join(report.selected_collections)} only (--collections): the overall is "
                    "their mean", style="bold")
    if isinstance(report, PublicReport):
        text.append("\nPublic leaderboard only: the numbers are over the public graphs.", style="bold")
    elif report.ignored_files:
        shown = ", ".join(safe(f) for f in report.ignored_files[:3])
        more = f" and {len(report.ignored_files) - 3} more" if len(report.ignored_files) > 3 else ""
        text.append(f"\nnote: {len(report.ignored_files)} dot file(s) in the data root are not graphs and were ignored "
                    f"(macOS ._*.npz metadata?): {shown}{more}", style="cyan")
    return text


def _leaderboards(console: Console, report: Report) -> None:
    """Overall and collection values on the public and private leaderboards and on all graphs."""
    table = Table(title="Leaderboards", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column("graphs", no_wrap=True)
    table.add_column("overall", justify="right", no_wrap=True)
    names = list(report.collections)
    for name in names:
        table.add_column(name.removeprefix("layout:").replace("default", "def").replace("random", "rnd")
                         .replace(":xla", ""), justify="right", no_wrap=True)
    for label, scores in (*report.leaderboards.items(), ("all", report.scores)):
        values = [scores.collections[n].value if n in scores.collections else None for n in names]
        table.add_row(label, number(scores.overall, 4), *(number(v, 4) for v in values))
    console.print(table)


def _problems(console: Console, problems: list[Problem], validation: Validation, per_code: int) -> None:
    """Group by code in order of first appearance; show ``per_code`` of each, then a count of the rest (from the
    validation's exact counts, the verdict's: beyond :data:`problems.MAX_LISTED_PER_CODE` one summary problem stands
    for the rest)."""
    groups: dict[str, list[Problem]] = defaultdict(list)
    for p in problems:
        groups[p.code].append(p)
    counts, tally = validation.counts, validation.by_severity()
    console.print(Text(f"Problems: {tally[Severity.ERROR]} error(s) · {tally[Severity.WARNING]} warning(s) · "
                       f"{tally[Severity.INFO]} note(s)", style="bold"))
    for code, items in groups.items():
        severity = items[0].severity
        head = Text(f"{code} ", style=_STYLE[severity])
        head.append(f"×{counts[code]} {severity}", style=_STYLE[severity])
        head.append(f" — {CODES[code].meaning}", style="dim")
        console.print(head)
        listed = items[:MAX_LISTED_PER_CODE]  # without the summary problem that stands for the rest
        for p in listed[:per_code]:
            where = "file" if p.line is None else f"line {p.line}"
            line = Text(f"  {where}", style="bold")
            if p.id:
                line.append(f"  {safe(p.id)}", style="dim")
            line.append(f": {safe(p.message)}")
            console.print(line)
        n_rest = counts[code] - len(listed[:per_code])
        if n_rest > 0:
            lines = [str(p.line) for p in listed[per_code:] if p.line is not None]
            where = (f" ({'line' if len(lines) == 1 else 'lines'} {', '.join(lines[:8])}"
                     f"{', …' if len(lines) > 8 else ''})") if lines else ""
            console.print(Text(f"  … and {n_rest} more{where}; all are counted in the JSON report (--json).",
                               style="dim"))


_TOP_K_FAMILIES = ("top_k_error", "slowdown")
"""The secondary metrics of the last column, ``tile err@1/5/10``, ``layout slow@1/10/100``."""


def _mean(means: dict[str, float | None], counts: dict[str, int], n: int, m: str) -> str:
    """One mean to 3 decimals (— when undefined), followed by ``[count]`` when it is over fewer than ``n`` graphs."""
    return (f"{means[m]:.3f}" if means[m] is not None else "—") + (f"[{counts[m]}]" if counts[m] < n else "")


def _scores(console: Console, report: Report) -> None:
    noise = report.scores.noise
    table = _scores_table(beside=True, ceiling=bool(noise))
    normalised, to_ceiling = report.normalised(), report.scores.normalised_to_ceiling()
    for name, result in report.collections.items():
        means, counts, n = result.means(), result.counts(), len(result.ids)
        secondary = "/".join(_mean(means, counts, n, m) for m in means  # the top-K errors or slowdowns
                             if m != result.metric and BY_NAME[m].family in _TOP_K_FAMILIES)
        if result.undefined:
            secondary += f" ({len(result.undefined)} undefined)"
        beside = _mean(means, counts, n, BESIDE) if BESIDE in means else ""
        ceiling = [number(noise[name].ceiling if name in noise else None, 3), number(to_ceiling[name], 3)] if noise else []
        table.add_row(name, str(n), _label(result.metric), number(result.value), beside,
                      number(normalised[name], 3), *ceiling, secondary)
    counted = len(report.collections) - len(report.undefined_collections)
    _overall_row(console, table, report, counted)
    console.print(f"[dim]ceiling: what a noise-free predictor scores against the recorded runtimes (noise file "
                  f"{report.noise_file}; model y(1+e), docs/metrics.md) · norm./ceil.: (value - random) / (ceiling - "
                  "random)[/]" if noise else "[dim]No noise file: no noise ceilings (`tpugraphs-data noise`).[/]")
    for name in (n for n, c in noise.items() if c.ceiling is None):
        console.print(f"[yellow]{name}: no noise estimate (no configurations with identical feature rows): no ceiling[/]")
    for name, result in report.collections.items():
        counts, n = result.counts(), len(result.ids)
        fewer = [f"{_label(m)} over {counts[m]} of {n} graphs" for m in result.per_graph
                 if m != result.metric and counts[m] < n]
        if fewer and result.collection.kind == "tile":
            console.print(f"[dim]{name}: {', '.join(fewer)} (rows listing fewer than min(K, c) indices have no "
                          "top-K error)[/]")
    if report.missing_collections:
        console.print("[yellow]Not in the ground truth (data root or solution), so not in the overall:[/] "
                      + ", ".join(report.missing_collections))
    for name, result in report.collections.items():
        if result.undefined:
            console.print(f"[yellow]{name}: tau undefined (every scored runtime equal, or fewer than 2 configs), left out "
                          f"of the mean:[/] {', '.join(result.undefined)}")
    if report.undefined_collections:
        console.print(f"[yellow]Undefined everywhere, left out of the overall:[/] {', '.join(report.undefined_collections)}")


def _scores_table(*, beside: bool = False, ceiling: bool = False) -> Table:
    """The score table's columns; the organiser view's optional ones: ``beside``, the secondary metric beside the
    value (OPA); ``ceiling``, the noise ceiling and the value normalised to it (with a noise file)."""
    table = Table(title="Scores", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column("collection", no_wrap=True, min_width=18)
    shown_beside, ceilings = [_label(BESIDE)] if beside else [], ["ceiling", "norm./ceil."] if ceiling else []
    for header in ("n", "metric", "value", *shown_beside, "norm.", *ceilings):
        table.add_column(header, justify="left" if header == "metric" else "right", no_wrap=True)
    table.add_column(f"tile err@{'/'.join(map(str, ks('top_k_error')))}\nlayout slow@{'/'.join(map(str, ks('slowdown')))}",
                     no_wrap=True)
    return table


def _overall_row(console: Console, table: Table, report: Report | PublicReport, counted: int) -> None:
    empty = [""] * (len(table.columns) - 4)
    table.add_row(Text("overall", style="bold"), str(counted), "mean", Text(number(report.overall), style="bold"),
                  *empty, end_section=True)
    console.print(table)
    beside = (f"{_label(BESIDE)}: mean ordered pair accuracy (layout, secondary) · "
              if any(c.header == _label(BESIDE) for c in table.columns) else "")
    console.print(f"[dim]n: graphs (overall: collections) · {beside}norm.: (value - random) / (oracle - random), 0 "
                  "is chance and 1 the oracle[/]")


def _public_scores(console: Console, report: PublicReport) -> None:
    """The public view's table: the shown collections (:mod:`..rules.public_rule`) and the overall."""
    public = report.scores
    table = _scores_table()
    for name, c in public.collections.items():
        table.add_row(name, str(c.n_graphs), _label(c.metric), number(c.value), number(c.normalised, 3), "")
    _overall_row(console, table, report, public.n_counted)
    console.print(f"[dim]{RULE_IN_WORDS}[/]")
    if public.not_shown:
        console.print(f"Not shown: {', '.join(public.not_shown)}.")


def _detail_table(title: str, first: str, right: list[str], rows, **options) -> Table:
    """A per-graph or per-program table: a wide first column, then right-aligned ones."""
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False, **options)
    table.add_column(first, overflow="fold", min_width=32)
    for header in right:
        table.add_column(header, justify="right")
    for row in rows:
        table.add_row(*row)
    return table


def _per_graph(console: Console, report: Report) -> None:
    for name, result in report.collections.items():
        labels, columns = [_label(m) for m in result.per_graph], list(result.per_graph.values())
        console.print(_detail_table(
            f"{name}: per graph", "graph", [*labels, "n"],
            ([graph_id.rpartition(":")[2], *(number(v[i], 4) for v in columns), str(int(result.n_scored[i]))]
             for i, graph_id in enumerate(result.ids)), caption="n: configurations scored", caption_justify="left"))
        if programs := result.programs():
            console.print(_detail_table(
                f"{name}: per program (graph name without its last _<hash>)", "program", ["graphs", *labels],
                ([program, str(means["n_graphs"]), *(number(means[m], 4) for m in result.per_graph)]
                 for program, means in programs.items())))


def render(report: Report | PublicReport, console: Console, *, per_graph: bool = False, per_code: int = 5,
           validate_only: bool = False) -> None:
    """Print ``report``: header, problems (``per_code`` shown per code), scores, per-graph detail (``per_graph``;
    a :class:`.public.PublicReport` has none), verdict."""
    console.print(_header(report))
    if report.problems:
        _problems(console, report.problems, report.validation, per_code)
    if isinstance(report, PublicReport):
        if report.scores is not None:
            _public_scores(console, report)
    elif report.scored:
        _scores(console, report)
        if report.leaderboards:
            _leaderboards(console, report)
        if per_graph:
            _per_graph(console, report)
    verdict(console, report, validate_only)


def render_comparison(console: Console, names: list[object], reports: list[Report | PublicReport | None]) -> None:
    """One row per submission: validity, overall and collection values (None: the file could not be read)."""
    values = [r.collection_values() if r else {} for r in reports]
    # narrower than 110 columns: the overall only (all values are in --json)
    collections = list(dict.fromkeys(c for v in values for c in v)) if console.width >= 110 else []
    table = Table(title="Submissions", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column("submission", overflow="fold")
    table.add_column("valid", no_wrap=True)
    table.add_column("overall", justify="right", no_wrap=True)
    for name in collections:
        short = name.removeprefix("layout:").replace("default", "def").replace("random", "rnd").replace(":xla", "")
        table.add_column(short, justify="right")
    for name, report, shown in zip(names, reports, values, strict=True):
        if report is None:
            table.add_row(safe(str(name)), "unreadable", "—", *["—"] * len(collections))
            continue
        cells = [f"{shown[c]:.4f}" if shown.get(c) is not None else "—" for c in collections]
        table.add_row(safe(str(name)), "yes" if report.valid else f"no ({report.n_errors})",
                      "—" if report.overall is None else f"{report.overall:.4f}", *cells)
    console.print(table)
