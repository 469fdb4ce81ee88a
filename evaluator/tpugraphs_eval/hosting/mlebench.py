"""``tpugraphs-eval export mlebench``: one competition folder in MLE-bench's layout (``DIR/<id>``, kept by MLE-bench as
``mlebench/competitions/<id>/``). What each file holds and the **Decision**s (the grader carries the metric, so a
grade never changes with a package upgrade and needs only numpy, pandas and scipy; ``prepare.py`` imports the package
inside ``prepare()`` only; medals come from the real Kaggle board the organiser gives, an approximation on a
re-split): docs/hosting.md, "MLE-bench competition".
"""

from __future__ import annotations

import csv
import math
import re
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path
from statistics import fmean
from typing import Any

from .._version import __version__
from ..errors import UsageError
from ..file_digest import file_hexdigest
from ..truth.dataroot import DataRoot
from ..truth.groundtruth import SplitCatalog
from .codabench import publish_folder, refuse_nonempty, to_yaml
from .codabench_pages import collection_mean_text
from .kaggle_metric import solution_frame
from .metric_file import metric_source
from .wheel import WHEEL_NAME, write_wheel

ANSWERS = "answers.csv"
"""The answers file MLE-bench hands to ``grade`` (``private/answers.csv``): the solution table of
:func:`.kaggle_metric.solution_frame` (ID, runtimes, normalizers, Usage)."""
DEFAULT_ID = "predict-ai-model-runtime"
"""The Kaggle competition's slug, which ``mlebench prepare`` downloads the raw data by."""
_ID = re.compile(r"[a-z0-9][a-z0-9-]*")


def prepare_competition(raw, public, private, *, seed: str, **options: Any) -> dict[str, Any]:
    """MLE-bench's preparation: :func:`tpugraphs_eval.prepare.prepare` of ``raw`` (MLE-bench's raw folder: a data
    root, Kaggle's download holding ``npz_all/npz/``, ``"demo"`` or a copy of the demo, as
    :func:`~tpugraphs_eval.roots.resolve_data_root` reads them) into ``public`` and ``private``, then
    ``private/answers.csv`` (:data:`ANSWERS`) from its solution file.

    Returns:
        private/prepare.json's content. Raises what ``prepare`` raises (coded DataError, UsageError).
    """
    from ..prepare import prepare

    info = prepare(raw, public, private, seed=seed, **options)
    solution_frame(Path(private) / "solution.parquet").to_csv(Path(private) / ANSWERS, index=False)
    return info


LearnedBaseline = Callable[[DataRoot, SplitCatalog, Path], None]
"""Writes the learned baseline's submission for a catalog's graphs, trained on a data root's train split
(``tpugraphs-baseline learned``; the ``export`` command passes the kit's: hosting does not import the kit)."""


def reference_scores(public: Path, private: Path, learned_baseline: LearnedBaseline) -> list[tuple[str, float]]:
    """(reference, overall) on the prepared split, best first: the oracle, the learned baseline (trained on the
    public tree's train split), the identity ranking (the sample submission) and the exact expectation of a
    uniformly random ranking (docs/metrics.md, references); overall as the grader computes it."""
    from ..api import score_submission
    from ..roots import resolve_data_root
    from ..scoring.references import collection_references
    from ..truth.npzread import scan_catalog
    from ..truth.solution import load_solution

    truth = load_solution(private / "solution.parquet")
    references = collection_references(truth)
    rows = [("oracle (configs sorted by runtime)", fmean(r.oracle for r in references.values())),
            ("random ranking (exact expectation)", fmean(r.random for r in references.values()))]
    rows.append(("identity (configs in index order: the sample submission)",
                 score_submission((public / "sample_submission.csv").read_bytes(), truth).overall))
    root = resolve_data_root(public)
    with tempfile.TemporaryDirectory() as tmp:
        learned = Path(tmp) / "learned.csv"
        learned_baseline(root, scan_catalog(root, "test"), learned)
        rows.append(("learned baseline (tpugraphs-baseline learned, ridge on the train split)",
                     score_submission(learned.read_bytes(), truth).overall))
    return sorted(rows, key=lambda row: -row[1])


DATA_FOLDERS = ("npz/", "npz_all/npz/")
"""Where a TpuGraphs download holds its ``.npz`` files: a data root's ``npz/``, or the Kaggle zip's ``npz_all/npz/``
(what ``prepare.py`` reads from MLE-bench's ``raw/``)."""


def _zip_md5(path: Path) -> str:
    """The MD5 of ``path`` as MLE-bench's ``get_checksum`` computes it (the whole file's bytes).

    Raises:
        UsageError: ``DATASET_ZIP_INVALID``: not a regular file, not a zip (MLE-bench extracts it with
            ``zipfile``), no ``.npz`` member under :data:`DATA_FOLDERS`, or unreadable.
    """
    try:
        if not path.is_file():
            problem = "is not a file"
        else:
            with zipfile.ZipFile(path) as archive:  # one read of its central directory
                names = archive.namelist()
            if any(name.endswith(".npz") and name.startswith(DATA_FOLDERS) for name in names):
                return file_hexdigest(path, "md5")
            problem = (f"holds no graph file under {' or '.join(DATA_FOLDERS)} ({len(names)} member(s)): it is "
                       "not the TpuGraphs download, whose MD5 MLE-bench would then refuse")
    except zipfile.BadZipFile:
        problem = "is not a zip file (MLE-bench extracts the download with zipfile)"
    except OSError as err:
        problem = f"cannot be read ({err.strerror or err})"
    raise UsageError(f"--dataset-zip {path} {problem}: give the zip MLE-bench downloads for the competition "
                     "(Kaggle's, e.g. predict-ai-model-runtime.zip)", code="DATASET_ZIP_INVALID")


def checksums(folder: Path) -> dict[str, str]:
    """MD5 of the files directly in ``folder`` that MLE-bench's ``generate_checksums`` covers (csv, json,
    jsonl, parquet, bson)."""
    return {p.name: file_hexdigest(p, "md5") for p in sorted(folder.iterdir()) if p.is_file()
            and p.suffix.lstrip(".") in ("csv", "json", "jsonl", "parquet", "bson")}


def kaggle_board(path: Path) -> list[float]:
    """The scores of a Kaggle leaderboard CSV, best first: its ``score`` (or ``Score``) column; when it has a
    ``board`` column (public/private, as two boards in one file), its ``private`` rows only.

    Raises:
        UsageError: ``LEADERBOARD_FILE_INVALID``: unreadable, no score column, a score that is not a finite
            number, or no row.
    """
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
        key = next((k for k in ("score", "Score") if rows and k in rows[0]), None)
        if key is None:
            problem = "has no row with a score (or Score) column"
        else:
            rows = [r for r in rows if r.get("board", "private") == "private"]
            scores = sorted((float(r[key]) for r in rows), reverse=True)
            if scores and all(map(math.isfinite, scores)):
                return scores
            problem = "holds no private-board row, or a score that is not a finite number"
    except (OSError, UnicodeDecodeError, csv.Error) as err:
        problem = f"cannot be read ({getattr(err, 'strerror', None) or err})"
    except ValueError as err:
        problem = f"holds a score that is not a number ({err})"
    raise UsageError(f"--kaggle-leaderboard {path} {problem}: give the final private leaderboard of the Kaggle "
                     "competition as a CSV with a score column", code="LEADERBOARD_FILE_INVALID")


def _config(competition_id: str, title: str, medals: bool) -> dict[str, Any]:
    return {"id": competition_id, "name": title, "competition_type": "simple", "awards_medals": medals,
            "prizes": None, "description": f"mlebench/competitions/{competition_id}/description.md",
            "dataset": {"answers": f"{competition_id}/prepared/private/{ANSWERS}",
                        "sample_submission": f"{competition_id}/prepared/public/sample_submission.csv"},
            "grader": {"name": "tpugraphs-overall", "grade_fn": f"mlebench.competitions.{competition_id}.grade:grade"},
            "preparer": f"mlebench.competitions.{competition_id}.prepare:prepare"}


_PREPARE_PY = '''"""MLE-bench preparer of {id} (written by tpugraphs-eval {version} export mlebench).

Preparing needs the package, which ships beside this file: pip install './{wheel}[organiser]'. Grading does not
(grade.py carries the metric), so it is imported inside prepare() only. ``raw`` is the data root (a folder holding
npz/, or the Kaggle download holding npz_all/npz/); docs/prepare.md says what is written.
"""

from pathlib import Path

SEED = {seed!r}
"""The organiser's seed: the held-out graphs, their names and the Usage draw derive from it (keep this folder
away from the agent, as MLE-bench keeps its competitions)."""
OPTIONS = {options!r}


def prepare(raw: Path, public: Path, private: Path):
    from tpugraphs_eval.hosting.mlebench import prepare_competition

    prepare_competition(raw, public, private, seed=SEED, **OPTIONS)
'''

_GRADE_PY = '''"""MLE-bench grader of {id} (written by tpugraphs-eval {version} export mlebench): the overall score of
tpugraphs-eval (strict validation) over every graph of the prepared test split; tpugraphs_metric.py beside it
is the package's standalone metric (numpy, pandas, scipy)."""

import math

import pandas as pd

from mlebench.grade_helpers import InvalidSubmissionError

from .tpugraphs_metric import ParticipantVisibleError, score

MODE = 'strict'
TILE_RUNTIME = 'normalized'


def _text(value):
    """A cell as the CSV held it (pandas reads a column of single integers as numbers)."""
    if isinstance(value, str) or value is None or (isinstance(value, float) and math.isnan(value)):
        return value
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def grade(submission: pd.DataFrame, answers: pd.DataFrame) -> float:
    """The overall score; InvalidSubmissionError with the first problems (codes, docs/codes.md) otherwise."""
    missing = [name for name in ("ID", "TopConfigs") if name not in submission.columns]
    if missing:
        raise InvalidSubmissionError(f"the submission has no {{' or '.join(missing)}} column: the header must be "
                                     "ID,TopConfigs")
    submission = pd.DataFrame({{name: [_text(v) for v in submission[name].tolist()] for name in ("ID", "TopConfigs")}},
                              dtype=object)
    try:
        return score(answers, submission, "ID", mode=MODE, tile_runtime=TILE_RUNTIME)  # finite, or a ValueError
    except ParticipantVisibleError as err:
        raise InvalidSubmissionError(str(err)) from None
'''


_MEDALS = {True: """
## Medals

`leaderboard.csv` is the final private leaderboard of the 2023 Kaggle competition ({teams} teams). This
competition's test split was prepared from the released labelled graphs; it is not Kaggle's test split, so a
score here and a score there are not the same measurement, and medals are an approximation (as for every
MLE-bench competition re-split from public data).
""", False: """
## Medals

No Kaggle leaderboard was given: `leaderboard.csv` holds reference scores on this split, and medals from it mean
nothing.
"""}


def _description(competition_id: str, title: str, counts: dict[str, int], teams: int | None) -> str:
    rows = "\n".join(f"| `{name}` | {n} |" for name, n in counts.items())
    mean = collection_mean_text(list(counts))
    return f"""# {title}

Predict which compilation configurations of an XLA tensor program run fastest on a TPU (TpuGraphs, arXiv
2308.13490; the 2023 Kaggle competition "Google - Fast or Slow? Predict AI Model Runtime").

## Data

`npz/tile/xla/{{train,valid,test}}/*.npz` and `npz/layout/{{xla,nlp}}/{{default,random}}/{{train,valid,test}}/*.npz`:
one graph per file (node features, opcodes, edges, configuration features and, for train and valid,
`config_runtime` in ns). The test graphs' runtimes are hidden (written as 0; tile normalizers as 1).
`prepare.json` describes the split; `sample_submission.csv` is a valid submission.

| collection | test graphs |
|---|---|
{rows}

## Submission

A CSV file with the header `ID,TopConfigs`, one row per test graph: `ID` is the collection and the file name
without `.npz` (`tile:xla:<name>`, `layout:xla:default:<name>`, ...); `TopConfigs` are configuration indices
joined by `;`, fastest first: the top 5 for a tile graph (fewer when it has fewer configs), all of them for a
layout graph. Check a file with `tpugraphs-eval validate submission.csv --data-root <this folder> --split test`.

## Metric

tile: `2 - min(runtime of the first 5 listed) / min(runtime of all)` per graph (runtimes divided by the
normalizers); layout: Kendall's tau-b between the ranking and the runtimes per graph. A collection's value is
the mean over its graphs; the score is {mean} (higher is better).
An invalid submission (an unknown or missing ID, a repeated or out-of-range index, a layout row that is not a
permutation, ...) gets no score.
""" + _MEDALS[teams is not None].format(teams=teams)


def _board_files(references: list[tuple[str, float]], board: list[float] | None) -> dict[str, str]:
    """``reference_scores.csv`` and ``leaderboard.csv``: the Kaggle ``board`` (best first), or the references."""
    text = "score,teamName,note\n" + "".join(
        f"{value!r},{name.split(' (')[0]},\"reference, not a Kaggle board: {name}\"\n" for name, value in references)
    return {"leaderboard.csv": text if board is None else "rank,score\n" + "".join(
        f"{rank},{value!r}\n" for rank, value in enumerate(board, start=1)), "reference_scores.csv": text}


def write_competition(out: Path, data_root: str, *, seed: str, learned_baseline: LearnedBaseline,
                      title: str = "TpuGraphs: predict AI model runtime", options: dict[str, Any] | None = None,
                      dataset_zip: Path | None = None, kaggle_leaderboard: Path | None = None
                      ) -> list[tuple[str, float]]:
    """Write the competition folder ``out`` (new or empty; its name is the id) from ``data_root``, prepared once here
    (``seed``, ``options``: :func:`tpugraphs_eval.prepare.prepare`'s) for the references and the checksums.

    ``dataset_zip``: the file MLE-bench's ``prepare`` downloads for the id (Kaggle's competition zip): with it,
    ``checksums.yaml`` holds its MD5 (``zip:``) and the prepared files' (else none: docs/hosting.md says why).
    ``kaggle_leaderboard``: the real final private board (:func:`kaggle_board`), written as ``leaderboard.csv``
    (else the references are, and the caller warns).

    Returns:
        The reference rows (reference, score), best first (``reference_scores.csv``).

    Raises:
        UsageError: ``out`` is not a new or empty folder, or its name is not an id (lower-case letters,
            digits, ``-``); ``dataset_zip`` is not a readable zip file (``DATASET_ZIP_INVALID``);
            ``OUTPUT_WRITE_FAILED`` on a failed write; ``LEADERBOARD_FILE_INVALID``. What ``prepare`` raises.
    """
    out = Path(out)
    zip_md5 = None if dataset_zip is None else _zip_md5(Path(dataset_zip))
    board = None if kaggle_leaderboard is None else kaggle_board(Path(kaggle_leaderboard))
    competition_id = out.name
    if not _ID.fullmatch(competition_id):
        raise UsageError(f"{out.name!r} is not a competition id (lower-case letters, digits and -): the "
                         f"folder's name is the id, e.g. -o competitions/{DEFAULT_ID}")
    refuse_nonempty(out, "competition")
    options = dict(options or {})
    with tempfile.TemporaryDirectory() as tmp:
        public, private = Path(tmp) / "public", Path(tmp) / "private"  # new folders, which prepare makes
        prepare_competition(data_root, public, private, seed=seed, **options)
        leaderboard = reference_scores(public, private, learned_baseline)
        counts = solution_frame(private / "solution.parquet").ID.str.rsplit(":", n=1).str[0].value_counts(sort=False)
        files = {
            "config.yaml": to_yaml(_config(competition_id, title, board is not None)) + "\n",
            "description.md": _description(competition_id, title, counts.to_dict(), None if board is None else len(board)),
            "prepare.py": _PREPARE_PY.format(id=competition_id, version=__version__, seed=seed, options=options,
                                             wheel=WHEEL_NAME),
            "grade.py": _GRADE_PY.format(id=competition_id, version=__version__),
            "tpugraphs_metric.py": metric_source(),
            **_board_files(leaderboard, board),
        }
        if zip_md5 is not None:
            sums = {"zip": zip_md5, "public": checksums(public), "private": checksums(private)}
            files["checksums.yaml"] = to_yaml(sums) + "\n"

    def fill(staging: Path) -> None:
        for name, text in files.items():
            (staging / name).write_text(text, encoding="utf-8")
        write_wheel(staging)

    publish_folder(out, fill, "competition")
    return leaderboard
