"""The score cache: a scored submission is not scored again while its bytes, the solution and the options stay.

One JSON file per scored submission in the cache folder (default ``OUT/.cache/``), named by the sha256
of its key (:func:`cache_key`): the cache format (:data:`CACHE_FORMAT`), the submission's sha256, the solution's digest
(:func:`solution_digest`: every runtime and normalizer, every graph's Public/Private usage and the whole
manifest, so a solution rebuilt with another seed or public fraction shares no entry with the old one),
the package version and its source code (:func:`tpugraphs_eval.source_digest.source_digest`: a code change
under the same version reuses nothing) and every scoring option. The file holds ``{"key": ..., "record": ...}``, the
record of :func:`scorer.record_of` in its JSON form (:meth:`record.Record.to_json`), written atomically
(:func:`tpugraphs_eval.atomicfile.write_atomically`). An entry that cannot be used (unreadable, truncated JSON,
another key, a record of the wrong shape or types: :meth:`record.Record.from_json`; a folder, removed when
empty, else left and named in the note) is a miss: the submission is scored again, the entry rewritten, and a
``CACHE_ENTRY_CORRUPT`` note kept (:attr:`ScoreCache.notes`); an entry that cannot be written is a
``CACHE_ENTRY_UNWRITABLE`` note, and the build goes on. After a successful build the folder holds exactly the
entries of that build (:meth:`ScoreCache.prune`).

Beside the entries, the stat index (:data:`STAT_INDEX`) holds what the last build found, each under the
``(st_size, st_mtime_ns, st_ino)`` it had when read: per submission file, the sha256 of the bytes read (a file whose
``stat`` still shows those three is taken to hold those bytes, and is not read again: :meth:`ScoreCache.known_digest`);
per metadata file, what :func:`folder.read_metadata` made of it (:meth:`ScoreCache.known_metadata`); per entry, the
entry file's own stat and its record without the per-graph values (an entry whose file still shows that stat is not
opened: :meth:`ScoreCache.get`; its per-graph values are read from the file only when asked for). What this trusts and
when it is fooled: docs/leaderboard.md, "Warm rebuilds"; ``--rehash`` reads every submission and metadata file. The
index's contents are checked against a sha256 stored in it: a corrupt, truncated or foreign index is a
``CACHE_ENTRY_CORRUPT`` note and every file is read (no record is lost: the entries are still read from their files).
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import stat
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .._version import __version__
from ..atomicfile import TEMPORARY_SUFFIX, write_atomically
from ..errors import DataError
from ..source_digest import source_digest
from ..truth.groundtruth import GroundTruth
from .codes import note
from .record import BOARDS, Record

CACHE_FORMAT = 3
"""3: each board's scores hold ``secondary`` (the layout collections' mean OPA); 2: keyed by :func:`solution_digest`
(1 was keyed by the runtimes' sha256 alone, blind to the usage). The
entry's bytes are those of :meth:`record.Record.to_json` (sorted keys): a change to them must bump this, so
that old entries are missed and rebuilt, never misread."""
STAT_INDEX = "stat-index"
"""The stat index's file name in the cache folder (not ``*.json``: never pruned as an entry). Two lines of UTF-8 JSON:
the header ``{"format": STAT_INDEX_FORMAT, "sha256": hex sha256 of the second line's bytes}``, then ``{"files": {path:
[st_size, st_mtime_ns, st_ino, sha256]}, "metadata": {path: [st_size, st_mtime_ns, st_ino, {submitted, description,
selected, notes}]}, "entries": {key: [st_size, st_mtime_ns, st_ino, record]}}`` (the record is
:meth:`record.Record.to_json` without ``per_graph``). Rewritten, when anything in it changed, by each build with what
it met (:meth:`ScoreCache.save_index`); :func:`read_stat_index` reads it."""
STAT_INDEX_FORMAT = 2
"""2: with the metadata and the entries' records, and a sha256 of the contents; 1 held the submission files only."""
_INDEX_SECTIONS = ("files", "metadata", "entries")
LEGACY_TEMPORARY_PREFIX = ".entry."
"""The temporary files of caches written before :func:`write_atomically` was used (removed by :meth:`ScoreCache.prune`)."""


def solution_digest(truth: GroundTruth, manifest: dict[str, Any]) -> str:
    """The hex sha256 of everything in a solution a score depends on.

    Covers ``truth.sha256`` (every graph's name, runtimes and normalizers as stored), the tile runtime
    (``normalized``/``raw``), each collection's (G,) Public mask in graph order, and the whole manifest
    (split, source, counts, and how Usage was assigned: seed and public fraction, or the usage file's
    sha256; :mod:`tpugraphs_eval.truth.solution`).
    """
    digest = hashlib.sha256()
    digest.update(json.dumps({"ground_truth": truth.sha256, "tile_runtime": truth.tile_runtime,
                              "manifest": manifest}, sort_keys=True, default=str).encode())
    for name, collection in truth.collections.items():
        public = np.zeros(0, dtype=bool) if collection.public is None else np.asarray(collection.public, dtype=bool)
        digest.update(f"\0{name}:{public.size}:".encode() + np.packbits(public).tobytes())
    return digest.hexdigest()


def cache_key(submission_sha256: str, solution: str, options: dict[str, Any]) -> str:
    """The hex sha256 naming a record: the cache format, the submission's sha256, the solution's
    :func:`solution_digest`, the package version, the digest of its source code and the options
    (``Options.to_dict()``)."""
    return cache_keyer(solution, options)(submission_sha256)


_PLACEHOLDER = "\0submission\0"


def cache_keyer(solution: str, options: dict[str, Any]) -> Callable[[str], str]:
    """:func:`cache_key` of that solution and those options, as a function of the submission's sha256: the key's
    JSON text is made once and only the submission's sha256 is put in it per call (the same bytes)."""
    key = {"format": CACHE_FORMAT, "submission": _PLACEHOLDER, "solution": solution,
           "version": __version__, "code": source_digest(), "options": options}
    before, after = json.dumps(key, sort_keys=True).split(json.dumps(_PLACEHOLDER))
    return lambda submission_sha256: hashlib.sha256(
        (before + json.dumps(submission_sha256) + after).encode()).hexdigest()


def read_cache_file(path: Path) -> bytes | None:
    """The bytes of a file this module or :mod:`.bootstrap_cache` wrote into the cache folder, or None when there is
    none; never blocks on a FIFO nor follows a link.

    Raises:
        ValueError: it cannot be opened (``cannot be opened (reason)``) or is not a regular file.
        OSError: reading it failed.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as err:
        raise ValueError(f"cannot be opened ({err.strerror or err})") from None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise ValueError("not a regular file")
        return handle.read()


class OlderStatIndex(ValueError):
    """A stat index written by an older version (format 1: one line of JSON, the submission files only)."""


def read_stat_index(data: bytes) -> dict[str, dict[str, list]]:
    """The sections (:data:`STAT_INDEX`) of a stat index file's bytes.

    Raises:
        ValueError: not a stat index of format :data:`STAT_INDEX_FORMAT`, or its contents do not match its sha256
            (truncated, altered), saying which; :class:`OlderStatIndex` for a format 1 index.
    """
    head, newline, body = data.partition(b"\n")
    try:
        header = json.loads(head.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ValueError("not a stat index (its first line is not a JSON header)") from None
    if isinstance(header, dict) and header.get("format") == 1 and isinstance(header.get("files"), dict):
        raise OlderStatIndex("a stat index of format 1 (an older version's)")
    if not isinstance(header, dict) or header.get("format") != STAT_INDEX_FORMAT or not newline:
        raise ValueError(f"not a stat index of format {STAT_INDEX_FORMAT}")
    if header.get("sha256") != hashlib.sha256(body).hexdigest():
        raise ValueError("its contents do not match their sha256 (truncated or altered)")
    sections = json.loads(body.decode("utf-8"))
    if not isinstance(sections, dict) or not all(isinstance(sections.get(k), dict) for k in _INDEX_SECTIONS):
        raise ValueError(f"not a stat index of format {STAT_INDEX_FORMAT} (sections {', '.join(_INDEX_SECTIONS)})")
    return sections


def board_shape(truth: GroundTruth) -> dict[str, dict[str, int]]:
    """Board → collection → number of that board's graphs: the length of a record's per-graph arrays."""
    return {board: {name: int(t.public.sum() if board == "public" else (~t.public).sum())
                    for name, t in truth.collections.items()} for board in BOARDS}


def _clear_folder(path: Path) -> str:
    """Make room for the entry ``path`` where a folder stands (``os.replace`` cannot put a file over a folder):
    an empty folder is removed; one holding anything is left as it is (the cache deletes only files it wrote).
    Returns why the entry was unusable and what became of the folder, for the note."""
    try:
        os.rmdir(path)
    except OSError as err:
        held = ("it holds files" if err.errno in (errno.ENOTEMPTY, errno.EEXIST)
                else f"it cannot be removed ({err.strerror or err})")
        return (f"a folder, not a file; {held} and is left as it is (the cache deletes only files it wrote), so the "
                "entry cannot be rewritten until the folder is removed")
    return "a folder, not a file; the empty folder is removed and the entry rewritten"


class ScoreCache:
    """Records by key, in a folder (created on first write); ``folder=None`` disables caching.

    Attributes:
        used: keys read or written by this build (the others are pruned).
        notes: one ``CACHE_ENTRY_CORRUPT`` note (:func:`codes.note`) per unusable entry met, and one
            ``CACHE_ENTRY_UNWRITABLE`` note per entry that could not be written (the build goes on without it).
    """

    def __init__(self, folder: Path | None) -> None:
        self.folder = None if folder is None else Path(folder)
        self._folder_text = "" if folder is None else str(folder)
        self.used: set[str] = set()
        self.notes: list[dict[str, Any]] = []
        self._index: dict[str, dict[str, list]] | None = None  # the last build's stat index, read on first use
        self._seen: dict[str, dict[str, list]] = {k: {} for k in _INDEX_SECTIONS}  # this build's
        self._changed = False  # this build's index differs from the last one's

    @staticmethod
    def _stat_key(info: os.stat_result) -> list[int]:
        return [info.st_size, info.st_mtime_ns, info.st_ino]

    def _load_index(self) -> dict[str, dict[str, list]]:
        """The last build's stat index (its sections); empty when absent, disabled, or unusable (a
        ``CACHE_ENTRY_CORRUPT`` note: every file is then read)."""
        if self._index is not None:
            return self._index
        self._index = {k: {} for k in _INDEX_SECTIONS}
        if self.folder is None:
            return self._index
        path = self.folder / STAT_INDEX
        try:
            data = read_cache_file(path)
            if data is not None:
                self._index = read_stat_index(data)
        except OlderStatIndex:  # an upgrade, not a fault: every file is read once, without a warning
            pass
        except (OSError, UnicodeDecodeError, ValueError, RecursionError) as err:
            self._corrupt("", path, f"{err}; every submission is read")
        return self._index

    def _known(self, section: str, name: str, info: os.stat_result) -> Any:
        """What the last build's index holds under ``name`` in ``section`` when its stat is that of ``info`` (then
        kept for this build's index), else None."""
        known = self._load_index()[section].get(name)
        if not isinstance(known, list) or len(known) != 4 or known[:3] != self._stat_key(info):
            return None
        self._seen[section][name] = known
        return known[3]

    def _keep(self, section: str, name: str, info: os.stat_result, value: Any) -> None:
        self._seen[section][name] = [*self._stat_key(info), value]
        self._changed = True

    def known_digest(self, path: Path, info: os.stat_result) -> str | None:
        """The sha256 the last build read from ``path`` when its ``stat`` showed the same ``st_size``,
        ``st_mtime_ns`` and ``st_ino`` as ``info`` (then remembered for this build), else None (read it)."""
        sha = self._known("files", str(path), info)
        if not isinstance(sha, str) or len(sha) != 64:
            self._seen["files"].pop(str(path), None)
            return None
        return sha

    def remember(self, path: Path, info: os.stat_result, sha256: str) -> None:
        """Note that ``path``, with that ``stat`` (taken before reading), held bytes of that sha256."""
        self._keep("files", str(path), info, sha256)

    def known_metadata(self, path: Path, info: os.stat_result) -> dict[str, Any] | None:
        """What :meth:`remember_metadata` kept of the metadata file ``path`` when its ``stat`` showed the same
        ``st_size``, ``st_mtime_ns`` and ``st_ino`` as ``info`` (then remembered for this build), else None."""
        fields = self._known("metadata", str(path), info)
        if not isinstance(fields, dict):
            self._seen["metadata"].pop(str(path), None)
            return None
        return fields

    def remember_metadata(self, path: Path, info: os.stat_result, fields: dict[str, Any]) -> None:
        """Note that the metadata file ``path``, with that ``stat`` (taken before reading), gave ``fields``
        (:func:`folder.read_metadata`'s)."""
        self._keep("metadata", str(path), info, fields)

    def save_index(self) -> None:
        """Write this build's stat index (atomically; a failure is a ``CACHE_ENTRY_UNWRITABLE`` note, unless
        entries of this build already had one: the next build reads every file). Nothing when disabled, nothing
        was read, or it would hold what the last one holds."""
        if self.folder is None or not (any(self._seen.values()) or (self.folder / STAT_INDEX).exists()):
            return
        old = self._load_index()
        if not self._changed and all(len(self._seen[k]) == len(old[k]) for k in _INDEX_SECTIONS):
            return  # every item of this build's index is one of the last's, and there are as many: the same index
        body = json.dumps(self._seen, sort_keys=True).encode("utf-8")
        header = json.dumps({"format": STAT_INDEX_FORMAT, "sha256": hashlib.sha256(body).hexdigest()}).encode()
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            write_atomically(self.folder / STAT_INDEX, lambda tmp: Path(tmp).write_bytes(header + b"\n" + body),
                             durable=False, replace_special=True)
        except OSError as err:
            if self.unwritable:  # the same fault (a full disk, a read-only folder) is noted already
                return
            self.notes.append(note("CACHE_ENTRY_UNWRITABLE", f"{STAT_INDEX}: the stat index cannot be written "
                                   f"({err.strerror or err}); the next build reads every submission"))

    def _count(self, code: str) -> int:
        return sum(n["code"] == code for n in self.notes)

    @property
    def corrupt(self) -> int:
        """How many unusable entries were met (each was scored again)."""
        return self._count("CACHE_ENTRY_CORRUPT")

    @property
    def unwritable(self) -> int:
        """How many entries could not be written (those submissions will be scored again next time)."""
        return self._count("CACHE_ENTRY_UNWRITABLE")

    @property
    def empty(self) -> bool:
        """True when no entry can be found (disabled, or no entry file yet)."""
        return self.folder is None or not self.folder.is_dir() or next(self.folder.glob("*.json"), None) is None

    def get(self, key: str, submission_sha256: str, shape: dict[str, dict[str, int]],
            label: str = "", lazy: bool = False) -> Record | None:
        """The cached record of ``key``, or None: absent, disabled, or unusable (not JSON, another key,
        refused by :meth:`record.Record.from_json`), which adds a note naming ``label`` (the submission) and
        the reason. An entry whose file shows the stat the index holds for it is not opened: its record comes from
        the index (:meth:`record.Record.from_summary`). With ``lazy`` the record's ``per_graph`` (most of its
        memory) is not kept: it is read from the entry when first needed (:attr:`record.Record.load_per_graph`).

        Raises (only from a lazy record's ``load_per_graph``):
            DataError: the entry was removed or changed since it was read (by a build using the same cache
                folder for another output folder): build again.
        """
        if self.folder is None:
            return None
        record = self._indexed(key, submission_sha256)
        if record is None:
            record = self._read(key, submission_sha256, shape, label)
            if record is None:
                return None
        self.used.add(key)
        if record.scored:
            if lazy:
                record.per_graph = {}
                record.load_per_graph = lambda: self._per_graph_again(key, submission_sha256, shape, label)
            elif not record.per_graph:
                record.per_graph = self._per_graph_again(key, submission_sha256, shape, label)
        return record

    def _indexed(self, key: str, submission_sha256: str) -> Record | None:
        """The record the index holds for ``key`` when the entry's file shows the stat it had then, else None."""
        if not self._load_index()["entries"]:
            return None
        try:
            info = os.stat(os.path.join(self._folder_text, key + ".json"), follow_symlinks=False)
        except OSError:
            return None
        summary = self._known("entries", key, info) if stat.S_ISREG(info.st_mode) else None
        record = None if summary is None else Record.from_summary(summary, submission_sha256)
        if record is None:
            self._seen["entries"].pop(key, None)
        return record

    def _per_graph_again(self, key: str, submission_sha256: str, shape: dict[str, dict[str, int]],
                         label: str) -> dict[str, dict[str, str]]:
        notes = len(self.notes)
        record = self._read(key, submission_sha256, shape, label, keep=False)
        if record is None or not record.scored:
            del self.notes[notes:]
            raise DataError(f"{label}: the score cache entry {key}.json was removed or changed during the build "
                            "(another build using the same cache folder?): build again")
        return record.per_graph

    def _read(self, key: str, submission_sha256: str, shape: dict[str, dict[str, int]], label: str,
              keep: bool = True) -> Record | None:
        """The record of the entry file of ``key`` (checked: :meth:`record.Record.from_json`), or None; with
        ``keep``, remembered for this build's index under the stat of the file read."""
        if self.folder is None:
            return None
        path = self.folder / f"{key}.json"
        try:  # never blocks on a FIFO nor follows a link: entries are regular files this module wrote
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except FileNotFoundError:
            return None
        except OSError as err:
            return self._corrupt(label, path, f"cannot be opened ({err.strerror or err})")
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            os.close(fd)
            return self._corrupt(label, path, _clear_folder(path))
        try:
            with os.fdopen(fd, "rb") as handle:
                info = os.fstat(handle.fileno())
                if not stat.S_ISREG(info.st_mode):
                    return self._corrupt(label, path, "not a regular file")
                data = json.loads(handle.read().decode("utf-8"))
        except (OSError, UnicodeDecodeError, ValueError, RecursionError) as err:
            return self._corrupt(label, path, f"not readable as UTF-8 JSON ({type(err).__name__})")
        if not isinstance(data, dict) or data.get("key") != key:
            return self._corrupt(label, path, "not an entry of this key")
        try:
            record = Record.from_json(data.get("record"), submission_sha256, shape)
        except ValueError as fault:
            return self._corrupt(label, path, str(fault))
        if keep:
            self._keep("entries", key, info, record.summary())
        return record

    def _corrupt(self, label: str, path: Path, why: str) -> None:
        """Note an unusable entry; returns None (a miss)."""
        self.notes.append(note("CACHE_ENTRY_CORRUPT", f"{label or path.name}: cache entry {path.name} unusable "
                                                      f"({why}); scored again"))
        return None

    def put(self, key: str, record: Record, label: str = "", index: bool = True) -> dict[str, Any] | None:
        """Store ``record`` under ``key`` (:func:`tpugraphs_eval.atomicfile.write_atomically`, not flushed to
        disk: a lost entry is only scored again) and, with ``index``, in this build's stat index (:meth:`adopt`;
        a worker process's cache does not: the build's adopts what the worker wrote). A failure to write is not
        raised (the cache is an optimisation): it adds a ``CACHE_ENTRY_UNWRITABLE`` note naming ``label`` (the
        submission), which is also returned (None when written or the cache is disabled)."""
        if self.folder is None:
            return None
        self.used.add(key)
        path = self.folder / f"{key}.json"
        text = json.dumps({"key": key, "record": record.to_json()}, sort_keys=True)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            write_atomically(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"), durable=False,
                             replace_special=True)  # a FIFO or link in an entry's place is replaced
        except OSError as err:
            self.notes.append(note("CACHE_ENTRY_UNWRITABLE", f"{label or path.name}: cache entry {path.name} cannot "
                                   f"be written ({err.strerror or err}); it will be scored again next time"))
            return self.notes[-1]
        if index:
            self.adopt(key, record)
        return None

    def adopt(self, key: str, record: Record) -> None:
        """Remember in this build's index the entry just written for ``record`` under ``key`` (here or by a
        worker process), under its file's stat now; nothing when it cannot be looked at."""
        if self.folder is None:
            return
        try:
            info = os.stat(self.folder / f"{key}.json", follow_symlinks=False)
        except OSError:
            return
        if stat.S_ISREG(info.st_mode):
            self._keep("entries", key, info, record.summary())

    def prune(self) -> int:
        """Delete the entries (and stale temporary files) this build did not use; returns how many."""
        if self.folder is None or not self.folder.is_dir():
            return 0
        removed = 0
        for path in self.folder.iterdir():
            temporary = path.name.startswith(LEGACY_TEMPORARY_PREFIX) or (
                path.name.startswith(".") and path.name.endswith(TEMPORARY_SUFFIX))
            stale = temporary or (path.suffix == ".json" and path.stem not in self.used)
            if stale and path.is_file():
                path.unlink()
                removed += 1
        return removed
