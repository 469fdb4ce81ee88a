"""Unpacking a submission: a zip or gzip file, recognised by its first bytes whatever its name, → the CSV bytes
inside (Kaggle accepts both; the rules: docs/codes.md). Either is unpacked in chunks of 1 MiB
(:func:`..safeopen.read_stream`) and refused as soon as more than :data:`MAX_UNPACKED_BYTES` came out (a zip bomb):
a zip member by the size it declares (zipfile yields no more than that), a gzip after a first pass that counts
without keeping.
"""

from __future__ import annotations

import io
import zlib

from ..safeopen import read_stream
from .problems import ProblemLog

ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
"""A zip's first bytes: a local file header, or the end record of an empty archive."""
GZIP_MAGIC = b"\x1f\x8b"
MAX_UNPACKED_BYTES = 256 << 20
"""256 MiB: about 6 times the largest real test submission can be (70 layout rows of at most ~590,000
characters each, docs/codes.md: about 41 MB; a real Kaggle test submission is about 10 MB), 4 times the
leaderboard's 64 MiB file cap."""


def _corrupt() -> tuple[type[Exception], ...]:
    """What reading a damaged archive raises: an error, never a crash. zipfile and gzip are imported when an archive
    is read (most submissions are plain CSV: docs/performance.md, "Imports")."""
    import gzip
    import zipfile

    return (zipfile.BadZipFile, gzip.BadGzipFile, EOFError, zlib.error, OSError, ValueError, NotImplementedError,
            RuntimeError)


def unpack(data: bytes, log: ProblemLog) -> bytes | None:
    """The CSV bytes of a submission: ``data`` itself, or the CSV inside a zip or gzip file.

    Logs COMPRESSED (a note) for an archive read, or ARCHIVE_UNREADABLE / ARCHIVE_TOO_LARGE (errors)
    and returns None for one that cannot be read, or that holds another archive (compressed twice).
    """
    if data.startswith(ZIP_MAGIC):
        kind, read = "zip", _unzip
    elif data.startswith(GZIP_MAGIC):
        kind, read = "gzip", _gunzip
    else:
        return data
    try:
        name, inner = read(data)
    except _Refused as refused:
        log.add("ARCHIVE_UNREADABLE", f"the submission is a {kind} file: {refused}.")
        return None
    except _corrupt() as err:
        log.add("ARCHIVE_UNREADABLE", f"the submission is a {kind} file that cannot be unpacked "
                f"({type(err).__name__}: {err}); is it cut off or corrupt?")
        return None
    if inner is None:
        log.add("ARCHIVE_TOO_LARGE", f"the {kind} file of {len(data):,} bytes unpacks to more than "
                f"{MAX_UNPACKED_BYTES:,} bytes (a zip bomb?); it is not read.")
        return None
    if inner.startswith((*ZIP_MAGIC, GZIP_MAGIC)):
        log.add("ARCHIVE_UNREADABLE", f"the submission is a {kind} file holding another compressed file (a "
                f"{'zip' if inner.startswith(ZIP_MAGIC) else 'gzip'} file), not CSV text: compress the CSV once.")
        return None
    held = f" holding `{name}`" if name else ""
    log.add("COMPRESSED", f"a {kind} file{held}: its {len(inner):,} bytes of CSV are read (Kaggle accepts zip and "
            "gzip submissions); line numbers are the CSV's.")
    return inner


class _Refused(Exception):
    """An archive that is readable but is not one CSV file."""


def _is_metadata(name: str) -> bool:
    """Folders and macOS Finder metadata (``__MACOSX/``, ``._*``, ``.DS_Store``): not the submission."""
    base = name.rstrip("/").rpartition("/")[2]
    return name.endswith("/") or name.startswith("__MACOSX/") or base.startswith(".")


def _unzip(data: bytes) -> tuple[str, bytes | None]:
    """(member name, its bytes, or None when it declares or unpacks to more than MAX_UNPACKED_BYTES) of a
    zip holding one CSV file."""
    import zipfile

    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        members = [info for info in archive.infolist() if not _is_metadata(info.filename)]
        if len(members) != 1 or not members[0].filename.lower().endswith(".csv"):
            names = ", ".join(f"`{info.filename}`" for info in members[:5]) or "nothing"
            more = f" and {len(members) - 5} more" if len(members) > 5 else ""
            raise _Refused(f"a zip submission holds exactly one .csv file; this one holds {names}{more}")
        member = members[0]
        if member.flag_bits & 0x1:
            raise _Refused(f"`{member.filename}` is encrypted (zip it without a password)")
        if member.file_size > MAX_UNPACKED_BYTES:
            return member.filename, None
        with archive.open(member) as stream:
            return member.filename, read_stream(stream, MAX_UNPACKED_BYTES)


def _gunzip(data: bytes) -> tuple[str, bytes | None]:
    """("" (the header's name is not used), the unpacked bytes or None when more than MAX_UNPACKED_BYTES) of a
    gzip file (all its members, as ``gunzip`` reads them). A gzip does not say how large it unpacks (its
    trailer holds the size modulo 2**32), so it is unpacked twice: first counting and discarding, so that a
    bomb is refused holding one chunk, then keeping."""
    import gzip

    with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:
        if read_stream(stream, MAX_UNPACKED_BYTES, keep=False) is None:
            return "", None
    with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:
        return "", read_stream(stream, MAX_UNPACKED_BYTES)
