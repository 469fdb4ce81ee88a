"""The TpuGraphs competition metric (Kaggle's ``score(solution, submission, row_id_column_name) -> float``): the
solution table, validation of a submission table and the metrics.

Exported with the ``rules/`` modules it imports as one self-contained file (:mod:`.metric_file`; docs/hosting.md,
"One metric file"), also the Codabench program's ``tpugraphs_metric.py``: it imports nothing of ``tpugraphs_eval``
but ``rules/`` and runs on Python >= 3.9 with numpy, pandas and scipy. Definitions (tpugraphs-eval's docs/codes.md
and docs/metrics.md; paper arXiv 2308.13490; Kaggle "Google - Fast or Slow? Predict AI Model Runtime", 2023):

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
import warnings
from collections import namedtuple

import numpy as np
import pandas as pd
from scipy import stats

from ..rules.codes import MODES, PROBLEM_CODES, is_error  # in the exported file: rules/codes.py's text
from ..rules.csvshape import other_delimiter, wrong_delimiter  # likewise
from ..rules.ids import IdLedger, missing_ids  # likewise
from ..rules.topconfigs import FIELD_MISTAKES, TILE_TOP_K, check_field, field_mistake, mistake_problems  # likewise

COLLECTIONS = ("tile:xla", "layout:xla:default", "layout:xla:random", "layout:nlp:default", "layout:nlp:random")
TILE_RUNTIMES = ("normalized", "raw")
_SHOWN_PROBLEMS = 5
MAX_SHOWN = 200
"""The longest ID or column name a message shows whole (:func:`cut`)."""


class ParticipantVisibleError(Exception):
    """A mistake in the submission, explained to the participant; never shows a ground-truth runtime.

    Attributes:
        problems: from :func:`validate` and :func:`collection_scores` (the whole file), every error found, as
            (line, ID, code, message), line being the CSV line (header = 1) and the ID cut by :func:`cut`; from
            :func:`score` (one Usage subset), (None, None, code, meaning) per code, as its message.
    """

    def __init__(self, message, problems=()):
        super().__init__(message)
        self.problems = list(problems)


_Graph = namedtuple("_Graph", "collection kind y usage")
"""One graph of the solution: its collection, kind (``tile``/``layout``), runtimes y ((c,) float64) and Usage."""


def _collection_of(graph_id):
    """The collection of a submission ID (what comes before its last ``:``, surrounding spaces ignored, as
    ``tpugraphs-eval`` reads it: `` tile:xla:g `` is an unknown ID of tile:xla), or None."""
    prefix = graph_id.strip().rpartition(":")[0]
    return prefix if prefix in COLLECTIONS else None


def cut(text):
    """``text``, or its first 100 characters and its length when it is longer than 200 (:data:`MAX_SHOWN`): an ID
    or a column name as a message shows it (a 10 MB ID is not echoed whole)."""
    return text if len(text) <= MAX_SHOWN else f"{text[:MAX_SHOWN // 2]}…({len(text)} characters)"


def _joined_integers(text):
    """The int64 values ((n,)) of ``text``, decimal integers of up to 18 digits joined by ``;`` ("" gives none),
    or None if it is not that. One numpy pass over the bytes (no ``int()`` per token: bench/bench_kaggle_metric.py)."""
    data = text.encode("utf-8")
    if not data:
        return np.empty(0, dtype=np.int64)
    buf = np.frombuffer(data, dtype=np.uint8)
    if ((buf - 48 > 9) & (buf != 59) & (buf != 45)).any():  # only 0-9, `;` and `-`
        return None
    seps = np.flatnonzero(buf == 59)
    widths = np.diff(seps, prepend=-1, append=buf.size)  # each token's length + 1
    if widths.min() < 2 or widths.max() > 19:  # an empty token, or one over 18 characters (int64 would clip)
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy warns (or raises) on unmatched data such as `5-3`
        try:
            values = np.fromstring(data, dtype=np.int64, sep=";")
        except (ValueError, DeprecationWarning):
            return None
    return values if values.size == seps.size + 1 else None


def _integer_fields(texts, what, ids):
    """(values (sum of sizes,) int64, starts (n + 1,) int64) of the ``;``-joined integer fields ``texts``
    (None or NaN: empty), row k's values being ``values[starts[k]:starts[k + 1]]``.

    Raises:
        ValueError: a field is not integers joined by ``;`` (naming the first such row of ``ids``).
    """
    fields = [_cell(text) for text in texts]
    starts = np.zeros(len(fields) + 1, dtype=np.int64)
    np.cumsum([field.count(";") + 1 if field else 0 for field in fields], out=starts[1:])
    values = _joined_integers(";".join(field for field in fields if field))
    if values is None:
        bad = next(graph_id for field, graph_id in zip(fields, ids) if _joined_integers(field) is None)
        raise ValueError(f"solution row {cut(bad)}: {what} must be integers joined by ';'")
    return values, starts


def read_solution(solution, row_id_column_name, tile_runtime="normalized"):
    """ID → :class:`_Graph` of a solution table (the organiser's side: its problems are ValueErrors).

    Raises:
        ValueError: missing columns, an ID without a collection prefix, repeated IDs, non-integer or empty
            runtimes, tile normalizers that are not positive or do not match the runtimes, a collection whose
            runtimes are all zero (public test files: no ground truth), or any other runtime that is zero or
            negative (``RUNTIME_NOT_POSITIVE``, docs/codes.md; the message names the row, never a value).
    """
    if tile_runtime not in TILE_RUNTIMES:
        raise ValueError(f"tile_runtime must be one of {TILE_RUNTIMES}, not {tile_runtime!r}")
    missing = {row_id_column_name, "runtimes", "normalizers"} - set(solution.columns)
    if missing:
        raise ValueError(f"the solution lacks the columns {sorted(missing)}")
    ids = [str(graph_id) for graph_id in solution[row_id_column_name].tolist()]
    usages = solution["Usage"].tolist() if "Usage" in solution.columns else [None] * len(solution)
    collections = []
    for graph_id in ids:
        collection = _collection_of(graph_id)
        if collection is None or graph_id != graph_id.strip() or graph_id.endswith(":"):
            raise ValueError(f"solution row {cut(repr(graph_id))}: not a submission ID")
        collections.append(collection)
    runtimes, starts = _integer_fields(solution["runtimes"].tolist(), "runtimes", ids)
    is_tile = [collection == "tile:xla" for collection in collections]
    normalizers, n_starts = _integer_fields([n for n, tile in zip(solution["normalizers"].tolist(), is_tile) if tile],
                                            "normalizers", [i for i, tile in zip(ids, is_tile) if tile])
    graphs, all_zero, not_positive, k_tile = {}, {}, None, 0
    for k, (graph_id, collection, usage) in enumerate(zip(ids, collections, usages)):
        if graph_id in graphs:
            raise ValueError(f"solution row {cut(repr(graph_id))} is repeated")
        runtime = runtimes[starts[k]:starts[k + 1]]
        if runtime.size == 0:
            raise ValueError(f"solution row {cut(graph_id)}: no runtimes")
        y = runtime.astype(np.float64)
        if is_tile[k]:
            normalizer = normalizers[n_starts[k_tile]:n_starts[k_tile + 1]]
            k_tile += 1
            if normalizer.shape != runtime.shape or not (normalizer > 0).all():
                raise ValueError(f"solution row {cut(graph_id)}: normalizers must be {runtime.size} positive integers")
            if tile_runtime == "normalized":
                y = y / normalizer
        graphs[graph_id] = _Graph(collection, collection.split(":", 1)[0], y, usage)
        all_zero[collection] = all_zero.get(collection, True) and not runtime.any()
        if not_positive is None and runtime.min() <= 0:
            not_positive = (graph_id, int((runtime <= 0).sum()), runtime.size)
    zero = [c for c, flag in all_zero.items() if flag]
    if zero:
        raise ValueError(f"every runtime of {', '.join(zero)} is 0: no ground truth (public test files?)")
    if not_positive is not None:
        graph_id, n_bad, n = not_positive
        raise ValueError(f"RUNTIME_NOT_POSITIVE: solution row {cut(graph_id)}: {n_bad} of its {n} runtimes are zero or "
                         "negative; runtimes are positive durations in ns (the solution table is wrong)")
    return graphs


def validate(submission, graphs, row_id_column_name, mode="strict", file_errors=(), keep=None):
    """ID → usable indices of every submitted graph of ``graphs`` (or what ``keep`` makes of them), or the
    participant's errors, by the ID rules and in the order of ``rules/ids.py``. A row whose collection the solution
    lacks is skipped (a Kaggle Public/Private subset may lack one).

    Args:
        submission: a table (columns ``row_id_column_name`` and ``TopConfigs``; row i on CSV line i + 2, after
            the header), or the rows ``(line, ID text, TopConfigs text)`` a CSV reader streams, having checked the
            header (the Codabench program).
        file_errors: (line, ID, code, message) errors of the CSV's shape (read after the last row: a streaming
            reader may fill it as it goes), listed in line order with the row errors, before those of the same
            line; EMPTY_FILE or NOT_TEXT with no row read is the only problem.
        keep: ``keep(graph, usable)``, what is kept of a valid row ((u,) int64 usable indices by default),
            called as the row is read (:func:`collection_scores` keeps the graph's value, not the indices).

    Raises:
        ParticipantVisibleError: wrong columns, or any row or ID error (all found, the first shown).
        ValueError: an unknown ``mode``.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    if isinstance(submission, pd.DataFrame):
        _check_header(submission, row_id_column_name)
        ids, texts = submission[row_id_column_name].tolist(), submission["TopConfigs"].tolist()
        submission = zip(range(2, len(ids) + 2), map(_cell, ids), map(_cell, texts))
    present = {graph.collection for graph in graphs.values()}
    ledger, errors, rankings, zero_listed, n_rows = IdLedger(), [], {}, False, 0
    mistakes = {code: [] for code in FIELD_MISTAKES}
    for line, graph_id, text in submission:
        n_rows += 1
        collection, graph = _collection_of(graph_id), graphs.get(graph_id)
        if graph is None and collection is not None and collection not in present:
            continue  # a collection this solution (a Public/Private subset) lacks: not scored here
        mistake = field_mistake(text)
        if mistake:
            text = mistake[0].decode("ascii")
            mistakes[mistake[1]].append(line)
        row, checked = _row(line, graph_id, collection, graph, text, ledger)
        row_errors = [(line, cut(graph_id), code, message) for code, message in row if is_error(code, mode)]
        errors += row_errors
        if graph is not None and checked is not None:
            zero_listed = zero_listed or bool(checked.usable.size and checked.usable.min() == 0)
            if not row_errors:
                rankings[graph_id] = checked.usable if keep is None else keep(graph, checked.usable)
    errors = _in_order(errors, list(file_errors), ledger.one_based(zero_listed), mistakes)
    if n_rows or not any(e[2] in ("EMPTY_FILE", "NOT_TEXT") for e in file_errors):
        by_collection = {}  # the MISSING_IDS errors of the graphs without a row, per collection
        for graph_id, graph in graphs.items():
            by_collection.setdefault(graph.collection, []).append(graph_id)
        errors += [(None, None, "MISSING_IDS", m) for _, _, m in missing_ids(ledger.lines, by_collection, "solution")]
    if errors:
        shown = " | ".join(f"{'' if line is None else f'line {line} '}{graph_id + ' ' if graph_id else ''}{code}: "
                           f"{message}" for line, graph_id, code, message in errors[:_SHOWN_PROBLEMS])
        more = f" | … and {len(errors) - _SHOWN_PROBLEMS} more" if len(errors) > _SHOWN_PROBLEMS else ""
        raise ParticipantVisibleError(f"invalid submission ({len(errors)} error(s)): {shown}{more}", errors)
    return rankings


def _check_header(submission, row_id_column_name):
    """Raise ParticipantVisibleError unless the columns are ``row_id_column_name`` and ``TopConfigs``: WRONG_DELIMITER
    for one column holding a tab or ``;`` (said once), else HEADER_RENAMED."""
    columns = submission.columns
    other = other_delimiter(str(columns[0]).encode("utf-8")) if len(columns) == 1 else None
    if other is not None:  # `ID;TopConfigs` read with sep=",": the tab or `;` delimiter, said once
        code, message = "WRONG_DELIMITER", wrong_delimiter(other[1])
    elif set(columns) != {row_id_column_name, "TopConfigs"} or len(columns) != 2:
        code, message = "HEADER_RENAMED", (f"the submission must have exactly the columns {row_id_column_name} and "
                                           f"TopConfigs, not {', '.join(cut(str(column)) for column in columns[:10])}"
                                           f"{', …' if len(columns) > 10 else ''}")
    else:
        return
    raise ParticipantVisibleError(f"invalid submission (1 error(s)): line 1 {code}: {message}", [(1, None, code, message)])


def _cell(value):
    """A table cell as text: None or NaN (an empty CSV field) is ``""``."""
    return "" if value is None or (isinstance(value, float) and math.isnan(value)) else str(value)


def _row(line, graph_id, collection, graph, text, ledger):
    """``(problems, checked)`` of one row: its ID's problem (``rules/ids.py``), then its field's
    (:func:`check_field`); ``checked`` is None for a repeated row, whose field is not checked."""
    if collection is None:
        row = [("UNKNOWN_COLLECTION", f"the ID does not start with one of {', '.join(COLLECTIONS)}")]
    elif graph is None:
        row = [("UNKNOWN_ID", "no graph of the solution has this ID")]
    else:
        repeated = ledger.first(line, graph_id)
        if repeated is not None:
            return [repeated], None
        row = []
    checked = check_field(text, collection.split(":", 1)[0] if collection else "tile",
                          None if graph is None else graph.y.size)
    if graph is not None and checked.one_past_end:
        ledger.lists_one_past_end(line, [code for code, _ in checked.problems])
    return row + checked.problems, checked


def _in_order(errors, file_errors, one_based, mistakes):
    """The row errors (less those INDICES_ONE_BASED withdraws) and the CSV's shape errors in line order (a shape error
    before the row errors of its line), then the problems of the whole file: ``rules/ids.py``'s order."""
    if one_based is not None:
        errors = [e for e in errors if e[2] not in one_based[1].get(e[0], ())]
    ordered = sorted(file_errors + errors, key=lambda e: (e[0] is None, e[0] or 0))  # stable: shape errors first
    whole_file = ([one_based[0]] if one_based is not None else []) + mistake_problems(mistakes)
    return ordered + [(line, None, code, message) for code, message, line in whole_file]


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
                      usage=None, file_errors=()):
    """Collection values and ``overall`` of ``submission``, as ``tpugraphs-eval`` reports them.

    Args:
        solution, submission, row_id_column_name, mode, tile_runtime: as for :func:`score`; ``solution`` may also
            be the ID → graph dict :func:`read_solution` made of it (read once by the caller), ``submission`` the
            rows a CSV reader streams (:func:`validate`).
        usage: None (every row of ``solution``), or ``Public``/``Private``: the whole submission is validated
            against every graph, and means are taken over the graphs of that Usage (one leaderboard).
        file_errors: the CSV's shape errors, as for :func:`validate`.

    Returns:
        {collection: value or None (no defined graph), …, ``overall``: value or None}, in collection order,
        holding the collections with graphs of ``usage``.

    Raises:
        ParticipantVisibleError: the submission is invalid.
        ValueError: the solution table or an argument is wrong (the organiser's side).
    """
    graphs = solution if isinstance(solution, dict) else read_solution(solution, row_id_column_name, tile_runtime)

    def value(graph, usable):  # computed as the row is read: no graph's indices are kept
        return graph_value(graph, usable) if usage is None or graph.usage == usage else None

    values = validate(submission, graphs, row_id_column_name, mode, file_errors, keep=value)
    if usage is not None and any(g.usage not in ("Public", "Private") for g in graphs.values()):
        raise ValueError("scoring one Usage needs a Usage column of Public/Private on every solution row")
    per_collection, out = {collection: [] for collection in COLLECTIONS}, {}
    for graph_id, graph in graphs.items():
        if usage is None or graph.usage == usage:
            per_collection[graph.collection].append(values[graph_id])
    for collection, kept in per_collection.items():
        defined = [v for v in kept if not math.isnan(v)]
        if kept:
            out[collection] = math.fsum(defined) / len(defined) if defined else None
    values = [v for v in out.values() if v is not None]
    out["overall"] = math.fsum(values) / len(values) if values else None
    return out


LOCAL_CHECK = ("for each problem's line and ID, run `tpugraphs-eval validate` on this file with the competition's "
               "data (it checks the whole file)")
"""The advice that ends every message of :func:`score`."""
_MEANING = {code: meaning for code, _, _, meaning in PROBLEM_CODES}
_WHOLE_FILE = ("HEADER_RENAMED", "WRONG_DELIMITER")  # read from the header alone: their message is shown


def split_free_message(problems):
    """The message of an invalid submission that tells nothing of the Public/Private split (docs/hosting.md,
    Kaggle): ``invalid submission: CODE (its meaning) | …`` over the *set* of codes of ``problems`` ((line, ID,
    code, message) errors of one Usage subset's rows) in the order of docs/codes.md, then :data:`LOCAL_CHECK`;
    no line, ID, count or row message, but the message of a header code (read from the header alone).
    """
    codes = {code for _, _, code, _ in problems}
    details = {code: message for _, _, code, message in problems if code in _WHOLE_FILE}
    shown = " | ".join(f"{code} ({_MEANING[code].rstrip('.')}{': ' + details[code] if code in details else ''})"
                       for code in _in_table_order(codes))
    return f"invalid submission: {shown}; {LOCAL_CHECK}" if shown else f"invalid submission; {LOCAL_CHECK}"


def _in_table_order(codes):
    """``codes`` in the order of :data:`PROBLEM_CODES` (those it lacks dropped: every caller's codes are in it)."""
    return [code for code, *_ in PROBLEM_CODES if code in codes]


def score(solution: pd.DataFrame, submission: pd.DataFrame, row_id_column_name: str, mode: str = "strict",
          tile_runtime: str = "normalized") -> float:
    """The overall score of ``submission`` on the graphs of ``solution`` (Kaggle's metric signature).

    Kaggle calls it once per Usage subset (the Public rows of both tables, then the Private ones) and shows a
    :class:`ParticipantVisibleError`'s message, which tells nothing of the split (:func:`split_free_message`).

    Args:
        solution: one row per graph (see the module docstring).
        submission: columns ``row_id_column_name`` and ``TopConfigs``, one row per graph of ``solution``.
        row_id_column_name: the ID column of both tables (``ID`` in the competition).
        mode: ``strict`` (default) or ``lenient``.
        tile_runtime: ``normalized`` (default) or ``raw``.

    Returns:
        The unweighted mean of the collection values present: a finite float, never NaN.

    Raises:
        ParticipantVisibleError: the submission is invalid; the message is :func:`split_free_message` and
            ``.problems`` holds (None, None, code, meaning) per code, nothing more.
        ValueError: the solution table is malformed (:func:`read_solution`), or defines no collection value
            (every graph a layout graph with fewer than 2 configs or constant runtimes): the organiser's side.

    Examples:
        >>> solution = pd.DataFrame({"ID": ["tile:xla:g", "layout:xla:default:h"],
        ...                          "runtimes": ["30;10;20", "5;7;6;9"], "normalizers": ["1;1;1", ""]})
        >>> submission = pd.DataFrame({"ID": ["tile:xla:g", "layout:xla:default:h"],
        ...                            "TopConfigs": ["0;2;1", "0;2;1;3"]})
        >>> score(solution, submission, "ID")  # tile: the best config is listed (1.0); layout: tau-b 1
        1.0
        >>> bad = pd.DataFrame({"ID": ["tile:xla:g", "layout:xla:default:h"], "TopConfigs": ["0;2;9", "0;1"]})
        >>> try:
        ...     score(solution, bad, "ID")
        ... except ParticipantVisibleError as err:
        ...     print(err)
        invalid submission: INDEX_OUT_OF_RANGE (An index >= the graph's number of configurations c; lenient mode drops it) | ...; for each problem's line and ID, run `tpugraphs-eval validate` on this file with the competition's data (it checks the whole file)
    """
    problems = None
    try:
        overall = collection_scores(solution, submission, row_id_column_name, mode=mode,
                                    tile_runtime=tile_runtime)["overall"]
    except ParticipantVisibleError as err:
        problems = err.problems
    if problems is not None:  # raised outside the handler: no __context__ holds the subset's lines and IDs
        raise ParticipantVisibleError(split_free_message(problems), [
            (None, None, code, _MEANING[code]) for code in _in_table_order({p[2] for p in problems})])
    if overall is None or not math.isfinite(overall):
        raise ValueError("the solution defines no collection value on these rows (every graph a layout graph with "
                         "fewer than 2 configurations or constant runtimes): nothing to score")
    return float(overall)
