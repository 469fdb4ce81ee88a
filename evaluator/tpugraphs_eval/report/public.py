"""The scores a participant may see: collection-level values over the public graphs, per :mod:`..rules.public_rule`.

:func:`public_scores` turns the public leaderboard's :class:`.report.Scores` (per-graph results) into a
:class:`PublicScores`, which holds no graph ID and no per-graph value: the overall, and for each collection
the rule shows, its primary value, references and normalised value. No secondary mean (top-K errors,
slowdowns) and no count of graphs a mean is over: a tile top-10 error is defined only on rows listing 10
indices, so its count would tell which graphs are public to a file listing 10 on chosen rows. It is what
:meth:`.report.Report.public_view` keeps, and the JSON, terminal and HTML public views are made from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..rules.public_rule import overall_shown, shown_collections
from ..scoring.references import References
from .charts import finite as _finite

if TYPE_CHECKING:
    from .report import Scores


@dataclass(frozen=True)
class PublicCollection:
    """One shown collection over its public graphs.

    Attributes:
        metric: the primary metric (``score`` tile, ``kendall_tau`` layout).
        n_graphs: public graphs of the collection.
        value: mean of ``metric`` over the public graphs where it is defined (at least :data:`MIN_PUBLIC_GRAPHS`).
        references: expected random and oracle values over the public graphs (None when undefined).
    """

    metric: str
    n_graphs: int
    value: float | None
    references: References | None

    @property
    def normalised(self) -> float | None:
        """``(value - random) / (oracle - random)``: 0 is chance, 1 is the oracle."""
        return self.references.normalise(self.value) if self.references is not None else None

    def to_dict(self) -> dict[str, Any]:
        """``{metric, value, n_graphs[, random, oracle, normalised]}`` for the JSON report."""
        out: dict[str, Any] = {"metric": self.metric, "value": _finite(self.value), "n_graphs": self.n_graphs}
        if self.references is not None:
            out.update(random=self.references.random, oracle=self.references.oracle,
                       normalised=_finite(self.normalised))
        return out


@dataclass(frozen=True)
class PublicScores:
    """What a participant may see of the public leaderboard's scores.

    Attributes:
        overall: the unweighted mean of the defined public collection values (shown ones and not), None when
            undefined or over fewer than :data:`MIN_PUBLIC_GRAPHS` public graphs.
        collections: collection → :class:`PublicCollection`, the shown ones only (catalog order).
        not_shown: the scored collections left out by the rule.
        n_counted: collections whose value enters the overall (defined on some public graph).
    """

    overall: float | None
    collections: dict[str, PublicCollection]
    not_shown: list[str]
    n_counted: int

    def values(self) -> dict[str, float | None]:
        """Shown collection → its value."""
        return {name: c.value for name, c in self.collections.items()}

    def to_dict(self) -> dict[str, Any]:
        """``{overall, collections, normalised, collections_not_shown, collection_details}`` for the JSON report."""
        return {"overall": _finite(self.overall),
                "collections": {name: _finite(v) for name, v in self.values().items()},
                "normalised": {name: _finite(c.normalised) for name, c in self.collections.items()},
                "collections_not_shown": self.not_shown,
                "collection_details": {name: c.to_dict() for name, c in self.collections.items()}}


def public_scores(scores: Scores) -> PublicScores:
    """The participant-facing summary of ``scores`` (the public leaderboard's): shown collections per
    :func:`..rules.public_rule.shown_collections` of the number of public graphs each value is a mean over."""
    counts = {name: r.counts()[r.metric] for name, r in scores.collections.items()}
    shown = shown_collections(counts)
    collections = {}
    for name in shown:
        result = scores.collections[name]
        collections[name] = PublicCollection(result.metric, len(result.ids), result.value, scores.references.get(name))
    return PublicScores(scores.overall if overall_shown(counts) else None, collections,
                        [name for name in counts if name not in shown], sum(n > 0 for n in counts.values()))
