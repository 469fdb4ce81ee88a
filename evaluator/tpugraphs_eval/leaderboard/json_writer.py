"""``leaderboard.json``'s text: the bytes of ``json.dumps(document, indent=1, sort_keys=True, ensure_ascii=False,
allow_nan=False) + "\\n"``, written mostly by the ``json`` module's C encoder.

``json.dumps`` with ``indent`` runs the pure-Python encoder (the C one knows no indentation), one generator step per
value: at 10,000 submissions it was the largest single cost of a warm build (bench/README.md). Here the containers
that hold containers are walked in Python, and every container holding only scalars (and empty containers) is
encoded in one call of the C encoder, its item separator carrying the newline and that depth's indentation: the
same text, since with ``indent`` a container's items are joined by ``",\\n" + indentation`` and the C encoder
writes scalars exactly as the Python one does (``float.__repr__``, ``int.__repr__``, the same string escaping).
"""

from __future__ import annotations

import io
from json.encoder import c_make_encoder, encode_basestring
from typing import Any

_SCALARS = frozenset((str, int, float, bool, type(None)))
_CONTAINERS = (dict, list, tuple)


def _is_flat(values: Any) -> bool:
    """True when no value of ``values`` is a non-empty container (the C encoder can write them in one call)."""
    for value in values:
        if type(value) not in _SCALARS and (not isinstance(value, _CONTAINERS) or value):
            return False
    return True


class _Writer:
    """One indented encoding (1 space per level): the C encoders of each depth, made once."""

    def __init__(self, text: io.StringIO) -> None:
        self._flat: dict[int, Any] = {}
        self.text, self.out = text, []

    def flush(self) -> None:
        """Move the chunks gathered into the text buffer."""
        self.text.write("".join(self.out))
        self.out.clear()

    def _encoder(self, depth: int) -> Any:
        encoder = self._flat.get(depth)
        if encoder is None:
            if c_make_encoder is None:  # pragma: no cover - CPython always has the C accelerator
                raise RuntimeError("the json module's C encoder is not available")
            encoder = c_make_encoder(None, _no_default, encode_basestring, None, ": ", ",\n" + " " * depth, True,
                                     False, False)
            self._flat[depth] = encoder
        return encoder

    def item(self, value: Any, depth: int, out: list[str]) -> None:
        """Append the text of ``value`` at ``depth`` (its closing bracket indented by ``depth`` spaces) to ``out``."""
        kind = type(value)
        if kind is str:
            out.append(encode_basestring(value))
        elif kind in _SCALARS or not value or not isinstance(value, _CONTAINERS):
            out.append("".join(self._encoder(0)([value], 0))[1:-1])  # NaN refused, as allow_nan=False does
        elif isinstance(value, dict):
            if _is_flat(value.values()):
                out.append("{\n" + " " * (depth + 1) + "".join(self._encoder(depth + 1)(value, 0))[1:-1] + "\n"
                           + " " * depth + "}")
                return
            inner = ",\n" + " " * (depth + 1)
            separator = inner[1:]
            out.append("{")
            for key, item in sorted(value.items()):
                if type(key) is not str:
                    raise TypeError(f"keys must be str, not {type(key).__name__}")
                out.append(separator + encode_basestring(key) + ": ")
                separator = inner
                self.item(item, depth + 1, out)
            out.append("\n" + " " * depth + "}")
        else:
            if _is_flat(value):
                out.append("[\n" + " " * (depth + 1) + "".join(self._encoder(depth + 1)(list(value), 0))[1:-1]
                           + "\n" + " " * depth + "]")
                return
            inner = ",\n" + " " * (depth + 1)
            separator = inner[1:]
            out.append("[")
            for item in value:
                out.append(separator)
                separator = inner
                self.item(item, depth + 1, out)
                if len(out) > _FLUSH_EVERY:
                    self.flush()
            out.append("\n" + " " * depth + "]")


def _no_default(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def json_text(document: Any) -> str:
    """``json.dumps(document, indent=1, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\\n"``: the same
    text (module docstring).

    Raises:
        ValueError: a float is NaN or infinite; TypeError: a value JSON cannot hold, or a key that is not a string.
    """
    text = io.StringIO()  # one growing buffer, not a list of every chunk (the build's peak of memory)
    writer = _Writer(text)
    writer.item(document, 0, writer.out)
    writer.out.append("\n")
    writer.flush()
    return text.getvalue()


_FLUSH_EVERY = 4096
"""Chunks gathered before they are moved into the text buffer."""
