"""Predictions instead of a ranking: each graph's predicted runtime of every configuration, validated like a
submission (every problem in one pass, each with a code of :mod:`.problems`, its line and ID), from a mapping
``{ID: array}`` (the API), a table ``ID, config, prediction`` (Parquet or CSV, any row order) or an ``.npz`` archive
of one array per graph named by its ID. An array predicts config i at ``array[i]`` (length c; with
``--configs official`` a layout graph's may instead be aligned with the official list, and a table may list just
its sampled configs). Lower = faster. The format and how it is scored: docs/metrics.md, "Predictions".
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..dataset import split_submission_id
from ..display import shorten
from ..errors import UsageError
from ..file_digest import file_hexdigest
from ..truth.eval_indices import EvalIndices
from ..truth.groundtruth import RowSpec, SplitCatalog
from .hints import IdHints, code_of
from .problems import Mode, ProblemLog, preview
from .validation import ParsedSubmission, Validation, _missing_ids

COLUMNS = ("ID", "config", "prediction")
"""The columns of a predictions table (any order)."""
PredictionsSource = Mapping[str, Any] | str | os.PathLike
"""What :func:`validate_predictions` reads: ``{ID: (c,) array}``, or the path of a Parquet, CSV or npz file."""
_NOTHING_READ = ("EMPTY_FILE", "PREDICTIONS_UNREADABLE", "PREDICTIONS_COLUMNS")
"""Problems that mean no prediction could be read."""
_NPZ_SLACK_BYTES = 1 << 16
"""An npz member may exceed 8 bytes per expected value by this much (the .npy header) before it is refused
unread (a member declaring a huge array)."""


@dataclass
class ParsedPredictions:
    """What scoring needs from valid predictions.

    Attributes:
        values: collection name → graph position → (k,) float64 finite predictions of the scored entries:
            every config (k = c), or with the official protocol a layout graph's sampled configs in the
            list's order, duplicates included (k = m).
    """

    values: dict[str, dict[int, np.ndarray]] = field(default_factory=dict)


class _Checker:
    """Collects the problems of one set of predictions and the arrays of the graphs without any."""

    def __init__(self, catalog: SplitCatalog, sampled: EvalIndices | None, mode: Mode) -> None:
        self.catalog, self.sampled = catalog, sampled or {}
        self.log = ProblemLog(mode)
        self.hints = IdHints(catalog)
        self.seen: dict[str, int] = {}  # known IDs given → line (0 when there is none)
        self.absent: dict[str, int] = {}  # collections absent or left out → entries given
        self.unselected = 0  # graphs of the split that --graphs leaves out, given
        self.parsed = ParsedPredictions({name: {} for name in catalog.collections})

    def spec(self, graph_id: str, line: int | None) -> RowSpec | None:
        """The graph's row spec, or None after logging why the ID is not scored."""
        spec = self.catalog.row_specs.get(graph_id)
        if spec is not None:
            self.seen[graph_id] = line or 0
            return spec
        if graph_id in self.catalog.unselected:
            self.unselected += 1
            return None
        parts = split_submission_id(graph_id.strip())
        if parts is not None and parts[0].name not in self.catalog.collections:
            self.absent[parts[0].name] = self.absent.get(parts[0].name, 0) + 1
        elif self.log.listing(code_of(graph_id)):
            self.log.add(*self.hints.explain(graph_id), line=line, id=shorten(graph_id))
        else:
            self.log.add(code_of(graph_id), "", line=line)
        return None

    def official(self, spec: RowSpec) -> np.ndarray | None:
        """The graph's official sampled configs ((m,) int64), or None when every config is scored."""
        return self.sampled.get(spec.collection, {}).get(spec.position) if spec.kind == "layout" else None

    def finite(self, graph_id: str, values: np.ndarray, where: Callable[[np.ndarray], str],
               line: Callable[[np.ndarray], int | None]) -> bool:
        """Log NaN and infinite predictions (``where`` names the entries at some positions); True when none."""
        ok = True
        for code, bad, what in (("PREDICTION_NAN", np.isnan(values), "NaN"),
                                ("PREDICTION_INFINITE", np.isinf(values), "infinite")):
            at = np.flatnonzero(bad)
            if at.size:
                ok = False
                self.log.add(code, f"{at.size} of {values.size} predictions are {what}: {where(at)}.",
                             line=line(at), id=graph_id)
        return ok

    def finish(self, n_rows: int, sha256: str) -> tuple[Validation, ParsedPredictions]:
        if self.unselected:
            self.log.add("GRAPH_NOT_SELECTED", f"the predictions of {self.unselected} graph(s) are not scored: "
                         "--graphs leaves their graphs out.")
        for name, n in self.absent.items():
            if name in self.catalog.left_out:
                self.log.add("COLLECTION_NOT_SELECTED", f"{n} prediction(s) of {name} graphs are not scored: "
                             f"--collections leaves {name} out.")
            else:
                self.log.add("COLLECTION_ABSENT", f"{n} prediction(s) of {name} graphs are not scored: the "
                             f"{self.catalog.root.noun} has no {name} {self.catalog.split} graphs.")
        unread = any(self.log.counts[code] for code in _NOTHING_READ)  # one problem says so: no MISSING_IDS
        missing = {} if unread else _missing_ids(self.catalog, self.seen, self.log)
        validation = Validation(self.log.mode, self.log.listed(), self.log.counts, ParsedSubmission(), missing,
                                sha256, n_rows)
        return validation, self.parsed


# --- arrays: a mapping or an npz archive ---------------------------------------------------------------

def _check_array(checker: _Checker, graph_id: str, spec: RowSpec, array: np.ndarray) -> None:
    """One graph's array: numbers, 1-D, of length c (or the official list's m), finite."""
    sampled = checker.official(spec)
    lengths = [spec.n_configs] + ([sampled.size] if sampled is not None and sampled.size != spec.n_configs else [])
    if array.dtype.kind not in "iuf":
        checker.log.add("PREDICTION_NOT_NUMBER", f"the predictions are of type {array.dtype}, not numbers.",
                        id=graph_id)
        return
    if array.ndim != 1 or array.size not in lengths:
        want = " or ".join(f"({n},)" for n in lengths)
        checker.log.add("PREDICTION_WRONG_SHAPE", f"the predictions have shape {array.shape}; this graph needs "
                        f"{want}: one prediction per configuration"
                        + (" (or per entry of the official list)" if len(lengths) > 1 else "") + ".", id=graph_id)
        return
    values = array.astype(np.float64)
    if not checker.finite(graph_id, values, lambda at: f"entries {preview(at.tolist())}", lambda at: None):
        return
    scored = values[sampled] if sampled is not None and values.size == spec.n_configs else values
    checker.parsed.values[spec.collection][spec.position] = scored


def _check_mapping(checker: _Checker, items: Iterable[tuple[str, Any]]) -> str:
    """Check every ``(ID, array)``; returns a sha256 over the IDs and the arrays' bytes, in the order given."""
    digest = hashlib.sha256()
    for graph_id, value in items:
        graph_id = str(graph_id)
        spec = checker.spec(graph_id, None)
        try:
            array = np.asarray(value)
        except (TypeError, ValueError) as err:  # ragged nested lists
            if spec is not None:
                checker.log.add("PREDICTION_NOT_NUMBER", f"the predictions are not an array of numbers ({err}).",
                                id=graph_id)
            continue
        digest.update(f"{graph_id}\0{array.dtype.str}\0{array.shape}\0".encode())
        digest.update(np.ascontiguousarray(array).tobytes())
        if spec is not None:
            _check_array(checker, graph_id, spec, array)
    return digest.hexdigest()


_NPZ_PROBLEMS = {"NPZ_MEMBER_TOO_LARGE": "PREDICTION_WRONG_SHAPE", "NPZ_ENCRYPTED": "PREDICTIONS_UNREADABLE",
                 "NPZ_COMPRESSION_UNSUPPORTED": "PREDICTIONS_UNREADABLE"}  # else PREDICTION_NOT_NUMBER


def _check_npz(checker: _Checker, path: Path) -> int:
    """The arrays of an npz archive, member by member, through the one ``.npz`` reader (:mod:`..truth.npz`): a
    member declaring more bytes than any graph needs is not read."""
    from ..truth.npz import Unusable, check_member, opened, read_array

    longest = max([0, *(int(g.n_configs.max()) for g in checker.catalog.collections.values() if g.n_configs.size),
                   *(int(s.size) for lists in checker.sampled.values() for s in lists.values())])
    members: dict = {}
    try:
        with opened(path) as (archive, members):
            for graph_id, info in members.items():
                spec = checker.spec(graph_id, None)
                if spec is None:
                    continue
                try:
                    check_member(info, graph_id, 8 * longest + _NPZ_SLACK_BYTES)
                    array = read_array(archive, info, graph_id)
                except Unusable as err:
                    code, reason = err.args
                    checker.log.add(_NPZ_PROBLEMS.get(code, "PREDICTION_NOT_NUMBER"), f"the member cannot be used "
                                    f"([{code}] {reason}): it is not read.", id=graph_id)
                    continue
                _check_array(checker, graph_id, spec, array)
    except Unusable as err:  # the archive itself
        checker.log.add("PREDICTIONS_UNREADABLE", f"the npz archive cannot be read: [{err.args[0]}] {err.args[1]}.")
    return len(members)


# --- a table: Parquet or CSV -----------------------------------------------------------------------------

class _Table:
    """A predictions table read whole: the three columns as numpy arrays, with where each row came from."""

    def __init__(self, frame, csv: bool) -> None:
        import polars as pl

        self.csv = csv
        self.n_rows = frame.height
        raw_config = frame["config"]
        self.config_text = raw_config.cast(pl.Utf8, strict=False).to_numpy()
        if raw_config.dtype.is_float():  # Parquet: whole numbers stored as floats are configs, others are not
            values = raw_config.fill_null(np.nan).to_numpy().astype(np.float64)
            with np.errstate(invalid="ignore"):
                whole = np.isfinite(values) & (np.floor(values) == values) & (np.abs(values) < 2.0**62)
            self.config = np.where(whole, values, -1).astype(np.int64)
        else:
            self.config = raw_config.cast(pl.Int64, strict=False).fill_null(-1).to_numpy().astype(np.int64)
        prediction = frame["prediction"].cast(pl.Float64, strict=False)
        self.not_number = prediction.is_null().to_numpy()
        self.prediction = prediction.fill_null(0.0).to_numpy()
        self.prediction_text = frame["prediction"].cast(pl.Utf8, strict=False).to_numpy()
        grouped = (frame.select(pl.col("ID").cast(pl.Utf8, strict=False).fill_null(""))
                   .with_row_index("row").group_by("ID", maintain_order=True).agg(pl.col("row")))
        self.groups = [(graph_id, np.asarray(rows, dtype=np.int64))
                       for graph_id, rows in zip(grouped["ID"].to_list(), grouped["row"].to_list())]

    def line(self, row: int) -> int | None:
        """The CSV line of a row (the header is line 1); None for Parquet (messages name the row)."""
        return row + 2 if self.csv else None

    def where(self, rows: np.ndarray, text: np.ndarray | None = None) -> str:
        """``line 5 (`abc`), line 9 (empty)`` or ``row 4, row 8``: a few of the rows, for messages (an empty
        cell, read as null, is called empty)."""
        word, offset = ("line", 2) if self.csv else ("row", 1)
        shown = [f"{word} {r + offset}" + ("" if text is None else " (empty)" if text[r] is None or text[r] == ""
                                           else f" (`{shorten(str(text[r]))}`)")
                 for r in rows[:5].tolist()]
        return preview(shown + [None] * (rows.size - len(shown)))


def _check_table_graph(checker: _Checker, table: _Table, graph_id: str, spec: RowSpec, rows: np.ndarray) -> None:
    """The rows of one graph: configs that exist, each once, every scored one present; numbers, finite."""
    c = spec.n_configs
    sampled = checker.official(spec)
    first_line = table.line(int(rows[0]))
    config = table.config[rows]
    problems = checker.log.counts.total()  # every problem below makes the graph unusable
    bad_config = (config < 0) | (config >= c)
    if bad_config.any():
        at = rows[bad_config]
        checker.log.add("PREDICTION_BAD_CONFIG", f"{at.size} row(s) name no configuration of this graph (it has "
                        f"{c}, numbered 0..{c - 1}): {table.where(at, table.config_text)}.",
                        line=table.line(int(at[0])), id=graph_id)
    good = ~bad_config
    order = np.argsort(config[good], kind="stable")
    configs, good_rows = config[good][order], rows[good][order]
    repeated = np.flatnonzero(configs[1:] == configs[:-1]) + 1  # the second and later rows of a config
    if repeated.size:
        again = np.sort(good_rows[repeated])
        names = np.unique(configs[repeated])
        checker.log.add("PREDICTION_DUPLICATE_CONFIG", f"{names.size} configuration(s) have more than one row "
                        f"(config {preview(names.tolist())}): {table.where(again)}.",
                        line=table.line(int(again[0])), id=graph_id)
    needed = np.arange(c) if sampled is None else np.unique(sampled)
    absent = needed[~np.isin(needed, configs)]
    if absent.size:
        scope = "" if sampled is None else " of the official sampled configs"
        checker.log.add("PREDICTION_MISSING_CONFIGS", f"{absent.size} of the {needed.size} configurations{scope} "
                        f"have no prediction: {preview(absent.tolist())}.", line=first_line, id=graph_id)
    not_number = table.not_number[rows]
    if not_number.any():
        at = rows[not_number]
        checker.log.add("PREDICTION_NOT_NUMBER", f"{at.size} prediction(s) are empty or not numbers: "
                        f"{table.where(at, table.prediction_text)}.", line=table.line(int(at[0])), id=graph_id)
    values = table.prediction[rows]
    checker.finite(graph_id, np.where(not_number, 0.0, values), lambda at: table.where(rows[at]),
                   lambda at: table.line(int(rows[at[0]])))
    if checker.log.counts.total() == problems:
        by_config = np.empty(c, dtype=np.float64)
        by_config[configs] = table.prediction[good_rows]
        checker.parsed.values[spec.collection][spec.position] = by_config if sampled is None else by_config[sampled]


def row_limit(catalog: SplitCatalog) -> int:
    """The most rows a predictions table may hold: twice the configurations of ``catalog``'s graphs plus 1,000 (a
    valid table has one row per configuration); a Parquet table's count is read from its footer before any column
    is decoded."""
    return 2 * sum(int(g.n_configs.sum()) for g in catalog.collections.values()) + 1000


def _read_frame(checker: _Checker, path: Path, csv: bool):
    """The table as a polars frame, or None after logging ``PREDICTIONS_UNREADABLE``: not that format, more rows
    than :func:`row_limit` (Parquet: from the footer, nothing decoded), or a list or struct column."""
    import polars as pl

    what = "CSV" if csv else "Parquet"
    try:
        if not csv:
            rows, limit = pl.scan_parquet(path).select(pl.len()).collect().item(), row_limit(checker.catalog)
            if rows > limit:
                checker.log.add("PREDICTIONS_UNREADABLE", f"the Parquet table is not read: its footer declares "
                                f"{rows:,} rows, more than the limit of {limit:,} (twice the split's configurations).")
                return None
        frame = pl.read_csv(path, infer_schema=False) if csv else pl.read_parquet(path)
    except Exception as err:  # polars raises many kinds (ComputeError, NoDataError, OSError, ...)
        checker.log.add("PREDICTIONS_UNREADABLE", f"the file cannot be read as a {what} table "
                        f"({type(err).__name__}: {shorten(str(err).splitlines()[0] if str(err) else '')}).")
        return None
    if nested := [name for name, dtype in frame.schema.items() if dtype.is_nested()]:
        checker.log.add("PREDICTIONS_UNREADABLE", f"the {what} table's column(s) {', '.join(map(repr, nested))} hold "
                        "lists or structs; a predictions table holds one ID, config and prediction per row.")
        return None
    return frame


def _check_table(checker: _Checker, path: Path, csv: bool) -> int:
    frame = _read_frame(checker, path, csv)
    if frame is None:
        return 0
    frame = frame.rename({name: name.lstrip("\ufeff").strip() for name in frame.columns})
    if sorted(frame.columns) != sorted(COLUMNS):
        checker.log.add("PREDICTIONS_COLUMNS", f"the table has the columns {', '.join(map(repr, frame.columns))}; "
                        f"a predictions table has exactly {', '.join(COLUMNS)} (one row per graph and config).",
                        line=1 if csv else None)
        return frame.height
    table = _Table(frame, csv)
    for graph_id, rows in table.groups:
        spec = checker.spec(graph_id, table.line(int(rows[0])))
        if spec is not None:
            _check_table_graph(checker, table, graph_id, spec, rows)
    return table.n_rows


def validate_predictions(source: PredictionsSource, catalog: SplitCatalog, *, sampled: EvalIndices | None = None,
                         mode: Mode = "strict") -> tuple[Validation, ParsedPredictions]:
    """Check predictions against the graphs of a split, every problem in one pass.

    Args:
        source: ``{ID: array}`` (array: (c,) predicted runtimes of configs 0..c-1, any numeric dtype; with
            ``sampled``, a layout graph's may instead be (m,), aligned with its official list), or the path of
            a Parquet or CSV table with the columns ``ID, config, prediction`` or of an ``.npz`` archive of
            such arrays named by ID (the format is told by the file's first bytes).
        catalog: the split's graphs and config counts.
        sampled: the official sampled configs (``--configs official``), or None: every config is scored.
        mode: ``strict`` or ``lenient``; the prediction codes are errors in both.

    Returns:
        The :class:`Validation` (problems with codes ``PREDICTION_*`` / ``PREDICTIONS_*``, ``UNKNOWN_ID``,
        ``MISSING_IDS`` ...; ``n_rows``: table rows or arrays given; ``sha256``: of the file, or over the
        mapping's IDs and array bytes) and the :class:`ParsedPredictions` (complete only when valid). Never
        raises for bad content.

    Raises:
        UsageError: the path does not exist (``SUBMISSION_NOT_FOUND``), is not a regular file
            (``SUBMISSION_NOT_A_FILE``) or cannot be read (``SUBMISSION_UNREADABLE``); ``source`` is neither a
            mapping nor a path.
    """
    checker = _Checker(catalog, sampled, mode)
    if isinstance(source, Mapping):
        sha256 = _check_mapping(checker, source.items())
        return checker.finish(len(source), sha256)
    if not isinstance(source, (str, os.PathLike)):
        raise UsageError(f"predictions are a mapping {{ID: array}} or the path of a Parquet, CSV or npz file, not "
                         f"{type(source).__name__}")
    path = Path(source)
    if not path.exists():
        raise UsageError(f"predictions file {path} does not exist", code="SUBMISSION_NOT_FOUND")
    if not path.is_file():
        raise UsageError(f"predictions file {path} is not a regular file", code="SUBMISSION_NOT_A_FILE")
    try:
        with open(path, "rb") as handle:
            magic = handle.read(4)  # the format
    except OSError as err:
        raise UsageError(f"predictions file {path} cannot be read: {err.strerror or err}",
                         code="SUBMISSION_UNREADABLE") from None
    if magic.startswith(b"PK"):
        n_rows = _check_npz(checker, path)
    elif magic == b"PAR1":
        n_rows = _check_table(checker, path, csv=False)
    elif not magic:
        checker.log.add("EMPTY_FILE", "the predictions file is empty.")
        n_rows = 0
    elif path.suffix.lower() in (".npz", ".parquet"):  # named as a binary format, and not one: not read as a CSV
        checker.log.add("PREDICTIONS_UNREADABLE", f"the predictions file is named {path.suffix} but is not "
                        f"{'an npz (zip) archive' if path.suffix.lower() == '.npz' else 'a Parquet file'}: its first "
                        "bytes are neither.")
        n_rows = 0
    else:
        n_rows = _check_table(checker, path, csv=True)
    return checker.finish(n_rows, file_hexdigest(path))
