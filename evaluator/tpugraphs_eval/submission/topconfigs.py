"""Stage 2b of validation: what exactly is wrong with one TopConfigs field.

Every row first gets the fast check ``scan_indices`` (:mod:`..kernels`, see :mod:`.validation`); only fields
it does not pass as clean come to :func:`diagnose`, which names each problem (SPEC §2) and keeps what
lenient mode may score.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from ..dataset import TILE_TOP_K, Kind
from ..kernels import FLAG_BAD_TOKEN, Scanned
from .problems import preview

_INTEGER = re.compile(r"[0-9]+")
_NEGATIVE = re.compile(r"-[0-9]*[1-9][0-9]*")  # "-0" is not a negative number: NON_INTEGER (no signs)
TILE_MAX_LISTED = 10
"""Strict mode accepts up to 10 distinct tile indices (SPEC §2, amended): the official baseline writes 10; the
Kaggle score uses the first 5, the paper's top-K error the first K (K = 1, 5, 10)."""
_MAX_DIGITS = 18
"""Longer digit runs are not converted (Python refuses int() of > 4300 digits); they are out of range anyway."""
_FLOAT_LIKE = re.compile(r"[+-]?([0-9]+\.[0-9]*|\.[0-9]+|[0-9.]+[eE][+-]?[0-9]+)")


@dataclass
class Diagnosis:
    """The problems of one TopConfigs field and what remains usable.

    Attributes:
        problems: (code, message) pairs, in a fixed order.
        usable: (u,) int64, the distinct valid indices in the order listed (what lenient mode scores).
    """

    problems: list[tuple[str, str]] = field(default_factory=list)
    usable: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))


def _non_integer_message(bad: list[str]) -> str:
    shown = preview([repr(t) for t in bad])
    hints = []
    if any(_INTEGER.fullmatch(t.strip()) for t in bad):
        hints.append("no spaces around entries")
    if any(_FLOAT_LIKE.fullmatch(t.strip()) for t in bad):
        hints.append("write integers: 3, not 3.0 or 3e0")
    if any(t.strip().startswith(("+", "-")) for t in bad):
        hints.append("no sign")
    hint = f" ({'; '.join(hints)})" if hints else ""
    what = "entry is not a non-negative integer" if len(bad) == 1 else "entries are not non-negative integers"
    return f"{len(bad)} {what}: {shown}{hint}."


def _shown(token: str) -> str:
    """A token for a message: long digit runs are abbreviated."""
    return token if len(token) <= 24 else f"{token[:12]}…({len(token)} characters)"


def _plural(n: int, one: str, many: str) -> str:
    return one if n == 1 else many


def _syntax(configs: bytes | memoryview, out: Diagnosis) -> tuple[np.ndarray, list[str], int]:
    """Split a field that has bad tokens: (values of the integer tokens, their texts, token count).

    Integers of more than :data:`_MAX_DIGITS` digits are kept as 10**18: out of range for every graph.
    """
    tokens = bytes(configs).decode("utf-8", errors="replace").split(";")
    empty_at, bad, negative, values, texts = [], [], [], [], []
    for position, token in enumerate(tokens, start=1):
        if not token:
            empty_at.append(position)
        elif _INTEGER.fullmatch(token):
            values.append(int(token) if len(token) <= _MAX_DIGITS else 10**_MAX_DIGITS)
            texts.append(_shown(token))
        elif _NEGATIVE.fullmatch(token):
            negative.append(_shown(token))
        else:
            bad.append(_shown(token))
    if empty_at:
        out.problems.append(("EMPTY_TOKEN", f"empty {_plural(len(empty_at), 'entry', 'entries')} at position "
                             f"{preview(empty_at)} of {len(tokens)} (`1;;2`, or a leading or trailing `;`)."))
    if bad:
        out.problems.append(("NON_INTEGER", _non_integer_message(bad)))
    if negative:
        out.problems.append(("NEGATIVE_INDEX", f"negative {_plural(len(negative), 'index', 'indices')}: "
                             f"{preview(negative)}; configuration indices start at 0."))
    return np.array(values, dtype=np.int64), texts, len(tokens)


def diagnose(configs: bytes | memoryview, kind: Kind, n_configs: int | None,
             scanned: Scanned | None = None) -> Diagnosis:
    """Every problem of a TopConfigs field of a graph with ``n_configs`` configurations (None: ID unknown).

    Args:
        configs: the raw field.
        kind: ``tile`` or ``layout``.
        n_configs: the graph's number of configurations c, or None when the ID is unknown (then only
            the syntax is checked).
        scanned: ``scan_indices(configs, ...)``'s result (:class:`..kernels.Scanned`) when already computed:
            a field without bad tokens is then checked with numpy on its values, whatever its length.

    Problem codes (see :mod:`problems`): EMPTY_CONFIGS, EMPTY_TOKEN, NON_INTEGER, NEGATIVE_INDEX,
    INDEX_OUT_OF_RANGE, DUPLICATE_INDEX, TILE_TOO_MANY, TILE_TOO_FEW, LAYOUT_NOT_PERMUTATION,
    NO_USABLE_CONFIGS.
    """
    out = Diagnosis()
    if scanned is not None and not scanned.flags & FLAG_BAD_TOKEN:
        values, n_tokens = np.frombuffer(scanned.values, dtype=np.int32).astype(np.int64), scanned.n_tokens
        texts = None
    elif not bytes(configs).strip():
        out.problems.append(("EMPTY_CONFIGS", "TopConfigs is empty."))
        return out
    else:
        values, texts, n_tokens = _syntax(configs, out)
    if n_configs is None:
        return out

    too_big = np.flatnonzero(values >= n_configs)
    if too_big.size:
        shown = [texts[i] for i in too_big[:5]] if texts else values[too_big[:5]].tolist()
        out.problems.append(("INDEX_OUT_OF_RANGE", f"{too_big.size} {_plural(too_big.size, 'index', 'indices')} "
                             f">= {n_configs}: {preview(shown + [None] * (too_big.size - len(shown)))}; the graph "
                             f"has {n_configs} configurations (valid indices 0..{n_configs - 1})."))
    in_range = values[values < n_configs]
    distinct, first, counts = np.unique(in_range, return_index=True, return_counts=True)
    repeated = np.flatnonzero(counts > 1)
    if repeated.size:
        shown = [f"{v} (x{n})" for v, n in zip(distinct[repeated][:5].tolist(), counts[repeated][:5].tolist())]
        out.problems.append(("DUPLICATE_INDEX", f"{repeated.size} {_plural(repeated.size, 'index', 'indices')} "
                             f"listed more than once: {preview(shown + [None] * (repeated.size - len(shown)))}."))
    out.usable = in_range[np.sort(first)]  # distinct valid indices, in the order first listed

    if kind == "tile":
        need = min(TILE_TOP_K, n_configs)
        if n_tokens > TILE_MAX_LISTED:
            out.problems.append(("TILE_TOO_MANY", f"{n_tokens} entries; a tile row lists the top {TILE_TOP_K} to "
                                 f"{TILE_MAX_LISTED} (the Kaggle score uses the first {TILE_TOP_K}, the top-K errors "
                                 "the first K)."))
        if 0 < out.usable.size < need:
            out.problems.append(("TILE_TOO_FEW", f"{out.usable.size} distinct valid "
                                 f"{_plural(out.usable.size, 'index', 'indices')}; a tile row lists min(5, c) = "
                                 f"{need} for this graph of {n_configs} configurations."))
    elif 0 < out.usable.size < n_configs:
        missing = np.setdiff1d(np.arange(n_configs), out.usable)
        shown = missing[:5].tolist() + [None] * (missing.size - min(5, missing.size))
        out.problems.append(("LAYOUT_NOT_PERMUTATION", f"lists {out.usable.size} of the graph's {n_configs} "
                             f"configurations (missing: {preview(shown)}); a layout row ranks all of "
                             f"0..{n_configs - 1}."))
    if not out.usable.size:
        out.problems.append(("NO_USABLE_CONFIGS", "no valid configuration index left to score."))
    return out
