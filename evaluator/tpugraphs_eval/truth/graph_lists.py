"""Graph lists and fold files: which graphs ``--graphs FILE`` (with ``--fold K``) or ``cv --folds`` scores. A fold
file is a CSV ``ID,fold`` (one row per graph of the split, fold 0..k-1: :func:`..prepare.folds.fold_rows`); a graph
list is one submission ID (``<collection>:<graph>``) per line (an optional first line ``ID``).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from pathlib import Path

from ..errors import UsageError
from ..safeopen import read_input
from .groundtruth import SplitCatalog

FOLD_HEADER = ["ID", "fold"]
MAX_GRAPHS_FILE_BYTES = 16 << 20
"""Largest fold file or graph list read: 16 MiB (one short line per graph; the full train split's is ~400 KB)."""
MAX_FOLD_DIGITS = 9
"""A fold number is 1 to 9 ASCII digits (``²`` or a 5,000-digit number is refused with the line, not read)."""


class GraphSelection(dict):
    """ID → line of the file that lists it (:func:`read_graphs`); :attr:`source` names the file in errors."""

    def __init__(self, ids: dict[str, int], source: str = "--graphs") -> None:
        super().__init__(ids)
        self.source = source


def _first_time(seen: dict[str, int], graph_id: str, line: int, faults: list[str]) -> bool:
    """Record ``graph_id`` as first listed on ``line``; if it was listed before, add the fault instead."""
    if graph_id in seen:
        faults.append(f"line {line}: {graph_id} again (first on line {seen[graph_id]})")
        return False
    seen[graph_id] = line
    return True


def read_folds(path: Path) -> dict[int, GraphSelection]:
    """Fold → {ID: line} of a fold file (every problem of the file in one error).

    Raises:
        UsageError: ``GRAPHS_FILE_INVALID``: unreadable, no ``ID,fold`` header, a fold that is not an integer of
            0 or more, a repeated ID (lines named); ``INPUT_NOT_A_FILE`` / ``INPUT_TOO_LARGE`` as other inputs.
    """
    return _folds(_rows(path), path)


def _folds(rows: list[list[str]], path: Path) -> dict[int, GraphSelection]:
    """:func:`read_folds` of the rows already read from ``path``."""
    if not rows or [c.strip() for c in rows[0]] != FOLD_HEADER:
        raise UsageError(f"the fold file {path} must start with the header `ID,fold`", code="GRAPHS_FILE_INVALID")
    folds: dict[int, dict[str, int]] = {}
    seen: dict[str, int] = {}
    faults = []
    for line, row in enumerate(rows[1:], start=2):
        fold = row[1].strip() if len(row) == 2 else ""  # surrounding spaces ignored
        if not (fold.isascii() and fold.isdigit() and len(fold) <= MAX_FOLD_DIGITS):
            faults.append(f"line {line}: expected `ID,fold` with a fold of 0 or more (at most {MAX_FOLD_DIGITS} digits), "
                          f"found {','.join(row)[:80]!r}")
            continue
        graph_id = row[0].strip()
        if _first_time(seen, graph_id, line, faults):
            folds.setdefault(int(fold), {})[graph_id] = line
    _raise(path, faults)
    return {fold: GraphSelection(ids, str(path)) for fold, ids in sorted(folds.items())}


def read_graphs(path: Path, fold: int | None) -> GraphSelection:
    """{ID: line} of the graphs ``--graphs FILE`` (with ``--fold K`` for a fold file) selects.

    Raises:
        UsageError: ``GRAPHS_FILE_INVALID``: a fold file without ``--fold`` (or a fold it lacks), ``--fold`` with a
            plain list, a repeated ID, an empty list (lines named).
    """
    rows = _rows(path)
    if rows and [c.strip() for c in rows[0]] == FOLD_HEADER:
        if fold is None:
            raise UsageError(f"{path} is a fold file (`ID,fold`): add --fold K to say which fold to score",
                             code="GRAPHS_FILE_INVALID")
        folds = _folds(rows, path)  # the rows read above: the file is read once
        if fold not in folds:
            raise UsageError(f"the fold file {path} has no fold {fold} (folds: {', '.join(map(str, folds))})",
                             code="GRAPHS_FILE_INVALID")
        return folds[fold]
    if fold is not None:
        raise UsageError(f"--fold is for a fold file (header `ID,fold`); {path} is a plain list of IDs",
                         code="GRAPHS_FILE_INVALID")
    start = 2 if rows and [c.strip() for c in rows[0]] == ["ID"] else 1
    ids: dict[str, int] = {}
    faults = []
    for line, row in enumerate(rows[start - 1:], start=start):
        if not row or not "".join(row).strip():
            continue
        if len(row) != 1:
            faults.append(f"line {line}: one submission ID per line, found {len(row)} fields")
            continue
        _first_time(ids, row[0].strip(), line, faults)
    if not ids and not faults:
        faults.append("no graph ID in the file")
    _raise(path, faults)
    return GraphSelection(ids, str(path))


def check_graph_ids(ids: Mapping[str, int | None], catalog: SplitCatalog) -> None:
    """Raise unless every ID of ``ids`` (ID → its line in the file, or None) is a graph of ``catalog``; a
    :class:`GraphSelection` is named by its file.

    Raises:
        UsageError: ``GRAPHS_FILE_UNKNOWN_ID``, every unknown ID named with its line.
    """
    where = getattr(ids, "source", "--graphs")
    if unknown := [(line, graph_id) for graph_id, line in ids.items() if graph_id not in catalog.index]:
        listed = "; ".join(f"{'line ' + str(line) + ': ' if line else ''}{graph_id}" for line, graph_id in unknown[:10])
        more = f" … and {len(unknown) - 10} more" if len(unknown) > 10 else ""
        raise UsageError(f"{where}: {len(unknown)} ID(s) are not graphs of the {catalog.split} split of "
                         f"{catalog.root.label}: {listed}{more}", code="GRAPHS_FILE_UNKNOWN_ID")


def _rows(path: Path) -> list[list[str]]:
    data = read_input(Path(path), MAX_GRAPHS_FILE_BYTES, "graphs file")
    try:
        return list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))
    except (UnicodeDecodeError, csv.Error) as err:
        raise UsageError(f"cannot read {path}: {err}", code="GRAPHS_FILE_INVALID") from None


def _raise(path: Path, faults: list[str]) -> None:
    if faults:
        more = f"\n  … and {len(faults) - 10} more" if len(faults) > 10 else ""
        raise UsageError(f"{path} cannot be used:\n  " + "\n  ".join(faults[:10]) + more, code="GRAPHS_FILE_INVALID")
