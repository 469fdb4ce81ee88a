"""The leaderboard store: one SQLite file (:data:`STORE_FILE`) in the cache folder, what a build keeps for the next.

Its tables, keys, checksums, transaction and what happens to a damaged or foreign file: docs/leaderboard.md,
"The store" (and "Warm rebuilds", "Bootstrap rows"). ``records`` holds a submission's :class:`record.Record` under
:func:`record_keyer`, ``files`` and ``metadata`` what a file gave under its stat (:func:`_stat_text`), ``bootstrap``
a final submission's (B,) resampled overalls (little-endian float64) under :func:`row_key`; every row carries its
:func:`checksum`, checked whenever it is read.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import sqlite3
import stat
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .._version import __version__
from ..errors import DataError
from ..source_digest import source_digest
from ..truth.groundtruth import GroundTruth
from .codes import BuildLocked, note
from .record import Record

STORE_FILE = "leaderboard.sqlite"
"""The store's file name in the cache folder."""
SET_ASIDE = ".set-aside"
"""Suffix of an unusable store's new name (one kept; an older one is replaced)."""
SCHEMA_VERSION = 1
"""``PRAGMA user_version`` of a store of this schema; a change of the tables or of a row's bytes must bump it."""
APPLICATION_ID = 0x54504C42
"""``PRAGMA application_id`` of a store ("TPLB")."""
_TABLES = {"records": "key TEXT PRIMARY KEY, record TEXT NOT NULL, per_graph TEXT",
           "files": "key TEXT PRIMARY KEY, stat TEXT NOT NULL, value TEXT NOT NULL",
           "metadata": "key TEXT PRIMARY KEY, stat TEXT NOT NULL, value TEXT NOT NULL",
           "bootstrap": "key TEXT PRIMARY KEY, row BLOB NOT NULL"}


def _path_key(path: Path) -> str:
    """A path as the store's text key: itself, but for the bytes of a name that is not UTF-8 (a team folder made on
    another system), written ``\\xNN`` (a key SQLite can store; two files whose keys agree still differ by inode)."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def checksum(*parts: str | bytes | None) -> bytes:
    """BLAKE2b-128 of ``parts`` (each text as UTF-8, None as nothing), each followed by a NUL and its length."""
    digest = hashlib.blake2b(digest_size=16)
    for part in parts:
        data = b"" if part is None else part.encode() if isinstance(part, str) else part
        digest.update(data + b"\0" + str(len(data)).encode())
    return digest.digest()


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


def record_keyer(solution: str, options: dict[str, Any]) -> Callable[[str], str]:
    """The function naming a record by its submission's sha256: the hex sha256 of that sha256 beside the schema
    version, the solution's :func:`solution_digest`, the package version, the digest of its source code and the
    options (``Options.to_dict()``)."""
    context = json.dumps({"schema": SCHEMA_VERSION, "solution": solution, "version": __version__,
                          "code": source_digest(), "options": options}, sort_keys=True)
    return lambda submission_sha256: hashlib.sha256(f"{context}\0{submission_sha256}".encode()).hexdigest()


def row_key(key: str, board: str, resamples: int, seed: int) -> str:
    """The hex sha256 naming a final submission's resampled overalls: its :func:`record_keyer`, the leaderboard, the
    number of resamples B and the seed (the draws are a function of those and of the solution's graph counts)."""
    return hashlib.sha256(f"{key}\0{board}\0{resamples}\0{seed}".encode()).hexdigest()


def _stat_text(info: os.stat_result) -> str:
    return f"{info.st_size}:{info.st_mtime_ns}:{info.st_ino}"


def _problem(db: sqlite3.Connection) -> str | None:
    """Why the open database ``db`` is not a usable store (None: it is one, or it is new and empty)."""
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")}
    version, app = db.execute("PRAGMA user_version").fetchone()[0], db.execute("PRAGMA application_id").fetchone()[0]
    if not tables and version == 0 and app == 0:
        return None
    if app != APPLICATION_ID:
        return "an SQLite database, but not a leaderboard store"
    if version != SCHEMA_VERSION or tables != set(_TABLES):
        return f"a store of schema {version}, not {SCHEMA_VERSION}"
    damage = [row[0] for row in db.execute("PRAGMA quick_check")]
    return None if damage == ["ok"] else f"damaged ({'; '.join(damage[:2])})"


class Store:
    """The store of ``folder`` (None: nothing kept), opened at first use and held in one transaction until
    :meth:`close`.

    Attributes:
        notes: ``CACHE_SET_ASIDE``, ``CACHE_ENTRY_CORRUPT`` (one per damaged row) and ``CACHE_ENTRY_UNWRITABLE``
            notes (:func:`codes.note`), printed by the build.

    Raises (at first use):
        codes.BuildLocked: another build holds the store.
    """

    def __init__(self, folder: Path | None) -> None:
        self.notes: list[dict[str, Any]] = []
        self.used: dict[str, set[str]] = {table: set() for table in _TABLES}
        self.db: sqlite3.Connection | None = None
        self.writable = False
        self.path = None if folder is None else Path(folder) / STORE_FILE
        self._opened = folder is None
        self._fields: dict[str, Any] | None = None

    def _ready(self) -> sqlite3.Connection | None:
        """The open store (opened now at first use), or None (none, or it cannot be opened: a note)."""
        if not self._opened:
            self._opened = True
            try:
                self._open()
            except (sqlite3.Error, OSError) as err:
                if self.db is not None:
                    self.db.close()
                self.db = None
                self._unwritable(err)
        return self.db

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, isolation_level=None, timeout=0, check_same_thread=False)
        try:
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as err:
            db.close()
            if getattr(err, "sqlite_errorname", "").startswith("SQLITE_BUSY"):
                raise BuildLocked(f"another build is using the store {self.path}: wait for it to finish, or give "
                                  "this build another --cache-dir. Nothing was written.") from None
            raise
        return db

    def _open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        info = os.lstat(self.path) if os.path.lexists(self.path) else None
        why = None if info is None or stat.S_ISREG(info.st_mode) else "not a regular file"
        if why is None:
            try:
                self.db = self._connect()
                why = _problem(self.db)
            except sqlite3.DatabaseError as err:
                why = f"not a readable SQLite database ({err})"
            if why is not None and self.db is not None:
                self.db.close()
        if why is not None:
            self._set_aside(why)
            self.db = self._connect()
        if not {row[0] for row in self.db.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")}:
            for table, columns in _TABLES.items():
                self.db.execute(f"CREATE TABLE {table} ({columns}, checksum BLOB NOT NULL) WITHOUT ROWID")
            self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            self.db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        self.db.text_factory = bytes  # rows' text read as bytes: a damaged one fails its checksum, never the decoding
        self.writable = True

    def _set_aside(self, why: str) -> None:
        aside = self.path.with_name(self.path.name + SET_ASIDE)
        for suffix in ("", "-journal"):
            older = f"{aside}{suffix}"  # removed first: os.replace cannot replace a folder, nor put one over a file
            if os.path.lexists(f"{self.path}{suffix}"):
                if os.path.isdir(older) and not os.path.islink(older):
                    shutil.rmtree(older)
                elif os.path.lexists(older):
                    os.unlink(older)
                os.replace(f"{self.path}{suffix}", older)
        self.notes.append(note("CACHE_SET_ASIDE", f"{self.path}: {why}; set aside as {aside.name}, a new store is "
                                                  "made and every submission is scored again"))

    def _unwritable(self, err: BaseException) -> None:
        """Note (once) that the store cannot be written; this build's rows are dropped, the rows read stay usable."""
        if self.writable and self.db is not None:
            self.db.execute("ROLLBACK")
        self.writable = False
        if not any(n["code"] == "CACHE_ENTRY_UNWRITABLE" for n in self.notes):
            self.notes.append(note("CACHE_ENTRY_UNWRITABLE", f"{self.path}: the store cannot be written "
                                   f"({getattr(err, 'strerror', None) or err}); the next build scores again what "
                                   "this one scored"))

    def _row(self, table: str, columns: str, key: str, label: str) -> tuple | None:
        """The row of ``key`` in ``table`` (``columns``, then its checksum) when its checksum holds, else None: none,
        or damaged (deleted, and a ``CACHE_ENTRY_CORRUPT`` note naming ``label``: it is read or scored again)."""
        row = self._select(f"SELECT {columns}, checksum FROM {table} WHERE key = ?", key)
        if row is None or row[-1] == checksum(key, *row[:-1]):
            return row
        if self.writable:
            self.db.execute(f"DELETE FROM {table} WHERE key = ?", (key,))
        self.notes.append(note("CACHE_ENTRY_CORRUPT", f"{label}: its row in the store's {table} table fails its "
                                                      "checksum (damaged); not used, read and scored again"))
        return None

    def _select(self, sql: str, *params: str) -> tuple | None:
        """The first row of ``sql``, or None: none, no store, or a store this build could not write (its new tables
        rolled back) or that fails to read (a damaged page: the row is scored again)."""
        with contextlib.suppress(sqlite3.Error):
            return self._ready() and self.db.execute(sql, params).fetchone()
        return None

    def _write(self, table: str, key: str, *values: str | bytes | None) -> None:
        self.used[table].add(key)
        if self._ready() is None or not self.writable:
            return
        try:
            self.db.execute(f"INSERT OR REPLACE INTO {table} VALUES ({', '.join('?' * (len(values) + 2))})",
                            (key, *values, checksum(key, *values)))
        except sqlite3.Error as err:
            self._unwritable(err)

    @property
    def empty(self) -> bool:
        """True when no record can be found (disabled, or none stored)."""
        return self._select("SELECT 1 FROM records LIMIT 1") is None

    def known(self, table: str, path: Path, info: os.stat_result) -> str | None:
        """What :meth:`remember` kept in ``table`` (``files``: a submission's sha256; ``metadata``: a metadata file's
        fields as JSON) for ``path`` when its ``stat`` then showed the same ``st_size``, ``st_mtime_ns`` and
        ``st_ino`` as ``info`` (then kept for this build), else None (read the file)."""
        key = _path_key(path)
        row = self._row(table, "stat, value", key, key)
        if row is None or row[0] != _stat_text(info).encode():
            return None
        self.used[table].add(key)
        return row[1].decode()

    def remember(self, table: str, path: Path, info: os.stat_result, value: str) -> None:
        """Keep in ``table`` what ``path``, with that ``stat`` (taken before reading), gave: ``value``."""
        self._write(table, _path_key(path), _stat_text(info), value)

    def _all_fields(self) -> dict[str, Any]:
        """Key → the fields of every stored record whose checksum holds (None: it fails), read at first use in one
        pass and decoded by one ``json.loads``, so that the records share their field names' strings."""
        if self._fields is None:
            self._fields, texts = {}, []
            with contextlib.suppress(sqlite3.Error):  # a store this build could not write (its new tables rolled back)
                rows = self._ready() and self.db.execute("SELECT key, record, per_graph, checksum FROM records")
                for key, record, per_graph, check in rows or ():
                    good = check == checksum(key, record, per_graph)
                    self._fields[key.decode("utf-8", "replace")] = len(texts) if good else None
                    texts += [record] if good else []
            decoded = json.loads(b"[" + b",".join(texts) + b"]")
            self._fields = {k: None if i is None else decoded[i] for k, i in self._fields.items()}
        return self._fields

    def get(self, key: str, label: str) -> Record | None:
        """The record stored under ``key`` (:func:`record_keyer`), without its per-graph values (read when first needed:
        :attr:`record.Record.load_per_graph`), or None: none, or damaged (deleted, and a ``CACHE_ENTRY_CORRUPT`` note
        naming ``label``, the submission: it is scored again). Records of equal keys share their fields.

        Raises (only from the record's ``load_per_graph``):
            DataError: the row changed during the build (it cannot while this build holds the store): build again.
        """
        fields = self._all_fields().get(key, False)
        if fields is None:
            self._row("records", "record, per_graph", key, label)  # (deletes it, with the note)
            self._fields.pop(key)
        if not fields:
            return None
        self.used["records"].add(key)
        record = Record.from_fields(fields)
        if record.scored:
            record.load_per_graph = lambda: self._per_graph(key, label)
        record.key = key
        return record

    def _per_graph(self, key: str, label: str) -> dict[str, dict[str, str]]:
        row = self._select("SELECT record, per_graph, checksum FROM records WHERE key = ?", key)
        if row is None or row[1] is None or row[-1] != checksum(key, *row[:-1]):
            raise DataError(f"{label}: its stored record changed during the build: build again")
        return json.loads(row[1])

    def put(self, key: str, record: Record) -> None:
        """Store ``record`` under ``key`` in this build's transaction (a failure: one ``CACHE_ENTRY_UNWRITABLE`` note)."""
        record.key = key
        fields = record.fields()
        self._write("records", key, json.dumps(fields, sort_keys=True),
                    json.dumps(record.per_graph, sort_keys=True) if record.scored else None)
        if self._fields is not None and self.writable:  # found by a later copy of the same bytes in this build
            self._fields[key] = fields

    def row(self, key: str, resamples: int) -> np.ndarray | None:
        """The (B,) resampled overalls stored under ``key`` (:func:`row_key`), or None (none, damaged, not of B)."""
        found = self._row("bootstrap", "row", key, f"resampled overalls {key[:12]}")
        if found is None or len(found[0]) != 8 * resamples:
            return None
        self.used["bootstrap"].add(key)
        return np.frombuffer(found[0], dtype="<f8")

    def keep_row(self, key: str, row: np.ndarray) -> None:
        """Store the (B,) resampled overalls ``row`` under ``key``."""
        self._write("bootstrap", key, np.ascontiguousarray(row, dtype="<f8").tobytes())

    def close(self, prune: bool) -> int:
        """End the build's transaction: with ``prune`` (a finished build) the rows it did not use are deleted; then
        commit (a failure: a ``CACHE_ENTRY_UNWRITABLE`` note) and close. Returns how many records were deleted."""
        pruned = 0
        if self.db is None:
            return pruned
        try:
            if self.writable and prune:
                for table, used in self.used.items():
                    stale = [(k,) for (k,) in self.db.execute(f"SELECT key FROM {table}")
                             if k.decode("utf-8", "replace") not in used]  # (bytes: text_factory)
                    self.db.executemany(f"DELETE FROM {table} WHERE key = CAST(? AS TEXT)", stale)
                    pruned += len(stale) if table == "records" else 0
            if self.writable:
                self.db.execute("COMMIT")
        except sqlite3.Error as err:
            self._unwritable(err)
        finally:
            self.db.close()
            self.db = None
        return pruned
