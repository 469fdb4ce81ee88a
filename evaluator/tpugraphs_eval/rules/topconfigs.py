"""The rules of one TopConfigs field: every problem of its indices, what lenient mode may score, and the mistakes that
get one hint for the whole file (docs/codes.md). A field is configuration indices (0..c-1) joined by ``;``, fastest
first; a tile row lists the top min(5, c) to 10, a layout row all c.

Standard library and numpy, Python >= 3.9: the validator (``submission/topconfigs.py``, after its fast row scan, which
tests/submission/test_fuzz.py holds equal to it) and the exported Kaggle metric judge a field by :func:`check_field`.
"""

from __future__ import annotations

import re

import numpy as np

from .codes import preview

TILE_TOP_K = 5
"""Configs of a tile row that the score uses (Kaggle's K)."""
TILE_MAX_LISTED = 10
"""Strict mode accepts up to 10 distinct tile indices (docs/codes.md): the official baseline writes 10; the Kaggle
score uses the first 5, the paper's top-K error the first K (K = 1, 5, 10)."""
MAX_FIELD_BYTES = 8 << 20
"""TopConfigs fields longer than this are not read (the longest real field, 100k configs, is about 0.6 MB)."""
_INTEGER = re.compile(r"[0-9]+")
_NEGATIVE = re.compile(r"-[0-9]*[1-9][0-9]*")  # "-0" is not a negative number: NON_INTEGER (no signs)
_CLEAN = re.compile(r"[0-9]{1,18}(?:;[0-9]{1,18})*")
_MAX_DIGITS = 18
"""Longer digit runs are not converted (Python refuses int() of > 4300 digits); they are out of range anyway."""
_FLOAT_LIKE = re.compile(r"[+-]?([0-9]+\.[0-9]*|\.[0-9]+|[0-9.]+[eE][+-]?[0-9]+)")
FIELD_MISTAKES = {  # code → the whole field's pattern
    "INDICES_SPACE_SEPARATED": re.compile(r"\s*[0-9]+(?:\s+[0-9]+)+\s*", re.ASCII),
    "INDICES_AS_LIST": re.compile(r"\s*[\[(]\s*[0-9]+(?:\s*,\s*[0-9]+|\s+[0-9]+)*\s*,?\s*[\])]\s*", re.ASCII),
    "INDICES_COMMA_SEPARATED": re.compile(r"\s*[0-9]+(?:\s*,\s*[0-9]+)+\s*", re.ASCII),
}
_FIELD_ADVICE = {
    "INDICES_SPACE_SEPARATED": "indices joined by spaces (`0 1 2`); join them with `;` (`0;1;2`).",
    "INDICES_AS_LIST": "TopConfigs written as a Python or numpy list (`[0, 1, 2]`); write the indices joined by "
                       "`;` (`0;1;2`), e.g. `';'.join(map(str, ranking))`.",
    "INDICES_COMMA_SEPARATED": "indices joined by commas (`\"0,1,2\"`, or unquoted `ID,0,1,2`, where every comma "
                               "also starts a new CSV column); join them with `;` (`0;1;2`), e.g. "
                               "`';'.join(map(str, ranking))`.",
}


def _text(field):
    """A field (bytes, memoryview or str) as text."""
    return field if isinstance(field, str) else bytes(field).decode("utf-8", errors="replace")


def _plural(n, one, many):
    return one if n == 1 else many


def _shown(token):
    """A token for a message: long digit runs are abbreviated."""
    return token if len(token) <= 24 else f"{token[:12]}…({len(token)} characters)"


def too_long(n_chars):
    """The FIELD_TOO_LONG problem ``(code, message)`` of a field of ``n_chars`` characters (> :data:`MAX_FIELD_BYTES`)."""
    return "FIELD_TOO_LONG", f"TopConfigs has {n_chars:,} characters; the limit is {MAX_FIELD_BYTES:,}."


def field_mistake(field):
    """(indices joined by ``;`` as bytes, code) for a field written as ``0 1 2``, ``[0, 1, 2]`` or ``0,1,2`` (a quoted
    field), else None: such a row is read for its indices and the mistake reported once for the file
    (:func:`mistake_problems`)."""
    text = _text(field)
    for code, pattern in FIELD_MISTAKES.items():
        if pattern.fullmatch(text):
            return ";".join(_INTEGER.findall(text)).encode("ascii"), code
    return None


def mistake_problems(lines_by_code):
    """One ``(code, message, first line)`` per field mistake seen (``lines_by_code``: code → lines of its rows)."""
    return [(code, f"{len(lines)} row(s) (line {preview(lines, 3)}): {_FIELD_ADVICE[code]} Their indices are read to "
                   "check the rest.", lines[0]) for code, lines in lines_by_code.items() if lines]


def syntax(field):
    """Split a field into tokens: ``(problems, values, texts, n_tokens)``; problems as (code, message) pairs (EMPTY_TOKEN,
    NON_INTEGER, NEGATIVE_INDEX), values the (v,) int64 integers of the integer tokens and texts their text.

    Integers of more than 18 digits are kept as 10**18: out of range for every graph."""
    tokens = _text(field).split(";")
    problems, empty_at, bad, negative, values, texts = [], [], [], [], [], []
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
        problems.append(("EMPTY_TOKEN", f"empty {_plural(len(empty_at), 'entry', 'entries')} at position "
                         f"{preview(empty_at)} of {len(tokens)} (`1;;2`, or a leading or trailing `;`)."))
    if bad:
        hints = [hint for hint, test in (("no spaces around entries", _INTEGER.fullmatch),
                                         ("write integers: 3, not 3.0 or 3e0", _FLOAT_LIKE.fullmatch),
                                         ("no sign", lambda t: t.startswith(("+", "-"))))
                 if any(test(t.strip()) for t in bad)]
        hint = f" ({'; '.join(hints)})" if hints else ""
        what = "entry is not a non-negative integer" if len(bad) == 1 else "entries are not non-negative integers"
        problems.append(("NON_INTEGER", f"{len(bad)} {what}: {preview([repr(t) for t in bad])}{hint}."))
    if negative:
        problems.append(("NEGATIVE_INDEX", f"negative {_plural(len(negative), 'index', 'indices')}: "
                         f"{preview(negative)}; configuration indices start at 0."))
    return problems, np.array(values, dtype=np.int64), texts, len(tokens)


class Checked:
    """What :func:`check_values` finds in one field of a graph of c configurations.

    Attributes:
        problems: (code, message) pairs, in a fixed order.
        usable: (u,) int64, the distinct valid indices in the order first listed (what lenient mode scores).
        one_past_end: every out-of-range index is c itself (there is one): the row may count from 1
            (:func:`one_based`).
    """

    def __init__(self, problems, usable, one_past_end):
        self.problems = problems
        self.usable = usable
        self.one_past_end = one_past_end


def check_values(values, texts, n_tokens, kind, n_configs):
    """The range, repeat and count rules of a field's integer values ((v,) int64, ``texts`` their text or None) on a
    graph of ``kind`` (``tile`` or ``layout``) with ``n_configs`` configurations: a :class:`Checked`.

    Problem codes: INDEX_OUT_OF_RANGE, DUPLICATE_INDEX, TILE_TOO_MANY, TILE_TOO_FEW, LAYOUT_NOT_PERMUTATION,
    NO_USABLE_CONFIGS."""
    problems = []
    too_big = np.flatnonzero(values >= n_configs)
    if too_big.size:
        shown = [texts[i] for i in too_big[:5]] if texts else values[too_big[:5]].tolist()
        problems.append(("INDEX_OUT_OF_RANGE", f"{too_big.size} {_plural(too_big.size, 'index', 'indices')} "
                         f">= {n_configs}: {preview(shown + [None] * (too_big.size - len(shown)))}; the graph "
                         f"has {n_configs} configurations (valid indices 0..{n_configs - 1})."))
    in_range = values[values < n_configs]
    distinct, first, counts = np.unique(in_range, return_index=True, return_counts=True)
    repeated = np.flatnonzero(counts > 1)
    if repeated.size:
        shown = [f"{v} (x{n})" for v, n in zip(distinct[repeated][:5].tolist(), counts[repeated][:5].tolist())]
        problems.append(("DUPLICATE_INDEX", f"{repeated.size} {_plural(repeated.size, 'index', 'indices')} "
                         f"listed more than once: {preview(shown + [None] * (repeated.size - len(shown)))}."))
    usable = in_range[np.sort(first)]  # distinct valid indices, in the order first listed
    if kind == "tile":
        need = min(TILE_TOP_K, n_configs)
        if n_tokens > TILE_MAX_LISTED:
            problems.append(("TILE_TOO_MANY", f"{n_tokens} entries; a tile row lists the top {TILE_TOP_K} to "
                             f"{TILE_MAX_LISTED} (the Kaggle score uses the first {TILE_TOP_K}, the top-K errors "
                             "the first K)."))
        if 0 < usable.size < need:
            problems.append(("TILE_TOO_FEW", f"{usable.size} distinct valid {_plural(usable.size, 'index', 'indices')}; "
                             f"a tile row lists min(5, c) = {need} for this graph of {n_configs} configurations."))
    elif 0 < usable.size < n_configs:
        missing = np.setdiff1d(np.arange(n_configs), usable)
        shown = missing[:5].tolist() + [None] * (missing.size - min(5, missing.size))
        problems.append(("LAYOUT_NOT_PERMUTATION", f"lists {usable.size} of the graph's {n_configs} "
                         f"configurations (missing: {preview(shown)}); a layout row ranks all of "
                         f"0..{n_configs - 1}."))
    if not usable.size:
        problems.append(("NO_USABLE_CONFIGS", "no valid configuration index left to score."))
    one_past_end = bool(too_big.size) and bool((values[too_big] == n_configs).all())
    return Checked(problems, usable, one_past_end)


def check_field(field, kind, n_configs):
    """Every problem of a TopConfigs field (bytes, memoryview or str) of a graph of ``kind`` with ``n_configs``
    configurations (None: the ID is unknown, only the syntax is checked): a :class:`Checked`.

    Problem codes: FIELD_TOO_LONG, EMPTY_CONFIGS, the codes of :func:`syntax` and of :func:`check_values`.
    """
    empty = np.empty(0, dtype=np.int64)
    if len(field) > MAX_FIELD_BYTES:
        return Checked([too_long(len(field))], empty, False)
    text = _text(field)
    if not text.strip():
        return Checked([("EMPTY_CONFIGS", "TopConfigs is empty.")], empty, False)
    if _CLEAN.fullmatch(text):  # the common case: converted at once (no string per token), not token by token
        problems, values, texts, n_tokens = [], np.fromstring(text, dtype=np.int64, sep=";"), None, text.count(";") + 1
    else:
        problems, values, texts, n_tokens = syntax(text)
    if n_configs is None:
        return Checked(problems, empty, False)
    checked = check_values(values, texts, n_tokens, kind, n_configs)
    checked.problems[:0] = problems
    return checked


ONE_BASED_FOLLOWS = ("INDEX_OUT_OF_RANGE", "TILE_TOO_FEW", "LAYOUT_NOT_PERMUTATION", "NO_USABLE_CONFIGS")
"""The problems of a row that counting from 1 explains: withdrawn when :func:`one_based` finds the file 1-based."""
ONE_BASED_ROWS = 2
"""Rows whose only out-of-range index is c that, with no row listing configuration 0, make a file 1-based (fewer
when the file has fewer rows)."""


def one_based(one_past_end_lines, n_rows, zero_listed):
    """The INDICES_ONE_BASED problem ``(code, message, first line)`` when a file's indices count from 1, else None:
    an error in lenient mode too, since dropping index c and scoring the rest would score every index shifted by one.

    Args:
        one_past_end_lines: the lines of the rows of known graphs whose only out-of-range index is c
            (:attr:`Checked.one_past_end`).
        n_rows: rows of known graphs read.
        zero_listed: whether any row of a known graph lists configuration 0.
    """
    lines = one_past_end_lines
    if zero_listed or not lines or len(lines) < min(ONE_BASED_ROWS, n_rows):
        return None
    return ("INDICES_ONE_BASED", f"no row lists configuration 0 and {len(lines)} row(s) (line {preview(lines, 3)}) "
            "list c, one past the last index of the graph: configuration indices are 0-based (0..c-1). Subtract 1 "
            "from every index.", lines[0])
