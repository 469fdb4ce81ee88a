"""Hashes of a graph's feature rows (``node_config_feat``, layout: (c, nc, 18) float32, several GB for a large graph;
``config_feat``, tile: (c, 24)), read :data:`ROWS_PER_CHUNK` configurations at a time (:func:`.npz.iter_member_chunks`):
memory for one chunk whatever the member's size."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from ..errors import DataError
from .npz import Unusable, iter_member_chunks

ROWS_PER_CHUNK = 16
"""Configurations read at a time: 17 MB for a layout graph of 15,000 configurable nodes (1.08 MB a row)."""
FEATURE_KEYS = {"layout": "node_config_feat", "tile": "config_feat"}
"""The member whose per-configuration rows are a graph's configuration features."""


def feature_row_hashes(path: Path, key: str) -> list[bytes]:
    """One 16-byte BLAKE2b digest per configuration of member ``key`` (an array, configuration first).

    Raises:
        DataError: the member cannot be read (the code of :mod:`.npz`'s refusal: ``NPZ_KEY_MISSING``,
            ``NPZ_CORRUPT``, ...); the message names the file.
    """
    try:
        return [hashlib.blake2b(np.ascontiguousarray(row), digest_size=16).digest()
                for _, rows in iter_member_chunks(path, key, ROWS_PER_CHUNK) for row in rows]
    except Unusable as err:
        raise DataError(f"{path}: cannot read the feature rows of {key}: {err.args[1]}", code=err.args[0]) from None
