"""Showing text: submission text made safe (control and invisible characters escaped, long IDs
shortened), and the rich console that command output goes to (not wrapped at 80 columns in a pipe).

A submission is untrusted input: an ID may hold terminal escape sequences (clear the screen, set the
window title) or zero-width characters that make a wrong ID look right. Terminal output passes every
such string through :func:`safe`; the JSON report keeps the text as it was (JSON escapes it).
"""

from __future__ import annotations

import math
import os
import sys
import unicodedata
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from rich.console import Console

MAX_ID_SHOWN = 120
"""IDs longer than this are shortened in messages (real IDs are at most about 100 characters)."""


def finite(value: float | None) -> float | None:
    """The float, or None for None, NaN and ±inf (JSON has no NaN: undefined numbers become null)."""
    return None if value is None or not math.isfinite(value) else float(value)


def number(value: float | None, digits: int = 6, *, sign: bool = False) -> str:
    """``value`` with ``digits`` decimals (a ``+`` before a positive one with ``sign``), or ``—`` when undefined
    (None or NaN)."""
    return "—" if value is None or value != value else f"{value:{'+' if sign else ''}.{digits}f}"


def shorten(text: str, limit: int = MAX_ID_SHOWN) -> str:
    """``text``, or its start and its length when it is longer than ``limit`` characters."""
    return text if len(text) <= limit else f"{text[:limit // 2]}…({len(text)} characters)"


def safe(text: str, *, keep_newline: bool = True) -> str:
    """``text`` with control (but newline, unless ``keep_newline`` is False), format (zero-width) and
    unassigned characters written as ``\\xNN`` / ``\\uNNNN``. Submission text never holds a newline: lines
    are split before; a name (a team's folder, a file) is one line, so it is shown with ``keep_newline=False``."""
    if text.isprintable():
        return text
    kept = " \n" if keep_newline else " "
    return "".join(ch if ch.isprintable() or ch in kept else _escape(ch) for ch in text)


def _escape(ch: str) -> str:
    code = ord(ch)
    if unicodedata.category(ch) == "Zs":  # other spaces (no-break, ideographic): visible enough as a space
        return ch
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


PIPE_WIDTH = 4096
"""Columns of a console that is not a terminal (a pipe, a file): wide, so that no line is wrapped at 80."""


def console(*, stderr: bool = False) -> Console:
    """A rich console for command output (on stderr when asked): a terminal's own width, else
    :data:`PIPE_WIDTH` columns (or ``$COLUMNS`` when set), so piped output keeps every line whole. It never
    takes Jupyter's widget path and adds no syntax highlighting. A closed pipe raises :class:`BrokenPipeError`
    (see :func:`entrypoint.stop_at_closed_pipe`)."""
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            """A closed pipe (``| head``) raises :class:`BrokenPipeError` for the command to handle (rich's
            default exits with 1, which would read as "invalid submission")."""
            self.quiet = True
            raise BrokenPipeError

    out = _Console(stderr=stderr, highlight=False, force_jupyter=False)
    if not out.is_terminal and not os.environ.get("COLUMNS", "").isdigit():
        out.width = PIPE_WIDTH
    return out


class PlainConsole:
    """The part of a rich console that a quiet run (``-q``) uses, for a stream that is not a terminal: lines are
    written as they are, the markup tags of the verdict and of warnings (``[bold red]``, ``[bold green]``,
    ``[yellow]``, ``[/]``) removed, so that a quiet scoring run into a pipe or file never imports rich
    (docs/performance.md, "Imports")."""

    is_terminal = False
    _TAGS = ("[bold red]", "[bold green]", "[yellow]", "[/]")

    def __init__(self, *, stderr: bool = False) -> None:
        self._stderr = stderr

    def print(self, text: str = "") -> None:
        """Write ``text`` and a newline; a closed pipe raises :class:`BrokenPipeError` as rich's console does."""
        for tag in self._TAGS:
            text = text.replace(tag, "")
        (sys.stderr if self._stderr else sys.stdout).write(f"{text}\n")


def quiet_console(*, stderr: bool = False) -> Console | PlainConsole:
    """The console of a ``-q`` run: rich's (:func:`console`, for its colours) in a terminal, else a
    :class:`PlainConsole`."""
    return console(stderr=stderr) if is_terminal(sys.stderr if stderr else sys.stdout) else PlainConsole(stderr=stderr)


def is_terminal(stream: TextIO) -> bool:
    """Whether ``stream`` is a terminal (False for one without a working ``isatty``: closed, replaced)."""
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
