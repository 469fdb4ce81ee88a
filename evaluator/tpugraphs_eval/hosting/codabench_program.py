"""The Codabench scoring program: ``score.py`` of the bundle's ``scoring_program/`` (this file's text).

``tpugraphs-eval export codabench`` copies it beside ``tpugraphs_metric.py`` (:mod:`.standalone_metric`'s text)
and ``csvshape.py``, ``sniff.py`` and ``public_rule.py`` of ``tpugraphs_eval/rules/``, byte for byte: it never
imports ``tpugraphs_eval`` and needs only Python >= 3.9, numpy, pandas and scipy (the stock image). The worker runs
``python3 /app/program/score.py /app/input /app/output`` (``input/ref``: ``solution.csv``, ``settings.json``;
``input/res``: the unzipped submission). Exit codes: 0 scored, 1 invalid submission (the problems on stderr, one per
line), 2 the bundle or the call is wrong. What it writes, under the public rule: docs/hosting.md, "Codabench bundle".
"""

from __future__ import annotations

import json
import stat
import sys
import tempfile
from pathlib import Path

try:  # in the package: tpugraphs_eval/rules/; in the bundle: the same files beside this one
    from ..rules import csvshape, sniff
except ImportError:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import csvshape
    import sniff

EXIT_INVALID = 1
EXIT_SETUP = 2
SYNTHETIC_LINE = "SYNTHETIC demo data: these scores say nothing about real TpuGraphs performance."
MAX_SUBMISSION_BYTES = 256 << 20
"""Largest submission CSV read (bytes), as ``tpugraphs-eval`` caps it."""


def leaderboard_key(collection: str) -> str:
    """The scores.json key of a collection: ``layout:xla:default`` → ``layout_xla_default``."""
    return collection.replace(":", "_")


class _Invalid(Exception):
    """The submission cannot be read: the message is for the participant."""


def _submission_csv(res: Path) -> Path:
    """The one CSV file of the submission folder (any depth; macOS ``__MACOSX`` and dot files ignored). Raises
    :class:`_Invalid`: NOT_REGULAR_FILE (a link or non-regular file anywhere, refused unread: a link could point at
    the reference data) or ARCHIVE_UNREADABLE (no CSV or several)."""
    entries = sorted(res.rglob("*"))
    odd = [f"{p.relative_to(res)} ({_odd_entry(p)})" for p in entries if _odd_entry(p)]
    if odd:
        raise _Invalid(f"NOT_REGULAR_FILE: the submission holds {', '.join(odd[:10])}; zip the CSV file itself")
    found = [p for p in entries if p.is_file() and p.suffix.lower() == ".csv"
             and "__MACOSX" not in p.parts and not p.name.startswith(".")]
    if len(found) != 1:
        listed = [str(p.relative_to(res)) for p in entries if p.is_file()]
        what = "no CSV file" if not found else f"{len(found)} CSV files"
        packed = " (a compressed file inside the zip is not unpacked: zip the CSV itself)" if any(
            p.suffix.lower() in (".gz", ".zip") for p in entries) else ""
        raise _Invalid(f"ARCHIVE_UNREADABLE: the submission holds {what} (it must zip exactly one ID,TopConfigs "
                       f"CSV){packed}; it holds: {', '.join(listed[:10]) or 'nothing'}")
    return found[0]


def _odd_entry(path: Path) -> str:
    """Why an entry of the submission folder is refused (``""`` for a plain file or folder; Codabench's unzip makes
    no hard link)."""
    info = path.lstat()
    if stat.S_ISLNK(info.st_mode):
        return "a link"
    if stat.S_ISREG(info.st_mode):
        return "a hard link" if info.st_nlink > 1 else ""
    return "" if stat.S_ISDIR(info.st_mode) else "not a regular file"


def read_rows(handle, collections, found):
    """The data rows of a submission CSV, streamed by the rules of ``csvshape.py`` (docs/codes.md), one line in
    memory at a time.

    Args:
        handle: the file, opened in binary mode at its start.
        collections: the collection names (``tpugraphs_metric.COLLECTIONS``).
        found: called with each file-shape problem ``(line or None, ID or None, code, message)``, in the order found.

    Yields:
        (line, ID, TopConfigs text) per data row.
    """
    refused = _refusal(handle)
    if refused:
        code, message, line = refused
        found((line, None, code, message))
        return
    handle.seek(0)
    add = lambda code, message, line=None, id=None: found((line, id, code, message))  # noqa: E731
    for line, graph_id, configs in csvshape.ShapeReader(add, collections).read(handle):
        yield line, graph_id, bytes(configs).decode("utf-8")


def _refusal(handle):
    """``sniff.refusal`` of the whole file, reading its first ``sniff.SNIFF_BYTES`` and, while they are blank, the
    rest until a chunk is not (the refusal depends on nothing else)."""
    head = handle.read(sniff.SNIFF_BYTES)
    for chunk in iter(lambda: handle.read(1 << 20), b""):
        if not chunk.isspace():
            return sniff.refusal(head + chunk)
    return sniff.refusal(head)


class _Setup(Exception):
    """The bundle, the reference data or the call is wrong (exit 2): the message is one line for the organiser."""


MAX_SETTINGS_BYTES = 1 << 20
"""Largest settings.json read (bytes): the bundle's is under 200."""


def _regular_file(path: Path, limit: int | None = None) -> Path:
    """``path`` when it is a regular file (a link is followed) of at most ``limit`` bytes, else :class:`_Setup`
    before it is opened (reading a FIFO or device would block or never end)."""
    try:
        info = path.stat()
    except OSError as err:
        raise _Setup(f"{path.name} cannot be read ({err.strerror or err})") from None
    if not stat.S_ISREG(info.st_mode):
        raise _Setup(f"{path.name} is not a regular file (a FIFO, device, socket or folder)")
    if limit is not None and info.st_size > limit:
        raise _Setup(f"{path.name} has {info.st_size} bytes; at most {limit} are read")
    return path


def load_settings(ref: Path) -> dict:
    """``settings.json`` of the task's reference folder ``ref``. Raises :class:`_Setup` (one line): not a regular
    file, too large, unreadable or not JSON (or nested too deeply)."""
    settings_path = _regular_file(ref / "settings.json", MAX_SETTINGS_BYTES)
    try:
        return json.loads(settings_path.read_text(encoding="utf-8"))
    except RecursionError:
        raise _Setup("settings.json is nested too deeply; it must be one flat JSON object") from None
    except (OSError, ValueError) as err:
        raise _Setup(f"settings.json cannot be read ({err})") from None


SOLUTION_BATCH_BYTES = 1 << 20
"""Text of solution rows parsed at once by :func:`read_graphs` (a batch ends after the row that reaches it)."""


def read_graphs(path: Path, tile_runtime: str, metric, pd) -> dict:
    """ID → the metric's graph (``metric.read_solution``) of ``solution.csv``, read row by row and parsed in batches
    of about :data:`SOLUTION_BATCH_BYTES` of text (docs/hosting.md, "Memory").

    Raises:
        ValueError: not CSV, no ID, runtimes, normalizers or Usage column, a row of another length, a repeated
            ID, a Usage other than Public/Private, no row, or what ``metric.read_solution`` refuses.
    """
    import csv
    import itertools

    csv.field_size_limit(2**31 - 1)
    graphs, batch, size = {}, [], 0
    with open(_regular_file(path), newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        header = next(reader, [])
        missing = [name for name in ("ID", "runtimes", "normalizers", "Usage") if name not in header]
        if missing:
            raise ValueError(f"has no {', '.join(missing)} column")
        for row in itertools.chain(reader, [None]):  # None: the end, which ends the last batch
            if row is not None:
                if len(row) != len(header):
                    raise ValueError(f"line {reader.line_num} has {len(row)} fields, the header {len(header)}")
                batch.append(row)
                size += sum(map(len, row))
            if batch and (row is None or size >= SOLUTION_BATCH_BYTES):
                for graph_id, graph in metric.read_solution(pd.DataFrame(batch, columns=header, dtype=object), "ID",
                                                            tile_runtime).items():
                    if graph.usage not in ("Public", "Private"):
                        raise ValueError(f"Usage {graph.usage!r} on some rows; every row's Usage must be Public or "
                                         "Private")
                    if graph_id in graphs:
                        raise ValueError(f"solution row {graph_id!r} is repeated")
                    graphs[graph_id] = graph
                batch, size = [], 0
    if not graphs:
        raise ValueError("no solution row")
    return graphs


def _reference_problem(settings, solution: Path, output_dir: Path, metric, pd):
    """(what is wrong with the reference data or the output folder (a file; a folder where no file can be made),
    one line naming the file, or None; the solution's graphs, :func:`read_graphs`, or None)."""
    if not isinstance(settings, dict):
        return f"settings.json holds a {type(settings).__name__}, not an object", None
    choices = {"mode": metric.MODES, "tile_runtime": metric.TILE_RUNTIMES, "usage": ("Public", "Private")}
    for key, allowed in choices.items():
        if settings.get(key) not in allowed:
            return f"settings.json: `{key}` is {settings.get(key)!r}; it must be one of {', '.join(allowed)}", None
    try:  # refuses runtimes that are not positive too (RUNTIME_NOT_POSITIVE: a negative one would change the score)
        graphs = read_graphs(solution, settings["tile_runtime"], metric, pd)
    except _Setup as err:
        return str(err), None
    except (OSError, UnicodeDecodeError) as err:
        return f"solution.csv cannot be read ({err})", None
    except ValueError as err:  # csv.Error is a ValueError too
        return f"solution.csv{'' if str(err).startswith('has ') else ':'} {err}", None
    if output_dir.exists() and not output_dir.is_dir():
        return f"the output folder {output_dir} is a file", None
    try:  # made if missing, and probed with a temporary file: file modes do not tell (root ignores them)
        output_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=output_dir):
            pass
    except OSError as err:
        return f"the output folder {output_dir} cannot be written ({err.strerror or err}): is it read-only?", None
    return None, graphs


def _said(problem) -> str:
    """A problem ``(line, ID, code, message)`` as one line: ``line 3 tile:xla:g: CODE: message`` (its place as far
    as it is known)."""
    line, graph_id, code, message = problem
    where = " ".join(part for part in (f"line {line}" if line else "", graph_id or "") if part)
    return f"{where}: {code}: {message}" if where else f"{code}: {message}"


def defined_graphs(graphs: dict, usage: str, collections) -> dict:
    """Collection → how many graphs of ``usage`` in ``graphs`` (:func:`read_graphs`) have a metric defined whatever
    the submission: every tile graph, each layout graph with at least two distinct runtimes (else tau-b is not)."""
    counts = {name: 0 for name in collections}
    for graph in graphs.values():
        if graph.usage == usage and (graph.kind == "tile" or graph.y.min() < graph.y.max()):
            counts[graph.collection] += 1
    return counts


DETAILED_RESULTS = "detailed_results.html"
"""The page Codabench shows as the submission's detailed results (compute_worker.py,
``get_detailed_results_file_path``)."""
_FINAL_RULE = ("Private graphs (the Final phase) under the same rule: a collection is shown with at least 2 of its "
               "graphs (none when the others hold a single one); no graph is listed.")
_PAGE_STYLE = ("body{font-family:system-ui,sans-serif;margin:1.5em;max-width:60em;color:#222}"
               "table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:.3em .7em;text-align:left}"
               "td.num{text-align:right;font-variant-numeric:tabular-nums}.synthetic{background:#fff3cd;padding:.5em}"
               "pre{white-space:pre-wrap}")


def detailed_results_html(settings: dict, collections, scores: dict | None = None, errors=(), notes=()) -> str:
    """The submission's detailed results page: self-contained HTML showing what the leaderboard row shows and
    nothing more (docs/hosting.md, "Detailed results").

    Args:
        settings: the task's settings.json (``usage``, ``mode``, ``tile_runtime``, ``synthetic``).
        collections: the collection names in leaderboard order (``tpugraphs_metric.COLLECTIONS``).
        scores: scores.json's content (the public rule applied), or None for an invalid submission; errors,
            notes: the participant's own message lines.
    """
    from html import escape

    board = "public" if settings["usage"] == "Public" else "private"
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f"<title>TpuGraphs submission: {board} leaderboard</title><style>{_PAGE_STYLE}</style></head><body>",
             f"<h1>Your submission on the {board} leaderboard</h1>"]
    if settings.get("synthetic"):
        parts.append(f'<p class="synthetic"><strong>{escape(SYNTHETIC_LINE)}</strong></p>')
    parts.append(f"<p>{escape(settings['usage'])} graphs; {escape(settings['mode'])} validation; tile runtimes "
                 f"{escape(settings['tile_runtime'])}.</p>")
    if scores is None:
        parts.append("<h2>Not scored</h2><pre>" + escape("\n".join(errors)) + "</pre>")
    else:
        names = {leaderboard_key(name): name for name in collections}
        rows = [("Overall", scores["overall"])] if "overall" in scores else []
        rows += [(names[key], value) for key, value in scores.items() if key != "overall"]
        if rows:
            parts.append("<table><tr><th>leaderboard column</th><th>score</th></tr>" + "".join(
                f'<tr><td>{escape(name)}</td><td class="num">{value:.5f}</td></tr>' for name, value in rows)
                + "</table>")
        else:
            parts.append("<p>No value can be shown: this phase holds too few graphs for any value.</p>")
        import public_rule

        rule = public_rule.RULE_IN_WORDS if settings["usage"] == "Public" else _FINAL_RULE
        parts.append(f"<p>{escape(rule)}</p>")
    if notes:
        parts.append("<h2>Notes on your file</h2><ul>" + "".join(f"<li>{escape(n)}</li>" for n in notes) + "</ul>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def write_outputs(output_dir: Path, scores: dict | None, page: str) -> bool:
    """Write ``scores.json`` (none for an invalid submission) and :data:`DETAILED_RESULTS` (``page``) into
    ``output_dir`` (made if missing), each renamed into place (the worker's watcher never sends half a page).
    False, said on stderr, when a write fails."""
    files = {DETAILED_RESULTS: page}
    if scores is not None:
        files["scores.json"] = json.dumps(scores, indent=2) + "\n"
    try:
        output_dir.mkdir(parents=True, exist_ok=True)
        for name, text in files.items():
            part = output_dir / f".{name}.part"
            part.write_text(text, encoding="utf-8")
            part.replace(output_dir / name)
    except OSError as err:
        print(f"score.py: error: cannot write into the output folder {output_dir} ({err.strerror or err})",
              file=sys.stderr)
        return False
    return True


def _refuse(output_dir: Path, settings: dict, errors: list) -> int:
    """Print an invalid submission's ``errors`` to stderr, write its detailed results page; EXIT_INVALID
    (EXIT_SETUP when the page cannot be written)."""
    for line in errors:
        print(line, file=sys.stderr)
    page = detailed_results_html(settings, (), errors=errors)
    return EXIT_INVALID if write_outputs(output_dir, None, page) else EXIT_SETUP


def main(argv: list[str]) -> int:
    """Score ``input/res`` against ``input/ref``, write ``output/scores.json`` (the public rule applied) and the
    detailed results page, print the scores; returns the exit code."""
    if len(argv) != 2:
        print("usage: score.py INPUT_DIR OUTPUT_DIR (INPUT_DIR holds ref/ and res/)", file=sys.stderr)
        return EXIT_SETUP
    input_dir, output_dir = Path(argv[0]), Path(argv[1])
    try:  # the files beside this one (the import of the rules above put their folder first on sys.path)
        import pandas as pd
        import public_rule
        import tpugraphs_metric as metric
    except ImportError as err:
        print(f"score.py: error: {err}: the competition's Docker image needs numpy, pandas and scipy "
              "(codalab/codalab-legacy:py39 has them)", file=sys.stderr)
        return EXIT_SETUP

    ref = input_dir / "ref"
    try:
        settings = load_settings(ref)
    except _Setup as err:
        print(f"score.py: error: the reference data in {ref}: {err}; is this task's reference data the bundle's "
              "reference_data_*/ folder?", file=sys.stderr)
        return EXIT_SETUP
    wrong, solution = _reference_problem(settings, ref / "solution.csv", output_dir, metric, pd)
    if wrong:
        print(f"score.py: error: {wrong} (reference data in {ref})", file=sys.stderr)
        return EXIT_SETUP
    if settings.get("synthetic"):
        print(SYNTHETIC_LINE, flush=True)
    try:
        values, notes = score_file(_submission_csv(input_dir / "res"), solution, settings, metric)
    except _Invalid as err:
        return _refuse(output_dir, settings, [f"invalid submission: {err}"])
    except metric.ParticipantVisibleError as err:
        problems = err.problems  # never empty: the metric raises it with every problem found
        errors = [f"invalid submission: {len(problems)} error(s)"]
        errors += [f"  {_said(problem)}" for problem in problems[:50]]
        if len(problems) > 50:
            errors.append(f"  … and {len(problems) - 50} more")
        return _refuse(output_dir, settings, errors)
    counts = defined_graphs(solution, settings["usage"], metric.COLLECTIONS)  # the public rule's counts
    scores = {leaderboard_key(name): value for name, value in public_rule.public_values(values, counts).items()}
    if not write_outputs(output_dir, scores, detailed_results_html(settings, metric.COLLECTIONS, scores=scores,
                                                                   notes=notes)):
        return EXIT_SETUP
    print(f"{settings['usage']} leaderboard ({settings['mode']} validation): " +
          ", ".join(f"{key} {value:.5f}" for key, value in scores.items()))
    return 0


def score_file(path: Path, solution: dict, settings: dict, metric):
    """``(values, notes)`` of the submission CSV at ``path``: the metric's ``collection_scores`` of its rows,
    streamed (:func:`read_rows`), and its file-shape problems that are not errors in the phase's mode, as lines
    (printed once the file is read, scored or not).

    Raises:
        _Invalid: the file is too large; ``metric.ParticipantVisibleError``: the submission is invalid.
    """
    mode, notes, errors = settings["mode"], [], []

    def found(problem):
        if metric.is_error(problem[2], mode):
            errors.append(problem)  # read by the metric after the last row
        else:
            notes.append(_said(problem))

    size = path.stat().st_size
    if size > MAX_SUBMISSION_BYTES:
        raise _Invalid(f"SUBMISSION_TOO_LARGE: {path.name} has {size} bytes; at most {MAX_SUBMISSION_BYTES} are read")
    with open(path, "rb") as handle:
        try:
            values = metric.collection_scores(solution, read_rows(handle, metric.COLLECTIONS, found), "ID",
                                              mode=mode, tile_runtime=settings["tile_runtime"],
                                              usage=settings["usage"], file_errors=errors)
        finally:
            for note in notes:
                print(f"note: {note}")
    return values, notes


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
