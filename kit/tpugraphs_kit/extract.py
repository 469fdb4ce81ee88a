"""Safe extraction of a tar archive into a data root: every member is checked before anything is written.

Refused (the whole archive, nothing written): absolute names, names with a ``..`` component, symbolic
or hard links whose target resolves outside the destination, device files and FIFOs. Members are first
extracted into a temporary folder inside the destination, each write re-checked against the real path
of its folder (so a link inside the archive cannot redirect a later member), and only then moved into
place; on any error the temporary folder is removed and the destination is left as it was.

These checks are our own (Python's ``tarfile`` ``filter="data"`` exists only from 3.11.4 on, and the
kit must not depend on the patch release); they follow the same rules.
"""

from __future__ import annotations

import os
import shutil
import tarfile
import tempfile
from pathlib import Path, PurePosixPath

from .errors import DownloadError

_CHUNK = 1 << 20


def _unsafe(archive: Path, member: tarfile.TarInfo, why: str) -> DownloadError:
    return DownloadError("UNSAFE_ARCHIVE", f"{archive}: refused, nothing extracted: member {member.name!r} {why}")


def _clean_name(archive: Path, member: tarfile.TarInfo) -> PurePosixPath:
    name = member.name
    if not name or name.startswith("/") or PurePosixPath(name).is_absolute() or (len(name) > 1 and name[1] == ":"):
        raise _unsafe(archive, member, "has an absolute path")
    parts = [p for p in PurePosixPath(name).parts if p not in ("", ".")]
    if ".." in parts:
        raise _unsafe(archive, member, "has a '..' component (it would land outside the destination)")
    if not parts:
        raise _unsafe(archive, member, "has an empty name")
    return PurePosixPath(*parts)


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root + os.sep)


def check_members(archive: Path, members: list[tarfile.TarInfo]) -> list[tuple[tarfile.TarInfo, PurePosixPath]]:
    """Each member with its cleaned name; raises ``UNSAFE_ARCHIVE`` for the first unsafe one (lexical checks)."""
    out = []
    for member in members:
        name = _clean_name(archive, member)
        if member.issym() or member.islnk():
            target = member.linkname
            if not target or target.startswith("/"):
                raise _unsafe(archive, member, f"is a link to an absolute path {target!r}")
            base = name.parent if member.issym() else PurePosixPath()
            resolved = os.path.normpath(os.path.join(str(base), target))
            if resolved == ".." or resolved.startswith("../") or resolved.startswith("/"):
                raise _unsafe(archive, member, f"is a link to {target!r}, outside the destination")
        elif not (member.isfile() or member.isdir()):
            raise _unsafe(archive, member, "is a device file or FIFO")
        out.append((member, name))
    return out


def _write_member(tar: tarfile.TarFile, archive: Path, member: tarfile.TarInfo, name: PurePosixPath,
                  staging: str) -> None:
    target = os.path.join(staging, *name.parts)
    parent = os.path.dirname(target)
    os.makedirs(parent, exist_ok=True)
    real_parent = os.path.realpath(parent)
    if not _inside(real_parent, staging):
        raise _unsafe(archive, member, "would be written through a link that leaves the destination")
    target = os.path.join(real_parent, os.path.basename(target))
    if member.isdir():
        os.makedirs(target, exist_ok=True)
    elif member.issym():
        if not _inside(os.path.realpath(os.path.join(real_parent, member.linkname)), staging):
            raise _unsafe(archive, member, f"is a link to {member.linkname!r}, outside the destination")
        os.symlink(member.linkname, target)
    elif member.islnk():
        source = os.path.realpath(os.path.join(staging, *_clean_name(archive, tarfile.TarInfo(member.linkname)).parts))
        if not _inside(source, staging) or not os.path.isfile(source):
            raise _unsafe(archive, member, f"is a hard link to {member.linkname!r}, not a file extracted before it")
        shutil.copyfile(source, target)
    else:
        stream = tar.extractfile(member)
        with stream, open(target, "xb") as out:
            shutil.copyfileobj(stream, out, _CHUNK)
        os.chmod(target, 0o644)


def _move_into_place(staging: str, dest: Path) -> list[Path]:
    """Move every file and link of ``staging`` to the same relative place under ``dest`` (folders merge)."""
    moved = []
    for folder, dirs, files in os.walk(staging):
        rel = os.path.relpath(folder, staging)
        out_dir = dest if rel == "." else dest / rel
        out_dir.mkdir(parents=True, exist_ok=True)
        entries = list(files) + [d for d in dirs if os.path.islink(os.path.join(folder, d))]
        for entry in entries:
            os.replace(os.path.join(folder, entry), out_dir / entry)
            moved.append(out_dir / entry)
    return moved


def safe_extract(archive: str | os.PathLike[str], dest: str | os.PathLike[str]) -> list[Path]:
    """Extract the tar ``archive`` under ``dest`` after checking every member; returns the paths placed.

    Raises:
        DownloadError: ``UNSAFE_ARCHIVE`` (absolute path, ``..``, escaping link, device file: nothing is
            written), ``BAD_ARCHIVE`` (not a readable tar, or an extraction error; ``dest`` unchanged).
    """
    archive, dest = Path(archive), Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    staging = os.path.realpath(tempfile.mkdtemp(prefix=".extract-", dir=dest))
    try:
        with tarfile.open(archive, "r:*") as tar:
            checked = check_members(archive, tar.getmembers())
            for member, name in checked:
                _write_member(tar, archive, member, name, staging)
        return _move_into_place(staging, dest)
    except (tarfile.TarError, EOFError) as err:
        raise DownloadError("BAD_ARCHIVE", f"{archive} is not a readable tar archive ({err}); delete it and "
                                           "download it again") from None
    except OSError as err:
        raise DownloadError("BAD_ARCHIVE", f"cannot extract {archive} into {dest}: {err}") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
