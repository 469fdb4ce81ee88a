"""Safe extraction of an official TpuGraphs tar archive into a data root.

The official archives are plain, uncompressed tar files holding only folders and regular ``.npz`` files under
``npz/``, so anything else is refused rather than interpreted, and the whole archive with it (:func:`check_archive`
lists the refusals and their codes; docs/kit.md, "The real-data download"). Links of any kind are refused whatever
their target: links chained across members, such as ``npz/e -> d/..`` then ``npz/d -> ..``, are how an archive
escapes lexical checks. Confining members to ``npz/`` keeps them out of the downloader's ``.downloads/`` folder.
Limits are checked as each header is read, so a tar bomb stops at its first header over a limit, before any data
is read or written.

Flow: every header is checked first; the files are written into a new staging folder ``<dest>/.extract-*``, and
renamed into place under ``dest`` only when all are written and no folder on their way is a link or a file. Below
``dest`` (which may itself be a link: a data root on another disk) nothing is followed through a link: folders are
opened with ``O_NOFOLLOW`` relative to their parent's descriptor, files created with ``O_EXCL | O_NOFOLLOW``. A
refused or failed archive leaves ``dest`` as it was (only an I/O error during the final renames could leave part
of an archive moved).

These checks are our own, not ``tarfile``'s ``filter="data"`` (which allows links inside the destination); they
need ``dir_fd`` support in :mod:`os` (Linux, macOS; elsewhere ``UNSUPPORTED_PLATFORM``).
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import tarfile
import tempfile
from contextlib import closing
from io import FileIO
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from tpugraphs_eval.safeopen import file_type_in_words

from .errors import DownloadError

MAX_BYTES = 256 * 2**30
"""Default cap on the bytes of an archive's files (256 GiB): the largest official tar is tens of GB."""
MAX_MEMBERS = 200_000
"""Default cap on an archive's members: the official tile train tar, the largest, holds a few thousand."""
TOP = "npz"
"""The one top-level folder of the official archives; members elsewhere are refused."""
MAX_HEADER_BYTES = 1 << 20
"""Cap on one pax extended header or GNU long-name / long-link header (1 MiB): ``tarfile`` would read it whole
into memory; such a header in the official archives, where there is one, holds a few hundred bytes."""

_CHUNK = 1 << 20
_END_OF_ARCHIVE = 2 * tarfile.BLOCKSIZE
_SHOWN = 10


_LONG_HEADERS = {tarfile.XHDTYPE: "pax extended header", tarfile.XGLTYPE: "pax global header",
                 tarfile.SOLARIS_XHDTYPE: "pax extended header", tarfile.GNUTYPE_LONGNAME: "GNU long-name header",
                 tarfile.GNUTYPE_LONGLINK: "GNU long-link header"}
"""Header types whose data ``tarfile`` reads whole into memory to describe the next member, and their names."""


class _BoundedTarInfo(tarfile.TarInfo):
    """``tarfile``'s member reader, with a look at each 512-byte header block first: a pax or GNU long-name
    header that declares more than :data:`MAX_HEADER_BYTES` is refused before ``tarfile`` reads it, and so is a
    GNU sparse file, whose chain of extension blocks ``tarfile`` would read to its end (and, cut short, fail with
    an ``IndexError``). Pass it as ``tarfile.open(..., tarinfo=_BoundedTarInfo)`` on a seekable file; every header
    chained before one member (pax, then GNU long name, ...) passes through :meth:`fromtarfile`.
    """

    @classmethod
    def fromtarfile(cls, tar: tarfile.TarFile) -> tarfile.TarInfo:
        """The next member (:meth:`tarfile.TarInfo.fromtarfile`), after the checks of the class doc: raises
        ``ARCHIVE_TOO_LARGE`` (a long header) or ``UNSAFE_ARCHIVE`` (a sparse file), naming it and its offset."""
        start = tar.fileobj.tell()
        header = cls.frombuf(tar.fileobj.read(tarfile.BLOCKSIZE), tar.encoding, tar.errors)
        if header.type == tarfile.GNUTYPE_SPARSE:  # tarfile would read its extension blocks, as many as it chains
            raise DownloadError("UNSAFE_ARCHIVE", f"{tar.name}: refused, nothing extracted: {header.name!r} at byte "
                                                  f"{start} is a sparse file (the official archives hold only folders "
                                                  f"and regular files under {TOP}/)")
        kind = _LONG_HEADERS.get(header.type)
        if kind is not None and header.size > MAX_HEADER_BYTES:
            raise DownloadError("ARCHIVE_TOO_LARGE", f"{tar.name}: refused, nothing extracted: the {kind} "
                                                     f"{header.name!r} at byte {start} declares {header.size:,} "
                                                     f"bytes, more than the limit of {MAX_HEADER_BYTES:,} (such a "
                                                     "header names one member: a few hundred bytes)")
        tar.fileobj.seek(start)
        return super().fromtarfile(tar)


def _member_problem(member: tarfile.TarInfo) -> str | None:
    """Why ``member``'s type is refused, or None for a regular file or a folder."""
    if member.issym() or member.islnk():
        return f"is a {'symbolic' if member.issym() else 'hard'} link (to {member.linkname!r})"
    if member.ischr() or member.isblk():
        return "is a device file"
    if member.isfifo():
        return "is a FIFO"
    if member.issparse():
        return "is a sparse file"
    if not (member.isreg() or member.isdir()):
        return f"has an unsupported type {member.type!r}"
    return None


def _name_problem(name: str) -> tuple[PurePosixPath | None, str | None]:
    """(cleaned relative name, None), or (None, why the name is refused)."""
    if not name or name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        return None, "has an absolute path"
    if "\\" in name:
        return None, "has a backslash in its name"
    parts = [p for p in PurePosixPath(name).parts if p not in ("", ".")]
    if ".." in parts:
        return None, "has a '..' component"
    if not parts:
        return None, "has an empty name"
    if parts[0] != TOP:
        return None, f"is outside {TOP}/"
    return PurePosixPath(*parts), None


def _outside(checked: list[tuple[tarfile.TarInfo, PurePosixPath]], folder: PurePosixPath) -> list[str]:
    """The members of ``checked`` outside ``folder``: a file not below it, a folder neither below it nor on the
    way to it."""
    on_the_way = {folder, *folder.parents}
    return [member.name for member, name in checked
            if not (name.is_relative_to(folder) and name != folder or member.isdir() and name in on_the_way)]


def check_archive(tar: tarfile.TarFile, archive: Path, *, max_bytes: int = MAX_BYTES,
                  max_members: int = MAX_MEMBERS,
                  folder: PurePosixPath | None = None) -> list[tuple[tarfile.TarInfo, PurePosixPath]]:
    """Read every header of ``tar`` (opened ``r:`` from ``archive``, with ``tarinfo=_BoundedTarInfo`` so that no
    pax or GNU long-name header over :data:`MAX_HEADER_BYTES` is read) and return its members with clean names.

    Members come in archive order; folders may be implied (a file ``npz/a/b.npz`` needs no ``npz/a``
    member); a leading ``./`` is dropped from names, and a ``./`` folder member (the destination itself)
    is skipped. With ``folder`` (relative to the destination, under ``npz/``), every member must lie below it,
    or be a folder on the way to it.

    Raises:
        DownloadError: ``ARCHIVE_TOO_LARGE`` (more than ``max_members`` members or more than ``max_bytes``
            bytes of files: raised at the first header over the limit), ``UNSAFE_ARCHIVE`` (a link, device, FIFO,
            sparse file or other type; an absolute name, a ``..``, a backslash, a name outside ``npz/``, a file
            twice, a name both a file and a folder: every refused member is listed, up to 10),
            ``ARCHIVE_OUTSIDE_ITS_FOLDER`` (members outside ``folder``, up to 10 listed), ``TRUNCATED_ARCHIVE`` (no
            end-of-archive marker where the last header says the archive ends), ``BAD_ARCHIVE`` (no file at all).
    """
    checked: list[tuple[tarfile.TarInfo, PurePosixPath]] = []
    problems: list[str] = []
    files: set[PurePosixPath] = set()
    folders: set[PurePosixPath] = set()
    total = 0
    for count, member in enumerate(tar, 1):
        if count > max_members:
            raise DownloadError("ARCHIVE_TOO_LARGE", f"{archive}: refused, nothing extracted: more than "
                                                     f"{max_members} members (the limit; the official archives "
                                                     "hold a few thousand)")
        if member.isreg():
            total += member.size
            if total > max_bytes:
                raise DownloadError("ARCHIVE_TOO_LARGE", f"{archive}: refused, nothing extracted: its files hold "
                                                         f"more than {max_bytes} bytes (the limit; reached at member "
                                                         f"{member.name!r})")
        name, why = _name_problem(member.name)
        if why == "has an empty name" and member.isdir():
            continue  # ``./``: the destination folder itself, nothing to create
        why = why or _member_problem(member) or _place(member, name, files, folders)
        if why is not None:
            problems.append(f"{member.name!r} {why}")
        else:
            checked.append((member, name))
    if problems:
        raise DownloadError("UNSAFE_ARCHIVE", f"{archive}: refused, nothing extracted ({len(problems)} refused "
                                              f"member(s); the official archives hold only folders and regular "
                                              f"files under {TOP}/): {_listed(problems)}")
    if folder is not None and (outside := _outside(checked, folder)):
        raise DownloadError("ARCHIVE_OUTSIDE_ITS_FOLDER", f"{archive}: refused, nothing extracted: this archive may "
                                                          f"write only under {folder}/ (its name says which "
                                                          f"collection and split it holds), but {len(outside)} "
                                                          f"member(s) lie elsewhere: {_listed(list(map(repr, outside)))}")
    tar.fileobj.seek(tar.offset)  # the file the headers were read from: the path is not opened again
    if tar.fileobj.read(_END_OF_ARCHIVE) != bytes(_END_OF_ARCHIVE):
        raise DownloadError("TRUNCATED_ARCHIVE", f"{archive}: no end-of-archive marker at byte {tar.offset} (the "
                                                 "file is truncated or corrupt); nothing extracted")
    if not files:
        raise DownloadError("BAD_ARCHIVE", f"{archive} holds no file under {TOP}/; nothing extracted")
    return checked


def _place(member: tarfile.TarInfo, name: PurePosixPath, files: set[PurePosixPath],
           folders: set[PurePosixPath]) -> str | None:
    """Add a member's clean ``name`` to the ``files`` or ``folders`` seen so far (its parents to the folders); why it
    is refused (a name twice, both a file and a folder, below a file), or None."""
    parents = set(name.parents) - {PurePosixPath(".")}
    folders |= parents
    if name in files:
        return "is both a file and a folder" if member.isdir() else "appears twice"
    if member.isdir():
        folders.add(name)
    elif name in folders:
        return "is both a file and a folder"
    else:
        files.add(name)
    return "is inside a path that is also a file" if parents & files else None


def _listed(items: list[str]) -> str:
    """The first :data:`_SHOWN` items joined by ``; ``, then how many more."""
    listed = "; ".join(items[:_SHOWN])
    return listed + (f"; and {len(items) - _SHOWN} more" if len(items) > _SHOWN else "")


class _Tree:
    """Folders below one root folder, opened relative to their parent with ``O_NOFOLLOW`` (never via a link)."""

    def __init__(self, root: str) -> None:
        self.root = root
        self._fds = {(): os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)}

    def folder(self, parts: tuple[str, ...], create: bool) -> int | None:
        """The descriptor of folder ``root/parts`` (None if missing and not ``create``).

        Raises:
            DownloadError: ``UNSAFE_TARGET`` (a component is a link or not a folder).
        """
        if parts in self._fds:
            return self._fds[parts]
        parent = self.folder(parts[:-1], create)
        if parent is None:
            return None
        flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
        try:
            fd = os.open(parts[-1], flags, dir_fd=parent)
        except FileNotFoundError:
            if not create:
                return None
            os.mkdir(parts[-1], 0o755, dir_fd=parent)
            fd = os.open(parts[-1], flags, dir_fd=parent)
        except OSError as err:
            if err.errno in (errno.ELOOP, errno.ENOTDIR):  # O_NOFOLLOW met a link, or a file is in the way
                raise DownloadError("UNSAFE_TARGET", f"{os.path.join(self.root, *parts)} is a link or a file, not a "
                                                     "folder: the kit never writes through links; move it away and "
                                                     "run again (nothing was installed)") from None
            raise
        self._fds[parts] = fd
        return fd

    def close(self) -> None:
        for fd in self._fds.values():
            os.close(fd)


def _write_file(tar: tarfile.TarFile, member: tarfile.TarInfo, name: PurePosixPath, staging: _Tree) -> None:
    parent = staging.folder(name.parent.parts, create=True)
    fd = os.open(name.name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644, dir_fd=parent)
    with os.fdopen(fd, "wb") as out, tar.extractfile(member) as data:
        shutil.copyfileobj(data, out, _CHUNK)


def _move_into_place(checked: list[tuple[tarfile.TarInfo, PurePosixPath]], staging: _Tree, dest: _Tree) -> list[Path]:
    """Rename each staged file to its place under ``dest``: folders merge with existing ones; a link where a file
    goes is replaced, never followed. Checked before anything moves: every folder on the way is a real folder (or
    missing), no file lands on a folder (``UNSAFE_TARGET``)."""
    for member, name in checked:
        parent = dest.folder(name.parts if member.isdir() else name.parent.parts, create=False)
        if parent is not None and not member.isdir():
            try:
                mode = os.stat(name.name, dir_fd=parent, follow_symlinks=False).st_mode
            except FileNotFoundError:
                continue
            if stat.S_ISDIR(mode):
                raise DownloadError("UNSAFE_TARGET", f"{os.path.join(dest.root, *name.parts)} is a folder, the archive "
                                                     "holds a file there: move it away and run again (nothing was "
                                                     "installed)")
    placed = []
    for member, name in checked:
        if member.isdir():
            dest.folder(name.parts, create=True)
            continue
        os.replace(name.name, name.name, src_dir_fd=staging.folder(name.parent.parts, create=False),
                   dst_dir_fd=dest.folder(name.parent.parts, create=True))
        placed.append(Path(dest.root, *name.parts))
    return placed


def _open_archive(archive: Path) -> BinaryIO:
    """``archive`` for reading, only when it is a regular file (``BAD_ARCHIVE`` otherwise, naming what it is, or
    when unreadable): opened without following a link and without blocking (a FIFO would block an ordinary open),
    then checked with ``fstat``."""
    try:
        fd = os.open(archive, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as err:
        raise DownloadError("BAD_ARCHIVE", f"{archive}: cannot be read: {err.strerror or err}") from None
    kind = file_type_in_words(os.fstat(fd).st_mode)
    if kind is not None:
        os.close(fd)
        raise DownloadError("BAD_ARCHIVE", f"{archive} is {kind}, not a regular file; nothing extracted")
    os.set_blocking(fd, True)
    return FileIO(fd, "rb")  # unbuffered: tarfile's reads reach the file as asked


def safe_extract(archive: str | os.PathLike[str], dest: str | os.PathLike[str], *, max_bytes: int = MAX_BYTES,
                 max_members: int = MAX_MEMBERS, folder: PurePosixPath | None = None) -> list[Path]:
    """Extract the official tar ``archive`` under ``dest`` after checking every member; returns the files placed.

    ``dest`` (the data root) is created if missing; the files land at ``dest/npz/...``; with ``folder`` (e.g.
    ``npz/tile/xla/valid``) only below that folder (:func:`check_archive`).

    Raises:
        DownloadError: ``UNSAFE_ARCHIVE``, ``ARCHIVE_OUTSIDE_ITS_FOLDER``, ``ARCHIVE_TOO_LARGE`` (also a pax or GNU
            long-name header over :data:`MAX_HEADER_BYTES`, refused unread), ``TRUNCATED_ARCHIVE``, ``BAD_ARCHIVE``
            (:func:`check_archive`; also a compressed or unreadable file), ``UNSAFE_TARGET`` (a folder under ``dest``
            is a link or a file, or a file would land on a folder), ``UNSUPPORTED_PLATFORM`` (no ``dir_fd``
            support). In every case nothing is installed and no staging folder is left.
    """
    archive, dest = Path(archive), Path(dest)
    if not {os.open, os.mkdir, os.stat, os.rename} <= os.supports_dir_fd or not hasattr(os, "O_NOFOLLOW"):
        raise DownloadError("UNSUPPORTED_PLATFORM", "safe extraction needs descriptor-relative file operations "
                                                    "(Linux, macOS); extract the archives with a tar tool instead")
    try:
        with _open_archive(archive) as raw, tarfile.open(fileobj=raw, mode="r:", tarinfo=_BoundedTarInfo) as tar:
            checked = check_archive(tar, archive, max_bytes=max_bytes, max_members=max_members, folder=folder)
            dest.mkdir(parents=True, exist_ok=True)
            with (tempfile.TemporaryDirectory(prefix=".extract-", dir=dest, ignore_cleanup_errors=True) as staging_path,
                  closing(_Tree(staging_path)) as staging):
                for member, name in checked:
                    if member.isdir():
                        staging.folder(name.parts, create=True)
                    else:
                        _write_file(tar, member, name, staging)
                with closing(_Tree(str(dest))) as target:
                    return _move_into_place(checked, staging, target)
    except tarfile.ReadError as err:
        code = "TRUNCATED_ARCHIVE" if "unexpected end" in str(err) else "BAD_ARCHIVE"
        raise DownloadError(code, f"{archive} is not a complete, uncompressed tar archive ({err}); nothing "
                                  "extracted") from None
    except (tarfile.TarError, EOFError) as err:
        raise DownloadError("BAD_ARCHIVE", f"{archive} is not a readable tar archive ({err}); nothing "
                                           "extracted") from None
    except OSError as err:
        raise DownloadError("BAD_ARCHIVE", f"cannot extract {archive} into {dest}: {err}; nothing installed") from None
