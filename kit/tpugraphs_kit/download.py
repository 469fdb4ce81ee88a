"""Getting the real data: the official tar archives, downloaded with resume and a size check, then extracted safely.

Source (google-research-datasets/tpu_graphs, README and ``tpu_graphs/echo_download_commands.py``): one tar per
collection and split under ``http://download.tensorflow.org/data/tpu_graphs/v0/``, named
``npz_tiles_tile_{split}.tar`` and ``npz_layout_{xla,nlp}_{default,random}_{split}.tar``; the official
instructions download them into ``~/data/tpugraphs`` and untar them there, which gives the ``npz/...``
layout the evaluator reads.

Here each archive is downloaded to ``<data root>/.downloads/<name>.part`` (an interrupted download is
resumed with an HTTP ``Range`` request, by the retry loop or by running the command again), checked
against the server's ``Content-Length``, renamed to ``<name>``, extracted by
:func:`tpugraphs_kit.extract.safe_extract`, and marked done (``<name>.done``, so that it is skipped next
time); the tar is then deleted unless it is to be kept.
"""

from __future__ import annotations

import os
import re
import socket
import urllib.error
import urllib.request
from collections.abc import Iterable
from dataclasses import dataclass
from http.client import HTTPException
from pathlib import Path

from tpugraphs_eval.dataset import COLLECTIONS, SPLITS

from .data import collection
from .errors import DownloadError, KitError
from .extract import safe_extract
from .progress import console, wanted

BASE_URL = "http://download.tensorflow.org/data/tpu_graphs/v0/"
"""The official download location (tpu_graphs/echo_download_commands.py)."""
DOWNLOADS = ".downloads"
_CHUNK = 1 << 20
_CONTENT_RANGE = re.compile(r"bytes (\d+)-(\d+)/(\d+|\*)")


def archive_name(collection_name: str, split: str) -> str:
    """The official tar name of one collection and split, e.g. ``npz_layout_xla_default_valid.tar``.

    Raises:
        KitError: ``UNKNOWN_COLLECTION``, ``UNKNOWN_SPLIT``.
    """
    coll = collection(collection_name)
    if split not in SPLITS:
        raise KitError("UNKNOWN_SPLIT", f"split must be one of {', '.join(SPLITS)}, not {split!r}")
    if coll.kind == "tile":
        return f"npz_tiles_tile_{split}.tar"
    _, source, search = coll.name.split(":")
    return f"npz_layout_{source}_{search}_{split}.tar"


@dataclass(frozen=True)
class Archive:
    """One archive to fetch: its collection, split, file name and URL."""

    collection: str
    split: str
    name: str
    url: str


def archives(collections: Iterable[str] | None = None, splits: Iterable[str] | None = None,
             base_url: str = BASE_URL) -> list[Archive]:
    """The archives of ``collections`` × ``splits`` (all when None), in the official order."""
    names = list(collections) if collections is not None else [c.name for c in COLLECTIONS]
    chosen = list(splits) if splits is not None else list(SPLITS)
    if not base_url.startswith(("http://", "https://", "file://")):
        raise KitError("BAD_OPTION", f"--base-url must be an http://, https:// or file:// address, not {base_url!r}")
    base = base_url if base_url.endswith("/") else base_url + "/"
    return [Archive(name, split, archive_name(name, split), base + archive_name(name, split))
            for name in names for split in chosen]


def _total_from(response, start: int) -> tuple[int, int | None]:
    """(offset the body starts at, total size or None) from a 200 or 206 response."""
    if response.status == 206:
        match = _CONTENT_RANGE.fullmatch(response.headers.get("Content-Range", "").strip())
        if not match or int(match.group(1)) != start:
            raise DownloadError("DOWNLOAD_FAILED", f"{response.url}: the server answered the resume request with a "
                                                   f"wrong Content-Range {response.headers.get('Content-Range')!r}")
        return start, None if match.group(3) == "*" else int(match.group(3))
    length = response.headers.get("Content-Length")
    return 0, int(length) if length and length.isdigit() else None


def _attempt(url: str, part: Path, timeout: float, bar) -> int | None:
    """One request: append to ``part`` from its current size (restart if the server ignores Range). Returns the total."""
    have = part.stat().st_size if part.exists() else 0
    request = urllib.request.Request(url, headers={"Range": f"bytes={have}-"} if have else {})
    try:
        response = urllib.request.urlopen(request, timeout=timeout)
    except urllib.error.HTTPError as err:
        if err.code == 416 and have:  # nothing left to send: the part is complete, or longer than the file
            match = re.fullmatch(r"bytes \*/(\d+)", (err.headers.get("Content-Range") or "").strip())
            if match:
                return int(match.group(1))
            part.unlink()  # the size is unknown: start again from the first byte
            return _attempt(url, part, timeout, bar)
        raise
    with response:
        offset, total = _total_from(response, have)
        with open(part, "ab" if offset else "wb") as out:
            if bar is not None:
                bar[0].update(bar[1], total=total, completed=offset)
            while True:
                chunk = response.read(_CHUNK)
                if not chunk:
                    break
                out.write(chunk)
                if bar is not None:
                    bar[0].advance(bar[1], len(chunk))
    return total


def fetch(url: str, path: str | os.PathLike[str], *, retries: int = 3, timeout: float = 60.0,
          progress: bool | None = None) -> tuple[Path, int | None]:
    """Download ``url`` to ``path`` (via ``path.part``), resuming a partial file, and check its size.

    Returns:
        The path, and the size the server announced (None: it sent no Content-Length, so the size was
        not checked).

    Args:
        retries: further attempts (each resuming where the last stopped) after a cut connection.
        timeout: seconds of socket inactivity before an attempt fails.
        progress: draw a byte progress bar on stderr (None: when stderr is a terminal).

    Raises:
        DownloadError: ``DOWNLOAD_FAILED`` (HTTP error, network error; the partial file is kept for a
            resume), ``SIZE_MISMATCH`` (more bytes than announced: the partial file is deleted).
    """
    path = Path(path)
    part = path.with_name(path.name + ".part")
    part.parent.mkdir(parents=True, exist_ok=True)
    total = None
    bar = None
    progress_cm = None
    if wanted(progress):
        from rich.progress import (
            BarColumn,
            DownloadColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
            TransferSpeedColumn,
        )
        progress_cm = Progress(TextColumn(path.name), BarColumn(), DownloadColumn(), TransferSpeedColumn(),
                               TimeRemainingColumn(), console=console(), transient=True)
        progress_cm.start()
        bar = (progress_cm, progress_cm.add_task(path.name, total=None))
    last_error = None
    try:
        for _ in range(retries + 1):
            try:
                total = _attempt(url, part, timeout, bar)
                last_error = None
            except urllib.error.HTTPError as err:
                raise DownloadError("DOWNLOAD_FAILED", f"{url}: HTTP {err.code} {err.reason}") from None
            except (urllib.error.URLError, HTTPException, socket.timeout, ConnectionError, OSError) as err:
                last_error = getattr(err, "reason", None) or err
            size = part.stat().st_size if part.exists() else 0
            if total is not None and size > total:
                part.unlink()
                raise DownloadError("SIZE_MISMATCH", f"{url}: received {size} bytes, the server announced {total}; "
                                                     "the partial file was deleted, run the command again")
            if last_error is None and (total is None or size == total):
                break
    finally:
        if progress_cm is not None:
            progress_cm.stop()
    size = part.stat().st_size if part.exists() else 0
    if last_error is not None or (total is not None and size != total):
        why = f"{last_error}" if last_error is not None else f"got {size} of {total} bytes"
        raise DownloadError("DOWNLOAD_FAILED", f"{url}: {why}. The partial file {part} is kept: run the same "
                                               "command again to resume.")
    os.replace(part, path)
    return path, total


@dataclass
class Fetched:
    """The outcome for one archive: ``status`` is ``installed`` or ``skipped`` (marked done earlier)."""

    archive: Archive
    status: str
    files: int = 0
    size_checked: bool = True


def download(root: str | os.PathLike[str], collections: Iterable[str] | None = None,
             splits: Iterable[str] | None = None, *, base_url: str = BASE_URL, keep_archives: bool = False,
             force: bool = False, retries: int = 3, timeout: float = 60.0,
             progress: bool | None = None) -> list[Fetched]:
    """Download and extract the archives of ``collections`` × ``splits`` into the data root ``root``.

    ``root`` is created if missing; the archives untar to ``root/npz/...`` (the official layout).
    Archives marked done are skipped unless ``force``.

    Raises:
        DownloadError: ``DOWNLOAD_FAILED``, ``SIZE_MISMATCH``, ``UNSAFE_ARCHIVE``, ``BAD_ARCHIVE``.
        KitError: ``UNKNOWN_COLLECTION``, ``UNKNOWN_SPLIT``, ``CANNOT_WRITE``.
    """
    root = Path(root).expanduser()
    folder = root / DOWNLOADS
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise KitError("CANNOT_WRITE", f"cannot create {folder}: {err.strerror or err}") from None
    out = []
    for archive in archives(collections, splits, base_url):
        done = folder / f"{archive.name}.done"
        if done.exists() and not force:
            out.append(Fetched(archive, "skipped"))
            continue
        tar, total = fetch(archive.url, folder / archive.name, retries=retries, timeout=timeout, progress=progress)
        placed = safe_extract(tar, root)
        done.write_text(f"{archive.url}\n{tar.stat().st_size} bytes\n{len(placed)} files\n", encoding="utf-8")
        if not keep_archives:
            tar.unlink()
        out.append(Fetched(archive, "installed", len(placed), total is not None))
    return out
