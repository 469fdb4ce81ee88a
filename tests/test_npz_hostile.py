"""Hostile and broken .npz members and submission paths (truth/npzread.py, submission/csvfile.py; issue 7 item 8).

The .npz files are built byte by byte here (struct: zip local headers, central directory, end record; the
.npy header by hand), so that each one holds exactly the fault it is named after. Each gives exit code 2
and a coded message naming the file, without decompressing or allocating what the file declares.
"""

from __future__ import annotations

import os
import struct
import threading
import zlib
from pathlib import Path

import numpy as np
import pytest

from tpugraphs_eval.commands import evaluate as cli
from tpugraphs_eval.errors import ERROR_CODES
from tpugraphs_eval.truth.npzread import MAX_MEMBER_BYTES

LAYOUT = "npz/layout/xla/default/test"
STORED, DEFLATED, IMPLODED = 0, 8, 6


def npy(shape: tuple[int, ...], data: bytes, descr: str = "<i8") -> bytes:
    """A .npy (format 1.0) file: magic, header length, the header dict padded to 64 bytes, then ``data``."""
    header = repr({"descr": descr, "fortran_order": False, "shape": shape}).encode("latin1")
    header += b" " * (-(10 + len(header) + 1) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header + data


def deflate(data: bytes) -> bytes:
    """A raw deflate stream (what a zip member with method 8 holds)."""
    packer = zlib.compressobj(6, zlib.DEFLATED, -15)
    return packer.compress(data) + packer.flush()


def handmade_zip(members: list[dict]) -> bytes:
    """A zip archive of ``members``: dicts with name, raw (uncompressed bytes), and optionally payload (the
    bytes stored, default: raw, deflated when method is 8), method, flags, size (the declared uncompressed size)."""
    body, central = b"", b""
    for m in members:
        name, raw, method, flags = m["name"].encode(), m["raw"], m.get("method", STORED), m.get("flags", 0)
        payload = m.get("payload", deflate(raw) if method == DEFLATED else raw)
        size, crc = m.get("size", len(raw)), zlib.crc32(raw)
        central += struct.pack("<4s6H3I5H2I", b"PK\x01\x02", 20, 20, flags, method, 0, 0x21, crc, len(payload), size,
                               len(name), 0, 0, 0, 0, 0, len(body)) + name
        body += struct.pack("<4s5H3I2H", b"PK\x03\x04", 20, flags, method, 0, 0x21, crc, len(payload), size,
                            len(name), 0) + name + payload
    end = struct.pack("<4s4H2IH", b"PK\x05\x06", 0, 0, len(members), len(members), len(central), len(body), 0)
    return body + central + end


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
}


def _root(tmp_path: Path, members: list[dict]) -> tuple[Path, Path]:
    folder = tmp_path / "root" / LAYOUT
    folder.mkdir(parents=True)
    np.savez(folder / "good.npz", config_runtime=np.array([5, 6, 7], dtype=np.int64))
    bad = folder / "hostile.npz"
    bad.write_bytes(handmade_zip(members))
    return tmp_path / "root", bad


def test_the_handmade_zip_writer_makes_what_numpy_reads(tmp_path):
    """The fixtures' writer is right: an honest stored and deflated member load with numpy itself."""
    for method in (STORED, DEFLATED):
        path = tmp_path / f"m{method}.npz"
        path.write_bytes(handmade_zip(member(method=method)))
        with np.load(path) as npz:
            assert npz["config_runtime"].tolist() == [30, 10, 20]


@pytest.mark.parametrize("kind", HOSTILE)
def test_hostile_members_exit_2_with_a_code_naming_the_file(kind, tmp_path, capsys):
    make, code, reason = HOSTILE[kind]
    root, bad = _root(tmp_path, make())
    assert cli.main(["validate", str(tmp_path / "none.csv"), "--data-root", str(root), "--split", "test"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert code in ERROR_CODES and f"[{code}] {bad}: " in err and reason in err, err
    assert "internal error" not in err


def test_an_honest_member_at_the_limit_is_still_read(tmp_path, capsys):
    """The limit refuses declared sizes above it only: a 3-config graph beside the hostile ones reads fine."""
    root, bad = _root(tmp_path, member(method=DEFLATED))
    csv = tmp_path / "s.csv"
    csv.write_text("ID,TopConfigs\nlayout:xla:default:good,0;1;2\nlayout:xla:default:hostile,1;2;0\n")
    assert cli.main([str(csv), "--data-root", str(root), "--split", "test", "--json", str(tmp_path / "r.json")]) == 0


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_submission_is_refused_at_once(tmp_path, capsys):
    """The old code blocked on open() until a writer came; nothing ever writes to this FIFO."""
    fifo = tmp_path / "sub.csv"
    os.mkfifo(fifo)
    outcome = {}
    worker = threading.Thread(target=lambda: outcome.setdefault("exit", cli.main(
        ["validate", str(fifo), "--data-root", "demo", "--split", "test"])), daemon=True)
    worker.start()
    worker.join(30)
    if worker.is_alive():  # unblock the old code's open() so the test process can end
        with open(fifo, "wb"):
            pass
        worker.join(5)
        pytest.fail("reading a FIFO submission blocked")
    assert outcome["exit"] == 2
    assert f"[SUBMISSION_NOT_A_FILE] submission file {fifo} is a FIFO" in capsys.readouterr().err


@pytest.mark.parametrize("path, what", [("/dev/zero", "a character device"), (".", "a folder")])
def test_devices_and_folders_are_refused_without_reading(path, what, tmp_path, capsys):
    """/dev/zero never ends: the old code read it until memory ran out."""
    if not Path(path).exists():
        pytest.skip(f"{path} is absent")
    target = str(tmp_path) if path == "." else path
    assert cli.main(["validate", target, "--data-root", "demo", "--split", "test"]) == 2
    assert f"[SUBMISSION_NOT_A_FILE] submission file {target} is {what}, not a regular file" in capsys.readouterr().err
