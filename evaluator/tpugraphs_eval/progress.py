"""A rich progress bar on stderr for long scans, silent for short ones and when disabled."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")

MIN_ITEMS = 200
"""Scans of fewer items than this finish too fast for a bar to help."""


def track(items: Iterable[T], total: int, description: str, enabled: bool, *, min_items: int = MIN_ITEMS) -> Iterator[T]:
    """Yield ``items``, drawing a transient progress bar on stderr when ``enabled`` and ``total >= min_items``.

    The console never takes Jupyter's widget path, so the bar also shows (as text) in a notebook.
    """
    if not enabled or total < min_items:
        yield from items
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=Console(stderr=True, force_jupyter=False), transient=True) as bar:
        task = bar.add_task(description, total=total)
        for item in items:
            yield item
            bar.advance(task)
