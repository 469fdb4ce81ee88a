"""The members of one ``.npz`` file, read without :mod:`zipfile`: one parse of its zip end record and
central directory, then each requested member's local header, bytes and ``.npy`` header.

The zip format is the one numpy writes (APPNOTE.TXT of PKWARE: end of central directory record, its
zip64 form, central directory file headers, local file headers, the zip64 extended-information extra
field 0x0001); members are stored (method 0) or deflated (method 8). The ``.npy`` header is the format of
``numpy.lib.format`` (NEP 1): magic ``\\x93NUMPY``, version 1.0 (2-byte header length) or 2.0 (4-byte), then a
Python dict literal of exactly the keys ``descr`` (a dtype string), ``fortran_order`` (True or False) and
``shape`` (a tuple of whole numbers), padded with spaces and a newline. It is parsed by a strict grammar
(:func:`parse_npy_header`), never evaluated; anything else is refused.

Every refusal is :class:`Unusable` with a code of :data:`tpugraphs_eval.errors.ERROR_CODES` and a reason
without the path (the caller names the file).
"""

from __future__ import annotations

import re
import struct
import zlib
from typing import BinaryIO, NamedTuple

import numpy as np

STORED, DEFLATED = 0, 8
METHODS = {STORED: "stored", DEFLATED: "deflate"}
MAX_NPY_HEADER_BYTES = 10_000
"""Largest ``.npy`` header read: numpy's own default (``max_header_size``); numpy writes about 120 bytes."""
MAX_DIRECTORY_BYTES = 1 << 20
"""Largest zip central directory read: 1 MiB, over 10,000 members (a real ``.npz`` has fewer than 10)."""
_CHUNK = 1 << 20  # compressed bytes read at a time once a member's first read is exhausted
_FIRST_READ = 1 << 22  # a member of up to 4 MiB compressed is read with its local header, in one read
_TAIL = 4096  # bytes read from the end of the file at first: the end record and a small central directory

_END = struct.Struct("<4s4H2LH")
_END64 = struct.Struct("<4sQ2H2L4Q")
_LOCATOR64 = struct.Struct("<4sLQL")
_CENTRAL = struct.Struct("<4s4B4HL2L5H2L")
_LOCAL = struct.Struct("<4s5H3L2H")
_END_SIG, _END64_SIG, _LOCATOR64_SIG = b"PK\x05\x06", b"PK\x06\x06", b"PK\x06\x07"
_CENTRAL_SIG, _LOCAL_SIG = b"PK\x01\x02", b"PK\x03\x04"
_MAX_COMMENT = 0xFFFF
_NPY_MAGIC = b"\x93NUMPY"


class Unusable(Exception):
    """A member (or file) that cannot be used: ``args = (code, reason without the path)``."""


class NotAZip(Exception):
    """The file has no zip end record: not a zip archive at all."""


class Member(NamedTuple):
    """One central directory entry.

    Attributes:
        name: the member's name (UTF-8 when flag bit 11 is set, else cp437, as :mod:`zipfile` decodes it).
        raw_name: its name as stored (bytes), compared with the local header's.
        flags: the general purpose bit flags (bit 0: encrypted).
        method: the compression method (0 stored, 8 deflate).
        crc: the CRC-32 of the uncompressed bytes.
        compressed_size, size: bytes stored and bytes declared uncompressed.
        offset: where its local header starts in the file (after any bytes prepended to the archive).
    """

    name: str
    raw_name: bytes
    flags: int
    method: int
    crc: int
    compressed_size: int
    size: int
    offset: int


class Directory(NamedTuple):
    """The central directory of one archive: ``members`` by name (the first of each name) and the names
    that occur more than once, in order of their second occurrence."""

    members: dict[str, Member]
    duplicates: list[str]


def _bad(reason: str) -> Unusable:
    return Unusable("NPZ_UNREADABLE", f"not a readable .npz file ({reason})")


def read_directory(handle: BinaryIO, file_size: int) -> Directory:
    """Parse the end record (zip64 too) and the central directory of the archive open as ``handle``.

    Args:
        handle: a binary file open for reading, seekable.
        file_size: its size in bytes (``fstat``).

    Raises:
        NotAZip: no end-of-central-directory record in the last 64 KiB + 22 bytes.
        Unusable: ``NPZ_UNREADABLE``: a multi-disk, truncated or malformed archive, or a central directory
            over :data:`MAX_DIRECTORY_BYTES`.
    """
    tail_size = min(file_size, _TAIL)
    handle.seek(file_size - tail_size)
    tail = handle.read(tail_size)
    tail_start = file_size - tail_size
    at = len(tail) - _END.size
    if at < 0 or tail[at:at + 4] != _END_SIG or tail[-2:] != b"\0\0":  # not the common case: no comment
        if file_size > tail_size:
            tail_size = min(file_size, _TAIL + _END.size + _MAX_COMMENT)
            handle.seek(file_size - tail_size)
            tail, tail_start = handle.read(tail_size), file_size - tail_size
        at = tail.rfind(_END_SIG, 0, max(0, len(tail) - _END.size + 4))
        if at < 0 or at + _END.size > len(tail):
            raise NotAZip
    _, disk, cd_disk, _, count, cd_size, cd_offset, _ = _END.unpack_from(tail, at)
    end_at = tail_start + at
    if disk or cd_disk:
        raise _bad("an archive spanning several disks")
    record_at = end_at
    if count == 0xFFFF or cd_size == 0xFFFFFFFF or cd_offset == 0xFFFFFFFF:
        locator_at = end_at - _LOCATOR64.size
        record_at = locator_at - _END64.size
        if record_at < 0:
            raise _bad("a zip64 end record is missing")
        handle.seek(record_at)
        block = handle.read(_END64.size + _LOCATOR64.size)
        if len(block) != _END64.size + _LOCATOR64.size:
            raise _bad("a zip64 end record is cut off")
        locator = _LOCATOR64.unpack_from(block, _END64.size)
        record = _END64.unpack_from(block, 0)
        if locator[0] != _LOCATOR64_SIG or record[0] != _END64_SIG:
            raise _bad("a zip64 end record is missing")
        if locator[1] or locator[3] > 1 or record[4] or record[5]:
            raise _bad("an archive spanning several disks")
        cd_size, cd_offset = record[8], record[9]
    prepended = record_at - cd_size - cd_offset  # bytes before the archive (zipfile's "concat")
    if prepended < 0:
        raise _bad("the central directory lies outside the file")
    if cd_size > MAX_DIRECTORY_BYTES:
        raise _bad(f"a central directory of {cd_size:,} bytes, more than {MAX_DIRECTORY_BYTES:,}")
    start = prepended + cd_offset
    if start >= tail_start and start + cd_size <= tail_start + len(tail):
        directory = tail[start - tail_start:start - tail_start + cd_size]
    else:
        handle.seek(start)
        directory = handle.read(cd_size)
        if len(directory) != cd_size:
            raise _bad("the central directory is cut off")
    return _parse_directory(directory, prepended)


def _parse_directory(directory: bytes, prepended: int) -> Directory:
    """The entries of a central directory (see :func:`read_directory`)."""
    members: dict[str, Member] = {}
    duplicates: list[str] = []
    pos, end = 0, len(directory)
    while pos < end:
        if pos + _CENTRAL.size > end:
            raise _bad("a central directory entry is cut off")
        entry = _CENTRAL.unpack_from(directory, pos)
        if entry[0] != _CENTRAL_SIG:
            raise _bad("a bad central directory entry signature")
        flags, method, crc, csize, size = entry[5], entry[6], entry[9], entry[10], entry[11]
        name_len, extra_len, comment_len, offset = entry[12], entry[13], entry[14], entry[18]
        name_at = pos + _CENTRAL.size
        pos = name_at + name_len + extra_len + comment_len
        if pos > end:
            raise _bad("a central directory entry is cut off")
        raw_name = directory[name_at:name_at + name_len]
        if size == 0xFFFFFFFF or csize == 0xFFFFFFFF or offset == 0xFFFFFFFF:
            size, csize, offset = _zip64_sizes(directory[name_at + name_len:name_at + name_len + extra_len],
                                               size, csize, offset)
        name = raw_name.decode("utf-8" if flags & 0x800 else "cp437", errors="replace")
        if name in members:
            duplicates.append(name)
            continue
        members[name] = Member(name, raw_name, flags, method, crc, csize, size, offset + prepended)
    return Directory(members, duplicates)


def _zip64_sizes(extra: bytes, size: int, csize: int, offset: int) -> tuple[int, int, int]:
    """The zip64 extended-information field's values for the fields that are 0xFFFFFFFF (APPNOTE 4.5.3)."""
    pos = 0
    while pos + 4 <= len(extra):
        tag, length = struct.unpack_from("<2H", extra, pos)
        if tag == 0x0001:
            values = extra[pos + 4:pos + 4 + length]
            wanted = [v == 0xFFFFFFFF for v in (size, csize, offset)]
            if len(values) < 8 * sum(wanted):
                raise _bad("a zip64 extra field is cut off")
            read = iter(struct.unpack_from(f"<{sum(wanted)}Q", values))
            size, csize, offset = (next(read) if w else v for w, v in zip(wanted, (size, csize, offset)))
            return size, csize, offset
        pos += 4 + length
    raise _bad("a member's zip64 sizes are missing")


class _MemberBytes:
    """The uncompressed bytes of one member, read in order (:meth:`read`), its CRC-32 kept on the way."""

    def __init__(self, handle: BinaryIO, member: Member, first: bytes, left: int) -> None:
        self._handle, self._pending, self._left = handle, memoryview(first), left  # left: compressed, unread
        self._inflate = zlib.decompressobj(-15) if member.method == DEFLATED else None
        self.allowed = member.size  # uncompressed bytes still to come, at most
        self.crc = 0

    def read(self, n: int) -> bytes | memoryview:
        """Up to ``n`` more bytes (fewer only where the member's data ends); a stored member's come as a view
        of the bytes read from the file (no copy).

        Raises:
            zlib.error: a corrupt deflate stream.
        """
        n = min(n, self.allowed)
        parts, got = [], 0
        while got < n:
            if not self._pending:
                if self._left <= 0:
                    break
                self._pending = memoryview(self._handle.read(min(_CHUNK, self._left)))
                self._left -= len(self._pending)
                if not self._pending:
                    self._left = 0
                    break
            if self._inflate is None:
                piece, self._pending = self._pending[:n - got], self._pending[n - got:]
            else:
                piece = self._inflate.decompress(self._pending, n - got)
                self._pending = self._inflate.unconsumed_tail
                if self._inflate.eof:
                    self._pending, self._left = b"", 0
            parts.append(piece)
            got += len(piece)
        data = parts[0] if len(parts) == 1 else b"".join(parts)  # no parts: b""
        self.allowed -= len(data)
        self.crc = zlib.crc32(data, self.crc)
        return data

    def read_into(self, target: memoryview) -> int:
        """Fill ``target`` (a writable byte view) with the next bytes, without an intermediate copy; the count
        written (less than ``len(target)`` only where the member's data ends).

        Raises:
            zlib.error: a corrupt deflate stream.
        """
        done = 0
        want = min(len(target), self.allowed)
        while done < want:
            if self._inflate is None and not self._pending and self._left > 0:  # stored: straight from the file
                got = self._handle.readinto(target[done:done + min(want - done, self._left)])
                if not got:
                    self._left = 0
                    break
                self._left -= got
                self.crc = zlib.crc32(target[done:done + got], self.crc)
                self.allowed -= got
                done += got
                continue
            piece = self.read(min(want - done, _CHUNK))
            if not piece:
                break
            target[done:done + len(piece)] = piece
            done += len(piece)
        return done


def open_member(handle: BinaryIO, member: Member, key: str) -> _MemberBytes:
    """Check ``member``'s local header and return a reader of its uncompressed bytes.

    Raises:
        Unusable: ``NPZ_UNREADABLE`` (a bad local header signature, a name differing from the directory's,
            flag bit 5 or 6), ``NPZ_CORRUPT`` (the member's bytes end before its declared compressed size).
    """
    if member.flags & 0x60:
        raise _bad(f"{key} uses zip flag bit {5 if member.flags & 0x20 else 6} (patched data or strong "
                   "encryption), which is not supported")
    guess = _LOCAL.size + len(member.raw_name) + 64  # numpy's zip64 local extra field is 20 bytes
    want = guess + (member.compressed_size if member.compressed_size <= _FIRST_READ else 0)
    handle.seek(member.offset)
    block = handle.read(want)
    if len(block) < _LOCAL.size or block[:4] != _LOCAL_SIG:
        raise _bad(f"{key}: bad magic number for its local file header")
    name_len, extra_len = struct.unpack_from("<2H", block, 26)
    data_at = _LOCAL.size + name_len + extra_len
    if block[_LOCAL.size:_LOCAL.size + name_len] != member.raw_name:
        raise _bad(f"{key}: file name in the directory and in its local header differ")
    first = block[data_at:data_at + member.compressed_size]
    if len(block) < want and len(first) < member.compressed_size:  # the file ended inside the member
        raise Unusable("NPZ_CORRUPT", f"{key} ends after {len(first):,} of its {member.compressed_size:,} "
                       "compressed bytes")
    if data_at > guess or member.compressed_size > _FIRST_READ:  # a long extra field, or a large member
        handle.seek(member.offset + data_at + len(first))
    return _MemberBytes(handle, member, first, member.compressed_size - len(first))


_WS = r"[ \t\n]*"
_INT = r"(?:0|[1-9][0-9]*)"
_SHAPE = rf"{_WS}(?:{_INT}{_WS},{_WS}(?:{_INT}{_WS}(?:,{_WS}{_INT}{_WS})*,?{_WS})?)?"  # (), (n,), (n, m), (n, m,)
_DESCR = r"[<>|=]?[A-Za-z?][0-9]*(?:\[[A-Za-z0-9]+\])?"  # '<i8', '|O', '<M8[ns]': a dtype string numpy writes
_KEY_VALUE = re.compile(rf"""{_WS}(?P<q>['"])(?P<key>descr|fortran_order|shape)(?P=q){_WS}:{_WS}"""
                        rf"""(?:(?P<sq>['"])(?P<descr>{_DESCR})(?P=sq)|(?P<bool>True|False)|\((?P<shape>{_SHAPE})\)){_WS}""")
_SHAPE_INT = re.compile(_INT)
_CANONICAL = re.compile(rf"\{{'descr': '({_DESCR})', 'fortran_order': False, 'shape': \(({_INT}),\), \}} *\n")
_DTYPES: dict[str, np.dtype] = {}


def parse_npy_header(text: str) -> tuple[np.dtype, tuple[int, ...]]:
    """The dtype and shape of a ``.npy`` header dict (see the module docstring).

    ``fortran_order`` must be True or False; it is otherwise unused (every array read is 1-D, where both
    orders are the same). Keys may come in any order, quoted with ``'`` or ``"``, with or without a
    trailing comma; whitespace is spaces, tabs, newlines.

    Raises:
        Unusable: ``NPZ_UNREADABLE``: anything else (another key, a key twice or missing, a structured
            ``descr``, a shape that is not a tuple of whole numbers, text after the dict, a dtype numpy
            does not know).
    """
    refused = Unusable("NPZ_UNREADABLE", "")
    text = text.rstrip(" \t\n")
    if not (text.lstrip(" \t\n").startswith("{") and text.endswith("}")):
        raise refused
    pos, end = text.index("{") + 1, len(text) - 1
    found: dict[str, re.Match] = {}
    while True:
        match = _KEY_VALUE.match(text, pos, end)
        if match is None or match["key"] in found:
            raise refused
        found[match["key"]] = match
        pos = match.end()
        if pos < end and text[pos] == ",":
            pos += 1
        elif pos != end:
            raise refused
        if len(found) == 3 or pos == end:
            break
    if text[pos:end].strip(" \t\n") or len(found) != 3:
        raise refused
    descr, order, shape = found["descr"]["descr"], found["fortran_order"]["bool"], found["shape"]["shape"]
    if descr is None or order is None or shape is None:
        raise refused
    return _dtype(descr), tuple(int(n) for n in _SHAPE_INT.findall(shape))


def _dtype(descr: str) -> np.dtype:
    """``np.dtype(descr)``, remembered per string; raises :class:`Unusable` (``NPZ_UNREADABLE``) for an unknown one."""
    dtype = _DTYPES.get(descr)
    if dtype is None:
        try:
            dtype = np.dtype(descr)
        except (TypeError, ValueError):
            raise Unusable("NPZ_UNREADABLE", "") from None
        _DTYPES[descr] = dtype
    return dtype


def npy_header(prefix: bytes | memoryview, key: str) -> tuple[np.dtype, tuple[int, ...], int]:
    """The dtype and shape of the ``.npy`` file starting ``prefix``, and where its data starts.

    Args:
        prefix: the member's first bytes: all of them, or at least ``12 +`` :data:`MAX_NPY_HEADER_BYTES`.

    Raises:
        Unusable: ``NPZ_UNREADABLE``: not the magic, a version other than 1.0 and 2.0, a header over
            :data:`MAX_NPY_HEADER_BYTES` or cut off, or one :func:`parse_npy_header` refuses.
    """
    head = bytes(prefix[:12])
    if len(head) >= 10 and head[:6] == _NPY_MAGIC:
        if head[6:8] == b"\x01\x00":
            length, start = struct.unpack_from("<H", head, 8)[0], 10
        elif head[6:8] == b"\x02\x00" and len(head) == 12:
            length, start = struct.unpack_from("<L", head, 8)[0], 12
        else:
            length = start = 0
        if 0 < length <= MAX_NPY_HEADER_BYTES and start + length <= len(prefix):
            text = bytes(prefix[start:start + length]).decode("latin1")
            canonical = _CANONICAL.fullmatch(text)  # what numpy writes for a 1-D array: no general parse
            try:
                if canonical is not None:
                    return _dtype(canonical[1]), (int(canonical[2]),), start + length
                dtype, shape = parse_npy_header(text)
                return dtype, shape, start + length
            except Unusable:
                pass
    raise Unusable("NPZ_UNREADABLE", f"{key} is not a numpy array (.npy format 1.0 or 2.0) member")
