"""``leaderboard.json``'s text (layout: docs/leaderboard.md, "Outputs"): the document's fields and the items of its
lists and objects one per line, indented one space per level as ``json.dumps(..., indent=1)`` indents them; each value
two levels down (a team, a submission) on its line as ``json.dumps(value, sort_keys=True, ensure_ascii=False,
allow_nan=False)`` writes it, by the ``json`` module's C encoder (``indent=`` runs the pure-Python one,
bench/README.md).
"""

from __future__ import annotations

import io
import json
from typing import Any

INDENTED_LEVELS = 2
"""Levels of containers written one item per line (the document, and its lists and objects); deeper ones are
written on one line."""
_FLUSH_EVERY = 4096
"""Chunks gathered before they are moved into the text buffer."""


def json_text(document: Any) -> str:
    """The text of ``leaderboard.json`` holding ``document`` (layout: module docstring), ending in a newline.

    Raises:
        ValueError: a float is NaN or infinite; TypeError: a value JSON cannot hold, or a key that is not a string.
    """
    # no circular check: the document is a tree of plain values
    encode = json.JSONEncoder(sort_keys=True, ensure_ascii=False, allow_nan=False, check_circular=False).encode
    text = io.StringIO()  # one growing buffer, not a list of every chunk (the build's peak of memory)
    out: list[str] = []

    def write(value: Any, depth: int) -> None:
        if depth >= INDENTED_LEVELS or not value or not isinstance(value, (dict, list, tuple)):
            out.append(encode(value))
            return
        inner = ",\n" + " " * (depth + 1)
        separator = inner[1:]
        if isinstance(value, dict):
            pairs = sorted(value.items())
            if not all(type(key) is str for key, _ in pairs):
                raise TypeError("keys must be str")
            out.append("{")
            for key, item in pairs:
                out.append(separator + encode(key) + ": ")
                write(item, depth + 1)
                separator = inner
            out.append("\n" + " " * depth + "}")
        else:
            out.append("[")
            for item in value:
                out.append(separator)
                write(item, depth + 1)
                separator = inner
                if len(out) > _FLUSH_EVERY:
                    text.write("".join(out))
                    out.clear()
            out.append("\n" + " " * depth + "]")

    write(document, 0)
    out.append("\n")
    text.write("".join(out))
    return text.getvalue()
