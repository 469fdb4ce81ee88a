"""The Codabench scoring program: ``score.py`` of the bundle's ``scoring_program/`` (this file's text).

``tpugraphs-eval export codabench`` copies this file as ``score.py`` beside ``tpugraphs_metric.py`` (the
text of :mod:`.standalone_metric`), so the program needs only numpy, pandas and scipy (the stock
``codalab/codalab-legacy:py39`` image has them) and Python >= 3.9. It never imports ``tpugraphs_eval``.

A compute worker runs ``python3 /app/program/score.py /app/input /app/output`` (``metadata.yaml``) with
the working directory ``/app/program``, ``input/ref`` holding the reference data (``solution.csv``, the
solution table of every graph with its Usage, and ``settings.json``: the Usage this phase scores, the
validation mode, the tile runtime and whether the data is the synthetic demo) and ``input/res`` the
participant's unzipped submission (one CSV).
It writes ``output/scores.json``: ``overall`` and one key per collection (``tile_xla``,
``layout_xla_default``, …; a collection whose value is undefined is left out). Exit codes: 0 scored,
1 invalid submission (the problems on stderr, one per line), 2 the bundle or the call is wrong. A bundle of
the synthetic demo says so first in its output log (stdout), scored or not.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

EXIT_INVALID = 1
EXIT_SETUP = 2
SYNTHETIC_LINE = "SYNTHETIC demo data: these scores say nothing about real TpuGraphs performance."


def leaderboard_key(collection: str) -> str:
    """The scores.json key of a collection: ``layout:xla:default`` → ``layout_xla_default``."""
    return collection.replace(":", "_")


class _Invalid(Exception):
    """The submission cannot be read: the message is for the participant."""


def _submission_csv(res: Path) -> Path:
    """The one CSV file of the submission folder (any depth; macOS ``__MACOSX`` and dot files ignored)."""
    found = sorted(p for p in res.rglob("*") if p.is_file() and p.suffix.lower() == ".csv"
                   and "__MACOSX" not in p.parts and not p.name.startswith("."))
    if len(found) != 1:
        listed = sorted(str(p.relative_to(res)) for p in res.rglob("*") if p.is_file())
        what = "no CSV file" if not found else f"{len(found)} CSV files"
        raise _Invalid(f"the submission holds {what} (it must zip exactly one ID,TopConfigs CSV); it holds: "
                       f"{', '.join(listed[:10]) or 'nothing'}")
    return found[0]


def _read_submission(path: Path, pd):
    """The submission table, every value as text (``keep_default_na=False``: an empty field stays "")."""
    try:
        return pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise _Invalid(f"{path.name} is not UTF-8 text") from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError) as err:
        raise _Invalid(f"{path.name} cannot be read as CSV: {' '.join(str(err).split())}") from None


def main(argv: list[str]) -> int:
    """Score ``input/res`` against ``input/ref`` and write ``output/scores.json``; returns the exit code."""
    if len(argv) != 2:
        print("usage: score.py INPUT_DIR OUTPUT_DIR (INPUT_DIR holds ref/ and res/)", file=sys.stderr)
        return EXIT_SETUP
    input_dir, output_dir = Path(argv[0]), Path(argv[1])
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    try:
        import pandas as pd
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
    if settings.get("synthetic"):
        print(SYNTHETIC_LINE, flush=True)
    try:
        submission = _read_submission(_submission_csv(input_dir / "res"), pd)
        values = metric.collection_scores(solution, submission, "ID", mode=settings["mode"],
                                          tile_runtime=settings["tile_runtime"], usage=settings["usage"])
    except _Invalid as err:
        print(f"invalid submission: {err}", file=sys.stderr)
        return EXIT_INVALID
    except metric.ParticipantVisibleError as err:
        problems = err.problems or [(None, None, "", str(err))]
        print(f"invalid submission: {len(problems)} error(s)", file=sys.stderr)
        for line, graph_id, code, message in problems[:50]:
            where = " ".join(part for part in (f"line {line}" if line else "", graph_id or "") if part)
            print(f"  {where + ': ' if where else ''}{code}: {message}", file=sys.stderr)
        if len(problems) > 50:
            print(f"  … and {len(problems) - 50} more", file=sys.stderr)
        return EXIT_INVALID
    scores = {leaderboard_key(name): value for name, value in values.items()
              if value is not None and math.isfinite(value)}
    output_dir.mkdir(parents=True, exist_ok=True)
    (output_dir / "scores.json").write_text(json.dumps(scores, indent=2) + "\n", encoding="utf-8")
    print(f"{settings['usage']} leaderboard ({settings['mode']} validation): " +
          ", ".join(f"{key} {value:.5f}" for key, value in scores.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
