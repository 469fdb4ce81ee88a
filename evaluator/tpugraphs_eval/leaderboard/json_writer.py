"""``leaderboard.json``'s text: its top two levels indented, everything deeper on one line (docs/leaderboard.md,
"Outputs").

Layout (since issue 17 item 4; before, ``json.dumps(document, indent=1, ...)`` indented every level): keys sorted,
UTF-8 (no ``\\u`` escapes but for control characters), no NaN or infinity. The document's own fields, and the items of
each of its lists and objects (a team, a submission, an ignored entry, a field of ``solution``), are one per line,
indented one space per level as ``json.dumps(..., indent=1)`` indents them; each value two levels down (a team, a
submission, a collection's graph counts) is written on its line as ``json.dumps(value, sort_keys=True,
ensure_ascii=False, allow_nan=False)`` writes it (separators ``", "`` and ``": "``). So a changed submission is one
changed line, and the text is made by the ``json`` module's C encoder (``indent=`` runs the pure-Python one: at
10,000 submissions it was the largest single cost of a warm build, bench/README.md).
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


def _compact_encoder() -> json.JSONEncoder:
    """``json.dumps(value, sort_keys=True, ensure_ascii=False, allow_nan=False)`` as one reusable encoder (its
    ``encode`` runs the C encoder; no circular check: the document is a tree of plain values)."""
    return json.JSONEncoder(sort_keys=True, ensure_ascii=False, allow_nan=False, check_circular=False)


def json_text(document: Any) -> str:
    """The text of ``leaderboard.json`` holding ``document`` (layout: module docstring), ending in a newline.

    Raises:
        ValueError: a float is NaN or infinite; TypeError: a value JSON cannot hold, or a key that is not a string.
    """
    encode = _compact_encoder().encode
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
