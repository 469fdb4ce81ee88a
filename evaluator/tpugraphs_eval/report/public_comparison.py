"""What a participant may see of ``compare --public-only``: :class:`PublicComparison`, made by
:func:`public_comparison` alone from the comparison over the public graphs.

**Decision** (the reasoning: docs/public-view.md, "Why `compare --public-only` needs 10 graphs for an interval"): a
collection's values (A, B, B − A) are shown as every public view shows them
(:func:`..rules.public_rule.shown_collections`); a row's :data:`RESAMPLED_FIELDS` (interval, B-wins share,
undefined resamples, per-graph tally) only when every collection the row is drawn from (the overall: every
collection) has at least :data:`FEW_GRAPHS` public graphs; never the data root's label or the ground truth's
sha256. A :class:`PublicRow` refuses anything more.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Mapping

from ..rules.public_rule import MIN_PUBLIC_GRAPHS, overall_shown, shown_collections
from ..scoring.compare import Difference
from .public import one_number

FEW_GRAPHS = 10
"""Below this many public graphs a row shows no resampled field (docs/public-view.md); the organiser view flags
such intervals as rough (percentile intervals undercover with small samples: Efron & Tibshirani 1993, ch. 13-14)."""
RESAMPLED_FIELDS = ("low", "high", "b_better", "tied", "b_wins", "undefined_resamples", "graphs")
"""The fields of a row that come from the per-graph values one by one: the bootstrap's and the per-graph tally."""
PUBLIC_FIELDS = ("compare_format", "a", "b", "split", "synthetic", "graphs_compared", "sign", "resamples", "seed",
                 "level", "selected_collections", "collections", "collections_not_shown", "overall", "options",
                 "provenance")
"""The keys of a ``--public-only`` comparison (no ``data_root``; ``provenance`` without ``ground_truth_sha256``)."""
PUBLIC_PROVENANCE_KEYS = ("a_sha256", "b_sha256", "evaluator_version")
"""The provenance a public comparison keeps."""


def public_rows(n_graphs: dict[str, int]) -> tuple[list[str], list[str], bool]:
    """Which rows of a ``--public-only`` comparison are shown (the module docstring's **Decision**), from each
    collection's number of public graphs (in table order): (collections shown, collections shown with
    :data:`RESAMPLED_FIELDS`, True when the overall row has them)."""
    shown = shown_collections(n_graphs)
    resampled = [name for name in shown if n_graphs[name] >= FEW_GRAPHS]
    return shown, resampled, all(n >= FEW_GRAPHS for n in n_graphs.values() if n > 0)


@dataclass(frozen=True, slots=True)
class PublicRow:
    """One shown row: A, B and the oriented B − A, with the bootstrap summary when the rule allows it.

    Attributes:
        a, b, difference: the values (None: undefined).
        graphs: public graphs of each collection the row is drawn from (a collection row: its own; the overall:
            every collection with public graphs).
        resampled: the whole :class:`..scoring.compare.Difference` (interval, shares, tally), or None.

    Raises:
        TypeError: a value is not one number.
        ValueError: ``resampled`` when a collection drawn has fewer than :data:`FEW_GRAPHS` graphs; a row over
            fewer than ``MIN_PUBLIC_GRAPHS`` graphs in all.
    """

    a: float | None
    b: float | None
    difference: float | None
    graphs: tuple[int, ...]
    resampled: Difference | None

    def __post_init__(self) -> None:
        for name in ("a", "b", "difference"):
            object.__setattr__(self, name, one_number(name, getattr(self, name)))
        object.__setattr__(self, "graphs", tuple(int(n) for n in self.graphs))
        if sum(self.graphs) < MIN_PUBLIC_GRAPHS:
            raise ValueError(f"a public row needs at least {MIN_PUBLIC_GRAPHS} public graphs (docs/public-view.md)")
        if self.resampled is not None and (not isinstance(self.resampled, Difference)
                                           or min(self.graphs) < FEW_GRAPHS):
            raise ValueError(f"resampled fields need at least {FEW_GRAPHS} public graphs in every collection drawn "
                             "(docs/public-view.md)")

    def to_dict(self) -> dict[str, Any]:
        """``{a, b, difference[, low, high, b_better, tied, b_wins, undefined_resamples, graphs]}``."""
        if self.resampled is not None:
            return self.resampled.to_dict()
        return {"a": self.a, "b": self.b, "difference": self.difference}


@dataclass(frozen=True, slots=True)
class PublicComparison:
    """What a participant may see of a comparison over the public graphs (JSON keys :data:`PUBLIC_FIELDS`).

    Attributes:
        header: the document's fields other than ``collections``, ``collections_not_shown``, ``overall`` and
            ``provenance`` (submission paths, split, bootstrap settings, options), read-only.
        collections: shown collection → (metric, public graphs, :class:`PublicRow`), read-only.
        not_shown: the compared collections left out.
        overall: the overall row, None when it is over fewer than ``MIN_PUBLIC_GRAPHS`` public graphs.
        provenance_items: (key, value) pairs of :data:`PUBLIC_PROVENANCE_KEYS` only.
    """

    header: Mapping[str, Any]
    collections: Mapping[str, tuple[str, int, PublicRow]]
    not_shown: tuple[str, ...]
    overall: PublicRow | None
    provenance_items: tuple[tuple[str, Any], ...]

    def __post_init__(self) -> None:
        allowed = set(PUBLIC_FIELDS) - {"collections", "collections_not_shown", "overall", "provenance"}
        if set(self.header) - allowed:
            raise ValueError(f"a public comparison holds no {', '.join(sorted(set(self.header) - allowed))}")
        if any(not isinstance(row, PublicRow) for _, _, row in self.collections.values()):
            raise TypeError("a public comparison's collections hold PublicRow rows")
        if any(key not in PUBLIC_PROVENANCE_KEYS for key, _ in self.provenance_items):
            raise ValueError("a public comparison's provenance holds no ground-truth digest (docs/public-view.md)")
        object.__setattr__(self, "header", MappingProxyType(dict(self.header)))
        object.__setattr__(self, "collections", MappingProxyType(dict(self.collections)))

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` document of ``compare --public-only`` (keys :data:`PUBLIC_FIELDS`)."""
        document = {**self.header,
                    "collections": {name: {"metric": metric, "n_graphs": n, **row.to_dict()}
                                    for name, (metric, n, row) in self.collections.items()},
                    "collections_not_shown": list(self.not_shown),
                    "overall": self.overall.to_dict() if self.overall is not None else {},
                    "provenance": dict(self.provenance_items)}
        return {key: document[key] for key in PUBLIC_FIELDS}


def public_comparison(document: dict[str, Any], collections: Mapping[str, Difference],
                      overall: Difference) -> PublicComparison:
    """The participant's view of a comparison over the public graphs: the one place a :class:`PublicComparison`
    is made. ``document`` is the organiser's comparison document (:func:`..scoring.compare.compare_reports`),
    ``collections`` and ``overall`` its :class:`..scoring.compare.Difference` rows; rows and fields follow
    :func:`public_rows`."""
    n_graphs = {name: d["n_graphs"] for name, d in document["collections"].items()}
    shown, resampled, overall_resampled = public_rows(n_graphs)

    def row(d: Difference, graphs: tuple[int, ...], full: bool) -> PublicRow:
        return PublicRow(d.a, d.b, d.difference, graphs, d if full else None)

    rows = {name: (document["collections"][name]["metric"], n_graphs[name],
                   row(collections[name], (n_graphs[name],), name in resampled)) for name in shown}
    header = {key: document[key] for key in PUBLIC_FIELDS if key not in
              ("collections", "collections_not_shown", "overall", "provenance")}
    return PublicComparison(
        header, rows, tuple(name for name in n_graphs if name not in shown),
        row(overall, tuple(n for n in n_graphs.values() if n > 0), overall_resampled) if overall_shown(n_graphs)
        else None,
        tuple((k, v) for k, v in document["provenance"].items() if k in PUBLIC_PROVENANCE_KEYS))

