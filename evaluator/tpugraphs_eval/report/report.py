"""The one result object of an evaluation (the organiser's: every graph, both leaderboards); terminal tables,
JSON and the HTML page are views of it (:mod:`.terminal`, :mod:`.html`). What a participant may see is
:class:`.public.PublicReport`, made from it by :func:`.public.public_report` (docs/public-view.md)."""

from __future__ import annotations

import html
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from .._version import __version__
from ..display import finite
from ..options import Options
from ..submission.problems import Problem
from ..submission.validation import Validation

if TYPE_CHECKING:  # scoring modules: imported by the scorer, not by `validate`
    import numpy as np

    from ..scoring.ceilings import CollectionNoise
    from ..scoring.references import References
    from ..scoring.score import CollectionResult

REPORT_FORMAT = 1
"""Version of the JSON layout written by :meth:`Report.to_dict`."""


LEADERBOARDS = ("public", "private")
"""The subsets of graphs a solution file's Usage column defines (Kaggle's public and private leaderboards)."""


@dataclass
class Scores:
    """Scores over a set of graphs: all of the split, or one leaderboard's.

    Attributes:
        collections: collection → per-graph results over these graphs.
        references: collection → expected random and oracle values over these graphs (:mod:`..scoring.references`).
        noise: collection → noise ceilings over these graphs (:mod:`..scoring.ceilings`); {} without a noise file.
        random_curves: computes collection → (G, K) random rankings' search curves when a view asks (JSON, HTML).
    """

    collections: dict[str, CollectionResult] = field(default_factory=dict)
    references: dict[str, References] = field(default_factory=dict)
    noise: dict[str, CollectionNoise] = field(default_factory=dict)
    random_curves: Callable[[], dict[str, np.ndarray]] | None = field(default=None, repr=False, compare=False)

    @cached_property
    def random(self) -> dict[str, np.ndarray]:
        """:attr:`random_curves`, computed once ({} without it)."""
        return self.random_curves() if self.random_curves is not None else {}

    @property
    def overall(self) -> float | None:
        """Unweighted mean of the defined collection values (docs/metrics.md, overall); None when there is none."""
        values = [r.value for r in self.collections.values() if r.value is not None]
        return math.fsum(values) / len(values) if values else None  # fsum: the same bits on every Python

    def normalised(self) -> dict[str, float | None]:
        """Collection → ``(value - random) / (oracle - random)``: 0 is chance, 1 is the oracle."""
        return {name: self.references[name].normalise(r.value) if name in self.references else None
                for name, r in self.collections.items()}

    def normalised_to_ceiling(self) -> dict[str, float | None]:
        """Collection → ``(value - random) / (ceiling - random)``: 1 is what a noise-free predictor scores against
        the recorded runtimes (None without a ceiling)."""
        from ..scoring.references import References

        return {name: References(self.references[name].random, self.noise[name].ceiling).normalise(r.value)
                if name in self.noise and name in self.references and self.noise[name].ceiling is not None else None
                for name, r in self.collections.items()}

    @property
    def undefined_collections(self) -> list[str]:
        """Collections whose value is undefined everywhere (left out of the overall)."""
        return [name for name, r in self.collections.items() if r.value is None]

    def summary(self) -> dict[str, Any]:
        """``{overall, collections, normalised, normalised_to_ceiling}`` for the JSON report."""
        return {"overall": finite(self.overall),
                "collections": {name: finite(r.value) for name, r in self.collections.items()},
                "normalised": {name: finite(v) for name, v in self.normalised().items()},
                "normalised_to_ceiling": {name: finite(v) for name, v in self.normalised_to_ceiling().items()}}


class ValidationFacts:
    """The submission's own facts, read off its ``validation``: one definition for :class:`Report` and the
    public view (:class:`.public.PublicReport`); no slots of its own, so a slotted subclass stays closed."""

    __slots__ = ()
    validation: Validation

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

    # views of the report: Report and PublicReport define split, scored, overall and collection_values
    split: str

    def __repr__(self) -> str:
        """A short summary (the verdict, the problem codes, the overall and collection values), whatever the size of
        the submission; the whole report is :meth:`to_json`."""
        values = {name: _round(value) for name, value in self.collection_values().items()}
        return (f"{type(self).__name__}(split={self.split!r}, valid={self.valid}, n_rows={self.n_rows}, "
                f"problems={self.validation.code_counts()}, overall={_round(self.overall)}, collections={values})")

    def to_json(self) -> str:
        """:meth:`to_dict` (the JSON report) as indented JSON text."""
        return json.dumps(self.to_dict(), indent=2) + "\n"

    def _repr_html_(self) -> str:
        """A notebook's table: the overall and each collection's value, then the validation table."""
        cells = [("overall", self.overall), *self.collection_values().items()] if self.scored else []
        rows = "".join(f"<tr><td>{html.escape(name)}</td><td>{_round(value)}</td></tr>" for name, value in cells)
        table = f"<table><tr><th>{self.split}</th><th>value</th></tr>{rows}</table>" if rows else ""
        return f"<div><b>{type(self).__name__}</b>{table}{self.validation._repr_html_()}</div>"


def _round(value: float | None) -> float | None:
    """A value as a summary shows it: 6 significant digits."""
    return None if value is None else float(f"{value:.6g}")


@dataclass(repr=False)
class Report(ValidationFacts):
    """Everything one evaluation found and computed.

    Attributes:
        split: the split evaluated against.
        data_root: how the ground truth's source is named (the demo is labelled SYNTHETIC).
        synthetic: True when the ground truth is the bundled synthetic demo.
        options: the options in force.
        validation: the submission's problems, missing IDs and row count (:class:`Validation`).
        scores: the scores over every graph of the split; empty when the submission was not scored.
        leaderboards: ``public`` and ``private`` scores when the ground truth has a Usage split (a
            solution file); empty otherwise.
        missing_collections: collections of the dataset that the data root lacks for this split.
        selected_collections: the collections ``--collections`` chose (the only ones validated and
            scored; the overall is their mean), or None when every collection present is.
        provenance: ``submission_sha256``, ``ground_truth_sha256`` (None when only validated),
            ``evaluator_version``, ``evaluator_source_sha256`` (the digest of the package's code,
            :func:`..source_digest.source_digest`), and ``eval_indices_sha256`` under ``--configs official``.
        submission: the submission's path when it was given as one, else None.
        ignored_files: dot files in the data root's folders of the split (macOS ``._*.npz``), not read.
        noise_file: the noise file read (``--noise`` or the data root's), None when there was none.
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
    ignored_files: list[str] = field(default_factory=list)
    noise_file: str | None = None

    @property
    def collections(self) -> dict[str, CollectionResult]:
        """Collection → per-graph result; empty when the submission was not scored."""
        return self.scores.collections

    @property
    def references(self) -> dict[str, References]:
        """Collection → expected random and oracle values."""
        return self.scores.references

    @property
    def scored(self) -> bool:
        """True when scores were computed (a valid submission against a split with ground truth)."""
        return bool(self.collections)

    @property
    def overall(self) -> float | None:
        """Unweighted mean of the defined collection values (docs/metrics.md, Overall); None when not scored."""
        return self.scores.overall

    def collection_values(self) -> dict[str, float | None]:
        """Collection → value of every scored collection."""
        return {name: r.value for name, r in self.collections.items()}

    def normalised(self) -> dict[str, float | None]:
        """Collection → ``(value - random) / (oracle - random)``: 0 is chance, 1 is the oracle."""
        return self.scores.normalised()

    @property
    def undefined_collections(self) -> list[str]:
        """Scored collections whose value is undefined everywhere (left out of the overall)."""
        return self.scores.undefined_collections

    def graph_metrics(self) -> dict[str, dict[str, Any]]:
        """Submission ID → {metric: value} for every scored graph (null where undefined), its ``search_curve``
        (:func:`curve_block`) and, with a noise file, its ``noise`` (the file's entry; null: no estimate)."""
        out: dict[str, dict[str, Any]] = {}
        for name, result in self.collections.items():
            columns = list(result.per_graph.items())
            random, noise = self.scores.random.get(name), self.scores.noise.get(name)
            for i, graph_id in enumerate(result.ids):
                metrics: dict[str, Any] = {name: finite(values[i]) for name, values in columns}
                metrics["n_configs_scored"] = int(result.n_scored[i])
                if result.curves is not None and random is not None:
                    metrics["search_curve"] = curve_block(result.curves[i], random[i])
                if noise is not None:
                    metrics["noise"] = noise.graphs[i]
                out[graph_id] = metrics
        return out

    def _details(self, name: str, result: CollectionResult, normalised: float | None) -> dict[str, Any]:
        """One collection's ``collection_details`` entry, with its ``noise`` block (with a noise file) and mean
        ``search_curve``."""
        from ..scoring.curve import mean_curve

        out: dict[str, Any] = {"metric": result.metric, "value": finite(result.value), "n_graphs": len(result.ids),
                               "means": {m: finite(v) for m, v in result.means().items()},
                               "means_over": result.counts(), "undefined": result.undefined}
        if name in self.references:
            out.update(random=self.references[name].random, oracle=self.references[name].oracle, normalised=normalised)
        if name in self.scores.noise:
            out["noise"] = {**self.scores.noise[name].to_dict(),
                            "normalised_to_ceiling": finite(self.scores.normalised_to_ceiling()[name])}
        random = self.scores.random.get(name)
        if result.curves is not None and random is not None and len(result.ids):
            out["search_curve"] = curve_block(mean_curve(result.curves), mean_curve(random))
        if programs := result.programs():
            out["programs"] = programs
        return out

    def to_dict(self) -> dict[str, Any]:
        """The JSON report (format :data:`REPORT_FORMAT`): overall, collections, graphs, problems, options, provenance
        (a participant's view is :meth:`.public.PublicReport.to_dict`)."""
        normalised = self.normalised()
        return {
            "report_format": REPORT_FORMAT, "submission": self.submission, "split": self.split,
            "data_root": self.data_root, "synthetic": self.synthetic, "graphs_scored": "all", "valid": self.valid,
            "scored": self.scored, **self.scores.summary(),
            "leaderboards": {name: scores.summary() for name, scores in self.leaderboards.items()},
            "missing_collections": self.missing_collections, "selected_collections": self.selected_collections,
            "ignored_files": self.ignored_files, "noise_file": self.noise_file,
            "undefined_collections": self.undefined_collections,
            "collection_details": {name: self._details(name, r, normalised[name])
                                   for name, r in self.collections.items()},
            "graphs": self.graph_metrics(), "n_rows": self.n_rows, "n_errors": self.n_errors,
            "problem_counts": dict(self.validation.counts), "problems": [p.to_dict() for p in self.problems],
            "missing_ids": self.missing_ids, "options": self.options.to_dict(), "provenance": self.provenance,
        }


def curve_block(curve, random) -> dict[str, Any]:
    """``{curve, random, configs_within, random_configs_within}`` of one (K,) search curve and a random ranking's
    (docs/metrics.md, "Search curve"); ``configs_within``: tolerance (``1%``...) → the k that first gets there."""
    from ..scoring.curve import TOLERANCES, configs_within

    def within(c):
        return {f"{round(t * 100)}%": configs_within(c, t) for t in TOLERANCES}

    return {"curve": [finite(v) for v in curve.tolist()], "random": [finite(v) for v in random.tolist()],
            "configs_within": within(curve), "random_configs_within": within(random)}


def provenance(submission_sha256: str, ground_truth_sha256: str | None,
               eval_indices_sha256: str | None = None) -> dict[str, Any]:
    """The provenance block of a report."""
    from ..source_digest import source_digest

    official = {} if eval_indices_sha256 is None else {"eval_indices_sha256": eval_indices_sha256}
    return {"submission_sha256": submission_sha256, "ground_truth_sha256": ground_truth_sha256,
            "evaluator_version": __version__, "evaluator_source_sha256": source_digest(), **official}
