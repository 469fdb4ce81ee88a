"""Getting the real data: the official tar archives, downloaded (resume, deadlines, size check), then extracted safely.

Source (google-research-datasets/tpu_graphs, README and ``tpu_graphs/echo_download_commands.py``): one tar per
collection and split under :data:`BASE_URL`, named ``npz_tile_xla_{split}.tar`` (an earlier script said
``npz_tiles_tile_{split}.tar``) and ``npz_layout_{xla,nlp}_{default,random}_{split}.tar``; untarred in the data
root (officially ``~/data/tpugraphs``) they give the ``npz/...`` layout the evaluator reads.

Each archive is downloaded to ``<data root>/.downloads/<name>.part`` (:func:`fetch`), checked (its size; its sha256
where the address serves :data:`CHECKSUMS`), extracted by :func:`tpugraphs_kit.extract.safe_extract`, and only then
marked done (``.downloads/<name>.done``). What is refused, and what a failure keeps or deletes: docs/kit.md, "The
real-data download".
"""

from __future__ import annotations

import math
import os
import re
import time
import urllib.error
import urllib.request
from collections.abc import Iterable
from contextlib import nullcontext
from dataclasses import dataclass, field
from http.client import HTTPException
from pathlib import Path
from typing import Any

from tpugraphs_eval.dataset import COLLECTIONS, SPLITS
from tpugraphs_eval.file_digest import file_hexdigest
from tpugraphs_eval.progress import progress_bar, wanted

from .data import check_split, collection
from .download_paths import downloads_folder, marked_done, open_part, refuse_special
from .errors import DownloadError, KitError
from .extract import MAX_BYTES, MAX_MEMBERS, safe_extract
from .files import write_atomic
from .watchdog import Watchdog

BASE_URL = "http://download.tensorflow.org/data/tpu_graphs/v0/"
"""The official download location (tpu_graphs/echo_download_commands.py)."""
CHECKSUMS = "SHA256SUMS"
"""The checksum file an organiser's address serves beside its archives: ``<sha256>  <file name>`` per line (the
format of ``sha256sum``)."""
MIN_SPEED = 1024
"""Bytes per second below which a download counts as stalled, measured over ``timeout`` seconds."""
_CHUNK = 1 << 20
_CONTENT_RANGE = re.compile(r"bytes (\d+)-(\d+)/(\d+|\*)")


def archive_name(collection_name: str, split: str) -> str:
    """The official tar name of one collection and split, e.g. ``npz_layout_xla_default_valid.tar``.

    Raises:
        KitError: ``UNKNOWN_COLLECTION``, ``UNKNOWN_SPLIT``.
    """
    return f"npz_{collection(collection_name).name.replace(':', '_')}_{check_split(split)}.tar"


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
        raise KitError("USAGE_ERROR", f"--base-url must be an http://, https:// or file:// address, not {base_url!r}")
    base = base_url if base_url.endswith("/") else base_url + "/"
    return [Archive(name, split, archive_name(name, split), base + archive_name(name, split))
            for name in names for split in chosen]


def _total_from(response, start: int) -> tuple[int, int | None]:
    """(offset the body starts at, total size or None) from a 200 or 206 response."""
    if response.status == 206:
        match = _CONTENT_RANGE.fullmatch(response.headers.get("Content-Range", "").strip())
        if not match or int(match.group(1)) != start:
            raise _BadResume(f"the server answered the resume request with a wrong Content-Range "
                             f"{response.headers.get('Content-Range')!r}")
        return start, None if match.group(3) == "*" else int(match.group(3))
    length = response.headers.get("Content-Length")
    return 0, int(length) if length and length.isdigit() else None


@dataclass(frozen=True)
class _Limits:
    timeout: float
    deadline: float | None
    max_bytes: int
    started: float = field(default_factory=time.monotonic)

    def left(self) -> float:
        """Seconds left before the deadline (infinite without one)."""
        return math.inf if self.deadline is None else self.deadline - (time.monotonic() - self.started)


class _NotFound(DownloadError):
    """An HTTP 404 or a missing ``file://`` source (``DOWNLOAD_FAILED``): final, not retried."""


class _BadResume(Exception):
    """A resume the server answered for other bytes than asked: the partial file is deleted, and the next attempt
    starts from the first byte."""


class _Stalled(Exception):
    """An attempt got too little data in time (idle, slower than MIN_SPEED, headers late): retried, with resume."""


def _too_large(url: str, size: int, max_bytes: int) -> DownloadError:
    return DownloadError("ARCHIVE_TOO_LARGE", f"{url}: {size} bytes or more, over the limit of {max_bytes} bytes; "
                                              "the partial file was deleted")


def _kept(part: Path) -> str:
    """What is left of an unfinished download, in words."""
    try:
        size = part.stat().st_size
    except OSError:
        return "Nothing was downloaded."
    return f"The partial file {part} ({size:,} bytes) is kept: run the same command again to resume."


def _past_deadline(url: str, deadline: float, part: Path) -> DownloadError:
    return DownloadError("TIMED_OUT", f"{url}: not downloaded within the deadline of {deadline:g} s. {_kept(part)}")


def _attempt(url: str, part: Path, limits: _Limits, bar) -> int | None:
    """One request: append to ``part`` from its current size (restart if the server ignores Range). Returns the total.

    Raises:
        _Stalled: no response headers within ``timeout``, or less than ``MIN_SPEED`` bytes/s over ``timeout``
            seconds (a socket read idle for ``timeout`` raises ``TimeoutError``).
        DownloadError: ``TIMED_OUT`` (past the deadline), ``ARCHIVE_TOO_LARGE``.
    """
    have = part.stat().st_size if part.exists() else 0
    request = urllib.request.Request(url, headers={"Range": f"bytes={have}-"} if have else {})
    watchdog = Watchdog()

    def fail(err: BaseException):
        if watchdog.fired == "deadline":
            return _past_deadline(url, limits.deadline, part)
        if watchdog.fired == "headers":
            return _Stalled(f"no response within {limits.timeout:g} s")
        return err

    try:
        left = limits.left()
        watchdog.arm(min(limits.timeout, left), "headers" if left > limits.timeout else "deadline")
        try:
            response = watchdog.opener().open(request, timeout=limits.timeout)
        except urllib.error.HTTPError as err:
            if err.code == 416 and have:  # nothing left to send: the part is complete, or longer than the file
                match = re.fullmatch(r"bytes \*/(\d+)", (err.headers.get("Content-Range") or "").strip())
                if match:
                    return int(match.group(1))
                part.unlink()  # the size is unknown: start again from the first byte
                watchdog.close()
                return _attempt(url, part, limits, bar)
            raise
        except (OSError, HTTPException) as err:
            raise fail(err) from None
        with response:
            offset, total = _total_from(response, have)
            if total is not None and total > limits.max_bytes:
                raise _too_large(url, total, limits.max_bytes)
            if limits.deadline is not None:
                watchdog.arm(limits.left(), "deadline")
            else:
                watchdog.disarm()
            with open_part(part, append=bool(offset)) as out:
                if bar is not None:
                    bar[0].update(bar[1], total=total, completed=offset)
                _copy_body(response, out, offset, url, limits, bar, fail)
            if watchdog.fired:
                raise fail(ConnectionError("connection shut down"))
    finally:
        watchdog.close()
    return total


def _copy_body(response, out, received: int, url: str, limits: _Limits, bar, fail) -> None:
    """Append the response body to ``out`` (``received`` bytes already there), one socket read at a time; raises
    ``_Stalled`` under :data:`MIN_SPEED`, ``ARCHIVE_TOO_LARGE`` over ``limits.max_bytes``, ``fail(read error)``."""
    window_start, window_bytes = time.monotonic(), 0
    while True:
        try:
            chunk = response.read1(_CHUNK)  # one socket read: returns what arrived, idle <= timeout
        except (OSError, HTTPException) as err:
            raise fail(err) from None
        if not chunk:
            return
        out.write(chunk)
        received += len(chunk)
        if received > limits.max_bytes:
            raise _too_large(url, received, limits.max_bytes)
        if bar is not None:
            bar[0].advance(bar[1], len(chunk))
        window_bytes += len(chunk)
        elapsed = time.monotonic() - window_start
        if elapsed >= limits.timeout:
            if window_bytes < MIN_SPEED * elapsed:
                raise _Stalled(f"{window_bytes} bytes in {elapsed:.1f} s, slower than {MIN_SPEED} bytes/s")
            window_start, window_bytes = time.monotonic(), 0


def fetch(url: str, path: str | os.PathLike[str], *, retries: int = 3, timeout: float = 60.0,
          deadline: float | None = None, max_bytes: int = MAX_BYTES,
          progress: bool | None = None) -> tuple[Path, int | None]:
    """Download ``url`` to ``path`` (via ``path.part``), resuming a partial file, and check its size.

    Returns:
        The path, and the size the server announced (None: it sent no Content-Length, so the size was
        not checked here; :func:`tpugraphs_kit.extract.safe_extract` then checks that the tar is whole).

    Args:
        retries: further attempts (each resuming where the last stopped) after a cut connection or a stall, or
            from the first byte after a resume answered for other bytes (the partial file deleted).
        timeout: seconds (> 0). An attempt fails when a socket read waits this long for data, when the
            response headers take this long, or when less than ``MIN_SPEED`` (1 KiB/s) arrives over this
            many seconds (a server trickling bytes).
        deadline: seconds for the whole download, all attempts included (None: no total limit; a trickle
            is still stopped by ``timeout``).
        max_bytes: the largest download accepted (announced or received).
        progress: draw a byte progress bar on stderr (None: when stderr is a terminal).

    Raises:
        DownloadError: ``DOWNLOAD_FAILED`` (an HTTP error or a missing ``file://`` source, neither retried; a
            network error after every retry), ``TIMED_OUT`` (every attempt stalled, or past ``deadline``): a
            partial file is kept for a resume, and the message names it with its size only when there is one;
            ``SIZE_MISMATCH`` (more bytes than announced), ``ARCHIVE_TOO_LARGE`` (over ``max_bytes``); in
            the last two the partial file is deleted.
    """
    path = Path(path)
    part = path.with_name(path.name + ".part")
    part.parent.mkdir(parents=True, exist_ok=True)
    if part.is_symlink():  # never written through: the partial file is ours to replace
        part.unlink()
    refuse_special(part)
    refuse_special(path)  # the finished download is renamed onto it
    limits = _Limits(timeout, deadline, max_bytes)
    total, last_error = None, None
    with progress_bar(path.name, transfer=True) if wanted(progress) else nullcontext() as shown:
        bar = None if shown is None else (shown, shown.add_task(path.name, total=None))  # (progress, task)
        for _ in range(retries + 1):
            if limits.left() <= 0:
                raise _past_deadline(url, deadline, part)
            total, last_error = _try_once(url, part, limits, bar, total)
            size = part.stat().st_size if part.exists() else 0
            if total is not None and size > total:
                part.unlink()
                raise DownloadError("SIZE_MISMATCH", f"{url}: received {size} bytes, the server announced {total}; "
                                                     "the partial file was deleted, run the command again")
            if last_error is None and (total is None or size == total):
                break
    size = part.stat().st_size if part.exists() else 0
    if last_error is not None or (total is not None and size != total):
        why = f"{last_error}" if last_error is not None else f"got {size} of {total} bytes"
        code = "TIMED_OUT" if isinstance(last_error, (_Stalled, TimeoutError)) else "DOWNLOAD_FAILED"
        raise DownloadError(code, f"{url}: {why} (after {retries + 1} attempt(s)). {_kept(part)}")
    os.replace(part, path)
    return path, total


def _try_once(url: str, part: Path, limits: _Limits, bar, total: int | None) -> tuple[int | None, object]:
    """One :func:`_attempt`: ``(the size the server announced, None)``, or ``(total, the error to retry after)``;
    raises ``DOWNLOAD_FAILED`` (an HTTP error, a missing ``file://`` source: final) and what :func:`_attempt` raises
    (``ARCHIVE_TOO_LARGE`` deleting the partial file)."""
    try:
        return _attempt(url, part, limits, bar), None
    except urllib.error.HTTPError as err:
        kind = _NotFound if err.code == 404 else DownloadError
        raise kind("DOWNLOAD_FAILED", f"{url}: HTTP {err.code} {err.reason}. {_kept(part)}") from None
    except urllib.error.URLError as err:
        if isinstance(err.reason, FileNotFoundError):  # a missing ``file://`` source: final, like an HTTP 404
            raise _NotFound("DOWNLOAD_FAILED", f"{url}: no such file (not retried). {_kept(part)}") from None
        return total, err.reason
    except DownloadError as err:
        if err.code == "ARCHIVE_TOO_LARGE":
            part.unlink(missing_ok=True)
        raise
    except _BadResume as err:
        part.unlink(missing_ok=True)
        return total, err
    except (_Stalled, HTTPException, OSError) as err:
        return total, err


class DownloadFailures(DownloadError):
    """Some archives of a :func:`download` failed: ``errors`` (one coded error per failed archive, in order) and
    ``results`` (the :class:`Fetched` of those installed or skipped). Code and message: the first failure's."""

    def __init__(self, errors: list[KitError], results: list[Fetched]) -> None:
        super().__init__(errors[0].code, errors[0].args[0])
        self.errors, self.results = errors, results


@dataclass
class Fetched:
    """The outcome for one archive: ``status`` is ``installed`` or ``skipped`` (marked done earlier).

    ``size_checked``: the server announced a Content-Length and the download matched it (when False, the
    archive was checked by reading the tar to its end-of-archive marker instead).
    """

    archive: Archive
    status: str
    files: int = 0
    size_checked: bool = True
    sha256_checked: bool = False


def checksums(base_url: str, folder: Path, timeout: float) -> dict[str, str] | None:
    """File name → sha256 from :data:`CHECKSUMS` at ``base_url`` (fetched into ``folder`` like an archive, at most
    1 MiB), or None where the address serves none (HTTP 404, no such ``file://`` file) or is the official one.

    Raises:
        DownloadError: as :func:`fetch` for other failures; ``CHECKSUM_MISMATCH``: a line that is not
            ``<64 hex digits>  <name>``.
    """
    if base_url.rstrip("/") == BASE_URL.rstrip("/"):
        return None
    try:
        path, _ = fetch(base_url.rstrip("/") + "/" + CHECKSUMS, folder / CHECKSUMS, retries=1, timeout=timeout,
                        max_bytes=1 << 20, progress=False)
    except _NotFound:
        (folder / f"{CHECKSUMS}.part").unlink(missing_ok=True)
        return None
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    path.unlink()
    sums = {}
    for line in filter(None, lines):
        digest, _, name = line.partition("  ")
        if not re.fullmatch("[0-9a-f]{64}", digest) or not name.strip():
            raise DownloadError("CHECKSUM_MISMATCH", f"{base_url}{CHECKSUMS}: {line[:80]!r} is not a line "
                                                     "`<sha256>  <file name>`: no archive is trusted")
        sums[name.strip().lstrip("*")] = digest
    return sums


def download(root: str | os.PathLike[str], collections: Iterable[str] | None = None,
             splits: Iterable[str] | None = None, *, base_url: str = BASE_URL, keep_archives: bool = False,
             force: bool = False, retries: int = 3, timeout: float = 60.0, deadline: float | None = None,
             max_bytes: int = MAX_BYTES, max_members: int = MAX_MEMBERS,
             progress: bool | None = None) -> list[Fetched]:
    """Download and extract the archives of ``collections`` × ``splits`` into the data root ``root``.

    ``root`` is created if missing; the archives untar to ``root/npz/...`` (the official layout).
    Archives marked done are skipped unless ``force``. Every archive is attempted: one that fails installs
    nothing and is not marked done (with ``force``, an earlier installation of it and its marker are left as
    they were); the others are installed and marked done all the same.

    Args:
        retries, timeout, deadline: as in :func:`fetch` (``deadline`` applies to each archive).
        max_bytes: the largest archive accepted, as downloaded and as extracted (bytes of its files).
        max_members: the most members an archive may hold.

    Raises:
        DownloadFailures: after every archive was attempted, when one or more failed: ``.errors`` holds each
            failure (a ``DownloadError`` or ``KitError`` with the codes below), ``.results`` the archives that
            succeeded; its own code and message are those of the first failure.
        DownloadError: ``DOWNLOAD_FAILED``, ``TIMED_OUT``, ``SIZE_MISMATCH``, ``ARCHIVE_TOO_LARGE``
            (:func:`fetch`); ``UNSAFE_ARCHIVE``, ``ARCHIVE_OUTSIDE_ITS_FOLDER`` (a member outside the archive's own
            collection and split folder, ``npz/tile/xla/valid`` for ``npz_tile_xla_valid.tar``),
            ``TRUNCATED_ARCHIVE``, ``BAD_ARCHIVE``, ``UNSAFE_TARGET`` (:func:`tpugraphs_kit.extract.safe_extract`;
            the downloaded tar is deleted); ``CHECKSUM_MISMATCH`` (an archive whose sha256 is not the one the
            address's :data:`CHECKSUMS` lists, :func:`checksums`).
        KitError: ``UNKNOWN_COLLECTION``, ``UNKNOWN_SPLIT``, ``OUTPUT_WRITE_FAILED``.
    """
    root = Path(root).expanduser()
    chosen = archives(collections, splits, base_url)
    folder = downloads_folder(root)
    pending = force or not all(marked_done(folder / f"{a.name}.done", a.name) for a in chosen)
    sums = checksums(base_url, folder, timeout) if pending else None  # no request when all are installed
    fetching = {"retries": retries, "timeout": timeout, "deadline": deadline, "max_bytes": max_bytes,
                "progress": progress}
    out, failures = [], []
    for archive in chosen:
        try:
            out.append(_install(archive, root, folder, sums, keep_archives, force, max_members, fetching))
        except KitError as err:  # a failed archive does not stop the others
            failures.append(err)
    if failures:
        raise DownloadFailures(failures, out)
    return out


def _install(archive: Archive, root: Path, folder: Path, sums: dict[str, str] | None, keep_archives: bool,
             force: bool, max_members: int, fetching: dict[str, Any]) -> Fetched:
    """Download, extract and mark done one archive (see :func:`download`; ``fetching``: :func:`fetch`'s options)."""
    done = folder / f"{archive.name}.done"
    if marked_done(done, archive.name) and not force:
        return Fetched(archive, "skipped")
    tar, total = fetch(archive.url, folder / archive.name, **fetching)
    expected = None if sums is None else sums.get(archive.name)
    if sums is not None and (expected is None or file_hexdigest(tar) != expected):  # refused, and deleted
        tar.unlink(missing_ok=True)
        why = f"not listed in {CHECKSUMS}" if expected is None else f"its sha256 differs from {CHECKSUMS}'s"
        raise DownloadError("CHECKSUM_MISMATCH", f"{archive.url}: {why} (a changed or damaged copy); nothing was "
                                                 "extracted and the downloaded file was deleted")
    try:
        placed = safe_extract(tar, root, max_bytes=fetching["max_bytes"], max_members=max_members,
                              folder=collection(archive.collection).split_dir(archive.split))
    except DownloadError as err:
        tar.unlink(missing_ok=True)
        raise DownloadError(err.code, f"{err.args[0]}; the downloaded file was deleted") from None
    write_atomic(done, f"{archive.url}\n{tar.stat().st_size} bytes\n{len(placed)} files\n".encode())
    if not keep_archives:
        tar.unlink()
    return Fetched(archive, "installed", len(placed), total is not None, sums is not None)
