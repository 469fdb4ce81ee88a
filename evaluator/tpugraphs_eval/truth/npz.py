"""The one reader of ``.npz`` files, on the standard library: :mod:`zipfile` for the archive and
:mod:`numpy.lib.format` for each member's ``.npy`` header; nothing is unpickled. :func:`opened` (the archive),
:func:`read_array` (one member whole), :func:`iter_member_chunks` (one member in row chunks).

A member is checked from the central directory before a byte is inflated (:func:`open_npz`, :func:`check_member`),
then by its ``.npy`` header (:func:`read_header`); the bytes the shape declares must fit in the member, and zipfile
checks the CRC-32 at its end. Every refusal is :class:`Unusable` (a code of :data:`tpugraphs_eval.errors.ERROR_CODES`,
docs/codes.md; the reason without the path: the caller names the file).
"""

from __future__ import annotations

import functools
import io
import math
import os
import zipfile
import zlib
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import BinaryIO

import numpy as np

from ..safeopen import InputRefused, open_regular_file

MAX_NPY_HEADER_BYTES = 10_000
"""Largest ``.npy`` header read: numpy's own default (``max_header_size``); numpy writes about 120 bytes."""
MAX_NPZ_BYTES = 16 << 30
"""Largest ``.npz`` file opened: 16 GiB (the largest real layout graph with its features is well under 1 GB)."""
CHUNK = 1 << 20
"""Uncompressed bytes asked of a member at a time."""
READ_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, EOFError, OSError, ValueError,
               NotImplementedError, RuntimeError, OverflowError, IndexError, KeyError)
"""What :mod:`zipfile`, :mod:`zlib` and numpy raise on a damaged archive (:func:`coded` makes it coded)."""


class Unusable(Exception):
    """A member (or file) that cannot be used: ``args = (code, reason without the path)``."""


def coded(err: Exception) -> Unusable:
    """:class:`Unusable` for what reading an archive raised: ``NPZ_CORRUPT`` for a bad CRC-32, a corrupt deflate
    stream or a member cut short, ``NPZ_UNREADABLE`` for anything else."""
    if isinstance(err, Unusable):
        return err
    text = f"{type(err).__name__}: {err}"
    if text == "BadZipFile: File is not a zip file":  # zipfile found no end record
        text = "not a zip archive: a corrupt or partial download?"
    if isinstance(err, (EOFError, zlib.error)) or "CRC-32" in str(err):
        return Unusable("NPZ_CORRUPT", f"a member does not decompress ({text})")
    return Unusable("NPZ_UNREADABLE", f"not a readable .npz file ({text})")


def open_npz(handle: BinaryIO) -> tuple[zipfile.ZipFile, dict[str, zipfile.ZipInfo]]:
    """The archive open on ``handle`` and its members by key (the name without ``.npy``).

    Raises:
        Unusable: ``NPZ_UNREADABLE`` (not a zip archive, a malformed directory), ``NPZ_DUPLICATE_MEMBER``.
    """
    try:
        archive = zipfile.ZipFile(handle)
    except READ_ERRORS as err:
        raise coded(err) from None
    infos = archive.infolist()
    keys = [info.filename.removesuffix(".npy") for info in infos]
    members = dict(zip(keys, infos))
    if len(members) < len(keys):
        archive.close()
        twice = sorted(key for key, n in Counter(keys).items() if n > 1)
        raise Unusable("NPZ_DUPLICATE_MEMBER", f"{', '.join(twice)} stored more than once (a zip archive numpy does "
                       "not write: which copy is meant is unknown)")
    return archive, members


def check_member(info: zipfile.ZipInfo, key: str, max_bytes: int | None = None) -> None:
    """Refuse ``key``'s member from its directory entry alone.

    Raises:
        Unusable: ``NPZ_ENCRYPTED``, ``NPZ_UNREADABLE`` (flag bit 5 or 6: patched data, strong encryption),
            ``NPZ_COMPRESSION_UNSUPPORTED`` (not stored or deflate), ``NPZ_MEMBER_TOO_LARGE`` (over ``max_bytes``).
    """
    if info.flag_bits & 0x1:
        raise Unusable("NPZ_ENCRYPTED", f"{key} is encrypted (zip flag bit 0)")
    if info.flag_bits & 0x60:
        raise Unusable("NPZ_UNREADABLE", f"not a readable .npz file ({key} uses zip flag bit "
                       f"{5 if info.flag_bits & 0x20 else 6} (patched data or strong encryption), which is not supported)")
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise Unusable("NPZ_COMPRESSION_UNSUPPORTED", f"{key} uses zip compression method {info.compress_type}, "
                       "not stored (0) or deflate (8)")
    if max_bytes is not None and info.file_size > max_bytes:
        raise Unusable("NPZ_MEMBER_TOO_LARGE", f"{key} declares {info.file_size:,} bytes uncompressed, more than "
                       f"the limit of {max_bytes:,}")


@functools.lru_cache(maxsize=256)
def _parse_header(header: bytes) -> tuple[tuple[int, ...], bool, np.dtype]:
    """numpy's reading of one whole ``.npy`` header (magic to newline), remembered: members often share one (a tile
    graph's runtimes and normalizers), and numpy's reader (``ast.literal_eval``) is most of a small member's read."""
    stream = io.BytesIO(header)
    version = np.lib.format.read_magic(stream)
    reader = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}[version]
    return reader(stream, max_header_size=MAX_NPY_HEADER_BYTES)


def read_header(member: BinaryIO, key: str) -> tuple[tuple[int, ...], bool, np.dtype]:
    """``(shape, fortran_order, dtype)`` of the ``.npy`` stream ``member``, left at its first data byte: format 1.0
    or 2.0, a header of at most :data:`MAX_NPY_HEADER_BYTES` read by numpy (``ast.literal_eval``).

    Raises:
        Unusable: ``NPZ_UNREADABLE`` (also a structured dtype or a negative dimension). What the stream itself
            raises (zipfile's CRC) passes.
    """
    try:
        head = member.read(12)  # magic (6), version (2), header length (2 bytes in 1.0, 4 in 2.0)
        size = 2 if head[6:7] == b"\x01" else 4
        length = int.from_bytes(head[8:8 + size], "little")
        if len(head) < 12 or length > MAX_NPY_HEADER_BYTES:
            raise ValueError("not a .npy header, or one over the size limit")
        shape, fortran, dtype = _parse_header(head + member.read(8 + size + length - len(head)))
        if dtype.names is not None or dtype.subdtype is not None or min(shape, default=0) < 0:
            raise ValueError("a structured dtype or a negative dimension")
    except (ValueError, KeyError, TypeError, SyntaxError, RecursionError):
        raise Unusable("NPZ_UNREADABLE", f"{key} is not a numpy array (.npy format 1.0 or 2.0) member") from None
    return shape, fortran, dtype


def read_array(archive: zipfile.ZipFile, info: zipfile.ZipInfo, key: str, *, vector: bool = False) -> np.ndarray:
    """The array of member ``info`` (read-only), checked by :func:`check_member` first.

    Args:
        vector: refuse anything but a non-empty 1-D integer or float array (``NPZ_ARRAY_INVALID``), before its
            data are read.

    Raises:
        Unusable: ``NPZ_ARRAY_INVALID`` (an object array; with ``vector``: another shape or dtype),
            ``NPZ_MEMBER_TOO_LARGE`` (the header declares more bytes than the member holds), ``NPZ_CORRUPT``,
            ``NPZ_UNREADABLE``.
    """
    try:
        with archive.open(info) as member:
            # a small member in one read of its declared size (read() would ask for its declared compressed size)
            data = member.read(info.file_size) if info.file_size <= CHUNK else None
            stream = member if data is None else io.BytesIO(data)
            shape, fortran, dtype = read_header(stream, key)
            if dtype.hasobject or (vector and (dtype.kind not in "iuf" or len(shape) != 1 or shape[0] == 0)):
                what = "a non-empty 1-D numeric array" if vector else "an array of numbers (no Python objects)"
                raise Unusable("NPZ_ARRAY_INVALID", f"{key} must be {what}, found {dtype} {shape}")
            at, need = stream.tell(), math.prod(shape) * dtype.itemsize
            if at + need > info.file_size:
                raise Unusable("NPZ_MEMBER_TOO_LARGE", f"{key}'s .npy header declares shape {shape} ({need:,} "
                               f"bytes), more than the {info.file_size:,} bytes the member holds")
            if data is None:  # a large member: into one buffer of its size, then to its end (the CRC-32)
                data, at = bytearray(need), 0
                _fill(member, memoryview(data), key)
                while member.read(CHUNK):
                    pass
            elif len(data) < at + need:
                raise Unusable("NPZ_CORRUPT", f"{key} ends after {len(data) - at:,} of its {need:,} data bytes")
    except READ_ERRORS as err:
        raise coded(err) from None
    array = np.frombuffer(data, dtype=dtype, count=math.prod(shape), offset=at).reshape(shape, order="F" if fortran else "C")
    array.flags.writeable = False
    return array


def _fill(member: BinaryIO, target: memoryview, key: str) -> None:
    """Fill ``target`` from ``member``, :data:`CHUNK` bytes at a time (no second copy of a large member)."""
    done = 0
    while done < len(target):
        piece = member.read(min(CHUNK, len(target) - done))
        if not piece:
            raise Unusable("NPZ_CORRUPT", f"{key} ends after {done:,} of its {len(target):,} data bytes")
        target[done:done + len(piece)] = piece
        done += len(piece)


def open_source(path: str | os.PathLike[str]) -> BinaryIO:
    """The file at ``path``, opened by :func:`~tpugraphs_eval.safeopen.open_regular_file` (a FIFO or device is
    refused unread); a file of at most :data:`CHUNK` bytes is read at once and returned in memory (closed on disk).

    Raises:
        Unusable: ``INPUT_NOT_A_FILE`` (not a regular file), ``NPZ_UNREADABLE`` (missing, unreadable, over
            :data:`MAX_NPZ_BYTES`).
    """
    try:
        handle = open_regular_file(path, MAX_NPZ_BYTES)
    except InputRefused as refused:
        raise Unusable("INPUT_NOT_A_FILE" if refused.kind == "not_a_file" else "NPZ_UNREADABLE",
                       refused.reason) from None
    try:
        if (size := os.fstat(handle.fileno()).st_size) > CHUNK:
            return handle  # the caller closes it
        with handle:
            return io.BytesIO(handle.read(size))
    except OSError as err:
        handle.close()
        raise coded(err) from None


@contextmanager
def opened(path: str | os.PathLike[str]) -> Iterator[tuple[zipfile.ZipFile, dict[str, zipfile.ZipInfo]]]:
    """The archive at ``path`` (:func:`open_source`) and its members by key (:func:`open_npz`), closed on exit.

    Raises:
        Unusable: as :func:`open_source` and :func:`open_npz`.
    """
    with open_source(path) as source:
        archive, members = open_npz(source)
        with archive:
            yield archive, members


def iter_member_chunks(path: str | os.PathLike[str], key: str, rows_per_chunk: int) -> Iterator[tuple[int, np.ndarray]]:
    """Yield ``(start, rows)``: rows ``start`` to ``start + k`` (``k <= rows_per_chunk``) of member ``key`` of
    the ``.npz`` at ``path``, shape ``(k, *shape[1:])``: memory for one chunk, whatever the member's size. A 0-d
    array or one stored in Fortran order is read whole, then sliced.

    Raises:
        Unusable: ``NPZ_KEY_MISSING`` (no member ``key``), as :func:`opened`, :func:`check_member` and
            :func:`read_array`.
    """
    with opened(path) as (archive, members):
        if key not in members:
            raise Unusable("NPZ_KEY_MISSING", f"no {key} (keys: {', '.join(members)})")
        info, rows = members[key], max(1, rows_per_chunk)
        check_member(info, key)
        try:
            with archive.open(info) as member:
                shape, fortran, dtype = read_header(member, key)
                if shape and not fortran and not dtype.hasobject:
                    row_bytes = math.prod(shape[1:]) * dtype.itemsize
                    if member.tell() + shape[0] * row_bytes > info.file_size:
                        raise Unusable("NPZ_MEMBER_TOO_LARGE", f"{key}'s .npy header declares shape {shape}, more "
                                       f"than the {info.file_size:,} bytes the member holds")
                    for start in range(0, shape[0], rows):
                        count = min(rows, shape[0] - start)
                        buffer = bytearray(count * row_bytes)
                        _fill(member, memoryview(buffer), key)
                        yield start, np.frombuffer(buffer, dtype=dtype).reshape((count, *shape[1:]))
                    while member.read(CHUNK):  # to the member's end, where zipfile checks its CRC-32
                        pass
                    return
        except READ_ERRORS as err:
            raise coded(err) from None
        whole = read_array(archive, info, key)
        for start in range(0, max(len(whole), 1) if whole.ndim else 1, rows):
            yield start, whole[start:start + rows] if whole.ndim else whole
