"""Fold files for cross-validation: ``tpugraphs-data folds`` assigns each graph of a split to one of k folds with
the grouping of ``prepare`` (:func:`.selection.assign_folds`); :mod:`..truth.graph_lists` reads them back."""

from __future__ import annotations

from ..errors import UsageError
from ..truth.groundtruth import SplitCatalog
from .selection import assign_folds


def fold_rows(catalog: SplitCatalog, k: int, seed: str) -> list[tuple[str, int]]:
    """``(ID, fold)`` for every graph of ``catalog``, in catalog order (:func:`.selection.assign_folds`).

    Raises:
        UsageError: ``k`` below 2, or more folds than a collection's programs fill (a fold would hold none of
            its graphs).
    """
    if k < 2:
        raise UsageError(f"--k must be 2 or more, not {k}")
    graphs = [(g.collection, catalog.split, name) for g in catalog.collections.values() for name in g.names]
    folds = assign_folds(graphs, k, seed)
    for collection in catalog.collections.values():  # a fold without a collection has an overall without it
        held = {folds[(collection.collection, catalog.split, name)] for name in collection.names}
        if collection.names and len(held) < k:
            advice = (f"choose --k {len(held)} or less" if len(held) >= 2 else "cross-validation needs 2 program "
                      "groups of each collection: use a data root with more of its programs, or one without it")
            raise UsageError(f"--k {k} leaves {k - len(held)} fold(s) without a graph of {collection.collection.name} "
                             f"(its graphs form {len(held)} program group(s) that fill only {len(held)} folds; "
                             f"a fold's overall would then leave the collection out): {advice}")
    return [(f"{c.name}:{name}", folds[(c, split, name)]) for c, split, name in graphs]


def folds_csv(rows: list[tuple[str, int]]) -> str:
    """The fold file's text: header ``ID,fold``, one row per graph."""
    return "ID,fold\n" + "".join(f"{graph_id},{fold}\n" for graph_id, fold in rows)
