"""Stage 2b of validation: what exactly is wrong with one TopConfigs field.

Every row first gets the fast check ``_native.scan_indices`` (in C, see :mod:`validation`); only fields
it does not pass as clean come to :func:`diagnose`, which names each problem (SPEC §2) and keeps what
lenient mode may score.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from .catalog import TILE_TOP_K, Kind
from .problems import preview

_INTEGER = re.compile(r"[0-9]+")
_NEGATIVE = re.compile(r"-[0-9]*[1-9][0-9]*")  # "-0" is not a negative number: NON_INTEGER (no signs)
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


def _value(token: str) -> int:
    """The integer value of a digit run; runs longer than :data:`_MAX_DIGITS` count as 10**18 (out of range)."""
    return int(token) if len(token) <= _MAX_DIGITS else 10**_MAX_DIGITS


def diagnose(configs: bytes, kind: Kind, n_configs: int | None) -> Diagnosis:
    """Every problem of a TopConfigs field of a graph with ``n_configs`` configurations (None: ID unknown).

    Problem codes (see :mod:`problems`): EMPTY_CONFIGS, EMPTY_TOKEN, NON_INTEGER, NEGATIVE_INDEX,
    INDEX_OUT_OF_RANGE, DUPLICATE_INDEX, TILE_TOO_MANY, TILE_TOO_FEW, LAYOUT_NOT_PERMUTATION,
    NO_USABLE_CONFIGS. With ``n_configs`` None only the syntax is checked.
    """
    out = Diagnosis()
    text = bytes(configs).decode("utf-8", errors="replace")
    if not text.strip():
        out.problems.append(("EMPTY_CONFIGS", "TopConfigs is empty."))
        return out
    tokens = text.split(";")
    empty_at, bad, negative, values, texts = [], [], [], [], {}
    for position, token in enumerate(tokens, start=1):
        if not token:
            empty_at.append(position)
        elif _INTEGER.fullmatch(token):
            values.append(_value(token))
            texts.setdefault(values[-1], _shown(token))
        elif _NEGATIVE.fullmatch(token):
            negative.append(_shown(token))
        else:
            bad.append(_shown(token))
    if empty_at:
        out.problems.append(("EMPTY_TOKEN", f"empty entr{'y' if len(empty_at) == 1 else 'ies'} at position "
                             f"{preview(empty_at)} of {len(tokens)} (`1;;2`, or a leading or trailing `;`)."))
    if bad:
        out.problems.append(("NON_INTEGER", _non_integer_message(bad)))
    if negative:
        out.problems.append(("NEGATIVE_INDEX", f"negative ind{'ex' if len(negative) == 1 else 'ices'}: "
                             f"{preview(negative)}; configuration indices start at 0."))
    if n_configs is None:
        return out

    too_big = [texts[v] for v in values if v >= n_configs]
    if too_big:
        out.problems.append(("INDEX_OUT_OF_RANGE", f"{len(too_big)} ind{'ex' if len(too_big) == 1 else 'ices'} "
                             f">= {n_configs}: {preview(too_big)}; the graph has {n_configs} configurations "
                             f"(valid indices 0..{n_configs - 1})."))
    in_range = [v for v in values if v < n_configs]
    counts = Counter(in_range)
    repeated = [(v, n) for v, n in counts.items() if n > 1]
    if repeated:
        shown = preview([f"{v} (x{n})" for v, n in repeated])
        out.problems.append(("DUPLICATE_INDEX", f"{len(repeated)} ind{'ex' if len(repeated) == 1 else 'ices'} "
                             f"listed more than once: {shown}."))
    usable = list(dict.fromkeys(in_range))
    out.usable = np.array(usable, dtype=np.int64)

    if kind == "tile":
        need = min(TILE_TOP_K, n_configs)
        if len(tokens) > TILE_TOP_K:
            out.problems.append(("TILE_TOO_MANY", f"{len(tokens)} entries; a tile row lists the top "
                                 f"{TILE_TOP_K} (the Kaggle score uses the first {TILE_TOP_K})."))
        if 0 < len(usable) < need:
            out.problems.append(("TILE_TOO_FEW", f"{len(usable)} distinct valid ind{'ex' if len(usable) == 1 else 'ices'}; "
                                 f"a tile row lists min(5, c) = {need} for this graph of {n_configs} configurations."))
    elif 0 < len(usable) < n_configs:
        missing = np.setdiff1d(np.arange(n_configs), out.usable).tolist()
        out.problems.append(("LAYOUT_NOT_PERMUTATION", f"lists {len(usable)} of the graph's {n_configs} "
                             f"configurations (missing: {preview(missing)}); a layout row ranks all of "
                             f"0..{n_configs - 1}."))
    if not usable:
        out.problems.append(("NO_USABLE_CONFIGS", "no valid configuration index left to score."))
    return out
