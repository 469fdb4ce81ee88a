"""The Codabench scoring program: ``score.py`` of the bundle's ``scoring_program/`` (this file's text).

``tpugraphs-eval export codabench`` copies this file as ``score.py`` beside ``tpugraphs_metric.py`` (the
text of :mod:`.standalone_metric`), so the program needs only numpy, pandas and scipy (the stock
``codalab/codalab-legacy:py39`` image has them) and Python >= 3.9. It never imports ``tpugraphs_eval``, so
it reads the submission CSV itself (:func:`read_submission`: ``tpugraphs-eval``'s file rules and codes) and
hands the rows, their lines and the file's errors to the metric file's ``collection_scores``.

A compute worker runs ``python3 /app/program/score.py /app/input /app/output`` (``metadata.yaml``) with
the working directory ``/app/program``, ``input/ref`` holding the reference data (``solution.csv``, the
solution table of every graph with its Usage, and ``settings.json``: the Usage this phase scores, the
validation mode, the tile runtime and whether the data is the synthetic demo) and ``input/res`` the
participant's unzipped submission (one CSV).
It writes ``output/scores.json``: ``overall`` and one key per collection (``tile_xla``,
``layout_xla_default``, …; a collection whose value is undefined is left out, and so is the overall when
the phase holds fewer than 2 graphs with a defined metric, :func:`defined_graphs`). Exit codes: 0 scored,
1 invalid submission (the problems on stderr, one per line), 2 the bundle or the call is wrong. A bundle of
the synthetic demo says so first in its output log (stdout), scored or not.

Participants see scores.json (the leaderboard's columns) and this program's output, so both show only what
every public view shows (``public_rule.py`` beside it, the text of ``tpugraphs_eval/rules/public_rule.py``;
why: docs/public-view.md):
a collection's value only when the phase's graphs hold at least 2 of its graphs with a defined metric
(:func:`defined_graphs`), and none when the collections left out hold a single such graph between them. The problems printed are the participant's own
file's, found against every graph of the solution (both phases alike), so they tell no graph's Usage.
"""

from __future__ import annotations

import csv
import io
import json
import re
import stat
import sys
from pathlib import Path

try:  # in the package: tpugraphs_eval/rules/sniff.py; in the bundle: sniff.py beside this file
    from ..rules.sniff import not_text
except ImportError:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from sniff import not_text

EXIT_INVALID = 1
EXIT_SETUP = 2
SYNTHETIC_LINE = "SYNTHETIC demo data: these scores say nothing about real TpuGraphs performance."
MAX_SUBMISSION_BYTES = 256 << 20
"""Largest submission CSV read (bytes), as ``tpugraphs-eval`` caps it."""
NOT_ERRORS = frozenset({"BOM", "CRLF", "BLANK_LINE", "QUOTED_FIELD"})
"""Codes of :func:`read_submission` that are notes or warnings in both modes (the submission is scored)."""
_HEADER = ("ID", "TopConfigs")
_SEP_LINE = re.compile(r"\s*sep=(.?)\s*")
_INDEX_NAMES = ("", "unnamed: 0", "index")


def leaderboard_key(collection: str) -> str:
    """The scores.json key of a collection: ``layout:xla:default`` → ``layout_xla_default``."""
    return collection.replace(":", "_")


class _Invalid(Exception):
    """The submission cannot be read: the message is for the participant."""


def _submission_csv(res: Path) -> Path:
    """The one CSV file of the submission folder (any depth; macOS ``__MACOSX`` and dot files ignored).

    A link or a non-regular file (FIFO, socket, device) anywhere in the folder is refused unread
    (NOT_REGULAR_FILE: a link could point at the reference data); no CSV or several is ARCHIVE_UNREADABLE,
    the code of ``tpugraphs-eval`` for a zip without exactly one CSV member."""
    entries = sorted(res.rglob("*"))
    odd = [f"{p.relative_to(res)} ({'a link' if p.is_symlink() else 'not a regular file'})" for p in entries
           if p.is_symlink() or not (stat.S_ISREG(p.lstat().st_mode) or stat.S_ISDIR(p.lstat().st_mode))]
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


def _lines(data: bytes, problems: list):
    """(line number, bytes without terminator): LF, CRLF, CR CR LF and a lone CR each end a line."""
    number = cr_lines = 0
    for raw in io.BytesIO(data):
        body = raw[:-1] if raw.endswith(b"\n") else raw
        if body.endswith(b"\r"):
            body = body[:-2] if raw.endswith(b"\r\r\n") else body[:-1]
            cr_lines += 1
        parts = body.split(b"\r")
        cr_lines += len(parts) - 1
        for part in parts:
            number += 1
            yield number, part
    if cr_lines:
        problems.append((None, None, "CRLF", f"{cr_lines} line(s) end in CR, CRLF or CR CR LF instead of LF; they "
                                             "are read normally."))


class _Reader:
    """The state of :func:`read_submission` between lines: header seen, delimiter, index column, quoted lines."""

    def __init__(self, problems: list, collections):
        self.problems = problems
        self.collections = collections
        self.header_seen = False
        self.delimiter = ","
        self.index_column = False
        self.quoted = []

    def add(self, code, message, line=None, graph_id=None):
        self.problems.append((line, graph_id, code, message))

    def fields(self, number: int, text: str):
        """The fields of a line (RFC 4180 quotes removed), or None when its quotes are malformed."""
        if '"' not in text:
            return text.split(self.delimiter)
        previous = csv.field_size_limit(max(len(text), 131072))  # a layout field can be ~600,000 characters
        try:
            fields = next(csv.reader([text], delimiter=self.delimiter, strict=True))
        except csv.Error as err:
            self.add("MALFORMED_QUOTES", f"cannot split the line into fields: {err}.", number)
            return None
        finally:
            csv.field_size_limit(previous)
        if any('"' in field for field in fields):
            self.add("MALFORMED_QUOTES", "a double quote inside an unquoted field.", number)
            return None
        self.quoted.append(number)
        return fields

    def header(self, number: int, text: str) -> bool:
        """Check the first line; True when it is a data row (no header) to be read as such."""
        if _SEP_LINE.fullmatch(text):
            self.add("SEP_LINE", f"the first line `{text.strip()}` is Excel's separator hint, not the header: "
                     "delete it. The next line is read as the header.", number)
            self.header_seen = False
            return False
        fields = self.fields(number, text)
        if fields is None or tuple(fields) == _HEADER:
            return False
        if len(fields) == 3 and fields[0].strip().lower() in _INDEX_NAMES and \
                [f.strip() for f in fields[1:]] == list(_HEADER):
            self.index_column = True
            self.add("INDEX_COLUMN", f"the header `{text[:40]}` starts with a pandas index column: write the file "
                     "with `to_csv(path, index=False)`. Rows are read without their first field.", number)
            return False
        lower = [h.lower() for h in _HEADER]
        if len(fields) == 1:
            for delimiter, name in (("\t", "a tab"), (";", "`;`")):
                if [p.strip().lower() for p in text.split(delimiter)[:2]] == lower:
                    self.delimiter = delimiter
                    self.add("WRONG_DELIMITER", f"columns are separated by {name}; use a comma: `ID,TopConfigs`. "
                             f"Rows are read splitting at their first {name.split()[-1]} instead.", number)
                    return False
        if fields[0].split(";")[0].strip().rpartition(":")[0] in self.collections:
            self.add("HEADER_MISSING", "the first line is a data row; the file must start with the header "
                     "`ID,TopConfigs`. The line is read as data.", number)
            return True
        if [f.strip().lower() for f in fields[:2]] == lower and len(fields) > 2:
            self.add("EXTRA_COLUMNS", f"the header has {len(fields)} columns; it must be exactly `ID,TopConfigs`.",
                     number)
            return False
        self.add("HEADER_RENAMED", f"the header is `{text[:80]}`; it must be exactly `ID,TopConfigs` (case and "
                 "spaces matter).", number)
        return False

    def row(self, number: int, text: str):
        """The (line, ID, TopConfigs) of a data line, or None when it has none (its problem is added)."""
        if self.delimiter != "," and '"' not in text:
            fields = text.split(self.delimiter, 1)
        else:
            fields = self.fields(number, text)
            if fields is None:
                return None
            if self.delimiter != "," and len(fields) > 2:
                fields = [fields[0], self.delimiter.join(fields[1:])]
        if self.index_column and len(fields) > 2:
            fields = fields[1:]
        if len(fields) > 2 and fields[1].lstrip().startswith(("[", "(")) and fields[-1].rstrip().endswith(("]", ")")):
            fields = [fields[0], ",".join(fields[1:])]  # `id,[0, 1, 2]`: one (non-integer) field
        if fields[0].strip() == _HEADER[0] and len(fields) > 1 and fields[1].strip() == _HEADER[1]:
            self.add("HEADER_REPEATED", "the header `ID,TopConfigs` appears again (concatenated files?).", number)
            return None
        if len(fields) == 1:
            hint = " (a tab, `;` or space where the comma should be?)" if ":" in text and any(
                c in text for c in ";\t ") else ""
            self.add("MISSING_COLUMN", f"the line has one field; expected `ID,TopConfigs`{hint}.", number, fields[0])
            return None
        if len(fields) > 2:
            self.add("EXTRA_COLUMNS", f"the line has {len(fields)} comma-separated fields; expected 2 "
                     "(`ID,TopConfigs`). The first two are read.", number, fields[0])
        return number, fields[0], fields[1]


def read_submission(data: bytes, collections):
    """The data rows of a submission CSV and its file-shape problems, by ``tpugraphs-eval``'s rules (SPEC §2).

    Every line is read on its own (no pandas reader: a row with a third field must not shift the columns of
    the file): encoding, byte-order marks, line ends, blank lines, the header, the delimiter, the number of
    fields and RFC 4180 quoting, with ``tpugraphs-eval``'s codes; a line with more than two fields is
    EXTRA_COLUMNS and its first two are read. tests/hosting/test_codabench_malformed.py checks that the scoring
    program gives the CLI's verdict and errors on the malformed submissions of tests/submission/test_bad_submissions.py.

    Args:
        data: the file's bytes.
        collections: the collection names (``tpugraphs_metric.COLLECTIONS``): a first line whose ID starts
            with one is a data row (HEADER_MISSING), not a renamed header.

    Returns:
        (rows, problems): rows as (line, ID, TopConfigs) text; problems as (line or None, ID or None, code,
        message) in file order, the codes of :data:`NOT_ERRORS` notes, every other one an error.
    """
    problems = []
    if not data or data.isspace():
        what = "holds only blank lines and spaces" if data else "is empty"
        problems.append((1 if data else None, None, "EMPTY_FILE", f"the file {what}; it must start with the "
                         "header `ID,TopConfigs`."))
        return [], problems
    binary = not_text(data)
    if binary:
        return [], [(binary[1], None, "NOT_TEXT", f"this is not a CSV text file: {binary[0]}.")]
    reader, rows = _Reader(problems, collections), []
    for number, body in _lines(data, problems):
        if body.startswith(b"\xef\xbb\xbf"):
            if number == 1:
                reader.add("BOM", "a UTF-8 byte-order mark starts the file; it is skipped, as CSV readers do.", 1)
            else:
                reader.add("BOM_INSIDE", "a UTF-8 byte-order mark starts this line (files concatenated?). Save "
                           "every part as UTF-8 without BOM.", number)
            body = body[3:]
        if not body or body.isspace():
            reader.add("BLANK_LINE", "blank line.", number)
            continue
        if b"\x00" in body:
            reader.add("NOT_TEXT", "the line contains NUL bytes: binary data; nothing after it is read.", number)
            break
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError as err:
            reader.add("NOT_UTF8", f"byte 0x{body[err.start]:02x} at column {err.start + 1} is not UTF-8 text; "
                       "the line is skipped.", number)
            reader.header_seen = True  # an unreadable first line stands for the header
            continue
        if not reader.header_seen:
            reader.header_seen = True
            if not reader.header(number, text):
                continue
        row = reader.row(number, text)
        if row is not None:
            rows.append(row)
    if reader.quoted:
        shown = ", ".join(map(str, reader.quoted[:3])) + (", …" if len(reader.quoted) > 3 else "")
        reader.add("QUOTED_FIELD", f"{len(reader.quoted)} line(s) (line {shown}) enclose fields in double quotes "
                   "(RFC 4180); their unquoted values are read.", reader.quoted[0])
    return rows, problems


def _submission_bytes(path: Path) -> bytes:
    """The submission file's bytes (at most :data:`MAX_SUBMISSION_BYTES`)."""
    size = path.stat().st_size
    if size > MAX_SUBMISSION_BYTES:
        raise _Invalid(f"SUBMISSION_TOO_LARGE: {path.name} has {size} bytes; at most {MAX_SUBMISSION_BYTES} are read")
    return path.read_bytes()


def _reference_problem(settings, solution, output_dir: Path, metric) -> str | None:
    """What is wrong with the reference data or the output folder (one line naming the file), or None."""
    if not isinstance(settings, dict):
        return f"settings.json holds a {type(settings).__name__}, not an object"
    choices = {"mode": metric.MODES, "tile_runtime": metric.TILE_RUNTIMES, "usage": ("Public", "Private")}
    for key, allowed in choices.items():
        if settings.get(key) not in allowed:
            return f"settings.json: `{key}` is {settings.get(key)!r}; it must be one of {', '.join(allowed)}"
    missing = [name for name in ("ID", "runtimes", "normalizers", "Usage") if name not in solution.columns]
    if missing:
        return f"solution.csv has no {', '.join(missing)} column"
    try:
        metric.read_solution(solution, "ID", settings["tile_runtime"])
    except ValueError as err:
        return f"solution.csv: {err}"
    if output_dir.exists() and not output_dir.is_dir():
        return f"the output folder {output_dir} is a file"
    return None


def _where(line, graph_id) -> str:
    """``"line 3 tile:xla:g: "`` (what is known of a problem's place), or ``""``."""
    where = " ".join(part for part in (f"line {line}" if line else "", graph_id or "") if part)
    return where + ": " if where else ""


def defined_graphs(solution, usage: str, collections) -> dict:
    """Collection → the graphs of ``usage`` whose metric is defined whatever the submission: every tile graph,
    and each layout graph with at least two distinct runtimes (tau-b is undefined when all are equal).

    Args:
        solution: the reference solution table (``ID``, ``runtimes`` as ``;``-separated integers, ``Usage``).
    """
    counts = {name: 0 for name in collections}
    for graph_id, runtimes, graph_usage in zip(solution["ID"].tolist(), solution["runtimes"].tolist(),
                                               solution["Usage"].tolist()):
        collection = graph_id.rsplit(":", 1)[0]
        if graph_usage == usage and (collection.startswith("tile:") or len(set(runtimes.split(";"))) >= 2):
            counts[collection] += 1
    return counts


def main(argv: list[str]) -> int:
    """Score ``input/res`` against ``input/ref`` and write ``output/scores.json``; returns the exit code."""
    if len(argv) != 2:
        print("usage: score.py INPUT_DIR OUTPUT_DIR (INPUT_DIR holds ref/ and res/)", file=sys.stderr)
        return EXIT_SETUP
    input_dir, output_dir = Path(argv[0]), Path(argv[1])
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    try:
        import pandas as pd
        import public_rule
        import tpugraphs_metric as metric
    except ImportError as err:
        print(f"score.py: error: {err}: the competition's Docker image needs numpy, pandas and scipy "
              "(codalab/codalab-legacy:py39 has them)", file=sys.stderr)
        return EXIT_SETUP

    ref = input_dir / "ref"
    try:
        settings = json.loads((ref / "settings.json").read_text(encoding="utf-8"))
        solution = pd.read_csv(ref / "solution.csv", dtype=str, keep_default_na=False)
    except (OSError, ValueError) as err:
        print(f"score.py: error: the reference data in {ref} cannot be read ({err}); is this task's "
              "reference data the bundle's reference_data_*/ folder?", file=sys.stderr)
        return EXIT_SETUP
    wrong = _reference_problem(settings, solution, output_dir, metric)
    if wrong:
        print(f"score.py: error: {wrong} (reference data in {ref})", file=sys.stderr)
        return EXIT_SETUP
    if settings.get("synthetic"):
        print(SYNTHETIC_LINE, flush=True)
    try:
        rows, problems = read_submission(_submission_bytes(_submission_csv(input_dir / "res")), metric.COLLECTIONS)
        for line, graph_id, code, message in problems:
            if code in NOT_ERRORS:
                print(f"note: {_where(line, graph_id)}{code}: {message}")
        submission = pd.DataFrame({"ID": [r[1] for r in rows], "TopConfigs": [r[2] for r in rows]}, dtype=object)
        values = metric.collection_scores(solution, submission, "ID", mode=settings["mode"],
                                          tile_runtime=settings["tile_runtime"], usage=settings["usage"],
                                          lines=[r[0] for r in rows],
                                          file_errors=[p for p in problems if p[2] not in NOT_ERRORS])
    except _Invalid as err:
        print(f"invalid submission: {err}", file=sys.stderr)
        return EXIT_INVALID
    except metric.ParticipantVisibleError as err:
        problems = err.problems or [(None, None, "", str(err))]
        print(f"invalid submission: {len(problems)} error(s)", file=sys.stderr)
        for line, graph_id, code, message in problems[:50]:
            print(f"  {_where(line, graph_id)}{code}: {message}", file=sys.stderr)
        if len(problems) > 50:
            print(f"  … and {len(problems) - 50} more", file=sys.stderr)
        return EXIT_INVALID
    counts = defined_graphs(solution, settings["usage"], metric.COLLECTIONS)
    scores = {leaderboard_key(name): value for name, value in public_rule.public_values(values, counts).items()}
    output_dir.mkdir(parents=True, exist_ok=True)
    (output_dir / "scores.json").write_text(json.dumps(scores, indent=2) + "\n", encoding="utf-8")
    print(f"{settings['usage']} leaderboard ({settings['mode']} validation): " +
          ", ".join(f"{key} {value:.5f}" for key, value in scores.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
