"""Mutated .npz files against the one reader (truth/npz.py through truth/npzread.py; issue 21 item 2).

Valid files (numpy's stored and deflated writers, a zip64 directory, a member stored twice) are mutated by
Hypothesis: bytes flipped, the file cut short, a member's declared sizes overwritten with lies in its central
directory entry or local header. Each read ends in a coded refusal (a code of errors.ERROR_CODES) or in the
very arrays numpy wrote; never another exception, and never an allocation over the member cap (tracemalloc,
which sees numpy's and Python's allocations). A hang would show as an example over the generous deadline.
"""

from __future__ import annotations

import io
import struct
import tracemalloc

import numpy as np
from handmade_npz import DEFLATED, handmade_zip, npy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tpugraphs_eval.errors import ERROR_CODES
from tpugraphs_eval.truth import npzread
from tpugraphs_eval.truth.npz import Unusable, iter_member_chunks

RUNTIME = np.arange(40, 0, -1, dtype=np.int64)
FEAT = np.arange(60, dtype=np.float32).reshape(5, 12)


def _numpy(write) -> bytes:
    buffer = io.BytesIO()
    write(buffer, config_runtime=RUNTIME, node_config_feat=FEAT)
    return buffer.getvalue()


def _handmade(**options) -> bytes:
    members = [{"name": "config_runtime.npy", "raw": npy(RUNTIME.shape, RUNTIME.tobytes()), "method": DEFLATED},
               {"name": "node_config_feat.npy", "raw": npy(FEAT.shape, FEAT.tobytes(), "<f4")}]
    return handmade_zip(members + options.pop("extra", []), **options)


BASES = {
    "stored": _numpy(np.savez),
    "deflated": _numpy(np.savez_compressed),
    "zip64": _handmade(zip64=True),
    "stored-twice": _handmade(extra=[{"name": "config_runtime.npy", "raw": npy((2,), RUNTIME[:2].tobytes())}]),
}


def _lie(data: bytearray, draw_value: int, which: int) -> None:
    """Overwrite one declared size: of a central directory entry (compressed at +20, uncompressed at +24) or
    of a local header (+18, +22)."""
    places = [(at, 20) for at in _find(data, b"PK\x01\x02")] + [(at, 24) for at in _find(data, b"PK\x01\x02")]
    places += [(at, 18) for at in _find(data, b"PK\x03\x04")] + [(at, 22) for at in _find(data, b"PK\x03\x04")]
    if places:
        at, field = places[which % len(places)]
        if at + field + 4 <= len(data):
            struct.pack_into("<I", data, at + field, draw_value)


def _find(data: bytearray, signature: bytes) -> list[int]:
    found, at = [], data.find(signature)
    while at >= 0:
        found.append(at)
        at = data.find(signature, at + 1)
    return found


@st.composite
def mutated(draw) -> bytes:
    data = bytearray(BASES[draw(st.sampled_from(sorted(BASES)))])
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["flip", "lie", "cut"]))
        if kind == "flip" and data:
            data[draw(st.integers(0, len(data) - 1))] ^= draw(st.integers(1, 255))
        elif kind == "lie":
            value = draw(st.one_of(st.integers(0, 0xFFFFFFFF), st.sampled_from([0, 0xFFFFFFFF, 1 << 31])))
            _lie(data, value, draw(st.integers(0, 7)))
        elif kind == "cut":
            del data[draw(st.integers(0, len(data))):]
    return bytes(data)


@settings(max_examples=150, deadline=5000, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=mutated())
def test_a_mutated_npz_is_refused_with_a_code_or_read_right(data, tmp_path):
    path = tmp_path / "g.npz"
    path.write_bytes(data)
    tracemalloc.start()
    try:
        runtime = npzread._graph(path, ["config_runtime"]).runtime
        # the second copy of "stored-twice" is read when a flip renamed the first one in the directory
        assert runtime.tolist() in (RUNTIME.tolist(), RUNTIME[:2].tolist())
    except Unusable as err:
        assert err.args[0] in ERROR_CODES, err.args
    try:
        rows = [chunk for _, chunk in iter_member_chunks(path, "node_config_feat", 2)]
        assert np.concatenate(rows).tolist() == FEAT.tolist()
    except Unusable as err:
        assert err.args[0] in ERROR_CODES, err.args
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert peak < 2 * npzread.MAX_MEMBER_BYTES


def test_a_member_declaring_gigabytes_compressed_costs_no_such_allocation(tmp_path):
    """Found by the test above: a central directory entry whose compressed size says 4 GB made zipfile's
    read() ask the file for that many bytes at once (an allocation of the declared size). The member is read
    by its declared uncompressed size instead: a coded refusal (a bad CRC-32: only part of its data is read; Python
    3.13's zipfile refuses the entry when it opens it, NPZ_UNREADABLE)."""
    data = bytearray(BASES["deflated"])
    _lie(data, 0xFFFF_FF00, 0)  # the first central directory entry's compressed size: config_runtime's
    path = tmp_path / "g.npz"
    path.write_bytes(bytes(data))
    tracemalloc.start()
    try:
        runtime = npzread._graph(path, ["config_runtime"]).runtime
        outcome = runtime.tolist()
    except Unusable as err:
        outcome = err.args[0]
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert outcome in ("NPZ_CORRUPT", "NPZ_UNREADABLE", RUNTIME.tolist()) and peak < 4 << 20
