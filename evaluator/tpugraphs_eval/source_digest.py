"""A digest of the package's own source code, for keys that must change whenever the code does.

The version string changes at a release; during development (an editable install, a checkout between
releases) the code can change under the same version. The leaderboard's score cache
(:func:`tpugraphs_eval.leaderboard.cache.cache_key`) keys on this digest as well as on the version, so a
record scored by other code (another message, another metric detail) is never reused.
"""

from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent


@functools.cache
def source_digest() -> str:
    """The hex sha256 of every ``.py`` and ``.c`` file of the package (relative path and bytes, in path order).

    Computed once per process (about 110 files: a few milliseconds). An installation that holds no source
    file (compiled files only) gives the digest of nothing, so the version alone then tells code apart.
    """
    digest = hashlib.sha256()
    for relative, _ in source_files():
        data = (PACKAGE / relative).read_bytes()
        digest.update(f"{relative}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def source_files() -> list[tuple[str, os.stat_result]]:
    """Every ``.py`` and ``.c`` file under the package: its path relative to the package (``/``-separated) and its
    ``stat`` (one call each), in :class:`~pathlib.Path` order (by path components). ``__pycache__`` folders
    (compiled files only) are not entered: listing them cost more than hashing the sources.

    Raises:
        OSError: a folder or file of the package cannot be listed or stat'ed.
    """
    found: list[tuple[list[str], os.stat_result]] = []
    folders: list[tuple[str, list[str]]] = [(str(PACKAGE), [])]
    while folders:
        folder, parts = folders.pop()
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name != "__pycache__":
                        folders.append((entry.path, [*parts, entry.name]))
                elif entry.name.endswith((".py", ".c")) and entry.is_file():
                    found.append(([*parts, entry.name], entry.stat()))
    found.sort(key=lambda item: item[0])
    return [("/".join(parts), st) for parts, st in found]
