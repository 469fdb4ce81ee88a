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

    Computed once per process (about 150 files: a few milliseconds). An installation that holds no source
    file (compiled files only) gives the digest of nothing, so the version alone then tells code apart.
    """
    digest = hashlib.sha256()
    for path in _source_files():
        data = path.read_bytes()
        digest.update(f"{path.relative_to(PACKAGE).as_posix()}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def _source_files() -> list[Path]:
    """Every ``.py`` and ``.c`` file under the package, in :class:`Path` order; ``__pycache__`` folders (compiled
    files only) are not entered: listing them cost more than hashing the sources."""
    files = []
    for folder, subfolders, names in os.walk(PACKAGE):
        subfolders[:] = [name for name in subfolders if name != "__pycache__"]
        files += [Path(folder, name) for name in names if name.endswith((".py", ".c"))]
    return sorted(path for path in files if path.is_file())
