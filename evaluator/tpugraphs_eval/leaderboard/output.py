"""Write the leaderboard's files as one set, replaced all together, by one build at a time.

Layout of the output folder ``OUT`` (why and what a reader may rely on: docs/leaderboard.md, "Outputs")::

    OUT/.lock                      the lock a build holds (fcntl.flock, never removed)
    OUT/generations/<id>/          one complete set: leaderboard.{csv,md,json,html}; <id>: :func:`generation_id`
    OUT/current -> generations/<id>   the one pointer: a symbolic link, replaced atomically (os.replace)
    OUT/leaderboard.json -> current/leaderboard.json   (and the three others): fixed links

A generation is written completely (flushed to disk) into a hidden staging folder ``generations/.staging-*``, renamed
to its id, and only then is ``current`` switched: readers see the previous set or the new one, never a mix. Output
file names are fixed: nothing from a submission ever becomes part of a path.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..atomicfile import fsync_folder, symlink_atomically, write_atomically
from ..errors import UsageError
from .codes import BuildLocked
from .json_writer import json_text
from .render_html import render_html
from .render_text import render_csv, render_markdown

OUTPUT_FILES = ("leaderboard.csv", "leaderboard.md", "leaderboard.json", "leaderboard.html")
GENERATIONS = "generations"
CURRENT = "current"
LOCK_FILE = ".lock"
STAGING_PREFIX = ".staging-"


class OutputNotAFolder(UsageError):
    """The output path is an existing file or link, or lies under a file (exit code 2, ``OUTPUT_NOT_A_FOLDER``)."""

    code = "OUTPUT_NOT_A_FOLDER"


def check_output_folder(out: Path) -> None:
    """Refuse an output path that cannot be a folder: it, or a folder above it, exists and is not a folder
    (a link to a folder is a folder).

    Raises:
        OutputNotAFolder: naming the path that is not a folder.
    """
    out = Path(out)
    for path in (out, *out.parents):
        if os.path.lexists(path) and not path.is_dir():
            what = ("a file" if not path.is_symlink() else "a link to a file" if path.exists()
                    else "a link that leads nowhere")
            where = "" if path == out else f" (the output {out} would be under it)"
            hint = f" (here -o {out.parent})" if path == out and out.name in OUTPUT_FILES else ""
            raise OutputNotAFolder(f"the output must be a folder, and {path} is {what}{where}: -o names the "
                                   f"leaderboard's folder{hint}, its files are written into it. Nothing was written.")


@contextlib.contextmanager
def build_lock(out: Path) -> Iterator[None]:
    """Hold ``out/.lock`` (created, with ``out``, when missing) for the body; never waits.

    Raises:
        BuildLocked: another process (or another open of the lock in this one) holds it.
        OutputNotAFolder: ``out`` is a file or link, or lies under one.
        UsageError: ``out`` or its lock file cannot be created or opened (code ``OUTPUT_WRITE_FAILED``).
    """
    out = Path(out)
    check_output_folder(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
        fd = os.open(out / LOCK_FILE, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o644)
    except OSError as err:
        raise UsageError(f"cannot create the lock file {out / LOCK_FILE}: {err.strerror or err}", code="OUTPUT_WRITE_FAILED") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise BuildLocked(f"another build is writing into {out} (it holds {out / LOCK_FILE}); "
                              "wait for it to finish, or write elsewhere. Nothing was written.") from None
        yield
    finally:
        os.close(fd)  # releases the lock


def render_all(document: dict[str, Any]) -> dict[str, str]:
    """File name → text of every output."""
    return {"leaderboard.csv": render_csv(document), "leaderboard.md": render_markdown(document),
            "leaderboard.json": json_text(document), "leaderboard.html": render_html(document)}


_BLOCK = 1 << 18
"""Characters of a text encoded at once when it is hashed or written (never a whole file's bytes at once)."""


def _blocks(content: str | bytes) -> Iterator[bytes]:
    """A file's bytes in blocks: text encoded as UTF-8 :data:`_BLOCK` characters at a time (the same bytes as the
    whole text's encoding), so that no copy of a whole output is made."""
    if isinstance(content, bytes):
        yield content
        return
    for start in range(0, len(content), _BLOCK):
        yield content[start:start + _BLOCK].encode("utf-8")


def _sha256(content: str | bytes) -> hashlib._Hash:
    digest = hashlib.sha256()
    for block in _blocks(content):
        digest.update(block)
    return digest


def generation_id(files: dict[str, str | bytes]) -> str:
    """The first 16 hex digits of the sha256 over every (name, bytes) of ``files`` (text: its UTF-8 bytes), in
    name order."""
    digest = hashlib.sha256()
    for name in sorted(files):
        digest.update(hashlib.sha256(name.encode()).digest() + _sha256(files[name]).digest())
    return digest.hexdigest()[:16]


def _same(folder: Path, files: dict[str, str | bytes]) -> bool:
    """True when ``folder`` holds exactly ``files``, byte for byte (compared by sha256, read in blocks)."""
    try:
        if sorted(os.listdir(folder)) != sorted(files):
            return False
        for name, content in files.items():
            with open(folder / name, "rb") as handle:
                if hashlib.file_digest(handle, "sha256").digest() != _sha256(content).digest():
                    return False
        return True
    except OSError:
        return False


def _write(path: str, content: str | bytes) -> None:
    with open(path, "wb") as handle:
        handle.writelines(_blocks(content))


def _write_generation(generations: Path, files: dict[str, str | bytes]) -> str:
    """Write ``files`` as a complete generation folder; returns its id (an existing identical one is reused)."""
    for stale in generations.glob(f"{STAGING_PREFIX}*"):
        if stale.is_dir() and not stale.is_symlink():
            shutil.rmtree(stale, ignore_errors=True)
    gid = generation_id(files)
    target = generations / gid
    if _same(target, files):
        return gid
    staging = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=generations))
    try:
        for name, data in files.items():  # each flushed to disk, mode 0o644 whatever the umask (a published folder)
            write_atomically(staging / name, lambda tmp, data=data: _write(tmp, data), mode=0o644)
        os.chmod(staging, 0o755)
        fsync_folder(staging)
        if target.exists() or target.is_symlink():  # an altered copy: move it aside, removed below
            os.replace(target, Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=generations)))
        os.replace(staging, target)
        fsync_folder(generations)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return gid


def write_outputs(out: Path, files: dict[str, str], *, keep_previous: bool = True) -> str:
    """Write ``files`` (name → text) into ``out`` as a new generation, switch ``current`` to it (module docstring)
    and return its id; the caller holds :func:`build_lock`. Older generations are removed, but with
    ``keep_previous`` the one that was current (False for a public leaderboard: the folder is published, and the
    set it replaces may be an organiser's, with private scores).

    Raises:
        UsageError: code ``OUTPUT_WRITE_FAILED``: ``out`` cannot be created or written, or ``out/current`` or
            ``out/generations`` is not what this module writes there (a folder, a file); the previous set is
            then unchanged.
    """
    out = Path(out)
    generations, current = out / GENERATIONS, out / CURRENT
    try:
        out.mkdir(parents=True, exist_ok=True)
        if generations.is_symlink() or (current.exists() and not current.is_symlink()):
            raise UsageError(f"{out} holds a {CURRENT} or {GENERATIONS} this build did not write (a link "
                             f"{GENERATIONS}, a real {CURRENT}); remove it or write elsewhere", code="OUTPUT_WRITE_FAILED")
        generations.mkdir(exist_ok=True)
        previous = os.readlink(current) if current.is_symlink() else None
        gid = _write_generation(generations, files)
        try:
            symlink_atomically(f"{GENERATIONS}/{gid}", current)  # the switch
        except BaseException:  # not switched: the new generation goes, the previous set stays as it was
            if previous is None or Path(previous).name != gid:
                shutil.rmtree(generations / gid, ignore_errors=True)
            raise
        fsync_folder(out)
        for name in files:
            symlink_atomically(f"{CURRENT}/{name}", out / name)
        unchanged = previous is not None and Path(previous).name == gid  # keeps the one it replaced earlier
        keep = {gid, Path(previous).name} if previous and keep_previous else {gid}
        for old in generations.iterdir():
            if old.name not in keep and (not unchanged or not keep_previous) and old.is_dir() and not old.is_symlink():
                shutil.rmtree(old, ignore_errors=True)
    except OSError as err:
        raise UsageError(f"cannot write the leaderboard to {out}: {err.strerror or err}", code="OUTPUT_WRITE_FAILED") from None
    return gid


def prune_generations(out: Path) -> None:
    """Remove every generation of ``out`` but the current one (for a folder kept in git: the demo's)."""
    generations = Path(out) / GENERATIONS
    gid = Path(os.readlink(Path(out) / CURRENT)).name
    for old in generations.iterdir():
        if old.name != gid and old.is_dir() and not old.is_symlink():
            shutil.rmtree(old)
