"""The CLI's output targets: where a report may be written, and never over one of the command's inputs.

**Decision** (docs/options.md, "Output files"): a file that must be a complete artefact (a solution file, an
HTML page, an exported file, a bundle) is written atomically and refuses an existing target that is not a
regular file (:func:`..atomicfile.refuse_special`). A stream (``--json``) may also go to a FIFO or a
character device (``/dev/stdout``, a pipe), written in place; a full device then fails with
``OUTPUT_WRITE_FAILED`` like a full disk. No output may be the same file as an input (``OUTPUT_IS_INPUT``).
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterable
from pathlib import Path

from ..atomicfile import special_kind, write_atomically
from ..errors import UsageError
from ..safeopen import file_type_in_words
from .entrypoint import stop_at_closed_pipe

STREAM_KINDS = (file_type_in_words(stat.S_IFCHR), file_type_in_words(stat.S_IFIFO))
"""What :func:`write_stream` writes into in place: a character device, a FIFO (:func:`..atomicfile.special_kind`)."""


def write_stream(target: str, text: str, what: str) -> None:
    """Write ``text`` (``what``: e.g. "the JSON report") to ``target``: ``-`` is stdout; a FIFO, a character
    device or a link to a regular file is written in place (never replaced); a regular file or a new path
    is replaced atomically; a folder or a socket is refused.

    Raises:
        UsageError: ``OUTPUT_WRITE_FAILED`` naming ``target`` (a full device, an unwritable folder, ...).
    """
    if target == "-":
        with stop_at_closed_pipe():  # `--json - | head`: the exit code stands
            sys.stdout.write(text)
        return
    path = Path(target)
    try:
        if special_kind(path) in STREAM_KINDS or (path.is_symlink() and path.is_file()):
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text)
            return
        write_atomically(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
    except OSError as err:
        raise UsageError(f"cannot write {what} to {path}: {err.strerror or err}",
                         code="OUTPUT_WRITE_FAILED") from None


def _same(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them is missing (a new output) or cannot be examined
        return False


def refuse_output_is_input(outputs: Iterable[tuple[str, str | os.PathLike[str] | None]],
                           inputs: Iterable[str | os.PathLike[str] | None]) -> None:
    """Refuse, before any work, an output that is the same file as an input (same device and inode, so a
    link or another spelling of the path counts too): ``--html rv.csv`` must not overwrite the submission.

    Args:
        outputs: (option, path) pairs, e.g. ``("--json", "report.json")``; None and ``-`` are skipped.
        inputs: the submissions, the solution file, ...; None is skipped.

    Raises:
        UsageError: ``OUTPUT_IS_INPUT`` naming the option, the output and the input.
    """
    inputs = [Path(p) for p in inputs if p is not None]
    for option, out in outputs:
        if out is None or str(out) == "-":
            continue
        for source in inputs:
            if _same(Path(out), source):
                raise UsageError(f"{option} {out} is the input {source}: it would be overwritten; give another "
                                 "output path", code="OUTPUT_IS_INPUT")
