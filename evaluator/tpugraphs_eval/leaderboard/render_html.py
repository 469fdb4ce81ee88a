"""``leaderboard.html``: one self-contained page (inline CSS, JS and SVG; no request leaves the page).

Every text from a submission or the file system is HTML-escaped (:func:`e`), and a Content-Security-Policy
(:data:`CSP`) lets nothing but the page's own script and style run or load. The teams table sorts by any column
(plain JS, :data:`_JS`; empty cells last; a row's details row moves with it); an SVG plot shows each ranked team's
overall with its 95% interval. Widths (checked in Chromium, tests/leaderboard/test_leaderboard_browser.py; the
figures: docs/leaderboard.md, "Outputs"): below :data:`NARROW_PX` the ``wide`` columns give way to a details row under
each row, and a submission's problem messages are always in a details row. A ``public`` document gives the summary
and the teams table only, rank, team and overall below :data:`PHONE_PX`.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import html
from typing import Any

from ..display import safe
from ..rules.metric_table import BY_NAME
from .render_text import (
    COLLECTION_COLUMNS,
    MAX_SHOWN_PROBLEMS,
    column_label,
    column_value,
    interval_text,
    problem_summary,
    shorten,
    summary_lines,
)

NARROW_PX = 1100
"""Below this window width the ``wide`` columns give way to details rows (the media query of :data:`_CSS`)."""
PHONE_PX = 640
"""Below this window width (a phone) the public table's ``wide`` columns give way to details rows."""

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:1.5rem;color:#1b1f24;max-width:90rem}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem}h1,h2,p{overflow-wrap:anywhere}
p.summary{margin:.2rem 0;color:#444}p.synthetic{color:#a40000;font-weight:bold}
table{border-collapse:collapse;font-size:.85rem;margin:.5rem 0}
table.sortable{display:block;max-width:100%;overflow-x:auto}
th,td{border-bottom:1px solid #ddd;padding:.25rem .4rem;text-align:left;vertical-align:top}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}td.nw{white-space:nowrap}
td.num.brk{white-space:normal}#teams th,#teams td{padding:.25rem .3rem}
th button{font:inherit;font-weight:bold;background:none;border:0;padding:0;cursor:pointer;color:inherit}
th[aria-sort=ascending] button::after{content:" \\25B2"}th[aria-sort=descending] button::after{content:" \\25BC"}
tr.tied td:first-child{box-shadow:inset 3px 0 #2a7de1}
td.wrap{overflow-wrap:anywhere;min-width:6rem}
tr.detail td{color:#555;font-size:.8rem;padding-top:0;overflow-wrap:anywhere}tr.detail ul{margin:.1rem 0;padding-left:1.2rem}
tr.has-detail td{border-bottom:0}tr.detail.narrow,.narrow-only,tr.detail.phone,.phone-only{display:none}
@media (max-width:NARROW_PXpx){.wide{display:none}th,td,#teams th,#teams td{padding:.25rem .25rem}tr.detail.narrow{display:table-row}.narrow-only{display:inline}}
@media (max-width:PHONE_PXpx){body{margin:.75rem}.phone{display:none}tr.detail.phone{display:table-row}.phone-only{display:inline}}
.muted{color:#777}.error{color:#a40000}
svg text{font-size:11px;font-family:inherit}
""".strip().replace("NARROW_PX", str(NARROW_PX)).replace("PHONE_PX", str(PHONE_PX))

_JS = """
(function () {
  function key(cell) {
    var v = cell ? cell.getAttribute('data-sort') : null;
    return v === null ? '' : v;
  }
  document.querySelectorAll('table.sortable').forEach(function (table) {
    var heads = table.tHead.rows[0].cells;
    var details = {};
    Array.prototype.forEach.call(table.tBodies[0].rows, function (r) {
      if (r.hasAttribute('data-detail')) { details[r.getAttribute('data-detail')] = r; }
    });
    Array.prototype.forEach.call(heads, function (th, col) {
      var button = th.querySelector('button');
      if (!button) { return; }
      button.addEventListener('click', function () {
        var ascending = th.getAttribute('aria-sort') !== 'ascending';
        var numeric = th.getAttribute('data-type') === 'number';
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute('aria-sort'); });
        th.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
        var body = table.tBodies[0];
        var rows = Array.prototype.filter.call(body.rows, function (r) { return r.hasAttribute('data-index'); });
        rows.sort(function (a, b) {
          var x = key(a.cells[col]), y = key(b.cells[col]);
          if (x === '' || y === '') {
            if (x === y) { return a.getAttribute('data-index') - b.getAttribute('data-index'); }
            return x === '' ? 1 : -1;
          }
          var c = numeric ? parseFloat(x) - parseFloat(y) : x.localeCompare(y);
          if (!ascending) { c = -c; }
          return c !== 0 ? c : a.getAttribute('data-index') - b.getAttribute('data-index');
        });
        rows.forEach(function (r) {
          body.appendChild(r);
          var d = details[r.getAttribute('data-index')];
          if (d) { body.appendChild(d); }
        });
      });
    });
  });
})();
""".strip()


def _csp_hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


CSP = (f"default-src 'none'; script-src {_csp_hash(_JS)}; style-src {_csp_hash(_CSS)}; img-src data:; "
       "base-uri 'none'; form-action 'none'")
"""The page's Content-Security-Policy (a meta tag): nothing but its own script and style."""


def e(text: object) -> str:
    """HTML-escaped text (quotes too, so it is safe in attributes), control and invisible characters written as
    ``\\xNN`` first (:func:`display.safe`: an ID in a problem message, the board's ``--name``)."""
    return html.escape(safe(str(text)), quote=True)


def _num(value: float | None, digits: int = 5) -> tuple[str, str]:
    """(sort key, shown text) of a number."""
    return ("", "—") if value is None else (repr(float(value)), f"{value:.{digits}f}")


def _cell(sort: object, shown: str, numeric: bool = False, extra: str = "", nowrap: bool = False,
          wide: bool | str = False, wrap: bool = False, breaks: bool = False) -> str:
    """A cell; ``wide``: hidden below :data:`NARROW_PX` (its value is then in the row's details row), or below
    :data:`PHONE_PX` when it is ``"phone"``; ``wrap``: long words may break anywhere; ``breaks``: a number cell
    whose text may break at its spaces (an interval)."""
    return f'<td{_class_attribute(numeric, nowrap, wide, wrap, breaks)} data-sort="{e(sort)}"{extra}>{shown}</td>'


@functools.lru_cache(maxsize=None)
def _class_attribute(numeric: bool, nowrap: bool, wide: bool | str, wrap: bool, breaks: bool) -> str:
    """`` class="..."`` of a cell with those flags (:func:`_cell`), or "" when none is on."""
    classes = " ".join(c for c, on in (("num", numeric), ("nw", nowrap and not numeric), ("wide" if wide is True else wide, wide),
                                       ("wrap", wrap), ("brk", breaks)) if on)
    return f' class="{classes}"' if classes else ""


def _row(index: int, cells: list[str], cls: str = "", narrow: list[str] = (), always: str = "",
         hide: str = "narrow") -> str:
    """A table row and, when it has any, its details row (``data-detail``: the row's index; spans the table):
    ``narrow`` (label: value texts of the ``wide`` cells, shown only below :data:`NARROW_PX`, or below
    :data:`PHONE_PX` when ``hide`` is ``"phone"``) then ``always`` (HTML shown at every width)."""
    classes = " ".join(c for c in (cls, "has-detail" if always else "") if c)
    cls_attr = f' class="{classes}"' if classes else ""
    row = f'<tr data-index="{index}"{cls_attr}>{"".join(cells)}</tr>'
    if not narrow and not always:
        return row
    narrow_html = f'<span class="{hide}-only">{" · ".join(narrow)}</span>' if narrow else ""
    kind = "detail" if always else f"detail {hide}"
    return f'{row}<tr class="{kind}" data-detail="{index}"><td colspan="{len(cells)}">{narrow_html}{always}</td></tr>'


def _table(head: list[tuple[str, ...]], rows: list[str], table_id: str, sorted_by: int | None = None,
           wide: frozenset[int] = frozenset(), hide: str = "wide") -> str:
    """A sortable table; ``head``: per column ``(label, kind)`` or ``(label, kind, title)`` (the header's
    tooltip); ``sorted_by``: the column its rows are already in ascending order of, if any; ``wide``: the
    columns hidden below :data:`NARROW_PX` (``hide="phone"``: below :data:`PHONE_PX`)."""
    marks = [' aria-sort="ascending"' if i == sorted_by else "" for i in range(len(head))]
    # a long collection name may wrap after its colons (<wbr>), so that every column fits a 1400 px window
    tips = [f' title="{e(column[2])}"' if len(column) > 2 else "" for column in head]
    cells = "".join(f'<th scope="col" data-type="{column[1]}"{mark}{f" class={hide}" if i in wide else ""}{tip}><button '
                    f'type="button">{e(column[0]).replace(":", ":<wbr>")}</button></th>'
                    for i, (column, mark, tip) in enumerate(zip(head, marks, tips)))
    return (f'<table class="sortable" id="{table_id}"><thead><tr>{cells}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>')


def _public_teams(document: dict[str, Any]) -> str:
    """The public teams table; below :data:`PHONE_PX` it shows rank, team and overall, the rest in a details row."""
    shown = document["collections"]
    head = [("Rank", "number"), ("Team", "text"), ("Overall", "number"), *((n, "number") for n in shown),
            ("Entries", "number"), ("Last submission", "text")]
    rows = []
    for index, team in enumerate(document["teams"]):
        last = team["last_submission"] or "unknown"
        values = [_num(team["collections"][n], 4) for n in shown]
        cells = [_cell(team["rank"], e(team["rank"]), True), _cell(team["team"], e(team["team"]), wrap=True),
                 _cell(*_num(team["overall"]), True), *(_cell(*v, True, wide="phone") for v in values),
                 _cell(team["entries"], e(team["entries"]), True, wide="phone"),
                 _cell(team["last_submission"] or "", e(last), nowrap=True, wide="phone")]
        narrow = [*(f"{e(n)} {v[1]}" for n, v in zip(shown, values)), f"entries {e(team['entries'])}",
                  f"last submission {e(last)}"]
        rows.append(_row(index, cells, narrow=narrow, hide="phone"))
    return _table(head, rows, "teams", sorted_by=0, wide=frozenset(range(3, len(head))), hide="phone")


SECONDARY_DIGITS = 3
"""Decimals of a secondary value (OPA) in the teams table (collection values: 4)."""
TEAM_WIDE_COLUMNS = ("Rank interval", "Tied with leader", "Public rank", "Public overall", "Submissions",
                     "Last submission")
"""Teams-table columns hidden below :data:`NARROW_PX` (shown in the details row instead), with the secondary
collection columns (layout OPA, :data:`render_text.COLLECTION_COLUMNS`)."""


def _teams(document: dict[str, Any]) -> str:
    head = [("Rank", "number"), ("Team", "text"), ("Overall", "number"), ("95% interval", "number"),
            ("Rank interval", "number"), ("Tied with leader", "text")]
    # a secondary column is headed by its metric's label alone (OPA), beside its collection's column; the
    # collection is in its tooltip and in the details row below NARROW_PX (so that 19 columns fit 1400 px)
    head += [(c[0], "number") if c[1] is None else (BY_NAME[c[1]].label, "number", column_label(c))
             for c in COLLECTION_COLUMNS]
    head += [("Public rank", "number"), ("Public overall", "number"), ("Submissions", "number"),
             ("Last submission", "text")]
    wide = frozenset(i for i, column in enumerate(head) if column[0] in TEAM_WIDE_COLUMNS or len(column) == 3)
    rows = []
    for index, team in enumerate(document["teams"]):
        low = team["interval"][0] if team["interval"] else None
        ranks = "—" if not team["rank_interval"] else interval_text(team["rank_interval"])
        valid = f"{team['valid_submissions']}/{team['submissions']} valid"
        last = team["last_submission"] or "unknown"
        public_overall = _num(team["public_overall"])
        cells = [_cell("" if team["rank"] is None else team["rank"], e(team["rank"] or "—"), True),
                 _cell(team["team"], e(team["team"]), wrap=True), _cell(*_num(team["overall"]), True),
                 _cell(*(("", "—") if low is None else (repr(low), e(interval_text(team["interval"])).replace(
                     ", ", ", <wbr>"))), True, breaks=True),
                 _cell("" if not team["rank_interval"] else team["rank_interval"][0], e(ranks), True, wide=True),
                 _cell("yes" if team["tied_with_leader"] else "", "yes" if team["tied_with_leader"] else "",
                       wide=True)]
        cells += [_cell(*_num(column_value(team, c), 4 if c[1] is None else SECONDARY_DIGITS), True,
                        wide=c[1] is not None) for c in COLLECTION_COLUMNS]
        cells += [_cell("" if team["public_rank"] is None else team["public_rank"], e(team["public_rank"] or "—"),
                        True, wide=True), _cell(*public_overall, True, wide=True)]
        cells += [_cell(team["submissions"], valid, True, wide=True),
                  _cell(team["last_submission"] or "", e(last).replace("T", "T<wbr>", 1), wide=True)]
        narrow = [f"rank interval {e(ranks)}", *(["tied with the leader"] if team["tied_with_leader"] else []),
                  f"public rank {e(team['public_rank'] or '—')} (overall {public_overall[1]})", f"submissions {valid}",
                  f"last submission {e(last)}",
                  *(f"{e(column_label(c))} {_num(column_value(team, c), SECONDARY_DIGITS)[1]}"
                    for c in COLLECTION_COLUMNS if c[1])]
        rows.append(_row(index, cells, "tied" if team["tied_with_leader"] else "", narrow=narrow))
    return _table(head, rows, "teams", sorted_by=0, wide=wide)


def _plot(document: dict[str, Any]) -> str:
    """An SVG dot-and-whisker plot of each ranked team's overall score and 95% interval."""
    teams = [t for t in document["teams"] if t["rank"] is not None and t["interval"] and t["interval"][0] is not None]
    if not teams:
        return '<p class="muted">No ranked team: nothing to plot.</p>'
    lo = min(min(t["interval"][0], t["overall"]) for t in teams)
    hi = max(max(t["interval"][1], t["overall"]) for t in teams)
    pad = (hi - lo) * 0.05 or 0.05
    lo, hi = lo - pad, hi + pad
    left, width, row, top = 220, 480, 18, 24
    height = top + row * len(teams) + 10

    def x(value: float) -> float:
        return round(left + (value - lo) / (hi - lo) * width, 2)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{left + width + 20}" height="{height}" '
             f'viewBox="0 0 {left + width + 20} {height}" aria-labelledby="plot-title">',
             f'<title id="plot-title">Overall {e(document["ranked_by"])} score and 95% interval per team</title>']
    for k in range(6):
        value = lo + (hi - lo) * k / 5
        parts.append(f'<line x1="{x(value)}" y1="{top - 6}" x2="{x(value)}" y2="{height - 8}" stroke="#eee"/>'
                     f'<text x="{x(value)}" y="{top - 10}" text-anchor="middle" fill="#555">{value:.3f}</text>')
    for i, team in enumerate(teams):
        y = top + row * i + row / 2
        color = "#2a7de1" if team["tied_with_leader"] else "#555"
        label = shorten(f"{team['rank']}. {team['team']}", 34)
        parts.append(f'<g><title>{e(team["team"])}: {team["overall"]:.5f} {e(interval_text(team["interval"]))}</title>'
                     f'<text x="{left - 8}" y="{y + 4}" text-anchor="end">{e(label)}</text>'
                     f'<line x1="{x(team["interval"][0])}" y1="{y}" x2="{x(team["interval"][1])}" y2="{y}" '
                     f'stroke="{color}" stroke-width="2"/>'
                     f'<circle cx="{x(team["overall"])}" cy="{y}" r="4" fill="{color}"/></g>')
    parts.append("</svg>")
    return "".join(parts)


def _shakeup(document: dict[str, Any]) -> str:
    shake = document["shakeup"]
    tau = "undefined" if shake["kendall_tau"] is None else f"{shake['kendall_tau']:.4f}"
    out = [f"<h2>Shake-up</h2><p>Kendall's tau-b between the public and private ranks of {shake['n_teams']} teams: "
           f"<strong>{tau}</strong>.</p>"]
    if shake["largest_moves"]:
        out.append("<table><thead><tr><th>Team</th><th>Public rank</th><th>Private rank</th><th>Move</th></tr></thead>"
                   "<tbody>" + "".join(f'<tr><td>{e(m["team"])}</td><td class="num">{m["public_rank"]}</td>'
                                      f'<td class="num">{m["private_rank"]}</td><td class="num">{m["move"]:+d}</td></tr>'
                                      for m in shake["largest_moves"]) + "</tbody></table>")
    return "".join(out)


def _submissions(document: dict[str, Any]) -> str:
    head = [("Submission", "text"), ("Submitted", "text"), ("Description", "text"), ("Selected", "text"),
            ("Final", "text"), ("Status", "text"), ("Public", "number"), ("Private", "number"), ("Problems", "text")]
    rows = []
    for index, sub in enumerate(document["submissions"]):
        submitted = sub["submitted"] or "unknown"
        cells = [_cell(sub["id"], e(sub["id"]).replace("/", "/<wbr>"), wrap=True),
                 _cell(sub["submitted"] or "", e(submitted), nowrap=True, wide=True),
                 _cell(sub["description"], e(shorten(sub["description"])), wide=True, wrap=True),
                 _cell("yes" if sub["selected"] else "", "yes" if sub["selected"] else ""),
                 _cell("yes" if sub["final"] else "", "yes" if sub["final"] else ""),
                 _cell(sub["status"], e(sub["status"]), extra="" if sub["status"] == "scored" else ' class="error"'),
                 _cell(*_num(sub["public"]["overall"] if sub["public"] else None), True),
                 _cell(*_num(sub["private"]["overall"] if sub["private"] else None), True)]
        problems = sub["problems"] + sub["notes"]
        listed = "".join(f"<li>{e(p['code'])}: {e(shorten(p['message'], 300))}</li>"
                         for p in problems[:MAX_SHOWN_PROBLEMS])
        more = len(problems) - MAX_SHOWN_PROBLEMS
        detail = (f"<ul>{listed}</ul>"
                  + (f'<span class="muted">{more} more in leaderboard.json</span>' if more > 0 else "")) if problems else ""
        summary = problem_summary(sub)
        cells.append(_cell(summary, e(summary).replace(", ", ",<wbr> "), wrap=True))
        narrow = [f"submitted {e(submitted)}", *([e(shorten(sub["description"]))] if sub["description"] else [])]
        rows.append(_row(index, cells, narrow=narrow, always=detail))
    return _table(head, rows, "submissions", wide=frozenset({1, 2}))


def render_html(document: dict[str, Any]) -> str:
    """The whole leaderboard as one HTML page (a ``public`` document: summary and teams table only)."""
    summary = "".join(f'<p class="{"synthetic" if line.startswith("SYNTHETIC") else "summary"}">{e(line)}</p>'
                      for line in summary_lines(document))
    if document["view"] == "public":
        title = f"Public leaderboard: {document['name']}"
        body = f'<h2>Teams</h2><p class="muted">Click a column header to sort.</p>{_public_teams(document)}'
    else:
        notes = [n for team in document["teams"] for n in team["notes"]]
        notes_html = ("<h2>Team notes</h2><ul>" + "".join(f"<li>{e(n['code'])}: {e(n['message'])}</li>" for n in notes)
                      + "</ul>") if notes else ""
        ignored = ("<h2>Ignored entries</h2><ul>" + "".join(f"<li>{e(i['message'])}</li>" for i in document["ignored"])
                   + "</ul>") if document["ignored"] else ""
        title = f"Leaderboard: {document['name']}"
        body = (f"<h2>Teams</h2><p class=\"muted\">Click a column header to sort. Highlighted rows are statistically "
                f"tied with the leader.</p>{_teams(document)}{notes_html}"
                f"<h2>Overall score and 95% interval</h2>{_plot(document)}{_shakeup(document)}"
                f"<h2>Submissions</h2>{_submissions(document)}{ignored}"
                "<p class=\"muted\">Every problem of every submission is listed in leaderboard.json.</p>")
    return ("<!DOCTYPE html>\n"
            '<html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{e(CSP)}">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            '<link rel="icon" href="data:,">'
            f"<title>{e(title)}</title><style>{_CSS}</style></head>\n<body>"
            f"<h1>{e(title)}</h1>{summary}{body}<script>{_JS}</script></body></html>\n")
