"""A digest of the package's own source code, for keys that must change whenever the code does, also between
releases (an editable install): the leaderboard's store (:func:`tpugraphs_eval.leaderboard.store.record_keyer`)
keys on it as well as on the version, so a record scored by other code is never reused.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent


@functools.cache
def source_digest() -> str:
    """The hex sha256 of every ``.py`` and ``.c`` file of the package (relative path, size and bytes, in path
    order), ``__pycache__`` left out.

    Computed once per process (about 110 files: a few milliseconds). An installation that holds no source
    file (compiled files only) gives the digest of nothing, so the version alone then tells code apart.
    """
    digest = hashlib.sha256()
    for path in sorted(p for p in PACKAGE.rglob("*") if p.suffix in (".py", ".c") and "__pycache__" not in p.parts
                       and p.is_file()):
        data = path.read_bytes()
        digest.update(f"{path.relative_to(PACKAGE).as_posix()}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()
