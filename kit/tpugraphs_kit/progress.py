"""Progress bars for the kit (rich), drawn on stderr only when asked or when stderr is a terminal."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import TypeVar

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
    if not wanted(progress):
        yield from items
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console(), transient=True) as bar:
        task = bar.add_task(description, total=total)
        for item in items:
            yield item
            bar.advance(task)
