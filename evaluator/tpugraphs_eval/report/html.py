"""HTML view of a :class:`Report`: one self-contained page (inline CSS and SVG; no script, no request); its sections:
docs/options.md, ``--html``. A participant's :class:`.public.PublicReport` has the header, problems and collections
only (it holds nothing else, docs/public-view.md). Every text from the submission, the file system or the report is
HTML-escaped (quotes too); a Content-Security-Policy meta tag allows nothing but the page's own style, so not even a
name that escaped escaping could load or run anything.
"""

from __future__ import annotations

import base64
import hashlib
import os
from pathlib import Path

import numpy as np

from .._version import __version__
from ..atomicfile import write_atomically
from ..display import finite, number
from ..errors import UsageError
from ..rules.metric_table import BESIDE_PRIMARY as BESIDE
from ..rules.metric_table import BY_NAME
from ..rules.public_rule import RULE_IN_WORDS
from ..scoring.score import CollectionResult
from ..submission.problems import CODES, MAX_LISTED_PER_CODE, Severity
from .charts import _e, ceiling_scatter, curve_chart, reference_bar, tau_histogram
from .public import PublicReport
from .report import Report

WORST_SHOWN = 10
"""Graphs listed per collection in the worst-graphs table."""
PROBLEMS_SHOWN = 5
"""Problems listed per code (all are in the JSON report)."""

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:1.5rem auto;padding:0 1rem;
color:#1b1f24;max-width:72rem;line-height:1.4}
h1{font-size:1.45rem;margin-bottom:.4rem}h2{font-size:1.15rem;margin-top:2rem}h3{font-size:1rem;margin:1.2rem 0 .3rem}
h1,h2,h3,p{overflow-wrap:anywhere}p{margin:.25rem 0}.muted{color:#666}.synthetic{color:#a40000;font-weight:bold}
.valid{color:#2f8f4e;font-weight:bold}.invalid{color:#a40000;font-weight:bold}
table{border-collapse:collapse;font-size:.85rem;margin:.4rem 0;max-width:100%}
th,td{border-bottom:1px solid #ddd;padding:.2rem .5rem;text-align:left;vertical-align:top}
th{white-space:nowrap}th.num{text-align:right}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.id{overflow-wrap:anywhere;word-break:break-word}
svg.chart{display:block;width:100%;max-width:40rem;height:auto;margin:.4rem 0}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,28rem),1fr));gap:0 2rem}
svg text{font-family:inherit;fill:#1b1f24}svg text.label{font-size:13px}svg text.tick{font-size:11px;fill:#444}
section{margin-bottom:1rem}
""".strip()

CSP = ("default-src 'none'; style-src 'sha256-" + base64.b64encode(hashlib.sha256(_CSS.encode()).digest()).decode()
       + "'; img-src data:; base-uri 'none'; form-action 'none'")
"""The page's Content-Security-Policy: only its own style; no script, font, frame or request of any kind."""


def _label(metric: str) -> str:
    """A metric's short label (:data:`..rules.metric_table.METRICS`)."""
    return BY_NAME[metric].label


def _num(value: float | None, digits: int = 4) -> str:
    value = finite(value)
    return '<td class="num">—</td>' if value is None else f'<td class="num">{value:.{digits}f}</td>'


def _table(head: list[str], rows: list[str], numeric_from: int = 1) -> str:
    cells = "".join(f'<th scope="col"{" class=num" if i >= numeric_from else ""}>{_e(h)}</th>'
                    for i, h in enumerate(head))
    return f"<table><thead><tr>{cells}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def shown_path(path: str) -> str:
    """A path as a page to share shows it: a relative path as given, an absolute one by its last part only
    (a page must not show the home folder or the machine's layout)."""
    return Path(path).name or path if os.path.isabs(path) else path


def shown_source(label: str) -> str:
    """The data source's label (:attr:`DataRoot.label`: a path, or ``demo (SYNTHETIC data) at PATH``) with
    its path shown as :func:`shown_path` shows it."""
    head, at, path = label.rpartition(" at ")
    return f"{head}{at}{shown_path(path)}" if at else shown_path(label)


def _title(report: Report | PublicReport) -> str:
    return f"TpuGraphs evaluation: {shown_path(report.submission) if report.submission else 'submission'}"


def _header(report: Report | PublicReport) -> str:
    o = report.options
    lines = [f"<h1>{_e(_title(report))}</h1>",
             f'<p>split <strong>{_e(report.split)}</strong> · data {_e(shown_source(report.data_root))}</p>',
             f'<p class="muted">mode {_e(o.mode)} · tile runtime {_e(o.tile_runtime)} · layout configs '
             f'{_e(o.configs)} · tpugraphs-eval {_e(__version__)}</p>']
    if report.synthetic:
        lines.append('<p class="synthetic">SYNTHETIC demo data: these numbers say nothing about real TpuGraphs '
                     "performance.</p>")
    if isinstance(report, PublicReport):
        lines.append("<p><strong>Public leaderboard only</strong>: the numbers are over the public graphs.</p>")
    if not report.valid:
        lines.append(f'<p class="invalid">INVALID: {report.n_errors} error(s) in {report.n_rows} rows. Nothing was '
                     "scored.</p>")
    elif report.scored:
        lines.append(f'<p class="valid">VALID ({report.n_rows} rows): overall {report.overall:.6f}</p>'
                     if report.overall is not None else f'<p class="valid">VALID ({report.n_rows} rows)</p>')
    else:
        lines.append(f'<p class="valid">VALID ({report.n_rows} rows); not scored.</p>')
    return "".join(lines)


def _problems(report: Report | PublicReport) -> str:
    if not report.problems:
        return ""
    by_code: dict[str, list] = {}
    for p in report.problems:
        by_code.setdefault(p.code, []).append(p)
    tally, counts = report.validation.by_severity(), report.validation.counts
    out = [f'<section id="problems"><h2>Problems</h2><p>{tally[Severity.ERROR]} error(s) · '
           f'{tally[Severity.WARNING]} warning(s) · {tally[Severity.INFO]} note(s); the JSON report (--json) counts '
           f'every one and lists the first {MAX_LISTED_PER_CODE:,} of each code.</p>']
    for code, items in by_code.items():
        rows = [f'<tr><td class="num">{"file" if p.line is None else p.line}</td><td class="id">{_e(p.id or "")}</td>'
                f'<td class="id">{_e(p.message)}</td></tr>' for p in items[:PROBLEMS_SHOWN]]
        more = counts[code] - len(items[:PROBLEMS_SHOWN])
        out.append(f"<h3>{_e(code)} ×{counts[code]} {_e(items[0].severity)}</h3>"
                   f'<p class="muted">{_e(CODES[code].meaning)}</p>'
                   + _table(["line", "ID", "message"], rows, numeric_from=3)
                   + (f'<p class="muted">… and {more} more.</p>' if more > 0 else ""))
    out.append("</section>")
    return "".join(out)


def _collections(report: Report | PublicReport) -> str:
    public = isinstance(report, PublicReport)
    beside = [] if public else [_label(BESIDE)]  # the public view: primary values only
    explained = "".join(f"{label}: the mean ordered pair accuracy (layout, secondary; not in the value) · "
                        for label in beside)
    notes = []
    if public:  # the shown collections only (rules.public_rule); no cell beside the value
        shown = [(name, c.n_graphs, c.metric, c.value, c.references, c.normalised, "")
                 for name, c in report.scores.collections.items()]
        counted = report.scores.n_counted
        notes.append(RULE_IN_WORDS)
        if report.scores.not_shown:
            notes.append(f"Not shown: {_e(', '.join(report.scores.not_shown))}.")
    else:
        normalised = report.normalised()
        shown = [(name, len(r.ids), r.metric, r.value, report.references.get(name), normalised.get(name),
                  _num(r.means()[BESIDE], 3) if BESIDE in r.per_graph else "<td></td>")
                 for name, r in report.collections.items()]
        counted = len(report.collections) - len(report.undefined_collections)
    rows = [f'<tr><td class="id">{_e(name)}</td><td class="num">{n_graphs}</td><td>{_e(_label(metric))}</td>'
            f'{_num(value, 6)}{beside_cell}{_num(refs.random if refs else None)}'
            f'{_num(refs.oracle if refs else None)}{_num(norm, 3)}</tr>'
            for name, n_graphs, metric, value, refs, norm, beside_cell in shown]
    bars = [reference_bar(name, value, refs) for name, _, _, value, refs, _, _ in shown]
    rows.append(f'<tr><td><strong>overall</strong></td><td class="num">{counted}</td><td>mean</td>'
                f'{_num(report.overall, 6)}{"" if public else "<td></td>"}'
                "<td></td><td></td><td></td></tr>")
    if report.missing_collections:
        notes.append("Not in the ground truth (data root or solution), so not in the overall: "
                     f"{_e(', '.join(report.missing_collections))}.")
    if isinstance(report, Report) and report.undefined_collections:
        notes.append(f"Undefined everywhere, left out of the overall: {_e(', '.join(report.undefined_collections))}.")
    return ('<section id="collections"><h2>Collections</h2>'
            + _table(["collection", "graphs", "metric", "value", *beside, "random", "oracle", "normalised"],
                     rows, numeric_from=3)
            + f'<p class="muted">graphs (overall: collections counted) · {explained}random: the expected value of '
              "a uniformly random ranking · oracle: configs sorted by runtime · normalised: (value - random) / (oracle - "
              "random), 0 is chance and 1 the oracle.</p>"
            + "".join(f'<p class="muted">{n}</p>' for n in notes)
            + "<h3>Value against the random and oracle references</h3>" + "".join(bars) + "</section>")


def _leaderboards(report: Report) -> str:
    """The overall and collection values on the public and private leaderboards (a solution file's Usage)
    and on all graphs, as the terminal's Leaderboards table; "" without a Usage split."""
    if not report.leaderboards:
        return ""
    names = list(report.collections)
    rows = [f"<tr><td>{_e(label)}</td>{_num(scores.overall)}"
            + "".join(_num(scores.collections[n].value if n in scores.collections else None) for n in names)
            + "</tr>" for label, scores in (*report.leaderboards.items(), ("all", report.scores))]
    return ('<section id="leaderboards"><h2>Leaderboards</h2>' + _table(["graphs", "overall", *names], rows)
            + '<p class="muted">The values over the public and the private graphs of the solution file, and over '
              "all graphs.</p></section>")


def _histograms(report: Report) -> str:
    layouts = [(n, r) for n, r in report.collections.items() if r.collection.kind == "layout"]
    return ('<section id="tau-histograms"><h2>Per-graph Kendall\'s tau-b (layout)</h2><div class="grid">'
            + "".join(f"<div><h3>{_e(name)}</h3>{tau_histogram(name, r.per_graph['kendall_tau'])}</div>"
                      for name, r in layouts)
            + "</div></section>") if layouts else ""


def _noise_and_curves(report: Report) -> str:
    """One chart of each graph's value against its noise ceiling (with a noise file) and one of the mean search
    curves, per collection."""
    from ..scoring.curve import mean_curve

    scores, out, to_ceiling = report.scores, [], report.scores.normalised_to_ceiling()
    for name, result in report.collections.items():
        if name in scores.noise:  # the collection's figures, as the terminal and the JSON give them
            out.append(f"<h3>{_e(name)}: value against the noise ceiling</h3><p>ceiling "
                       f"{number(scores.noise[name].ceiling, 3)} · norm./ceil. {number(to_ceiling[name], 3)}</p>"
                       + ceiling_scatter(name, result.per_graph[result.metric], scores.noise[name].ceilings))
        if result.curves is not None and name in scores.random and len(result.ids):
            out.append(f"<h3>{_e(name)}: search curve</h3>"
                       + curve_chart(name, mean_curve(result.curves), mean_curve(scores.random[name])))
    return ('<section id="noise-and-curves"><h2>Noise ceilings and search curves</h2><p class="muted">Ceiling: what a '
            "noise-free predictor scores against the recorded runtimes (docs/metrics.md, model y(1+e)). Search "
            "curve: the best runtime among the first k configurations ranked, over the best.</p>"
            + "".join(out) + "</section>") if out else ""


def _worst(name: str, result: CollectionResult) -> str:
    values = result.per_graph[result.metric]
    order = np.argsort(np.where(np.isnan(values), np.inf, values), kind="stable")[:WORST_SHOWN]
    metrics = list(result.per_graph)
    rows = [f'<tr><td class="id">{_e(result.ids[i].rpartition(":")[2])}</td>'
            + "".join(_num(result.per_graph[m][i]) for m in metrics)
            + f'<td class="num">{int(result.n_scored[i])}</td></tr>' for i in order.tolist()]
    undefined = f" ({len(result.undefined)} with an undefined tau-b are listed last)" if result.undefined else ""
    return (f"<h3>{_e(name)}: lowest {_e(_label(result.metric))}{_e(undefined)}</h3>"
            + _table(["graph", *(_label(m) for m in metrics), "configs"], rows))


def _worst_graphs(report: Report) -> str:
    return ('<section id="worst-graphs"><h2>Worst graphs</h2><p class="muted">Per collection, the '
            f"{WORST_SHOWN} graphs with the lowest primary metric; configs: configurations scored.</p>"
            + "".join(_worst(n, r) for n, r in report.collections.items()) + "</section>")


def _programs(report: Report) -> str:
    out = []
    for name, result in report.collections.items():
        if not (programs := result.programs()):
            continue
        metrics = list(result.per_graph)
        rows = [f'<tr><td class="id">{_e(program)}</td><td class="num">{means["n_graphs"]}</td>'
                + "".join(_num(means[m]) for m in metrics) + "</tr>" for program, means in programs.items()]
        out.append(f"<h3>{_e(name)}</h3>" + _table(["program", "graphs", *(_label(m) for m in metrics)], rows))
    return ('<section id="tile-programs"><h2>Tile programs</h2><p class="muted">Means per program: the graph name '
            "without its last _&lt;hash&gt; part, as the official tiles_evaluate.py groups graphs.</p>"
            + "".join(out) + "</section>") if out else ""


def render_html(report: Report | PublicReport) -> str:
    """The whole report as one HTML page (UTF-8 text): self-contained, no script, no network request; paths
    shown by :func:`shown_path` (no absolute path, so no home folder)."""
    body = _header(report) + _problems(report)
    if isinstance(report, PublicReport):  # it holds no per-graph histogram, worst graph or program mean
        if report.scores is not None:
            body += _collections(report)
    elif report.scored:
        body += (_collections(report) + _leaderboards(report) + _histograms(report) + _noise_and_curves(report)
                 + _worst_graphs(report) + _programs(report))
    provenance = " · ".join(f"{_e(k)} {_e(v)}" for k, v in report.provenance.items())
    title = _title(report)
    return ("<!DOCTYPE html>\n"
            '<html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{_e(CSP)}">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            '<link rel="icon" href="data:,">'
            f"<title>{_e(title)}</title><style>{_CSS}</style></head>\n<body>{body}"
            f'<p class="muted id">{provenance}</p></body></html>\n')


def is_page_folder(target: str | os.PathLike[str], n_submissions: int) -> bool:
    """Whether ``--html target`` names a folder of pages: several submissions, or a ``target`` ending in a
    slash (``--html out/``: a trailing slash means a folder, even for one submission)."""
    return n_submissions > 1 or os.fspath(target).endswith(("/", os.sep))


def page_paths(target: str | os.PathLike[str], submissions: list[Path]) -> list[Path]:
    """Where ``--html target`` puts each submission's page: ``target`` itself for one submission; for
    several, or a ``target`` ending in a slash, ``target/<file name without its suffix>.html``.

    Raises:
        UsageError: two submissions would share a page (same file name in different folders).
    """
    if not is_page_folder(target, len(submissions)):
        return [Path(target)]
    pages = [Path(target) / f"{Path(s).stem}.html" for s in submissions]
    twice = sorted({p.name for p in pages if pages.count(p) > 1})
    if twice:
        raise UsageError(f"--html {target}: several submissions would write {', '.join(twice)}; give files with "
                         "different names")
    return pages


def write_html(path: str | os.PathLike[str], report: Report | PublicReport, *, make_folder: bool = False) -> None:
    """Write :func:`render_html` of ``report`` to ``path`` atomically (``make_folder``: make its folder
    first when missing; its own parent must exist). An existing ``path`` that is not a regular file (a
    device, a FIFO, a folder) is refused, never replaced.

    Raises:
        UsageError: ``OUTPUT_WRITE_FAILED``: the file cannot be written (exit code 2).
    """
    text = render_html(report)
    try:
        if make_folder:
            Path(path).parent.mkdir(exist_ok=True)
        write_atomically(Path(path), lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
    except OSError as err:
        raise UsageError(f"cannot write the HTML report to {path}: {err.strerror or err}",
                         code="OUTPUT_WRITE_FAILED") from None
