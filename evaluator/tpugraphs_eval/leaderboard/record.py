"""What the leaderboard keeps of one submission: a typed :class:`Record` (made by :func:`scorer.record_of` or
:meth:`Record.unread`), with its JSON form for the store (:meth:`Record.fields`, :meth:`Record.from_fields`).
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

STATUSES = ("scored", "invalid", "error")
"""``scored``: valid and scored; ``invalid``: validation failed (the evaluator's codes); ``error``: not read
(a leaderboard code: ``SUBMISSION_TOO_LARGE``, ``SUBMISSION_SYMLINK``, ...)."""
BOARDS = ("public", "private")
"""The leaderboards whose per-graph values a scored record holds."""
SCORE_BOARDS = (*BOARDS, "all")
"""The boards a scored record holds scores of: the public and private leaderboards, and every graph."""


def encode_array(values: np.ndarray) -> str:
    """(G,) float64 → base64 of little-endian float64 bytes (exact, NaN kept; :meth:`Record.per_graph_values` decodes
    it)."""
    return base64.b64encode(np.ascontiguousarray(values, dtype="<f8").tobytes()).decode("ascii")


@dataclass(frozen=True)
class BoardScores:
    """A scored submission's scores on one board.

    Attributes:
        overall: the mean of the defined collection values (None when every one is undefined), as the
            report's :class:`tpugraphs_eval.report.report.Scores` gives it.
        collections: collection name → its value on the board's graphs (None when undefined).
        secondary: collection name → metric name → its mean over the board's graphs where it is defined (None
            when none) for the metric shown beside the collection's value (:func:`..rules.metric_table.beside_primary`:
            layout ``opa``; no entry for a tile collection). Not used for ranking.
    """

    overall: float | None
    collections: dict[str, float | None] = field(default_factory=dict)
    secondary: dict[str, dict[str, float | None]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """``{"overall", "collections", "secondary"}``, the inner dicts this object's own (for readers only)."""
        return {"overall": self.overall, "collections": self.collections, "secondary": self.secondary}


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
            solution's graph order restricted to that board. Empty in a record read from the store until first
            needed (the bootstrap reads only the teams' final submissions), when ``load_per_graph`` fills it.
        load_per_graph: None, or what returns ``per_graph`` when it is left empty to save memory
            (:meth:`store.Store.get`); not compared, not stored.
        key: the store key (:func:`store.record_keyer`) of a record :func:`scorer.score_entries` made or found (the
            stored bootstrap rows are named after it); not compared, not stored.
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
        if not self.per_graph and self.load_per_graph is not None:
            self.per_graph, self.load_per_graph = self.load_per_graph(), None
        return np.frombuffer(base64.b64decode(self.per_graph[board][collection]), dtype="<f8")

    def fields(self) -> dict[str, Any]:
        """The record as a JSON object without ``per_graph`` (what the store keeps beside it, :mod:`store`)."""
        boards = {"boards": {b: scores.to_json() for b, scores in self.boards.items()}} if self.scored else {}
        return {"status": self.status, "sha256": self.sha256, "n_rows": self.n_rows, "n_errors": self.n_errors,
                "problem_counts": self.problem_counts, "problems": self.problems, **boards}

    @classmethod
    def from_fields(cls, data: dict[str, Any]) -> Record:
        """The record of :meth:`fields`' object (its ``per_graph`` empty); the store checked its checksum."""
        boards = {b: BoardScores(s["overall"], s["collections"], s["secondary"]) for b, s in data.get("boards", {}).items()}
        return cls(data["status"], data["problems"], data["sha256"], data["n_rows"], data["n_errors"],
                   data["problem_counts"], boards)
