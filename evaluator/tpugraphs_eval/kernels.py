"""Which code runs the two hot loops: the C extension, or its numpy fallback (the only place that chooses).

The hot loops are ``scan_indices`` (the fast check of every TopConfigs field, :mod:`.submission.validation`) and
``inversions`` (the discordant pairs behind Kendall's tau, :mod:`.scoring.metrics`). The C extension
``tpugraphs_eval._native`` (``_native.c``) is built at install when a C compiler is there; it is optional
(pyproject.toml), and without it :mod:`kernels_numpy` gives the same results, more slowly (figures in
bench/README.md). Environment variable ``TPUGRAPHS_KERNEL``: ``c`` (the C extension, an error if it was
not built), ``numpy`` (the fallback; ``python`` is the same), or unset/``auto`` (C when built).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from . import kernels_numpy
from .errors import UsageError

try:
    from . import _native
except ImportError:  # not built: no C compiler at install (the build of the optional extension was skipped)
    _native = None

ENV_VAR = "TPUGRAPHS_KERNEL"
CHOICES = {"auto": "auto", "": "auto", "c": "c", "numpy": "numpy", "python": "numpy"}
"""Accepted values of :data:`ENV_VAR` → the kernel chosen."""
FLAG_BAD_TOKEN = kernels_numpy.FLAG_BAD_TOKEN
"""The bit of :attr:`Scanned.flags` both kernels set for an empty, non-digit or over-long token."""


class Scanned(NamedTuple):
    """What ``scan_indices`` returns for one TopConfigs field (both kernels give a plain tuple in this order).

    Attributes:
        values: the tokens as native int32 bytes, (n_tokens,) int32 (-1 for a bad token).
        n_tokens: the number of ``;``-separated tokens.
        flags: 0 for a clean field (plain integers, all in range, none repeated); else bits for a bad token
            (1), an index out of range, a repeat (see :mod:`.kernels_numpy`).
    """

    values: bytes
    n_tokens: int
    flags: int


@dataclass(frozen=True)
class Kernel:
    """One implementation of the hot loops.

    Attributes:
        name: ``c`` or ``numpy``.
        description: one line for people, e.g. ``numpy fallback — the C extension was not built``.
        scan_indices: ``(field, n_configs) -> (int32 values as bytes, token count, flags)``, a plain tuple in
            :class:`Scanned` order (the per-row hot loop unpacks it; no object per row).
        inversions: ``(int32 ranks, int64 lengths, int64 n_values) -> int64 discordant pairs as bytes``.
    """

    name: str
    description: str
    scan_indices: Callable[[bytes | memoryview, int], tuple[bytes, int, int]]
    inversions: Callable[..., bytes]


def select(choice: str) -> Kernel:
    """The kernel for a :data:`ENV_VAR` value (``auto``, ``c``, ``numpy``/``python``).

    Raises:
        UsageError: an unknown choice, or ``c`` when the C extension was not built.
    """
    wanted = CHOICES.get(choice.strip().lower())
    if wanted is None:
        raise UsageError(f"{ENV_VAR} must be one of auto, c, numpy (or python), not {choice!r}")
    if wanted == "c" and _native is None:
        raise UsageError(f"{ENV_VAR}=c, but the C extension tpugraphs_eval._native was not built (no C compiler "
                         "at install?): reinstall with a C compiler, or unset it to use the numpy fallback")
    if wanted == "numpy" or _native is None:
        why = f"{ENV_VAR}={choice}" if wanted == "numpy" else "the C extension was not built"
        return Kernel("numpy", f"numpy fallback — {why}", kernels_numpy.scan_indices, kernels_numpy.inversions)
    return Kernel("c", "C extension", _native.scan_indices, _native.inversions)


_active: Kernel | None = None


def active() -> Kernel:
    """The kernel in use: the one :func:`use` set, else the one :data:`ENV_VAR` asks for (read once).

    Raises:
        UsageError: :data:`ENV_VAR` names no kernel, or ``c`` where the C extension was not built (the
            consoles print it as ``[USAGE_ERROR]`` and exit with 2).
    """
    global _active
    if _active is None:
        _active = select(os.environ.get(ENV_VAR, "auto"))
    return _active


def use(choice: str | Kernel | None) -> Kernel | None:
    """Use the kernel ``choice`` names (or is) from now on; None: the one :data:`ENV_VAR` asks for again.
    Returns the kernel set before (None when there was none), for ``use(previous)`` to restore it. For
    tests and benchmarks.

    Raises:
        UsageError: as :func:`select`.
    """
    global _active
    previous, _active = _active, (select(choice) if isinstance(choice, str) else choice)
    return previous
