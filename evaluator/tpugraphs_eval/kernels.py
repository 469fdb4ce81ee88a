"""Which code runs the two hot loops: the C extension, or its numpy fallback (the only place that chooses).

The hot loops are ``scan_indices`` (the fast check of every TopConfigs field, :mod:`.submission.validation`) and
``inversions`` (the discordant pairs behind Kendall's tau, :mod:`.scoring.metrics`). The C extension
``tpugraphs_eval._native`` (``_native.c``) is built at install when a C compiler is there; it is optional
(pyproject.toml), and without it :mod:`kernels_numpy` gives the same results, more slowly (figures in
bench/README.md). Environment variable ``TPUGRAPHS_KERNEL``: ``c`` (the C extension, an error if it was
not built), ``numpy`` (the fallback; ``python`` is the same), or unset/``auto`` (C when built).

**Decision: a stale build is never used** (docs/metrics.md, just before "Measurement noise"): a built module
whose ``SOURCE_ID`` is not the :func:`source_id` of the ``_native.c`` beside it is not used (:func:`native_mismatch`).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from . import kernels_numpy
from .errors import UsageError

try:
    from . import _native
except ImportError:  # not built: no C compiler at install (the build of the optional extension was skipped)
    _native = None

NATIVE_SOURCE = Path(__file__).with_name("_native.c")
"""The C source of the extension (present in a source tree and in an installed package)."""
_SOURCE_ID_LINE = re.compile(rb'^#define SOURCE_ID "[0-9a-f]{64}"$', re.MULTILINE)
_ZEROED_LINE = b'#define SOURCE_ID "' + b"0" * 64 + b'"'


def source_id(source: bytes) -> str:
    """The hex sha256 of a ``_native.c`` text with the 64 digits of its ``#define SOURCE_ID`` line zeroed."""
    return hashlib.sha256(_SOURCE_ID_LINE.sub(_ZEROED_LINE, source, count=1)).hexdigest()


def native_mismatch() -> str | None:
    """Why the built C extension must not be used: it was compiled from another ``_native.c`` than the one
    beside it (its ``SOURCE_ID`` differs or is absent). None when it matches, was not built, or no source is
    there to compare with."""
    if _native is None:
        return None
    try:
        source = NATIVE_SOURCE.read_bytes()
    except OSError:
        return None
    if getattr(_native, "SOURCE_ID", None) == source_id(source):
        return None
    return (f"the built C extension {Path(getattr(_native, '__file__', '_native')).name} does not match "
            f"{NATIVE_SOURCE.name} (a stale build): rebuild it (`pip install -e .` with a C compiler) or delete it")


ENV_VAR = "TPUGRAPHS_KERNEL"
CHOICES = {"auto": "auto", "": "auto", "c": "c", "numpy": "numpy", "python": "numpy"}
"""Accepted values of :data:`ENV_VAR` → the kernel chosen."""
FLAG_BAD_TOKEN = kernels_numpy.FLAG_BAD_TOKEN
"""The bit of :attr:`Scanned.flags` both kernels set for an empty, non-digit or over-long token."""


class Scanned(NamedTuple):
    """What ``scan_indices`` returns for one TopConfigs field, in this order: the tokens as packed native int32,
    (n_tokens,) (-1 for a bad token), the token count and the flags, 0 for a clean field
    (:func:`.kernels_numpy.scan_indices` says more)."""

    values: bytes
    n_tokens: int
    flags: int


class Kernel(NamedTuple):
    """One implementation of the hot loops.

    Attributes:
        name: ``c`` or ``numpy``.
        description: one line for people, e.g. ``numpy fallback — the C extension was not built``.
        scan_indices, inversions: the two functions (:mod:`.kernels_numpy` documents them); ``scan_indices``
            gives a plain tuple in :class:`Scanned` order (the per-row hot loop unpacks it; no object per row).
    """

    name: str
    description: str
    scan_indices: Callable[[bytes | memoryview, int], tuple[bytes, int, int]]
    inversions: Callable[..., bytes]


def select(choice: str) -> Kernel:
    """The kernel for a :data:`ENV_VAR` value (``auto``, ``c``, ``numpy``/``python``).

    Raises:
        UsageError: an unknown choice, or ``c`` when the C extension was not built or is stale
            (:func:`native_mismatch`).
    """
    wanted = CHOICES.get(choice.strip().lower())
    if wanted is None:
        raise UsageError(f"{ENV_VAR} must be one of auto, c, numpy (or python), not {choice!r}")
    stale = None if wanted == "numpy" else native_mismatch()
    if wanted == "c" and _native is None:
        raise UsageError(f"{ENV_VAR}=c, but the C extension tpugraphs_eval._native was not built (no C compiler "
                         "at install?): reinstall with a C compiler, or unset it to use the numpy fallback")
    if wanted == "c" and stale:
        raise UsageError(f"{ENV_VAR}=c, but {stale}; or unset it to use the numpy fallback")
    if wanted == "numpy" or _native is None or stale:
        why = f"{ENV_VAR}={choice}" if wanted == "numpy" else stale or "the C extension was not built"
        return Kernel("numpy", f"numpy fallback — {why}", kernels_numpy.scan_indices, kernels_numpy.inversions)
    return Kernel("c", "C extension", _native.scan_indices, _native.inversions)


_active: Kernel | None = None


def active() -> Kernel:
    """The kernel in use: the one :func:`use` set, else the one :data:`ENV_VAR` asks for (read once).

    Raises:
        UsageError: :data:`ENV_VAR` names no kernel, or ``c`` where the C extension was not built or is stale.
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
