"""What a participant may see of an evaluation: :class:`PublicReport`, made by :func:`public_report` alone; the
terminal (:func:`.terminal.render`), JSON (:meth:`PublicReport.to_dict`) and HTML (:func:`.html.render_html`) public
views are made from it. The rule is :mod:`..rules.public_rule`; what these types cannot hold (a graph ID beyond the
submission's own problems and missing IDs, a per-graph value, a program mean, a secondary mean or a count, a private
or all-graphs value, the ground truth's sha256, the data's path) and why: docs/public-view.md. Its numbers are
checked to be single floats when it is made (:func:`one_number`), its classes are frozen with ``__slots__``, and the
provenance keeps only :data:`PUBLIC_PROVENANCE_KEYS`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Mapping

from ..dataset import BY_NAME as COLLECTIONS_BY_NAME
from ..display import finite
from ..options import Options
from ..rules.metric_table import BY_NAME as METRICS_BY_NAME
from ..rules.public_rule import MIN_PUBLIC_GRAPHS, public_values
from ..scoring.references import References
from ..submission.validation import ParsedSubmission, Validation
from .report import REPORT_FORMAT, Report, Scores, ValidationFacts

PUBLIC_REPORT_FIELDS = ("report_format", "submission", "split", "synthetic", "graphs_scored", "valid", "scored",
                        "overall", "collections", "normalised", "collections_not_shown", "missing_collections",
                        "selected_collections", "collection_details", "n_rows", "n_errors", "problem_counts",
                        "problems", "missing_ids", "options", "provenance")
"""The keys of a public view's JSON report (:meth:`PublicReport.to_dict`): no ``graphs``, ``leaderboards``,
``data_root``, ``ignored_files`` or ``undefined_collections``; ``provenance`` without ``ground_truth_sha256``;
``collection_details`` of the shown collections only, without tile ``programs``."""
PUBLIC_DATA_LABEL = "the public leaderboard"
"""What a public view names as its data (the solution file's path is the organiser's)."""
PUBLIC_PROVENANCE_KEYS = ("submission_sha256", "evaluator_version", "evaluator_source_sha256", "eval_indices_sha256")
"""The provenance a public view keeps: not ``ground_truth_sha256`` (a digest of every private runtime)."""


def one_number(name: str, value: Any) -> float | None:
    """``value`` as one float (None stays None); anything else (an array, a list, a mapping) is refused."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be one number or None, not {type(value).__name__}: a public view holds no "
                        "per-graph value (docs/public-view.md)")
    return float(value)


@dataclass(frozen=True, slots=True)
class PublicCollection:
    """One shown collection over its public graphs.

    Attributes:
        metric: the primary metric (``score`` tile, ``kendall_tau`` layout).
        n_graphs: public graphs of the collection (at least :data:`MIN_PUBLIC_GRAPHS`).
        value: mean of ``metric`` over the public graphs where it is defined.
        references: expected random and oracle values over the public graphs (None when undefined).

    Raises:
        TypeError: ``value`` or a reference is not one number; ``references`` is not :class:`References`.
        ValueError: ``metric`` is not a primary metric; fewer than :data:`MIN_PUBLIC_GRAPHS` graphs.
    """

    metric: str
    n_graphs: int
    value: float | None
    references: References | None

    def __post_init__(self) -> None:
        if self.metric not in METRICS_BY_NAME or not METRICS_BY_NAME[self.metric].primary:
            raise ValueError(f"a public collection shows its primary metric only, not {self.metric!r}")
        if isinstance(self.n_graphs, bool) or not isinstance(self.n_graphs, int) or self.n_graphs < MIN_PUBLIC_GRAPHS:
            raise ValueError(f"a public collection needs at least {MIN_PUBLIC_GRAPHS} public graphs, not "
                             f"{self.n_graphs!r} (docs/public-view.md)")
        object.__setattr__(self, "value", one_number("value", self.value))
        if self.references is not None:
            if not isinstance(self.references, References):
                raise TypeError(f"references must be References, not {type(self.references).__name__}")
            object.__setattr__(self, "references", References(one_number("random", self.references.random),
                                                              one_number("oracle", self.references.oracle)))

    @property
    def normalised(self) -> float | None:
        """``(value - random) / (oracle - random)``: 0 is chance, 1 is the oracle."""
        return self.references.normalise(self.value) if self.references is not None else None

    def to_dict(self) -> dict[str, Any]:
        """``{metric, value, n_graphs[, random, oracle, normalised]}`` for the JSON report."""
        out: dict[str, Any] = {"metric": self.metric, "value": finite(self.value), "n_graphs": self.n_graphs}
        if self.references is not None:
            out.update(random=self.references.random, oracle=self.references.oracle,
                       normalised=finite(self.normalised))
        return out


@dataclass(frozen=True, slots=True)
class PublicScores:
    """What a participant may see of the public leaderboard's scores.

    Attributes:
        overall: the unweighted mean of the defined public collection values (shown ones and not), None when
            undefined or over fewer than :data:`MIN_PUBLIC_GRAPHS` public graphs.
        collections: collection → :class:`PublicCollection`, the shown ones only (catalog order; read-only).
        not_shown: the scored collections left out by the rule.
        n_counted: collections whose value enters the overall (defined on some public graph).

    Raises:
        TypeError: ``overall`` is not one number, a collection is not a :class:`PublicCollection`.
        ValueError: a name is not a collection.
    """

    overall: float | None
    collections: Mapping[str, PublicCollection]
    not_shown: tuple[str, ...]
    n_counted: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "overall", one_number("overall", self.overall))
        for name, collection in self.collections.items():
            if name not in COLLECTIONS_BY_NAME:
                raise ValueError(f"{name!r} is not a collection")
            if not isinstance(collection, PublicCollection):
                raise TypeError(f"{name}: a public view holds a PublicCollection, not {type(collection).__name__}")
        object.__setattr__(self, "collections", MappingProxyType(dict(self.collections)))
        not_shown = tuple(self.not_shown)
        if any(name not in COLLECTIONS_BY_NAME for name in not_shown):
            raise ValueError(f"not a collection among {not_shown}")
        object.__setattr__(self, "not_shown", not_shown)

    def values(self) -> dict[str, float | None]:
        """Shown collection → its value."""
        return {name: c.value for name, c in self.collections.items()}

    def to_dict(self) -> dict[str, Any]:
        """``{overall, collections, normalised, collections_not_shown, collection_details}`` for the JSON report."""
        return {"overall": finite(self.overall),
                "collections": {name: finite(v) for name, v in self.values().items()},
                "normalised": {name: finite(c.normalised) for name, c in self.collections.items()},
                "collections_not_shown": list(self.not_shown),
                "collection_details": {name: c.to_dict() for name, c in self.collections.items()}}


@dataclass(frozen=True, slots=True, repr=False)
class PublicReport(ValidationFacts):
    """What a participant may see of one evaluation against a solution file (made by :func:`public_report`).

    Attributes:
        split: the split evaluated against.
        synthetic: True when the ground truth is the bundled synthetic demo.
        options: the options in force.
        validation: the submission's problems, counts, missing IDs and row count (found over the whole split,
            as validation is: they tell nothing of which graphs are public), without its parsed rankings.
        scores: the public scores (:class:`PublicScores`); None when the submission was not scored.
        missing_collections: collections of the dataset that the solution lacks.
        selected_collections: always None (``--collections`` is refused with a public view).
        provenance_items: (key, value) pairs of :data:`PUBLIC_PROVENANCE_KEYS` only (:attr:`provenance`).
        submission: the submission's path when it was given as one, else None.
    """

    split: str
    synthetic: bool
    options: Options
    validation: Validation
    scores: PublicScores | None
    missing_collections: tuple[str, ...]
    selected_collections: tuple[str, ...] | None
    provenance_items: tuple[tuple[str, Any], ...]
    submission: str | None

    def __post_init__(self) -> None:
        if self.scores is not None and not isinstance(self.scores, PublicScores):
            raise TypeError(f"a public report holds PublicScores, not {type(self.scores).__name__}")
        if not isinstance(self.validation, Validation):
            raise TypeError("validation must be a Validation")
        if self.validation.submission.rankings:
            raise ValueError("a public report holds no parsed rankings")
        extra = [key for key, _ in self.provenance_items if key not in PUBLIC_PROVENANCE_KEYS]
        if extra:
            raise ValueError(f"a public report's provenance holds no {', '.join(extra)} (docs/public-view.md)")
        object.__setattr__(self, "provenance_items", tuple((k, v) for k, v in self.provenance_items))
        object.__setattr__(self, "missing_collections", tuple(self.missing_collections))

    data_root = PUBLIC_DATA_LABEL

    @property
    def provenance(self) -> dict[str, Any]:
        """``submission_sha256``, ``evaluator_version``, ``evaluator_source_sha256`` (and ``eval_indices_sha256``): no
        ground-truth digest."""
        return dict(self.provenance_items)

    @property
    def scored(self) -> bool:
        """True when the submission was scored."""
        return self.scores is not None

    @property
    def overall(self) -> float | None:
        """The public overall, None when not scored or hidden by :mod:`..rules.public_rule`."""
        return self.scores.overall if self.scores is not None else None

    def collection_values(self) -> dict[str, float | None]:
        """Shown collection → its public value ({} when not scored)."""
        return self.scores.values() if self.scores is not None else {}

    def to_dict(self) -> dict[str, Any]:
        """The JSON report (format :data:`.report.REPORT_FORMAT`) with the keys :data:`PUBLIC_REPORT_FIELDS`."""
        scores = self.scores.to_dict() if self.scores is not None else {
            "overall": None, "collections": {}, "normalised": {}, "collections_not_shown": [], "collection_details": {}}
        document = {
            "report_format": REPORT_FORMAT, "submission": self.submission, "split": self.split,
            "synthetic": self.synthetic, "graphs_scored": "public leaderboard only", "valid": self.valid,
            "scored": self.scored, **scores, "missing_collections": list(self.missing_collections),
            "selected_collections": None if self.selected_collections is None else list(self.selected_collections),
            "n_rows": self.n_rows, "n_errors": self.n_errors, "problem_counts": dict(self.validation.counts),
            "problems": [p.to_dict() for p in self.problems], "missing_ids": self.missing_ids,
            "options": self.options.to_dict(), "provenance": self.provenance}
        return {key: document[key] for key in PUBLIC_REPORT_FIELDS}


def public_scores(scores: Scores) -> PublicScores:
    """The participant-facing summary of ``scores`` (the public leaderboard's): the values
    :func:`..rules.public_rule.public_values` allows for the number of public graphs each value is a mean over."""
    counts = {name: r.counts()[r.metric] for name, r in scores.collections.items()}
    shown = public_values({"overall": scores.overall, **{name: r.value for name, r in scores.collections.items()}},
                          counts)
    collections = {name: PublicCollection(result.metric, len(result.ids), shown[name], scores.references.get(name))
                   for name, result in scores.collections.items() if name in shown}
    return PublicScores(shown.get("overall"), collections, tuple(name for name in counts if name not in collections),
                        sum(n > 0 for n in counts.values()))


def public_report(report: Report) -> PublicReport:
    """The participant-facing view of the organiser's ``report``: the one place a :class:`PublicReport` is made.

    It keeps the verdict, the submission's problems and missing IDs, and of the public graphs the overall and
    the shown collections' values and references (:func:`public_scores`).

    Raises:
        ValueError: ``report`` was scored against a ground truth without a Public/Private split.
    """
    if report.scored and "public" not in report.leaderboards:
        raise ValueError("this report has no public leaderboard (score against a solution file)")
    return PublicReport(
        split=report.split, synthetic=report.synthetic, options=report.options,
        validation=dataclasses.replace(report.validation, submission=ParsedSubmission()),
        scores=public_scores(report.leaderboards["public"]) if report.scored else None,
        missing_collections=tuple(report.missing_collections),
        selected_collections=None if report.selected_collections is None else tuple(report.selected_collections),
        provenance_items=tuple((k, v) for k, v in report.provenance.items() if k in PUBLIC_PROVENANCE_KEYS),
        submission=report.submission)
