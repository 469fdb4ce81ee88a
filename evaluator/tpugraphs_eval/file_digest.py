"""The hex digest of a file's bytes, read in blocks (``hashlib.file_digest``): the source-file hashes of
``prepare``, a predictions file's sha256, the MD5s of an MLE-bench ``checksums.yaml``."""

from __future__ import annotations

import hashlib
import os


def file_hexdigest(path: str | os.PathLike[str], algorithm: str = "sha256") -> str:
    """The ``algorithm`` (a :mod:`hashlib` name) hex digest of the file at ``path``; raises OSError as ``open``."""
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, algorithm).hexdigest()
