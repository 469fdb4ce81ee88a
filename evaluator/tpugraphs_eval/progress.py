"""The one progress-bar factory (rich, on stderr) of the evaluator, the leaderboard and the kit.

Bars are transient (they vanish when done) and never take Jupyter's widget path, so they also show (as
text) in a notebook. Scans of few items draw none.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, TypeVar

from .display import is_terminal

if TYPE_CHECKING:
    from rich.progress import Progress

T = TypeVar("T")

MIN_ITEMS = 200
"""Scans of fewer items than this finish too fast for a bar to help (the default of :func:`track`)."""


def wanted(progress: bool | None) -> bool:
    """``progress`` itself, or (None: automatic) whether stderr is a terminal."""
    return is_terminal(sys.stderr) if progress is None else progress


def progress_bar(label: str, *, transfer: bool = False) -> Progress:
    """A transient rich bar on stderr, not yet started: ``label``, the bar, done/total (with ``transfer``:
    bytes and speed instead), time left. Use it as a context manager, or ``start()`` / ``stop()`` it."""
    from rich import progress as bars
    from rich.console import Console

    counts = (bars.DownloadColumn(), bars.TransferSpeedColumn()) if transfer else (bars.MofNCompleteColumn(),)
    return bars.Progress(bars.TextColumn(label), bars.BarColumn(), *counts, bars.TimeRemainingColumn(),
                         console=Console(stderr=True, force_jupyter=False), transient=True)


def track(items: Iterable[T], total: int, description: str, progress: bool | None, *,
          min_items: int = MIN_ITEMS) -> Iterator[T]:
    """Yield ``items``, drawing a bar that counts them when :func:`wanted` (``progress``: True, False or None =
    automatic) and ``total >= min_items``."""
    if not wanted(progress) or total < min_items:
        yield from items
        return
    with progress_bar("{task.description}") as bar:
        task = bar.add_task(description, total=total)
        for item in items:
            yield item
            bar.advance(task)
