"""``leaderboard.csv`` and ``leaderboard.md``: views of the leaderboard document (:mod:`assemble`); a ``public``
document gives one table of its teams and nothing else.

Text from submissions is untrusted (docs/leaderboard.md, "Outputs", safe with hostile names): a CSV text cell
starting like a formula gets a leading ``'`` (:func:`csv_text`, OWASP "CSV injection"; number cells never), and
Markdown text is escaped (:func:`md`) so that a name cannot open a link, an image, code, emphasis, raw HTML or a new
table cell (such text only ever follows other text, so block syntax such as ``#`` cannot start).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable
from typing import Any

from ..dataset import COLLECTIONS
from ..display import safe
from ..rules.metric_table import BY_NAME
from .assemble import secondary_columns

COLLECTION_COLUMNS: list[tuple[str, str | None]] = [
    column for c in COLLECTIONS
    for column in [(c.name, None), *((c.name, m) for m in secondary_columns().get(c.name, ()))]]
"""The organiser view's collection columns, in order: ``(collection, None)`` for each collection's value, each
followed by ``(collection, metric)`` for the secondary metric shown beside it (:func:`assemble.secondary_columns`:
layout ``opa``, not used for ranking)."""
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~])")
MAX_SHOWN_PROBLEMS = 3
"""Problem messages shown per submission in Markdown and HTML (every one is in leaderboard.json)."""
MAX_DESCRIPTION = 200
"""Characters of a description shown in Markdown and HTML (the whole text is in leaderboard.json)."""


def csv_text(value: str) -> str:
    """A text cell safe from spreadsheet formula injection."""
    return "'" + value if value.startswith(_FORMULA_START) else value


def number(value: float | None) -> str:
    """``repr`` of a float, ``""`` for None."""
    return "" if value is None else repr(float(value))


def md(text: str) -> str:
    """Markdown-safe inline text, control and invisible characters written as ``\\xNN`` (:func:`display.safe`)."""
    text = safe(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD_SPECIAL.sub(r"\\\1", " ".join(text.splitlines()))


def shorten(text: str, limit: int = MAX_DESCRIPTION) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def column_value(team: dict[str, Any], column: tuple[str, str | None]) -> float | None:
    """A team's value in one of :data:`COLLECTION_COLUMNS` (None when undefined or not scored)."""
    name, metric = column
    return team["collections"][name] if metric is None else team["secondary"][name][metric]


def column_label(column: tuple[str, str | None], plain: bool = False) -> str:
    """The header of one of :data:`COLLECTION_COLUMNS`: the collection, or for a secondary one ``collection label``
    in a table (Markdown, HTML: ``layout:xla:default OPA``), ``collection metric`` in the CSV, ``plain``
    (``layout:xla:default opa``)."""
    name, metric = column
    return name if metric is None else f"{name} {metric if plain else BY_NAME[metric].label}"


ORGANISER_COLUMNS = ["rank", "team", "overall", *(column_label(c, plain=True) for c in COLLECTION_COLUMNS),
                     "overall_low", "overall_high", "rank_low", "rank_high", "tied_with_leader", "public_rank",
                     "public_overall", "submissions", "valid_submissions", "last_submission", "scored_by"]
"""The CSV header of the organiser view."""


def render_csv(document: dict[str, Any]) -> str:
    """One row per team, in leaderboard order: :data:`ORGANISER_COLUMNS`, or for a ``public`` document
    ``rank, team, overall``, its shown ``collections``, ``entries, last_submission``
    (:data:`assemble.PUBLIC_TEAM_FIELDS`)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    if document["view"] == "public":
        shown = document["collections"]
        writer.writerow(["rank", "team", "overall", *shown, "entries", "last_submission"])
        for team in document["teams"]:
            writer.writerow([team["rank"], csv_text(team["team"]), number(team["overall"]),
                             *(number(team["collections"][n]) for n in shown), team["entries"],
                             team["last_submission"] or ""])
        return out.getvalue()
    writer.writerow(ORGANISER_COLUMNS)
    for team in document["teams"]:
        interval, ranks = team["interval"] or [None, None], team["rank_interval"] or [None, None]
        cells = {"rank": team["rank"], "team": csv_text(team["team"]), "overall": number(team["overall"]),
                 **{column_label(c, plain=True): number(column_value(team, c)) for c in COLLECTION_COLUMNS},
                 "overall_low": number(interval[0]), "overall_high": number(interval[1]),
                 "rank_low": ranks[0], "rank_high": ranks[1],
                 "tied_with_leader": "true" if team["tied_with_leader"] else "false",
                 "public_rank": team.get("public_rank"), "public_overall": number(team.get("public_overall")),
                 "submissions": team["submissions"], "valid_submissions": team["valid_submissions"],
                 "last_submission": team["last_submission"] or "",
                 "scored_by": csv_text(team["scored_by"] or "")}
        writer.writerow(["" if cells[c] is None else cells[c] for c in ORGANISER_COLUMNS])
    return out.getvalue()


def _f(value: float | None, digits: int = 5) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def interval_text(pair: list | None, digits: int = 4) -> str:
    """``[low, high]`` of scores, ``low–high`` of ranks (one number when equal), ``—`` when absent."""
    if not pair or pair[0] is None:
        return "—"
    if isinstance(pair[0], float):
        return f"[{pair[0]:.{digits}f}, {pair[1]:.{digits}f}]"
    return str(pair[0]) if pair[0] == pair[1] else f"{pair[0]}–{pair[1]}"


def summary_lines(document: dict[str, Any]) -> list[str]:
    """Plain-text lines describing the build (shared by Markdown and HTML)."""
    solution = document["solution"]
    synthetic = ["SYNTHETIC data: these numbers are not TpuGraphs measurements."] if solution["synthetic"] else []
    if document["view"] == "public":
        return synthetic + [f"Public leaderboard, split {solution['split']}: each team's best public score over "
                            f"all its submissions; {len(document['teams'])} teams with a score.",
                            f"Evaluator {document['evaluator_version']}; validation {document['options']['mode']}."]
    counts, board, bootstrap = document["counts"], document["ranked_by"], document["bootstrap"]
    return synthetic + [
        f"Ranked by the {board} leaderboard (each team's best final submission; public ranks alongside).",
        f"Split {solution['split']}: {counts['teams']} teams ({counts['ranked_teams']} ranked), "
        f"{counts['submissions']} submissions ({counts['scored']} scored, {counts['invalid']} invalid, "
        f"{counts['error']} unread), {counts['ignored_entries']} ignored entries.",
        f"Solution ground truth sha256 {solution['ground_truth_sha256']}; evaluator "
        f"{document['evaluator_version']}; validation {document['options']['mode']}.",
        f"Uncertainty: {int(bootstrap['level'] * 100)}% percentile intervals from {bootstrap['resamples']} paired "
        f"bootstrap resamples of the {board} graphs, stratified by collection (seed {bootstrap['seed']}).",
    ]


def problem_summary(submission: dict[str, Any]) -> str:
    """``CODE ×n, …`` of a submission's problems and notes."""
    counts = dict(submission["problem_counts"])
    for item in submission["notes"]:
        counts[item["code"]] = counts.get(item["code"], 0) + 1
    return ", ".join(f"{code} ×{n}" for code, n in sorted(counts.items()))


def _table(head: list[str], rows: Iterable[list[str]]) -> list[str]:
    """The lines of a Markdown table: ``head`` (escaped here) and ``rows`` (cells escaped by the caller)."""
    return ["| " + " | ".join(map(md, head)) + " |", "|" + "---|" * len(head)] + [
        "| " + " | ".join(cells) + " |" for cells in rows]


def render_markdown(document: dict[str, Any]) -> str:
    """The whole leaderboard as GitHub-flavoured Markdown (a ``public`` document: its teams table only)."""
    public = document["view"] == "public"
    out = [f"# {'Public leaderboard' if public else 'Leaderboard'}: {md(document['name'])}", ""]
    out += [md(line) + "  " for line in summary_lines(document)] + [""]
    if public:
        shown = document["collections"]
        out += _table(["Rank", "Team", "Overall", *shown, "Entries", "Last submission"],
                      ([str(team["rank"]), md(team["team"]), _f(team["overall"]),
                        *(_f(team["collections"][n]) for n in shown), str(team["entries"]),
                        md(team["last_submission"] or "unknown")] for team in document["teams"]))
        return "\n".join(out) + "\n"
    out += _table(["Rank", "Team", "Overall", "95% interval", "Rank interval", "Tied with leader",
                   *map(column_label, COLLECTION_COLUMNS), "Public rank", "Submissions", "Last submission"],
                  ([str(team["rank"] or "—"), md(team["team"]), _f(team["overall"]), interval_text(team["interval"]),
                    interval_text(team["rank_interval"]), "yes" if team["tied_with_leader"] else "",
                    *(_f(column_value(team, c)) for c in COLLECTION_COLUMNS), str(team["public_rank"] or "—"),
                    f"{team['valid_submissions']}/{team['submissions']} valid",
                    md(team["last_submission"] or "unknown")]
                   for team in document["teams"]))
    notes = [n for team in document["teams"] for n in team["notes"]]
    if notes:
        out += ["", "Team notes:", ""] + [f"- `{n['code']}`: {md(n['message'])}" for n in notes]
    if "noise" in document:
        from .noise_note import noise_markdown

        out += noise_markdown(document["noise"])
    shake = document["shakeup"]
    tau = "undefined" if shake["kendall_tau"] is None else f"{shake['kendall_tau']:.4f}"
    out += ["", "## Shake-up", "", f"Kendall's tau-b between the public and private ranks of "
            f"{shake['n_teams']} teams: {tau}.", ""]
    if shake["largest_moves"]:
        out += _table(["Team", "Public rank", "Private rank", "Move"],
                      ([md(m["team"]), str(m["public_rank"]), str(m["private_rank"]), f"{m['move']:+d}"]
                       for m in shake["largest_moves"]))
    out += ["", "## Submissions", ""]
    out += _table(["Submission", "Submitted", "Selected", "Final", "Status", "Public", "Private", "Problems"],
                  map(_submission_cells, document["submissions"]))
    if document["ignored"]:
        out += ["", "## Ignored entries", ""] + [f"- {md(item['message'])}" for item in document["ignored"]]
    out += ["", "Every problem of every submission is listed in leaderboard.json."]
    return "\n".join(out) + "\n"


def _submission_cells(sub: dict[str, Any]) -> list[str]:
    """A submission's row of the Markdown Submissions table."""
    shown = [p["message"] for p in (sub["problems"] + sub["notes"])[:MAX_SHOWN_PROBLEMS]]
    detail = md(problem_summary(sub)) + ("" if not shown else ": " + md(shorten(" / ".join(shown), 300)))
    return [md(sub["id"]), md(sub["submitted"] or "unknown"), "yes" if sub["selected"] else "",
            "yes" if sub["final"] else "", sub["status"], _f(sub["public"]["overall"] if sub["public"] else None),
            _f(sub["private"]["overall"] if sub["private"] else None), detail]
