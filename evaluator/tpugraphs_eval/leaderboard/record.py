"""What the leaderboard keeps of one submission: a typed :class:`Record`, with its JSON form for the score cache.

A record is made by :func:`scorer.record_of` (a scored or invalid submission, from its report) or by
:meth:`Record.unread` (a file that was not read: too large, a link, unreadable). Its JSON form
(:meth:`Record.to_json`) is what the score cache stores (:mod:`cache`); :meth:`Record.from_json` reads it
back and refuses anything of the wrong shape or types (a corrupt cache entry is a miss, never a crash).
"""

from __future__ import annotations

import base64
import binascii
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..rules.metric_table import BY_NAME

STATUSES = ("scored", "invalid", "error")
"""``scored``: valid and scored; ``invalid``: validation failed (the evaluator's codes); ``error``: not read
(a leaderboard code: ``SUBMISSION_TOO_LARGE``, ``SUBMISSION_SYMLINK``, ...)."""
BOARDS = ("public", "private")
"""The leaderboards whose per-graph values a scored record holds."""
SCORE_BOARDS = (*BOARDS, "all")
"""The boards a scored record holds scores of: the public and private leaderboards, and every graph."""


def encode_array(values: np.ndarray) -> str:
    """(G,) float64 → base64 of little-endian float64 bytes (exact, NaN kept)."""
    return base64.b64encode(np.ascontiguousarray(values, dtype="<f8").tobytes()).decode("ascii")


def decode_array(text: str) -> np.ndarray:
    """The inverse of :func:`encode_array`: a (G,) float64 array."""
    return np.frombuffer(base64.b64decode(text), dtype="<f8")


@dataclass(frozen=True)
class BoardScores:
    """A scored submission's scores on one board.

    Attributes:
        overall: the mean of the defined collection values (None when every one is undefined), as the
            report's :class:`tpugraphs_eval.report.report.Scores` gives it.
        collections: collection name → its value on the board's graphs (None when undefined).
        secondary: collection name → metric name → that metric's mean over the board's graphs where it is
            defined (None when none), for the metric shown beside the value of the collection's kind
            (:func:`..rules.metric_table.beside_primary`: layout ``opa``; no entry for a tile collection). Not
            used for ranking.
    """

    overall: float | None
    collections: dict[str, float | None] = field(default_factory=dict)
    secondary: dict[str, dict[str, float | None]] = field(default_factory=dict)

    def to_json(self, copy: bool = True) -> dict[str, Any]:
        """``{"overall": ..., "collections": {...}, "secondary": {collection: {metric: ...}}}``; without ``copy``
        the inner dicts are this object's own (for a document that only reads them: one copy per submission
        less)."""
        if not copy:
            return {"overall": self.overall, "collections": self.collections, "secondary": self.secondary}
        return {"overall": self.overall, "collections": dict(self.collections),
                "secondary": {name: dict(values) for name, values in self.secondary.items()}}


@dataclass
class Record:
    """One submission as the leaderboard keeps it.

    Attributes:
        status: one of :data:`STATUSES`.
        problems: the problems listed (``{line, id, code, severity, message}`` dicts, capped by
            :func:`scorer.listed_problems`); an unread file's one coded problem.
        sha256: of the bytes scored (None when unread).
        n_rows: data rows read (None when unread); ``n_errors``: error-severity problems, all of them.
        problem_counts: code → count of every problem (exact, not capped).
        boards: scored only: :data:`SCORE_BOARDS` → :class:`BoardScores`.
        per_graph: scored only: :data:`BOARDS` → collection → base64 (G,) float64 of the primary metric per
            graph (:func:`encode_array`; tile ``score``, layout ``kendall_tau``, NaN where undefined), in the
            solution's graph order restricted to that board (:meth:`per_graph_values` decodes one). Empty in a
            record read from the score cache until first needed (most records never are: the bootstrap uses
            only the teams' final submissions), when ``load_per_graph`` fills it.
        load_per_graph: None, or what returns ``per_graph`` when it is left empty to save memory (the score
            cache's :meth:`cache.ScoreCache.get` with ``lazy``); not compared, not stored.
        key: the score cache key (:func:`cache.cache_key`) of a scored or invalid record once
            :func:`scorer.score_entries` made or found it (the bootstrap cache's rows are named after it); not
            compared, not stored.
    """

    status: str
    problems: list[dict[str, Any]] = field(default_factory=list)
    sha256: str | None = None
    n_rows: int | None = None
    n_errors: int = 0
    problem_counts: dict[str, int] = field(default_factory=dict)
    boards: dict[str, BoardScores] = field(default_factory=dict)
    per_graph: dict[str, dict[str, str]] = field(default_factory=dict)
    load_per_graph: Callable[[], dict[str, dict[str, str]]] | None = field(default=None, compare=False, repr=False)
    key: str | None = field(default=None, compare=False, repr=False)

    @classmethod
    def unread(cls, problem: dict[str, Any]) -> Record:
        """The record of a file that was not read, with its one coded problem (:func:`codes.note`)."""
        return cls("error", [problem], n_errors=1, problem_counts={problem["code"]: 1})

    @property
    def scored(self) -> bool:
        """True for a valid, scored submission (the only ones with scores)."""
        return self.status == "scored"

    def overall(self, board: str) -> float | None:
        """The overall on ``board`` (one of :data:`SCORE_BOARDS`); None when not scored or undefined."""
        return self.boards[board].overall if self.scored else None

    def per_graph_values(self, board: str, collection: str) -> np.ndarray:
        """(G,) float64 per-graph primary metric of ``collection`` on ``board`` (NaN: undefined).

        Raises:
            KeyError: the record is not scored, or has no such board or collection.
        """
        return decode_array(self._loaded_per_graph()[board][collection])

    def _loaded_per_graph(self) -> dict[str, dict[str, str]]:
        if not self.per_graph and self.load_per_graph is not None:
            self.per_graph, self.load_per_graph = self.load_per_graph(), None
        return self.per_graph

    def to_json(self) -> dict[str, Any]:
        """The JSON object the score cache stores (key order is not significant: the cache sorts keys)."""
        out: dict[str, Any] = {"status": self.status, "sha256": self.sha256, "n_rows": self.n_rows,
                               "n_errors": self.n_errors, "problem_counts": dict(self.problem_counts),
                               "problems": list(self.problems)}
        if self.scored:
            out["boards"] = {b: scores.to_json() for b, scores in self.boards.items()}
            out["per_graph"] = {b: dict(arrays) for b, arrays in self._loaded_per_graph().items()}
        return out

    def summary(self) -> dict[str, Any]:
        """:meth:`to_json` without ``per_graph``: what the score cache's stat index keeps of an entry
        (:mod:`cache`)."""
        out: dict[str, Any] = {"status": self.status, "sha256": self.sha256, "n_rows": self.n_rows,
                               "n_errors": self.n_errors, "problem_counts": dict(self.problem_counts),
                               "problems": list(self.problems)}
        if self.scored:
            out["boards"] = {b: scores.to_json() for b, scores in self.boards.items()}
        return out

    @classmethod
    def from_summary(cls, data: object, submission_sha256: str) -> Record | None:
        """The record of a :meth:`summary` (its ``per_graph`` empty), or None when ``data`` is not the summary of
        the submission with that sha256 as :meth:`summary` writes one. The stat index holding it is checked
        against its sha256 before (:func:`cache.read_stat_index`), so only the shape is looked at here, not every
        value as :meth:`from_json` does; the dicts of ``data`` become the record's (not copied)."""
        if not isinstance(data, dict) or data.get("sha256") != submission_sha256:
            return None
        status = data.get("status")
        try:
            if status == "scored":
                boards = {b: BoardScores(s["overall"], s["collections"], s["secondary"])
                          for b, s in data["boards"].items()}
                if set(boards) != set(SCORE_BOARDS):
                    return None
            elif status == "invalid":
                boards = {}
            else:
                return None
            record = cls(status, data["problems"], submission_sha256, data["n_rows"], data["n_errors"],
                         data["problem_counts"], boards)
        except (KeyError, TypeError, AttributeError):
            return None
        if not (isinstance(record.problems, list) and isinstance(record.problem_counts, dict)
                and all(isinstance(b.collections, dict) and isinstance(b.secondary, dict) for b in boards.values())):
            return None
        return record

    @classmethod
    def from_json(cls, data: object, submission_sha256: str, shape: dict[str, dict[str, int]]) -> Record:
        """The record a cache entry holds, checked to be one :func:`scorer.record_of` could have written
        for the submission with that sha256.

        Checks: ``status`` (``scored``/``invalid``), ``sha256`` (equal to ``submission_sha256``), integer
        ``n_rows``/``n_errors``, ``problem_counts`` (code → int), ``problems`` (objects with a string ``code``
        and ``message``) and, when scored, ``boards`` (finite numbers or null, known collections, ``secondary``
        of known metrics) and
        ``per_graph`` (base64 float64 arrays of the lengths in ``shape``: board → collection → graphs,
        :func:`cache.board_shape`).

        Raises:
            ValueError: saying which field is wrong.
        """
        fault = _fault(data, submission_sha256, shape)
        if fault:
            raise ValueError(fault)
        assert isinstance(data, dict)
        boards = {b: BoardScores(s["overall"], _interned(s["collections"]),
                                 {sys.intern(n): _interned(v) for n, v in s["secondary"].items()})
                  for b, s in data.get("boards", {}).items()}
        return cls(data["status"], list(data["problems"]), data["sha256"], data["n_rows"], data["n_errors"],
                   dict(data["problem_counts"]), boards, {b: dict(a) for b, a in data.get("per_graph", {}).items()}
                   if data["status"] == "scored" else {})


def _interned(values: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``values`` whose keys (collection and metric names) are interned: one string for all the records
    of a build, not one per record (the JSON decoder makes its own)."""
    return {sys.intern(k): v for k, v in values.items()}


def _number(value: object) -> bool:
    """A finite JSON number or null (what a score is: None when undefined)."""
    return value is None or (isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value))


def _integer(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _scores_fault(boards: object, collections: dict[str, int]) -> str | None:
    if not isinstance(boards, dict) or set(boards) != set(SCORE_BOARDS):
        return "`boards` must map public, private and all"
    for board, scores in boards.items():
        if not isinstance(scores, dict) or not _number(scores.get("overall")) or not isinstance(
                scores.get("collections"), dict):
            return f"`boards.{board}` must hold a numeric `overall` and `collections`"
        values = scores["collections"]
        if not set(values) <= set(collections) or not all(_number(v) for v in values.values()):
            return f"`boards.{board}.collections` must map known collections to numbers"
        secondary = scores.get("secondary")
        if not isinstance(secondary, dict) or not set(secondary) <= set(collections) or not all(
                isinstance(v, dict) and set(v) <= set(BY_NAME) and all(_number(x) for x in v.values())
                for v in secondary.values()):
            return f"`boards.{board}.secondary` must map known collections to known metrics' numbers"
    return None


def _per_graph_fault(per_graph: object, shape: dict[str, dict[str, int]]) -> str | None:
    if not isinstance(per_graph, dict) or set(per_graph) != set(BOARDS):
        return "`per_graph` must map public and private"
    for board in BOARDS:
        arrays = per_graph[board]
        if not isinstance(arrays, dict) or set(arrays) != set(shape[board]):
            return f"`per_graph.{board}` must map every collection of the solution"
        for name, text in arrays.items():
            try:
                size = len(base64.b64decode(text, validate=True)) if isinstance(text, str) else -1
            except (binascii.Error, ValueError):
                size = -1
            if size != 8 * shape[board][name]:
                return f"`per_graph.{board}.{name}` is not {shape[board][name]} base64 float64 values"
    return None


def _fault(record: object, submission_sha256: str, shape: dict[str, dict[str, int]]) -> str | None:
    """Why ``record`` cannot be the record of the submission with that sha256 (:meth:`Record.from_json`),
    or None when it can."""
    if not isinstance(record, dict):
        return f"the record is {type(record).__name__}, not an object"
    if record.get("status") not in ("scored", "invalid"):
        return "`status` is neither scored nor invalid"
    if record.get("sha256") != submission_sha256:
        return "`sha256` is not the submission's"
    if not all(_integer(record.get(k)) for k in ("n_rows", "n_errors")):
        return "`n_rows` and `n_errors` must be integers"
    counts = record.get("problem_counts")
    if not isinstance(counts, dict) or not all(_integer(v) for v in counts.values()):
        return "`problem_counts` must map codes to integers"
    problems = record.get("problems")
    if not isinstance(problems, list) or not all(isinstance(p, dict) and isinstance(p.get("code"), str)
                                                 and isinstance(p.get("message"), str) for p in problems):
        return "`problems` must be a list of objects with a code and a message"
    if record["status"] == "invalid":
        return None
    return _scores_fault(record.get("boards"), shape["public"]) or _per_graph_fault(record.get("per_graph"), shape)
