"""Atomic file writing: a file is either fully written or not there at all."""

from __future__ import annotations

import os
from pathlib import Path

from tpugraphs_eval.atomicfile import write_atomically

from .errors import KitError


def write_atomic(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (:func:`tpugraphs_eval.atomicfile.write_atomically`: readers see the old
    file or the new one, never part of one). The folder must exist; an existing ``path`` that is not a regular file
    (a folder, a device, a FIFO) is refused, never replaced.

    Raises:
        KitError: ``OUTPUT_WRITE_FAILED`` (a missing folder, permissions, a full disk, the path is a folder or
            a device), the evaluator's code for the same failure.
    """
    path = Path(path).expanduser()
    if not path.parent.is_dir():  # a typo in the folder must not create folders
        raise KitError("OUTPUT_WRITE_FAILED", f"cannot write {path}: the folder {path.parent} does not exist")
    try:
        write_atomically(path, lambda tmp: Path(tmp).write_bytes(data))
    except OSError as err:
        raise KitError("OUTPUT_WRITE_FAILED", f"cannot write {path}: {err.strerror or err}") from None
    return path
