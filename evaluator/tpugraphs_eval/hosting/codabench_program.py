"""The Codabench scoring program: ``score.py`` of the bundle's ``scoring_program/`` (this file's text).

``tpugraphs-eval export codabench`` copies this file as ``score.py`` beside ``tpugraphs_metric.py`` (the
text of :mod:`.standalone_metric`), so the program needs only numpy, pandas and scipy (the stock
``codalab/codalab-legacy:py39`` image has them) and Python >= 3.9. It never imports ``tpugraphs_eval``, so
it reads the submission CSV by the rules ``tpugraphs-eval`` reads it by (:func:`read_rows`: ``csvshape.py`` and
``sniff.py`` beside it are the files of ``tpugraphs_eval/rules/``, byte for byte) and hands the rows, their lines
and the file's errors to the metric file's ``collection_scores`` (whose TopConfigs rules and problem table are
``rules/topconfigs.py`` and ``rules/codes.py``).

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

import json
import stat
import sys
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


def read_rows(data: bytes, collections):
    """The data rows of a submission CSV and its file-shape problems, by the rules of ``csvshape.py`` (the text of
    ``tpugraphs_eval/rules/csvshape.py``, as ``tpugraphs-eval`` reads a file; docs/codes.md).

    Args:
        data: the file's bytes.
        collections: the collection names (``tpugraphs_metric.COLLECTIONS``).

    Returns:
        (rows, problems): rows as (line, ID, TopConfigs) text; problems as (line or None, ID or None, code,
        message) in the order found.
    """
    refused = sniff.refusal(data)
    if refused:
        code, message, line = refused
        return [], [(line, None, code, message)]
    problems = []

    def add(code, message, line=None, id=None):
        problems.append((line, id, code, message))

    rows = [(line, graph_id, bytes(configs).decode("utf-8"))
            for line, graph_id, configs in csvshape.ShapeReader(add, collections).read(data)]
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
        rows, problems = read_rows(_submission_bytes(_submission_csv(input_dir / "res")), metric.COLLECTIONS)
        errors = [p for p in problems if metric.is_error(p[2], settings["mode"])]
        for line, graph_id, code, message in problems:
            if not metric.is_error(code, settings["mode"]):
                print(f"note: {_where(line, graph_id)}{code}: {message}")
        submission = pd.DataFrame({"ID": [r[1] for r in rows], "TopConfigs": [r[2] for r in rows]}, dtype=object)
        values = metric.collection_scores(solution, submission, "ID", mode=settings["mode"],
                                          tile_runtime=settings["tile_runtime"], usage=settings["usage"],
                                          lines=[r[0] for r in rows], file_errors=errors)
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
