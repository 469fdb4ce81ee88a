"""The one result object of an evaluation; terminal tables and JSON are views of it (:mod:`.terminal`)."""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass, field
from typing import Any

from .._version import __version__
from ..options import Options
from ..scoring.references import References
from ..scoring.score import CollectionResult
from ..submission.problems import Problem
from ..submission.validation import Validation
from .public import PublicScores, public_scores

REPORT_FORMAT = 1
"""Version of the JSON layout written by :meth:`Report.to_dict`."""

PUBLIC_REPORT_FIELDS = ("report_format", "submission", "split", "synthetic", "graphs_scored", "valid", "scored",
                        "overall", "collections", "normalised", "collections_not_shown", "missing_collections",
                        "selected_collections", "collection_details", "n_rows", "n_errors", "problem_counts",
                        "problems", "missing_ids", "options", "provenance")
"""The keys of a public view's JSON report (:meth:`Report.to_dict` of :meth:`Report.public_view`): no ``graphs``,
``leaderboards``, ``data_root``, ``ignored_files`` or ``undefined_collections``; ``provenance`` without
``ground_truth_sha256``; ``collection_details`` of the shown collections only, without tile ``programs``."""
PUBLIC_DATA_LABEL = "the public leaderboard"
"""What a public view names as its data (the solution file's path is the organiser's)."""

LEADERBOARDS = ("public", "private")
"""The subsets of graphs a solution file's Usage column defines (Kaggle's public and private leaderboards)."""


def _finite(value: float | None) -> float | None:
    """JSON has no NaN: undefined numbers become null."""
    return None if value is None or math.isnan(value) else float(value)


@dataclass
class Scores:
    """Scores over a set of graphs: all of the split, or one leaderboard's.

    Attributes:
        collections: collection → per-graph results over these graphs.
        references: collection → expected random and oracle values over these graphs (:mod:`..scoring.references`).
    """

    collections: dict[str, CollectionResult] = field(default_factory=dict)
    references: dict[str, References] = field(default_factory=dict)

    @property
    def overall(self) -> float | None:
        """Unweighted mean of the defined collection values (SPEC §3.3); None when there is none."""
        values = [r.value for r in self.collections.values() if r.value is not None]
        return math.fsum(values) / len(values) if values else None  # fsum: the same bits on every Python

    def normalised(self) -> dict[str, float | None]:
        """Collection → ``(value - random) / (oracle - random)``: 0 is chance, 1 is the oracle."""
        return {name: self.references[name].normalise(r.value) if name in self.references else None
                for name, r in self.collections.items()}

    @property
    def undefined_collections(self) -> list[str]:
        """Collections whose value is undefined everywhere (left out of the overall)."""
        return [name for name, r in self.collections.items() if r.value is None]

    def summary(self) -> dict[str, Any]:
        """``{overall, collections, normalised}`` for the JSON report."""
        return {"overall": _finite(self.overall),
                "collections": {name: _finite(r.value) for name, r in self.collections.items()},
                "normalised": {name: _finite(v) for name, v in self.normalised().items()}}


@dataclass
class Report:
    """Everything one evaluation found and computed.

    Attributes:
        split: the split evaluated against.
        data_root: how the ground truth's source is named (the demo is labelled SYNTHETIC).
        synthetic: True when the ground truth is the bundled synthetic demo.
        options: the options in force.
        validation: the submission's problems, missing IDs and row count (:class:`Validation`).
        scores: the scores over every graph of the split; empty when the submission was not scored.
        leaderboards: ``public`` and ``private`` scores when the ground truth has a Usage split (a
            solution file); empty otherwise, and in a public-only view.
        missing_collections: collections of the dataset that the data root lacks for this split.
        selected_collections: the collections ``--collections`` chose (the only ones validated and
            scored; the overall is their mean), or None when every collection present is.
        provenance: ``submission_sha256``, ``ground_truth_sha256`` (None when only validated),
            ``evaluator_version``, and ``eval_indices_sha256`` under ``--configs official``.
        submission: the submission's path when it was given as one, else None.
        public_only: True in the participant-facing view (:meth:`public_view`).
        public: in a scored public view, the collection-level public values a participant may see
            (:class:`.public.PublicScores`); ``scores`` and ``leaderboards`` are then empty. None otherwise.
        ignored_files: dot files in the data root's folders of the split (macOS ``._*.npz``), not read.
    """

    split: str
    data_root: str
    synthetic: bool
    options: Options
    validation: Validation
    scores: Scores = field(default_factory=Scores)
    leaderboards: dict[str, Scores] = field(default_factory=dict)
    missing_collections: list[str] = field(default_factory=list)
    selected_collections: list[str] | None = None
    provenance: dict[str, Any] = field(default_factory=dict)
    submission: str | None = None
    public_only: bool = False
    ignored_files: list[str] = field(default_factory=list)
    public: PublicScores | None = None

    # -- the submission ----------------------------------------------------------------------------
    @property
    def problems(self) -> list[Problem]:
        """Every problem found, in file order."""
        return self.validation.problems

    @property
    def missing_ids(self) -> dict[str, list[str]]:
        """Collection → IDs of the split without a row."""
        return self.validation.missing_ids

    @property
    def n_rows(self) -> int:
        """Data rows in the submission."""
        return self.validation.n_rows

    @property
    def n_errors(self) -> int:
        """Number of error-severity problems."""
        return self.validation.n_errors

    @property
    def valid(self) -> bool:
        """True when the submission has no error under the mode in force."""
        return self.validation.valid

    # -- the scores (over every graph of the split, or the public ones in a public view) -----------
    @property
    def collections(self) -> dict[str, CollectionResult]:
        """Collection → per-graph result; empty when the submission was not scored, and in a public view."""
        return self.scores.collections

    @property
    def references(self) -> dict[str, References]:
        """Collection → expected random and oracle values."""
        return self.scores.references

    @property
    def scored(self) -> bool:
        """True when scores were computed (a valid submission against a split with ground truth)."""
        return bool(self.collections) or self.public is not None

    @property
    def overall(self) -> float | None:
        """Unweighted mean of the defined collection values (SPEC §3.3); None when not scored (and in a public
        view when :mod:`..rules.public_rule` hides it)."""
        return self.public.overall if self.public is not None else self.scores.overall

    def collection_values(self) -> dict[str, float | None]:
        """Collection → value: every scored collection's, or in a public view the shown ones'."""
        if self.public is not None:
            return self.public.values()
        return {name: r.value for name, r in self.collections.items()}

    def normalised(self) -> dict[str, float | None]:
        """Collection → ``(value - random) / (oracle - random)``: 0 is chance, 1 is the oracle."""
        return self.scores.normalised()

    @property
    def undefined_collections(self) -> list[str]:
        """Scored collections whose value is undefined everywhere (left out of the overall)."""
        return self.scores.undefined_collections

    def public_view(self) -> Report:
        """The participant-facing report: what :mod:`..rules.public_rule` allows of the public leaderboard.

        It keeps the verdict, the submission's problems and missing IDs (found over the whole split, as
        validation is: they tell nothing of which graphs are public), and of the public graphs the overall
        and the shown collections' values, means, references and counts (:func:`.public.public_scores`).
        It holds no graph ID of the split beyond the submission's own problems, no per-graph value, no tile
        program means, no private value, no ground-truth digest and no data-root path.

        Raises:
            ValueError: scored against a ground truth without a Public/Private split.
        """
        provenance = {key: value for key, value in self.provenance.items() if key != "ground_truth_sha256"}
        view = dataclasses.replace(self, scores=Scores(), leaderboards={}, public_only=True, public=None,
                                   data_root=PUBLIC_DATA_LABEL, ignored_files=[], provenance=provenance)
        if not self.scored:  # an invalid submission: its problems are all there is, nothing private
            return view
        if "public" not in self.leaderboards:
            raise ValueError("this report has no public leaderboard (score against a solution file)")
        return dataclasses.replace(view, public=public_scores(self.leaderboards["public"]))

    def graph_metrics(self) -> dict[str, dict[str, float | None]]:
        """Submission ID → {metric: value} for every scored graph (null where undefined)."""
        out: dict[str, dict[str, float | None]] = {}
        for result in self.collections.values():
            columns = list(result.per_graph.items())
            for i, graph_id in enumerate(result.ids):
                metrics = {name: _finite(values[i]) for name, values in columns}
                metrics["n_configs_scored"] = int(result.n_scored[i])
                out[graph_id] = metrics
        return out

    def to_dict(self) -> dict[str, Any]:
        """The JSON report (format :data:`REPORT_FORMAT`): overall, collections, graphs, problems, options, provenance;
        a public view's has the keys :data:`PUBLIC_REPORT_FIELDS`."""
        if self.public_only:
            return self._public_dict()
        details = {}
        normalised = self.normalised()
        for name, result in self.collections.items():
            details[name] = {
                "metric": result.metric,
                "value": _finite(result.value),
                "n_graphs": len(result.ids),
                "means": {m: _finite(v) for m, v in result.means().items()},
                "means_over": result.counts(),
                "undefined": result.undefined,
            }
            if name in self.references:
                details[name].update(random=self.references[name].random, oracle=self.references[name].oracle,
                                     normalised=normalised[name])
            programs = result.programs()
            if programs:
                details[name]["programs"] = programs
        return {
            "report_format": REPORT_FORMAT,
            "submission": self.submission,
            "split": self.split,
            "data_root": self.data_root,
            "synthetic": self.synthetic,
            "graphs_scored": "public leaderboard only" if self.public_only else "all",
            "valid": self.valid,
            "scored": self.scored,
            **self.scores.summary(),
            "leaderboards": {name: scores.summary() for name, scores in self.leaderboards.items()},
            "missing_collections": self.missing_collections,
            "selected_collections": self.selected_collections,
            "ignored_files": self.ignored_files,
            "undefined_collections": self.undefined_collections,
            "collection_details": details,
            "graphs": self.graph_metrics(),
            "n_rows": self.n_rows,
            "n_errors": self.n_errors,
            "problem_counts": dict(self.validation.counts),
            "problems": [p.to_dict() for p in self.problems],
            "missing_ids": self.missing_ids,
            "options": self.options.to_dict(),
            "provenance": self.provenance,
        }

    def _public_dict(self) -> dict[str, Any]:
        public = self.public.to_dict() if self.public is not None else {
            "overall": None, "collections": {}, "normalised": {}, "collections_not_shown": [], "collection_details": {}}
        document = {
            "report_format": REPORT_FORMAT, "submission": self.submission, "split": self.split,
            "synthetic": self.synthetic, "graphs_scored": "public leaderboard only", "valid": self.valid,
            "scored": self.scored, **public, "missing_collections": self.missing_collections,
            "selected_collections": self.selected_collections, "n_rows": self.n_rows, "n_errors": self.n_errors,
            "problem_counts": dict(self.validation.counts), "problems": [p.to_dict() for p in self.problems],
            "missing_ids": self.missing_ids, "options": self.options.to_dict(), "provenance": self.provenance}
        return {key: document[key] for key in PUBLIC_REPORT_FIELDS}

    def to_json(self) -> str:
        """:meth:`to_dict` as indented JSON text."""
        return json.dumps(self.to_dict(), indent=2) + "\n"


def provenance(submission_sha256: str, ground_truth_sha256: str | None,
               eval_indices_sha256: str | None = None) -> dict[str, Any]:
    """The provenance block of a report."""
    out: dict[str, Any] = {"submission_sha256": submission_sha256, "ground_truth_sha256": ground_truth_sha256,
                           "evaluator_version": __version__}
    if eval_indices_sha256 is not None:
        out["eval_indices_sha256"] = eval_indices_sha256
    return out
