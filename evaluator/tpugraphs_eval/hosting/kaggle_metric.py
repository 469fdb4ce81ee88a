"""The metric in Kaggle's convention: ``score(solution, submission, row_id_column_name) -> float``.

For hosting the competition metric on Kaggle-like platforms, which call ``score`` with pandas
DataFrames — once with the Public rows, once with the Private ones — and show the message of a
:class:`ParticipantVisibleError` to the participant. The submission goes through the same validation
and scoring as ``tpugraphs-eval`` (one path), so the numbers are the CLI's. To upload the metric to a
platform, export :mod:`.standalone_metric` (``tpugraphs-eval export kaggle-metric``): the same convention
in one file that does not import this package.

Solution table (one row per graph; the organiser uploads it, :func:`solution_frame` makes it):

=====================  ======================================================================
column                 content
=====================  ======================================================================
``<row id>``           the submission ID, e.g. ``tile:xla:d6f5…`` (the column named by ``row_id_column_name``)
``runtimes``           the graph's ``config_runtime`` in ns, as integers joined by ``;`` (config 0 first)
``normalizers``        tile: ``config_runtime_normalizers`` joined by ``;``; layout: empty
``Usage``              ``Public`` or ``Private`` (optional; the platform filters rows by it)
=====================  ======================================================================
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..dataset import COLLECTIONS, split_submission_id
from ..display import shorten
from ..errors import TpuGraphsEvalError
from ..options import Options
from ..truth.dataroot import DataRoot
from ..truth.groundtruth import GraphRuntimes, GraphsRead, GroundTruth, build_ground_truth
from ..truth.solution import read_solution
from .standalone_metric import MAX_SHOWN, split_free_message

if TYPE_CHECKING:
    import pandas as pd

class ParticipantVisibleError(Exception):
    """A mistake in the submission, explained to the participant; it never contains ground-truth runtimes."""


def _integers(text: object, what: str, graph_id: str) -> np.ndarray:
    values = [] if text is None or (isinstance(text, float) and np.isnan(text)) or str(text) == "" else str(text).split(";")
    try:
        return np.array([int(v) for v in values], dtype=np.int64)
    except (ValueError, OverflowError):
        raise ValueError(f"solution row {shorten(graph_id)}: {what} must be integers joined by ';'") from None


def _truth(solution: pd.DataFrame, row_id_column_name: str, tile_runtime: str) -> GroundTruth:
    """The ground truth of the solution rows (the organiser's table: its problems are ValueErrors)."""
    missing = {row_id_column_name, "runtimes", "normalizers"} - set(solution.columns)
    if missing:
        raise ValueError(f"the solution lacks the columns {sorted(missing)}")
    read: GraphsRead = {}
    for graph_id, runtimes, normalizers in solution[[row_id_column_name, "runtimes", "normalizers"]].itertuples(
            index=False, name=None):
        parts = split_submission_id(str(graph_id))
        if parts is None:
            raise ValueError(f"solution row {shorten(repr(graph_id))}: not a submission ID")
        collection, name = parts
        runtime = _integers(runtimes, "runtimes", graph_id)
        normalizer = _integers(normalizers, "normalizers", graph_id) if collection.kind == "tile" else None
        read.setdefault(collection, []).append((name, GraphRuntimes(runtime, normalizer)))
    read = {c: sorted(read[c], key=lambda graph: graph[0]) for c in COLLECTIONS if c in read}  # catalog order
    try:
        return build_ground_truth(DataRoot(Path("<solution table>"), noun="solution"), "test", read, tile_runtime=tile_runtime)
    except TpuGraphsEvalError as err:
        raise ValueError(f"the solution cannot be scored: {err}") from None


def score(solution: pd.DataFrame, submission: pd.DataFrame, row_id_column_name: str, *, mode: str = "strict",
          tile_runtime: str = "normalized") -> float:
    """The overall score of ``submission`` on the graphs of ``solution`` (docs/metrics.md, overall).

    Args:
        solution: one row per graph (see the module docstring); a platform passes the Public or the
            Private rows.
        submission: columns ``row_id_column_name`` and ``TopConfigs`` (indices joined by ``;``, docs/codes.md),
            one row per graph of ``solution``.
        row_id_column_name: the name of the ID column in both tables (``ID`` in the competition).
        mode: ``strict`` (default) or ``lenient`` (Kaggle-compatible validation, docs/codes.md).
        tile_runtime: ``normalized`` (default) or ``raw``.

    Returns:
        The unweighted mean of the collection values present (tile: mean Kaggle score; layout: mean
        Kendall tau-b), exactly what ``tpugraphs-eval`` reports as ``overall``: a finite float, never NaN.

    Raises:
        ParticipantVisibleError: the submission is invalid. The platform calls ``score`` once per Usage
            subset, so the message tells nothing of the split: the set of problem codes with their meanings
            and the advice to run ``tpugraphs-eval validate`` for lines and IDs
            (:func:`.standalone_metric.split_free_message`; docs/hosting.md).
        ValueError: the solution table is malformed (a runtime that is zero or negative:
            ``RUNTIME_NOT_POSITIVE``), or defines no collection value (the organiser's side).

    Examples:
        >>> import pandas as pd
        >>> solution = pd.DataFrame({"ID": ["tile:xla:g", "layout:xla:default:h"],
        ...                          "runtimes": ["30;10;20", "5;7;6;9"], "normalizers": ["1;1;1", ""]})
        >>> submission = pd.DataFrame({"ID": ["tile:xla:g", "layout:xla:default:h"],
        ...                            "TopConfigs": ["0;2;1", "0;2;1;3"]})
        >>> score(solution, submission, "ID")  # tile: the best config is listed (1.0); layout: tau-b 1
        1.0
        >>> bad = pd.DataFrame({"ID": ["tile:xla:g", "layout:xla:default:h"], "TopConfigs": ["0;2;9", "0;1"]})
        >>> score(solution, bad, "ID")
        Traceback (most recent call last):
        ...
        tpugraphs_eval.hosting.kaggle_metric.ParticipantVisibleError: invalid submission: INDEX_OUT_OF_RANGE (An index >= the graph's number of configurations c; lenient mode drops it) | TILE_TOO_FEW (...) | LAYOUT_NOT_PERMUTATION (...); for each problem's line and ID, run `tpugraphs-eval validate` on this file with the competition's data (it checks the whole file)
    """
    from ..api import score_submission

    truth = _truth(solution, row_id_column_name, tile_runtime)
    if set(submission.columns) != {row_id_column_name, "TopConfigs"}:
        columns = ", ".join(shorten(str(column), MAX_SHOWN) for column in submission.columns[:10])
        message = f"the submission must have exactly the columns {row_id_column_name} and TopConfigs, not {columns}"
        raise ParticipantVisibleError(split_free_message([(1, None, "HEADER_RENAMED", message)]))
    table = submission[[row_id_column_name, "TopConfigs"]].rename(columns={row_id_column_name: "ID"})
    report = score_submission(table.to_csv(index=False).encode("utf-8"), truth, Options(mode=mode,
                                                                                         tile_runtime=tile_runtime))
    if not report.valid:
        raise ParticipantVisibleError(split_free_message([(p.line, p.id, p.code, p.message) for p in report.problems
                                                          if p.severity == "error"]))
    if report.overall is None or not np.isfinite(report.overall):
        raise ValueError("the solution defines no collection value on these rows (every graph a layout graph with "
                         "fewer than 2 configurations or constant runtimes): nothing to score")
    return float(report.overall)


def solution_frame(solution_file: Path, row_id_column_name: str = "ID") -> pd.DataFrame:
    """The solution table (with ``Usage``) of a solution file (``tpugraphs-eval solution build``), to upload.

    Raises:
        DataError: ``solution_file`` is not a solution file.
    """
    import pandas as pd

    _, read, public = read_solution(solution_file)
    rows = []
    for collection, graphs in read.items():
        for (name, arrays), is_public in zip(graphs, public[collection.name].tolist(), strict=True):
            rows.append({row_id_column_name: f"{collection.name}:{name}",
                         "runtimes": ";".join(map(str, arrays.runtime.tolist())),
                         "normalizers": "" if arrays.normalizer is None else ";".join(map(str, arrays.normalizer.tolist())),
                         "Usage": "Public" if is_public else "Private"})
    return pd.DataFrame(rows)
