"""Atomic file writing (a file is either fully written or not there at all), and outputs that are inputs refused."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from tpugraphs_eval.atomicfile import write_atomically
from tpugraphs_eval.commands.outputs import refuse_output_is_input
from tpugraphs_eval.errors import UsageError

from .errors import KitError


def write_atomic(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same folder, then rename it into place.

    The rename is atomic on POSIX file systems: readers see the old file or the new one, and an error
    (disk full, interrupt) leaves no partial file behind. The folder must exist; an existing ``path`` that
    is not a regular file (a folder, a device, a FIFO) is refused, never replaced.

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


def refuse_outputs_over_inputs(outputs: Iterable[tuple[str, str | os.PathLike[str] | None]],
                               inputs: Iterable[str | os.PathLike[str] | None]) -> None:
    """Refuse, before any work, an output that is the same file as an input or as an earlier output.

    ``inputs`` are checked by the evaluator's :func:`tpugraphs_eval.commands.outputs.refuse_output_is_input`
    (same device and inode: another spelling, a link or a hard link counts). Two outputs naming one path (a
    new file, so compared by resolved path, or an existing one, by inode) are refused too: the later one
    (``--json``) would replace the earlier (``-o``), which the command also reads back to score it.

    Args:
        outputs: (option, path) pairs in the order they are written, e.g. ``[("-o", "s.csv"), ("--json", None)]``;
            None and ``-`` are skipped.
        inputs: the files the command reads (submissions, graph files); None is skipped.

    Raises:
        UsageError: ``OUTPUT_IS_INPUT`` naming the option, the output and the input (exit code 2).
    """
    outputs = [(option, out) for option, out in outputs if out is not None and str(out) != "-"]
    refuse_output_is_input(outputs, inputs)
    for i, (option, out) in enumerate(outputs):
        for earlier_option, earlier in outputs[:i]:
            refuse_output_is_input([(option, out)], [earlier])  # an existing file, under another name
            if os.path.realpath(out) == os.path.realpath(earlier):  # a new file: no inode to compare yet
                raise UsageError(f"{option} {out} is the {earlier_option} file {earlier}: it would be overwritten; "
                                 "give another output path", code="OUTPUT_IS_INPUT")
