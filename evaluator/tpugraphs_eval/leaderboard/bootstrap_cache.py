"""The bootstrap cache: each final submission's resampled overalls, so a warm build does not draw them again.

A final submission's (B,) overall in each of the B resamples (:func:`uncertainty.resampled_overalls`, row by row the
same bytes whether computed alone or with others) depends on its per-graph values and on the draws only. It is kept
in one file of the score cache's folder (:data:`BOOTSTRAP_FILE`) under the sha256 of (:func:`row_key`) the record's
score cache key (:func:`cache.cache_key`: the submission's sha256, the solution's digest, the package version and
source digest, the options), the leaderboard, the number of resamples B and the seed: the draws are a function of
those (:func:`..scoring.bootstrap.draw_positions` of the board's graph counts). Another seed, B or solution is another
key, never a row of other draws.

File layout: a header line of JSON ``{"format": BOOTSTRAP_FORMAT, "sha256": hex sha256 of everything after the
line}``, then a line of JSON ``{"resamples": B, "keys": [row key, ...]}``, then the rows: len(keys) x B little-endian
float64 (NaN kept). A file that is not of this layout, of another format, or whose contents do not match their
sha256 is a ``CACHE_ENTRY_CORRUPT`` note and every row is computed again; one that cannot be written is a
``CACHE_ENTRY_UNWRITABLE`` note (the build goes on). Written atomically after the bootstrap, only when its rows
changed, with exactly the rows of that build.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

from ..atomicfile import write_atomically
from .cache import read_cache_file
from .codes import note

BOOTSTRAP_FILE = "bootstrap-overalls"
"""The file's name in the cache folder (not ``*.json``: never pruned as an entry)."""
BOOTSTRAP_FORMAT = 1


def row_key(record_key: str, board: str, resamples: int, seed: int) -> str:
    """The hex sha256 naming a final submission's resampled overalls (module docstring)."""
    return hashlib.sha256(f"{record_key}\0{board}\0{resamples}\0{seed}".encode()).hexdigest()


def read_rows(data: bytes) -> tuple[int, list[str], np.ndarray]:
    """``(B, keys, (len(keys), B) float64 rows)`` of a bootstrap cache file's bytes.

    Raises:
        ValueError: not of the layout or format, or contents that do not match their sha256, saying which.
    """
    head, newline, rest = data.partition(b"\n")
    try:
        header = json.loads(head.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ValueError("its first line is not a JSON header") from None
    if not isinstance(header, dict) or header.get("format") != BOOTSTRAP_FORMAT or not newline:
        raise ValueError(f"not a bootstrap cache of format {BOOTSTRAP_FORMAT}")
    if header.get("sha256") != hashlib.sha256(rest).hexdigest():
        raise ValueError("its contents do not match their sha256 (truncated or altered)")
    line, newline, blob = rest.partition(b"\n")
    meta = json.loads(line.decode("utf-8"))
    resamples, keys = (meta.get("resamples"), meta.get("keys")) if isinstance(meta, dict) else (None, None)
    if (not isinstance(resamples, int) or resamples < 1 or not isinstance(keys, list)
            or not all(isinstance(k, str) for k in keys) or len(blob) != 8 * resamples * len(keys)):
        raise ValueError("its rows are not len(keys) x resamples float64 values")
    return resamples, keys, np.frombuffer(blob, dtype="<f8").reshape(len(keys), resamples)


class BootstrapCache:
    """Resampled overalls by :func:`row_key`, in ``folder`` (None: nothing kept).

    Attributes:
        notes: a ``CACHE_ENTRY_CORRUPT`` note when the file was unusable, a ``CACHE_ENTRY_UNWRITABLE`` note when it
            could not be written.
    """

    def __init__(self, folder: Path | None) -> None:
        self.folder = None if folder is None else Path(folder)
        self.notes: list[dict[str, Any]] = []
        self._known: dict[str, np.ndarray] | None = None
        self._used: dict[str, np.ndarray] = {}
        self._changed = False

    def _load(self) -> dict[str, np.ndarray]:
        if self._known is not None:
            return self._known
        self._known = {}
        if self.folder is None:
            return self._known
        try:
            data = read_cache_file(self.folder / BOOTSTRAP_FILE)
            if data is None:
                return self._known
            _, keys, rows = read_rows(data)
        except (OSError, UnicodeDecodeError, ValueError, RecursionError) as err:
            self._corrupt(str(err))
            return self._known
        self._known = dict(zip(keys, rows))
        return self._known

    def _corrupt(self, why: str) -> None:
        self.notes.append(note("CACHE_ENTRY_CORRUPT", f"{BOOTSTRAP_FILE}: the bootstrap cache is unusable ({why}); "
                                                      "every final submission is resampled again"))

    def get(self, key: str, resamples: int) -> np.ndarray | None:
        """The (B,) resampled overalls kept under ``key``, or None (absent, or not of B resamples)."""
        row = self._load().get(key)
        if row is None or row.shape != (resamples,):
            return None
        self._used[key] = row
        return row

    def put(self, key: str, row: np.ndarray) -> None:
        """Keep the (B,) resampled overalls ``row`` under ``key`` for this build's file."""
        self._used[key] = np.ascontiguousarray(row, dtype="<f8")
        self._changed = True

    def save(self) -> None:
        """Write this build's rows (atomically), unless they are those of the file read; a failure is a
        ``CACHE_ENTRY_UNWRITABLE`` note. Nothing when disabled."""
        if self.folder is None:
            return
        known = self._load()
        if not self._changed and len(self._used) == len(known):
            return
        keys = sorted(self._used)
        resamples = {row.size for row in self._used.values()}
        if len(resamples) > 1:  # rows of two bootstraps (a caller's misuse): keep none rather than mix them
            keys = []
        meta = json.dumps({"resamples": resamples.pop() if len(resamples) == 1 else 1, "keys": keys}).encode()
        rest = meta + b"\n" + b"".join(self._used[k].tobytes() for k in keys)
        header = json.dumps({"format": BOOTSTRAP_FORMAT, "sha256": hashlib.sha256(rest).hexdigest()}).encode()
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            write_atomically(self.folder / BOOTSTRAP_FILE, lambda tmp: Path(tmp).write_bytes(header + b"\n" + rest),
                             durable=False, replace_special=True)
        except OSError as err:
            self.notes.append(note("CACHE_ENTRY_UNWRITABLE", f"{BOOTSTRAP_FILE}: the bootstrap cache cannot be "
                                   f"written ({err.strerror or err}); the next build resamples every final submission"))
