"""The TpuGraphs competition metric: the solution table, validation of a submission table and the metrics.

``tpugraphs-eval export kaggle-metric -o metric.py`` writes one self-contained file of ``rules/codes.py``,
``rules/topconfigs.py``, ``rules/csvshape.py`` and this module (:mod:`.metric_file`: their text unchanged but for the
relative imports below, whose names stand above it there), and the Codabench scoring program carries that file as
``tpugraphs_metric.py``: so this module imports nothing of ``tpugraphs_eval`` but ``rules/`` and runs on Python >= 3.9
(Codabench's ``codalab/codalab-legacy:py39`` image; Kaggle's is newer). Its TopConfigs rules and problem severities
are the validator's own (``rules/``); tests/hosting/test_export_kaggle_metric.py checks that the exported file gives
``tpugraphs-eval``'s numbers and verdicts on every fixture.

Kaggle's convention: ``score(solution, submission, row_id_column_name) -> float``; the platform passes the
Public rows, then the Private ones, and shows a :class:`ParticipantVisibleError`'s message to the
participant. Definitions (tpugraphs-eval's docs/codes.md and docs/metrics.md; paper arXiv 2308.13490; Kaggle "Google - Fast or
Slow? Predict AI Model Runtime", 2023):

- tile:xla, per graph: ``2 - min(y of the first 5 listed) / min(y of all configs)``; y is
  ``runtime / normalizer`` (``tile_runtime="normalized"``, default) or the raw runtime (ns).
- layout:*, per graph: Kendall's tau-b (``scipy.stats.kendalltau``) between the predicted rank (config
  L[k] gets rank k; lenient mode: unlisted configs tie last) and the runtimes; undefined (left out of
  the mean) for fewer than 2 configs or constant runtimes.
- collection value: the unweighted mean over its graphs (``math.fsum(v) / n``); overall: the unweighted
  mean of the collection values present.

Solution table: one row per graph; columns ``<row id>`` (``tile:xla:<graph>``, ``layout:nlp:random:<graph>``),
``runtimes`` (``config_runtime`` in ns as integers joined by ``;``, config 0 first), ``normalizers``
(tile: ``config_runtime_normalizers`` joined by ``;``; layout: empty) and optionally ``Usage``
(``Public``/``Private``). Submission: columns ``<row id>`` and ``TopConfigs`` (indices joined by ``;``,
fastest first; tile: the top min(5, c), up to 10, of which the first 5 are scored; layout: all c configs).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats

from ..rules.codes import MODES, is_error, preview  # in the exported file: rules/codes.py's text
from ..rules.csvshape import other_delimiter, wrong_delimiter  # likewise
from ..rules.topconfigs import (  # likewise
    FIELD_MISTAKES,
    ONE_BASED_FOLLOWS,
    TILE_TOP_K,
    check_field,
    field_mistake,
    mistake_problems,
    one_based,
)

COLLECTIONS = ("tile:xla", "layout:xla:default", "layout:xla:random", "layout:nlp:default", "layout:nlp:random")
TILE_RUNTIMES = ("normalized", "raw")
_SHOWN_PROBLEMS = 5


class ParticipantVisibleError(Exception):
    """A mistake in the submission, explained to the participant; never shows a ground-truth runtime.

    Attributes:
        problems: every error found, as (line, ID, code, message); line is the CSV line (header = 1).
    """

    def __init__(self, message, problems=()):
        super().__init__(message)
        self.problems = list(problems)


class _Graph:
    """One graph of the solution: its collection, kind, runtimes y ((c,) float64) and Usage."""

    def __init__(self, collection, y, usage):
        self.collection = collection
        self.kind = collection.split(":", 1)[0]
        self.y = y
        self.usage = usage


def _collection_of(graph_id):
    """The collection of a submission ID (what comes before its last ``:``, surrounding spaces ignored, as
    ``tpugraphs-eval`` reads it: `` tile:xla:g `` is an unknown ID of tile:xla), or None."""
    prefix = graph_id.strip().rpartition(":")[0]
    return prefix if prefix in COLLECTIONS else None


def _integers(text, what, graph_id):
    if text is None or (isinstance(text, float) and math.isnan(text)) or str(text) == "":
        return np.empty(0, dtype=np.int64)
    try:
        return np.array([int(v) for v in str(text).split(";")], dtype=np.int64)
    except ValueError:
        raise ValueError(f"solution row {graph_id}: {what} must be integers joined by ';'") from None


def read_solution(solution, row_id_column_name, tile_runtime="normalized"):
    """ID → :class:`_Graph` of a solution table (the organiser's side: its problems are ValueErrors).

    Raises:
        ValueError: missing columns, an ID without a collection prefix, repeated IDs, non-integer or empty
            runtimes, tile normalizers that are not positive or do not match the runtimes, or a
            collection whose runtimes are all zero (public test files: no ground truth).
    """
    if tile_runtime not in TILE_RUNTIMES:
        raise ValueError(f"tile_runtime must be one of {TILE_RUNTIMES}, not {tile_runtime!r}")
    missing = {row_id_column_name, "runtimes", "normalizers"} - set(solution.columns)
    if missing:
        raise ValueError(f"the solution lacks the columns {sorted(missing)}")
    usages = solution["Usage"].tolist() if "Usage" in solution.columns else [None] * len(solution)
    graphs, all_zero = {}, {}
    for graph_id, runtimes, normalizers, usage in zip(solution[row_id_column_name].tolist(),
                                                      solution["runtimes"].tolist(),
                                                      solution["normalizers"].tolist(), usages):
        graph_id = str(graph_id)
        collection = _collection_of(graph_id)
        if collection is None or graph_id != graph_id.strip() or graph_id.endswith(":"):
            raise ValueError(f"solution row {graph_id!r}: not a submission ID")
        if graph_id in graphs:
            raise ValueError(f"solution row {graph_id!r} is repeated")
        runtime = _integers(runtimes, "runtimes", graph_id)
        if runtime.size == 0:
            raise ValueError(f"solution row {graph_id}: no runtimes")
        y = runtime.astype(np.float64)
        if collection == "tile:xla":
            normalizer = _integers(normalizers, "normalizers", graph_id)
            if normalizer.shape != runtime.shape or not (normalizer > 0).all():
                raise ValueError(f"solution row {graph_id}: normalizers must be {runtime.size} positive integers")
            if tile_runtime == "normalized":
                y = y / normalizer
        graphs[graph_id] = _Graph(collection, y, usage)
        all_zero[collection] = all_zero.get(collection, True) and not runtime.any()
    zero = [c for c, flag in all_zero.items() if flag]
    if zero:
        raise ValueError(f"every runtime of {', '.join(zero)} is 0: no ground truth (public test files?)")
    return graphs


def validate(submission, graphs, row_id_column_name, mode="strict", lines=None, file_errors=()):
    """ID → usable indices of every submitted graph of ``graphs``, or the participant's errors.

    A row whose collection the solution lacks is skipped (a Kaggle Public/Private subset may lack one).

    Args:
        lines: the CSV line of each submission row (default 2, 3, …: a header, then the rows).
        file_errors: (line, ID, code, message) errors of the CSV's shape, found by whoever read the file
            (the Codabench scoring program): listed in line order with the row errors, before those of
            the same line, as ``tpugraphs-eval`` lists them. EMPTY_FILE or NOT_TEXT with no row read is
            the only problem (no MISSING_IDS).

    Raises:
        ParticipantVisibleError: wrong columns, or any row or ID error (all found, the first shown).
        ValueError: an unknown ``mode``.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    if len(submission.columns) == 1:  # `ID;TopConfigs` read with sep=",": the tab or `;` delimiter, said once
        other = other_delimiter(str(submission.columns[0]).encode("utf-8"))
        if other is not None:
            message = wrong_delimiter(other[1])
            raise ParticipantVisibleError(f"invalid submission (1 error(s)): line 1 WRONG_DELIMITER: {message}",
                                          [(1, None, "WRONG_DELIMITER", message)])
    if set(submission.columns) != {row_id_column_name, "TopConfigs"} or len(submission.columns) != 2:
        raise ParticipantVisibleError(f"the submission must have exactly the columns {row_id_column_name} and "
                                      f"TopConfigs, not {', '.join(map(str, submission.columns))}")
    present = {graph.collection for graph in graphs.values()}
    errors, rankings, seen, mistakes = [], {}, set(), {code: [] for code in FIELD_MISTAKES}
    one_past_end, zero_listed, n_known = {}, False, 0
    ids, texts = submission[row_id_column_name].tolist(), submission["TopConfigs"].tolist()
    for line, graph_id, text in zip(range(2, len(ids) + 2) if lines is None else lines, ids, texts):
        graph_id = "" if graph_id is None or (isinstance(graph_id, float) and math.isnan(graph_id)) else str(graph_id)
        collection = _collection_of(graph_id)
        graph = graphs.get(graph_id)
        if graph is None and collection is not None and collection not in present:
            continue  # a collection this solution (a Public/Private subset) lacks: not scored here
        row = []
        text = "" if text is None or (isinstance(text, float) and math.isnan(text)) else str(text)
        mistake = field_mistake(text)
        if mistake:
            text = mistake[0].decode("ascii")
            mistakes[mistake[1]].append(line)
        if collection is None:
            row.append(("UNKNOWN_COLLECTION", f"the ID does not start with one of {', '.join(COLLECTIONS)}"))
        elif graph is None:
            row.append(("UNKNOWN_ID", "no graph of the solution has this ID"))
        elif graph_id in seen:
            row.append(("DUPLICATE_ID", "a second row for this ID"))
        if graph_id not in seen or graph is None:  # a repeated row is not checked further
            checked = check_field(text, collection.split(":", 1)[0] if collection else "tile",
                                  None if graph is None else graph.y.size)
            row += checked.problems
            if graph is not None:
                n_known += 1
                zero_listed = zero_listed or bool(checked.usable.size and checked.usable.min() == 0)
                if checked.one_past_end:
                    one_past_end[line] = len(errors)
        row_errors = [(line, graph_id, code, message) for code, message in row if is_error(code, mode)]
        errors += row_errors
        if graph is not None and not row_errors and graph_id not in seen:
            rankings[graph_id] = checked.usable
        seen.add(graph_id)
    found = one_based(sorted(one_past_end), n_known, zero_listed) if one_past_end else None
    if found is not None:  # one problem for the file in place of what counting from 1 explains
        errors = [e for e in errors if not (e[0] in one_past_end and e[2] in ONE_BASED_FOLLOWS)]
        errors.append((found[2], None, found[0], found[1]))
    file_errors = list(file_errors)
    errors = [e for _, e in sorted([(0, e) for e in file_errors] + [(1, e) for e in errors],
                                   key=lambda item: (item[1][0] is None, item[1][0] or 0, item[0]))]
    for code, message, line in mistake_problems(mistakes):
        errors.append((line, None, code, message))
    nothing_read = not ids and any(e[2] in ("EMPTY_FILE", "NOT_TEXT") for e in file_errors)
    missing = {}
    for graph_id, graph in () if nothing_read else graphs.items():
        if graph_id not in seen:
            missing.setdefault(graph.collection, []).append(graph_id)
    for collection, ids in missing.items():
        have = "graph has" if len(ids) == 1 else "graphs have"
        errors.append((None, None, "MISSING_IDS", f"{len(ids)} {collection} {have} no row: {preview(ids)}"))
    if errors:
        shown = " | ".join(f"{'' if line is None else f'line {line} '}{graph_id + ' ' if graph_id else ''}{code}: "
                           f"{message}" for line, graph_id, code, message in errors[:_SHOWN_PROBLEMS])
        more = f" | … and {len(errors) - _SHOWN_PROBLEMS} more" if len(errors) > _SHOWN_PROBLEMS else ""
        raise ParticipantVisibleError(f"invalid submission ({len(errors)} error(s)): {shown}{more}", errors)
    return rankings


def graph_value(graph, usable):
    """The graph's primary metric: tile Kaggle score, layout Kendall tau-b (NaN where undefined)."""
    if graph.kind == "tile":
        return 2.0 - float(np.min(graph.y[usable[:TILE_TOP_K]]) / graph.y.min())
    n = graph.y.size
    if n < 2 or graph.y.min() == graph.y.max():
        return math.nan
    rank = np.full(n, usable.size, dtype=np.int64)  # unlisted configs tie last (lenient)
    rank[usable] = np.arange(usable.size)
    return float(stats.kendalltau(rank, graph.y)[0])


def collection_scores(solution, submission, row_id_column_name, *, mode="strict", tile_runtime="normalized",
                      usage=None, lines=None, file_errors=()):
    """Collection values and ``overall`` of ``submission``, as ``tpugraphs-eval`` reports them.

    Args:
        solution, submission, row_id_column_name: as for :func:`score`.
        mode: ``strict`` (default) or ``lenient`` (Kaggle-compatible validation).
        tile_runtime: ``normalized`` (default) or ``raw``.
        usage: None (every row of ``solution``), or ``Public``/``Private``: the whole submission is validated
            against every graph, and means are taken over the graphs of that Usage (one leaderboard).
        lines, file_errors: the CSV lines of the rows and the CSV's shape errors, as for :func:`validate`.

    Returns:
        {collection: value or None (no defined graph), …, ``overall``: value or None}, in collection order,
        holding the collections with graphs of ``usage``.

    Raises:
        ParticipantVisibleError: the submission is invalid.
        ValueError: the solution table or an argument is wrong (the organiser's side).
    """
    graphs = read_solution(solution, row_id_column_name, tile_runtime)
    rankings = validate(submission, graphs, row_id_column_name, mode, lines, file_errors)
    if usage is not None and any(g.usage not in ("Public", "Private") for g in graphs.values()):
        raise ValueError("scoring one Usage needs a Usage column of Public/Private on every solution row")
    per_collection = {}
    for graph_id, graph in graphs.items():
        if usage is None or graph.usage == usage:
            per_collection.setdefault(graph.collection, []).append(graph_value(graph, rankings[graph_id]))
    out = {}
    for collection in COLLECTIONS:
        if collection in per_collection:
            defined = [v for v in per_collection[collection] if not math.isnan(v)]
            out[collection] = math.fsum(defined) / len(defined) if defined else None
    values = [v for v in out.values() if v is not None]
    out["overall"] = math.fsum(values) / len(values) if values else None
    return out


def score(solution: pd.DataFrame, submission: pd.DataFrame, row_id_column_name: str, mode: str = "strict",
          tile_runtime: str = "normalized") -> float:
    """The overall score of ``submission`` on the graphs of ``solution`` (Kaggle's metric signature).

    Args:
        solution: one row per graph (see the module docstring).
        submission: columns ``row_id_column_name`` and ``TopConfigs``, one row per graph of ``solution``.
        row_id_column_name: the ID column of both tables (``ID`` in the competition).
        mode: ``strict`` (default) or ``lenient``.
        tile_runtime: ``normalized`` (default) or ``raw``.

    Returns:
        The unweighted mean of the collection values present; NaN if none is defined.

    Raises:
        ParticipantVisibleError: the submission is invalid (the first problems, with their codes).
        ValueError: the solution table is malformed.
    """
    overall = collection_scores(solution, submission, row_id_column_name, mode=mode,
                                tile_runtime=tile_runtime)["overall"]
    return math.nan if overall is None else float(overall)
