"""The CLI's output targets: where a report may be written, and never over one of the command's inputs.

**Decision** (stated in docs/options.md, "Output files"): complete artefacts are written atomically
(:func:`.atomicfile.write_atomically`), a stream (``--json``) may also go to a FIFO or a character device, and
no output may be an input or lie inside the data root's ``npz/`` folder (:func:`refuse_output_is_input`).
"""

from __future__ import annotations

import itertools
import os
import stat
import sys
from collections.abc import Iterable
from pathlib import Path

from .atomicfile import special_kind, write_atomically
from .entrypoint import stop_at_closed_pipe
from .errors import TpuGraphsEvalError, UsageError
from .roots import resolve_data_root
from .safeopen import file_type_in_words

STREAM_KINDS = (file_type_in_words(stat.S_IFCHR), file_type_in_words(stat.S_IFIFO))
"""What :func:`write_stream` writes into in place: a character device, a FIFO (:func:`.atomicfile.special_kind`)."""


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
            path.write_text(text, encoding="utf-8")
        else:
            write_atomically(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
    except OSError as err:
        raise UsageError(f"cannot write {what} to {path}: {err.strerror or err}", code="OUTPUT_WRITE_FAILED") from None


def _same(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them is missing (a new output) or cannot be examined
        return False


def _spelled_alike(a: Path, b: Path) -> bool:
    """The same path, existing or not (``nb`` and ``./nb``), or the same existing file under any name."""
    return os.path.normcase(os.path.abspath(a)) == os.path.normcase(os.path.abspath(b)) or _same(a, b)


def _inside(inner: Path, folder: Path) -> bool:
    return os.path.abspath(folder) in (os.path.abspath(p) for p in inner.parents)


def _file_in_the_way(path: Path, is_folder: bool) -> Path | None:
    """The nearest existing path where ``path``'s folder (``is_folder``: ``path`` itself) must be, if it is
    not a folder: ``afile/x.zip`` → ``afile``; None when that folder exists or will be made."""
    for place in ([path] if is_folder else []) + list(path.parents):
        if place.exists():
            return None if place.is_dir() else place
    return None


def _inside_graphs(out: Path, data_root: str | os.PathLike[str] | None) -> bool:
    """Whether ``out`` (through any link) lies in ``data_root``'s ``npz/`` tree, where every graph file is."""
    if data_root is None:
        return False
    graphs = os.path.realpath(Path(data_root) / "npz")
    return os.path.commonpath([graphs, os.path.realpath(out)]) == graphs


def refuse_output_is_input(outputs: Iterable[tuple[str, str | os.PathLike[str] | None]],
                           inputs: Iterable[str | os.PathLike[str] | None], *, folders: Iterable[str] = (),
                           data_root: str | os.PathLike[str] | None = None) -> None:
    """Refuse, before any work, outputs that collide: an output that is the same file as an input (same device
    and inode, so a link or another spelling of the path counts too): ``--html rv.csv`` must not overwrite the
    submission; two outputs at one path (``-o nb --zip nb``) or one inside another's folder; a file where an
    output's folder must be (``--zip afile/x.zip``, ``--html b3.csv`` when it names a folder of pages).

    Args:
        outputs: (option, path) pairs, e.g. ``("--json", "report.json")``; None and ``-`` are skipped.
        inputs: the submissions, the solution file, ...; None is skipped.
        data_root: the folder holding the command's ``npz/`` graphs (``DataRoot.path``): no output may be
            inside ``npz/`` (a graph of another split would be replaced too, ``-o R/npz/tile/xla/train/x.npz``).
        folders: the options of ``outputs`` whose (first) path is a folder to write (``export codabench -o``,
            ``--html pg/``); that option's later paths are files in it (``--html``'s pages, replaced on a re-run).

    Raises:
        UsageError: ``OUTPUT_IS_INPUT`` naming the option, the output and the input; ``SAME_OUTPUT_TWICE``
            naming both options; ``OUTPUT_WRITE_FAILED`` naming the file that stands where a folder must be.
    """
    inputs = [Path(p) for p in inputs if p is not None]
    outputs = [(option, Path(out)) for option, out in outputs if out is not None and str(out) != "-"]
    folders, options = set(folders), [option for option, _ in outputs]
    is_folder = [o in folders and o not in options[:i] for i, o in enumerate(options)]  # a folder option's first path
    for option, out in outputs:
        for source in inputs:
            if _same(out, source):
                raise UsageError(f"{option} {out} is the input {source}: it would be overwritten; give another "
                                 "output path", code="OUTPUT_IS_INPUT")
        if _inside_graphs(out, data_root):
            raise UsageError(f"{option} {out} is inside the data root's npz/ folder {Path(data_root) / 'npz'}: it "
                             "could overwrite a graph file; give an output path outside it", code="OUTPUT_IS_INPUT")
    for (i, (option, out)), (j, (other_option, other)) in itertools.combinations(enumerate(outputs), 2):
        if option == other_option:  # one option's paths (--html's pages) are told apart where they are made
            continue
        if _spelled_alike(out, other):
            raise UsageError(f"{option} {out} and {other_option} {other} are the same path: one would "
                             "overwrite the other; give two different paths", code="SAME_OUTPUT_TWICE")
        for (o1, p1), (o2, p2, folder2) in (((option, out), (other_option, other, is_folder[j])),
                                            ((other_option, other), (option, out, is_folder[i]))):
            if folder2 and _inside(p1, p2):
                raise UsageError(f"{o1} {p1} is inside the folder {o2} {p2}: give a path outside it",
                                 code="SAME_OUTPUT_TWICE")
    for (option, out), folder in zip(outputs, is_folder, strict=True):
        blocker = _file_in_the_way(out, folder)
        if blocker is not None:
            kind = special_kind(blocker) or "a file"
            raise UsageError(f"cannot write {option} {out}: {blocker} is {kind}, not a folder",
                             code="OUTPUT_WRITE_FAILED")


def graphs_root(args) -> Path | None:
    """The data root folder whose ``npz/`` graphs a command reads (``args.data_root``), for
    :func:`refuse_output_is_input`'s ``data_root``; None with ``--solution`` (no graph is read) or when the
    data root does not resolve (the command reports that itself, with its hint). The root is resolved once per
    command line: it is kept as ``args.resolved_root``, which the scoring options then use
    (:func:`.scoring_options.load_evaluator`)."""
    if getattr(args, "solution", None) is not None:
        return None
    try:
        args.resolved_root = resolve_data_root(args.data_root)
    except TpuGraphsEvalError:
        return None
    return args.resolved_root.path
