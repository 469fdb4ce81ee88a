"""Hand-made .npz files, byte by byte (struct: zip local headers, central directory, end record; the .npy
header by hand), each holding exactly one fault: tests/truth/test_npz_hostile.py and tests/cli/test_error_messages.py."""

from __future__ import annotations

import struct
import zlib

import numpy as np

from tpugraphs_eval.truth.npzread import MAX_MEMBER_BYTES

LAYOUT = "npz/layout/xla/default/test"
STORED, DEFLATED, IMPLODED = 0, 8, 6


def npy(shape: tuple[int, ...], data: bytes, descr: str = "<i8") -> bytes:
    """A .npy (format 1.0) file: magic, header length, the header dict padded to 64 bytes, then ``data``."""
    header = repr({"descr": descr, "fortran_order": False, "shape": shape}).encode("latin1")
    header += b" " * (-(10 + len(header) + 1) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header + data


def npy_text(header: str, data: bytes, version: int = 1) -> bytes:
    """A .npy file whose header dict is ``header`` as given (any text), padded to 64 bytes, then ``data``."""
    size = 2 if version == 1 else 4
    text = header.encode("latin1")
    text += b" " * (-(8 + size + len(text) + 1) % 64) + b"\n"
    return b"\x93NUMPY" + bytes([version, 0]) + len(text).to_bytes(size, "little") + text + data


def deflate(data: bytes) -> bytes:
    """A raw deflate stream (what a zip member with method 8 holds)."""
    packer = zlib.compressobj(6, zlib.DEFLATED, -15)
    return packer.compress(data) + packer.flush()


def handmade_zip(members: list[dict], *, zip64: bool = False, comment: bytes = b"", prefix: bytes = b"") -> bytes:
    """A zip archive of ``members``: dicts with name, raw (uncompressed bytes), and optionally payload (the
    bytes stored, default: raw, deflated when method is 8), method, flags, size (the declared uncompressed size).

    ``zip64``: every central directory entry gives its sizes and offset in a zip64 extra field (0x0001) and the
    archive ends with a zip64 end record and locator, as for a file over 4 GiB; ``comment``: the archive comment
    (the end record is then not the file's last 22 bytes); ``prefix``: bytes before the archive (offsets are
    relative to its start, as in a self-extracting archive)."""
    body, central = b"", b""
    for m in members:
        name, raw, method, flags = m["name"].encode(), m["raw"], m.get("method", STORED), m.get("flags", 0)
        payload = m.get("payload", deflate(raw) if method == DEFLATED else raw)
        size, crc = m.get("size", len(raw)), zlib.crc32(raw)
        extra = struct.pack("<2H3Q", 1, 24, size, len(payload), len(body)) if zip64 else b""
        sizes = (0xFFFFFFFF, 0xFFFFFFFF) if zip64 else (len(payload), size)
        central += struct.pack("<4s6H3I5H2I", b"PK\x01\x02", 45 if zip64 else 20, 20, flags, method, 0, 0x21, crc,
                               *sizes, len(name), len(extra), 0, 0, 0, 0,
                               0xFFFFFFFF if zip64 else len(body)) + name + extra
        body += struct.pack("<4s5H3I2H", b"PK\x03\x04", 20, flags, method, 0, 0x21, crc, len(payload), size,
                            len(name), 0) + name + payload
    tail = b""
    if zip64:
        tail = struct.pack("<4sQ2H2I4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, len(members), len(members), len(central),
                           len(body))
        tail += struct.pack("<4sIQI", b"PK\x06\x07", 0, len(body) + len(central), 1)
    end = struct.pack("<4s4H2IH", b"PK\x05\x06", 0, 0, 0xFFFF if zip64 else len(members),
                      0xFFFF if zip64 else len(members), 0xFFFFFFFF if zip64 else len(central),
                      0xFFFFFFFF if zip64 else len(body), len(comment))
    return prefix + body + central + tail + end + comment


RUNTIMES = np.array([30, 10, 20], dtype="<i8").tobytes()


def member(**fields) -> list[dict]:
    return [{"name": "config_runtime.npy", "raw": npy((3,), RUNTIMES), **fields}]


def _zeros_bomb() -> list[dict]:
    """An honest zip bomb: 72 MiB of zeros declared as a (9437184,) int64 array, about 70 KB deflated."""
    n = (72 << 20) // 8
    return [{"name": "config_runtime.npy", "raw": npy((n,), bytes(n * 8)), "method": DEFLATED}]


HOSTILE = {
    "zip-bomb": (_zeros_bomb, "NPZ_MEMBER_TOO_LARGE", f"more than the limit of {MAX_MEMBER_BYTES:,}"),
    "declared-size-lie": (lambda: member(size=0xFFFF_FFF0), "NPZ_MEMBER_TOO_LARGE", "declares 4,294,967,280 bytes"),
    "huge-declared-shape": (lambda: [{"name": "config_runtime.npy", "raw": npy((1 << 40,), RUNTIMES)}],
                            "NPZ_MEMBER_TOO_LARGE", "header declares shape (1099511627776,)"),
    "shape-beyond-member": (lambda: [{"name": "config_runtime.npy", "raw": npy((1000,), RUNTIMES)}],
                            "NPZ_MEMBER_TOO_LARGE", "more than the 152 bytes the member holds"),
    "corrupt-deflate": (lambda: member(method=DEFLATED, payload=b"\xff" * 64), "NPZ_CORRUPT", "does not decompress"),
    "bad-crc": (lambda: [{"name": "config_runtime.npy", "raw": npy((3,), RUNTIMES),
                          "payload": npy((3,), RUNTIMES[:-1] + b"\x01")}], "NPZ_CORRUPT", "Bad CRC-32"),
    "encrypted": (lambda: member(flags=0x1), "NPZ_ENCRYPTED", "config_runtime is encrypted"),
    "unsupported-method": (lambda: member(method=IMPLODED), "NPZ_COMPRESSION_UNSUPPORTED", "method 6"),
    "object-dtype": (lambda: [{"name": "config_runtime.npy", "raw": npy((3,), RUNTIMES, descr="|O")}],
                     "NPZ_ARRAY_INVALID", "found object (3,)"),
    "not-npy": (lambda: [{"name": "config_runtime.npy", "raw": b"just text, no magic"}], "NPZ_UNREADABLE",
                "not a numpy array"),
    "duplicate-member": (lambda: member() + [{"name": "config_runtime.npy", "raw": npy((2,), RUNTIMES[:16])}],
                         "NPZ_DUPLICATE_MEMBER", "config_runtime stored more than once"),  # zipfile used the last
    "member-and-npy-member": (lambda: member() + [{"name": "config_runtime", "raw": npy((2,), RUNTIMES[:16])}],
                              "NPZ_DUPLICATE_MEMBER", "config_runtime stored more than once"),
    "header-not-a-dict-literal": (lambda: [{"name": "config_runtime.npy", "raw": npy_text(
        "{'descr': '<i8', 'fortran_order': False, 'shape': (1 + 2,), }", RUNTIMES)}], "NPZ_UNREADABLE",
        "not a numpy array"),
}
