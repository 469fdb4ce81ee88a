"""One error for every unusable file or graph of a split: the faults the ground-truth readers collect (the
``.npz`` reader :mod:`.npzread`, the solution writer :mod:`.solution`) and raise together, each with its own
code, so that a user sees every problem of a data root in one run."""

from __future__ import annotations

from ..errors import DataError

MAX_LISTED = 10
"""Faults listed in the message; the rest are counted."""

Fault = tuple[str, str]
"""One unusable file or graph: (a code of :data:`errors.ERROR_CODES`, a message naming the file or ID)."""


def raise_faults(what: str, faults: list[Fault]) -> None:
    """Raise one :class:`DataError` listing up to 10 faults (and counting the rest), if there are any.

    Each listed line starts with its own ``[CODE]``; the error's code is the first fault's.
    """
    if faults:
        listed = "\n  ".join(f"[{code}] {text}" for code, text in faults[:MAX_LISTED])
        more = f"\n  … and {len(faults) - MAX_LISTED} more" if len(faults) > MAX_LISTED else ""
        raise DataError(f"{what}:\n  {listed}{more}", code=faults[0][0])
