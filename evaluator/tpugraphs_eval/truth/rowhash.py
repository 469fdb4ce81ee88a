"""Hashes of a graph's feature rows, read streaming from its ``.npz`` (``zipfile`` + ``numpy.lib.format``).

The features (``node_config_feat``, layout: (c, nc, 18) float32, several GB for a large graph; ``config_feat``,
tile: (c, 24)) are read in blocks of at most :data:`BLOCK_BYTES`: each configuration's slice is contiguous in a
C-order array, so a configuration's row is a run of bytes, hashed (BLAKE2b, 16 bytes) and dropped. Memory stays
bounded whatever the member's size; nothing is unpickled.
"""

from __future__ import annotations

import hashlib
import math
import zipfile
from pathlib import Path

import numpy as np

from ..errors import DataError

BLOCK_BYTES = 8 << 20
"""Bytes of feature rows decompressed and hashed at a time (whole rows; one row when a row is larger)."""
FEATURE_KEYS = {"layout": "node_config_feat", "tile": "config_feat"}
"""The member whose per-configuration rows are a graph's configuration features."""


def feature_row_hashes(path: Path, key: str) -> list[bytes]:
    """One 16-byte BLAKE2b digest per configuration of member ``key`` (a C-order array, configuration first).

    Raises:
        DataError: (``NPZ_UNREADABLE``) not a zip archive, no member ``key``, a header that is not a C-order
            array of plain numbers, or fewer bytes than the header declares; the message names the file.
    """
    try:
        with zipfile.ZipFile(path) as archive, archive.open(f"{key}.npy") as member:
            version = np.lib.format.read_magic(member)
            shape, fortran, dtype = (np.lib.format.read_array_header_1_0 if version[0] == 1
                                     else np.lib.format.read_array_header_2_0)(member)
            if fortran or not shape or dtype.hasobject:
                raise ValueError(f"{key} is not a C-order array of numbers")
            row = dtype.itemsize * math.prod(shape[1:])
            hashes: list[bytes] = []
            while len(hashes) < shape[0]:
                n = min(shape[0] - len(hashes), max(1, BLOCK_BYTES // max(row, 1)))
                block = memoryview(member.read(n * row))
                if len(block) != n * row:
                    raise ValueError(f"{key} ends before its {shape[0]} rows")
                hashes += [hashlib.blake2b(block[i * row:(i + 1) * row], digest_size=16).digest() for i in range(n)]
            return hashes
    except (OSError, KeyError, ValueError, zipfile.BadZipFile) as err:
        raise DataError(f"{path}: cannot read the feature rows of {key} ({err})", code="NPZ_UNREADABLE") from None
