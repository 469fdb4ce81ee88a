"""The score cache: a scored submission is not scored again while its bytes, the solution and the options stay.

One JSON file per scored submission in the cache folder (default ``OUT/.cache/``), named by the sha256
of its key: (cache format, submission sha256, the solution's ``ground_truth_sha256``, evaluator
version, options). The file holds the submission's record (:func:`scorer.record_of`). An unreadable or
inconsistent cache file is treated as a miss and rewritten. After a successful build the folder holds
exactly the entries of that build (:meth:`ScoreCache.prune`).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from .._version import __version__

CACHE_FORMAT = 1


def cache_key(submission_sha256: str, ground_truth_sha256: str, options: dict[str, Any]) -> str:
    """The hex sha256 naming a record: everything a score depends on."""
    key = {"format": CACHE_FORMAT, "submission": submission_sha256, "ground_truth": ground_truth_sha256,
           "evaluator": __version__, "options": options}
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()


class ScoreCache:
    """Records by key, in a folder (created on first write); ``folder=None`` disables caching."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = None if folder is None else Path(folder)
        self.used: set[str] = set()
        self.corrupt = 0
        self.unwritable = 0

    @property
    def empty(self) -> bool:
        """True when no entry can be found (disabled, or no entry file yet)."""
        return self.folder is None or not self.folder.is_dir() or next(self.folder.glob("*.json"), None) is None

    def get(self, key: str) -> dict[str, Any] | None:
        """The cached record of ``key``, or None (absent, disabled, or unreadable: counted in :attr:`corrupt`)."""
        if self.folder is None:
            return None
        path = self.folder / f"{key}.json"
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            self.corrupt += 1
            return None
        if not isinstance(data, dict) or data.get("key") != key or not isinstance(data.get("record"), dict):
            self.corrupt += 1
            return None
        self.used.add(key)
        return data["record"]

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
