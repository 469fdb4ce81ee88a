"""The score cache: a scored submission is not scored again while its bytes, the solution and the options stay.

One JSON file per scored submission in the cache folder (default ``OUT/.cache/``), named by the sha256
of its key (:func:`cache_key`): the cache format, the submission's sha256, the solution's digest
(:func:`solution_digest`: every runtime and normalizer, every graph's Public/Private usage and the whole
manifest, so a solution rebuilt with another seed or public fraction shares no entry with the old one),
the package version and its source code (:func:`tpugraphs_eval.source_digest.source_digest`: a code change
under the same version reuses nothing) and every scoring option. The file holds ``{"key": ..., "record": ...}``, the
record of :func:`scorer.record_of`. An entry that cannot be used (unreadable, truncated JSON, another
key, a record of the wrong shape or types: :func:`record_fault`; a folder, removed when empty, else left
and named in the note) is a miss: the submission is scored again, the entry rewritten, and a
``CACHE_ENTRY_CORRUPT`` note kept (:attr:`ScoreCache.notes`). After a
successful build the folder holds exactly the entries of that build (:meth:`ScoreCache.prune`).
"""

from __future__ import annotations

import base64
import binascii
import errno
import hashlib
import json
import math
import os
import stat
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from .._version import __version__
from ..source_digest import source_digest
from ..truth.groundtruth import GroundTruth
from .codes import note

CACHE_FORMAT = 2
"""2: keyed by :func:`solution_digest` (1 was keyed by the runtimes' sha256 alone, blind to the usage)."""
BOARDS = ("public", "private")
"""The leaderboards whose per-graph values a scored record holds."""


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
    key = {"format": CACHE_FORMAT, "submission": submission_sha256, "solution": solution,
           "version": __version__, "code": source_digest(), "options": options}
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()


def board_shape(truth: GroundTruth) -> dict[str, dict[str, int]]:
    """Board → collection → number of that board's graphs: the length of a record's per-graph arrays."""
    return {board: {name: int(t.public.sum() if board == "public" else (~t.public).sum())
                    for name, t in truth.collections.items()} for board in BOARDS}


def _number(value: object) -> bool:
    """A finite JSON number or null (what a score is: None when undefined)."""
    return value is None or (isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value))


def _scores_fault(boards: object, collections: dict[str, int]) -> str | None:
    if not isinstance(boards, dict) or set(boards) != {*BOARDS, "all"}:
        return "`boards` must map public, private and all"
    for board, scores in boards.items():
        if not isinstance(scores, dict) or not _number(scores.get("overall")) or not isinstance(
                scores.get("collections"), dict):
            return f"`boards.{board}` must hold a numeric `overall` and `collections`"
        values = scores["collections"]
        if not set(values) <= set(collections) or not all(_number(v) for v in values.values()):
            return f"`boards.{board}.collections` must map known collections to numbers"
    return None


def _per_graph_fault(per_graph: object, shape: dict[str, dict[str, int]]) -> str | None:
    if not isinstance(per_graph, dict) or set(per_graph) != set(BOARDS):
        return "`per_graph` must map public and private"
    for board in BOARDS:
        arrays = per_graph[board]
        if not isinstance(arrays, dict) or set(arrays) != set(shape[board]):
            return f"`per_graph.{board}` must map every collection of the solution"
        for name, text in arrays.items():
            try:
                size = len(base64.b64decode(text, validate=True)) if isinstance(text, str) else -1
            except (binascii.Error, ValueError):
                size = -1
            if size != 8 * shape[board][name]:
                return f"`per_graph.{board}.{name}` is not {shape[board][name]} base64 float64 values"
    return None


def record_fault(record: object, submission_sha256: str, shape: dict[str, dict[str, int]]) -> str | None:
    """Why ``record`` cannot be the record of the submission with that sha256, or None when it can.

    Checks the shape and types :func:`scorer.record_of` writes: ``status`` (``scored``/``invalid``),
    ``sha256`` (equal to ``submission_sha256``), integer ``n_rows``/``n_errors``, ``problem_counts`` (code →
    int), ``problems`` (objects with a string ``code`` and ``message``) and, when scored, ``boards``
    (finite numbers or null) and ``per_graph`` (base64 float64 arrays of the lengths in ``shape``:
    :func:`board_shape`).
    """
    if not isinstance(record, dict):
        return f"the record is {type(record).__name__}, not an object"
    if record.get("status") not in ("scored", "invalid"):
        return "`status` is neither scored nor invalid"
    if record.get("sha256") != submission_sha256:
        return "`sha256` is not the submission's"
    if not all(isinstance(record.get(k), int) and not isinstance(record.get(k), bool) for k in ("n_rows", "n_errors")):
        return "`n_rows` and `n_errors` must be integers"
    counts = record.get("problem_counts")
    if not isinstance(counts, dict) or not all(isinstance(v, int) and not isinstance(v, bool) for v in counts.values()):
        return "`problem_counts` must map codes to integers"
    problems = record.get("problems")
    if not isinstance(problems, list) or not all(isinstance(p, dict) and isinstance(p.get("code"), str)
                                                 and isinstance(p.get("message"), str) for p in problems):
        return "`problems` must be a list of objects with a code and a message"
    if record["status"] == "invalid":
        return None
    return _scores_fault(record.get("boards"), shape["public"]) or _per_graph_fault(record.get("per_graph"), shape)


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
        notes: one ``CACHE_ENTRY_CORRUPT`` note (:func:`codes.note`) per unusable entry met.
        unwritable: entries that could not be written (the build goes on without them).
    """

    def __init__(self, folder: Path | None) -> None:
        self.folder = None if folder is None else Path(folder)
        self.used: set[str] = set()
        self.notes: list[dict[str, Any]] = []
        self.unwritable = 0

    @property
    def corrupt(self) -> int:
        """How many unusable entries were met (each was scored again)."""
        return len(self.notes)

    @property
    def empty(self) -> bool:
        """True when no entry can be found (disabled, or no entry file yet)."""
        return self.folder is None or not self.folder.is_dir() or next(self.folder.glob("*.json"), None) is None

    def get(self, key: str, submission_sha256: str, shape: dict[str, dict[str, int]],
            label: str = "") -> dict[str, Any] | None:
        """The cached record of ``key``, or None: absent, disabled, or unusable (not JSON, another key,
        :func:`record_fault`), which adds a note naming ``label`` (the submission) and the reason."""
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
                if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                    return self._corrupt(label, path, "not a regular file")
                data = json.loads(handle.read().decode("utf-8"))
        except (OSError, UnicodeDecodeError, ValueError, RecursionError) as err:
            return self._corrupt(label, path, f"not readable as UTF-8 JSON ({type(err).__name__})")
        if not isinstance(data, dict) or data.get("key") != key:
            return self._corrupt(label, path, "not an entry of this key")
        fault = record_fault(data.get("record"), submission_sha256, shape)
        if fault:
            return self._corrupt(label, path, fault)
        self.used.add(key)
        return data["record"]

    def _corrupt(self, label: str, path: Path, why: str) -> None:
        """Note an unusable entry; returns None (a miss)."""
        self.notes.append(note("CACHE_ENTRY_CORRUPT", f"{label or path.name}: cache entry {path.name} unusable "
                                                      f"({why}); scored again"))
        return None

    def put(self, key: str, record: dict[str, Any]) -> None:
        """Store ``record`` under ``key`` (written to a temporary file, then renamed); a failure to write is
        counted in :attr:`unwritable`, not raised."""
        if self.folder is None:
            return
        self.used.add(key)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".entry.", suffix=".tmp", dir=self.folder)
        except OSError:
            self.unwritable += 1  # the cache is an optimisation: the build goes on without it
            return
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump({"key": key, "record": record}, handle, sort_keys=True)
            os.replace(tmp, self.folder / f"{key}.json")
        except OSError:
            self.unwritable += 1
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)

    def prune(self) -> int:
        """Delete the entries (and stale temporary files) this build did not use; returns how many."""
        if self.folder is None or not self.folder.is_dir():
            return 0
        removed = 0
        for path in self.folder.iterdir():
            stale = path.name.startswith(".entry.") or (path.suffix == ".json" and path.stem not in self.used)
            if stale and path.is_file():
                path.unlink()
                removed += 1
        return removed
