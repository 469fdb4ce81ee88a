"""Progress bars for the kit (rich), drawn on stderr only when asked or when stderr is a terminal."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import TypeVar

from tpugraphs_eval.progress import track as evaluator_track

T = TypeVar("T")


def wanted(progress: bool | None) -> bool:
    """``progress`` itself, or (None: automatic) whether stderr is a terminal."""
    if progress is None:
        try:
            return sys.stderr.isatty()
        except (AttributeError, ValueError):
            return False
    return progress


def console():
    """A rich console on stderr that never takes the Jupyter display path (no widgets needed)."""
    from rich.console import Console

    return Console(stderr=True, force_jupyter=False)


def track(items: Iterable[T], total: int, description: str, progress: bool | None) -> Iterator[T]:
    """Yield ``items`` while a transient bar counts them (``progress``: True, False or None = automatic)."""
    return evaluator_track(items, total, description, wanted(progress), min_items=1)
