"""The .npz reader (truth/npzread.py, truth/npz.py; issue 21 item 2, issue 17 item 2, issue 16 items 1 and 4).

zipfile and numpy.lib.format with every check of the old reader kept (tests/truth/test_npz_hostile.py): the
same arrays as numpy's own reader on every zip variant numpy reads; headers numpy refuses, structured dtypes and
negative dimensions refused; duplicate members refused; a cap on what one split may decompress in all, checked
before any member is inflated.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np
import pytest
from badinput import run_cli
from handmade_npz import DEFLATED, LAYOUT, RUNTIMES, STORED, handmade_zip, npy, npy_text

from tpugraphs_eval import load_ground_truth, resolve_data_root
from tpugraphs_eval.errors import DataError
from tpugraphs_eval.truth import npzread
from tpugraphs_eval.truth.npz import MAX_NPY_HEADER_BYTES
from tpugraphs_eval.truth.npzread import read_split

TILE = "npz/tile/xla/valid"


def _layout_root(tmp_path: Path, files: dict[str, bytes]) -> Path:
    folder = tmp_path / "root" / LAYOUT
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (folder / f"{name}.npz").write_bytes(data)
    return tmp_path / "root"


def _read_runtimes(root: Path) -> dict[str, list]:
    read = read_split(resolve_data_root(root), "test", with_runtimes=True, progress=False)
    return {name: arrays.runtime.tolist() for graphs in read.values() for name, arrays in graphs}


def _refusal(root: Path) -> tuple[str, str]:
    with pytest.raises(DataError) as caught:
        read_split(resolve_data_root(root), "test", with_runtimes=True, progress=False)
    return caught.value.code, " ".join(str(caught.value).split())


ZIP_VARIANTS = {  # every one of them read by zipfile and numpy.lib.format alike
    "stored": dict(method=STORED),
    "deflated": dict(method=DEFLATED),
    "zip64-directory": dict(method=DEFLATED, zip64=True),
    "archive-comment": dict(method=STORED, comment=b"an archive comment"),
    "bytes-before-the-archive": dict(method=DEFLATED, prefix=b"#!/bin/sh\n" * 30),
    "zip64-comment-and-prefix": dict(method=STORED, zip64=True, comment=b"c" * 300, prefix=b"p" * 77),
    "long-comment": dict(method=DEFLATED, comment=b"x" * 60_000),
}


@pytest.mark.parametrize("variant", ZIP_VARIANTS)
def test_zip_variants_give_the_arrays_numpy_reads(variant, tmp_path):
    options = dict(ZIP_VARIANTS[variant])
    method = options.pop("method")
    data = handmade_zip([{"name": "node_feat.npy", "raw": npy((2,), bytes(16), "<f8"), "method": method},
                         {"name": "config_runtime.npy", "raw": npy((3,), RUNTIMES), "method": method}], **options)
    with zipfile.ZipFile(io.BytesIO(data)) as archive, archive.open("config_runtime.npy") as member:
        expected = np.lib.format.read_array(member, allow_pickle=False).tolist()  # the independent reader
    assert expected == [30, 10, 20]
    assert _read_runtimes(_layout_root(tmp_path, {"g": data})) == {"g": expected}


HEADERS_NUMPY_READS = [  # (header dict text, descr, data): not what numpy writes, but the same fixed form
    ("{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }", "<i8", RUNTIMES),
    ('{"shape": (3,), "descr": "<i8", "fortran_order": True}', "<i8", RUNTIMES),  # order, quotes, no comma
    ("{ 'descr' : '>i8' ,\t'fortran_order' : False , 'shape' : ( 3 , ) }", ">i8",
     np.array([30, 10, 20], ">i8").tobytes()),
    ("{'descr': '<u4', 'fortran_order': False, 'shape': (3,)}", "<u4", np.array([30, 10, 20], "<u4").tobytes()),
    ("{'descr': '<f8', 'fortran_order': False, 'shape': (3,)}", "<f8", np.array([30, 10, 20], "<f8").tobytes()),
    # numpy's reader (ast.literal_eval) takes these two: the same array as numpy reads, as for np.load
    ("{'descr': '<i8', 'descr': '<i8', 'fortran_order': False, 'shape': (3,), }", "<i8", RUNTIMES),
    ("{'descr': '<i8', 'fortran_order': False, 'shape': (3,), } # more", "<i8", RUNTIMES),
]


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("header, descr, data", HEADERS_NUMPY_READS)
def test_headers_of_the_fixed_form_read_as_numpy_reads_them(header, descr, data, version, tmp_path):
    raw = npy_text(header, data, version)
    expected = np.lib.format.read_array(io.BytesIO(raw), allow_pickle=False)  # numpy's own parser (literal_eval)
    assert expected.dtype == np.dtype(descr) and expected.tolist() == [30, 10, 20]
    root = _layout_root(tmp_path, {"g": handmade_zip([{"name": "config_runtime.npy", "raw": raw}])})
    assert _read_runtimes(root) == {"g": [30, 10, 20]}


HEADERS_REFUSED = {  # numpy's reader refuses each (ValueError), but the structured dtype and the negative shape
    "shape-an-int": "{'descr': '<i8', 'fortran_order': False, 'shape': (3), }",
    "shape-negative": "{'descr': '<i8', 'fortran_order': False, 'shape': (-3,), }",
    "shape-expression": "{'descr': '<i8', 'fortran_order': False, 'shape': (1 + 2,), }",
    "shape-leading-zero": "{'descr': '<i8', 'fortran_order': False, 'shape': (03,), }",
    "shape-a-list": "{'descr': '<i8', 'fortran_order': False, 'shape': [3], }",
    "order-not-a-bool": "{'descr': '<i8', 'fortran_order': 0, 'shape': (3,), }",
    "key-missing": "{'descr': '<i8', 'shape': (3,), }",
    "key-extra": "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), 'x': 1}",
    "comma-missing": "{'descr': '<i8' 'fortran_order': False, 'shape': (3,)}",
    "two-commas": "{'descr': '<i8', 'fortran_order': False, 'shape': (3,),, }",
    "not-a-dict": "('<i8', False, (3,))",
    "structured-descr": "{'descr': [('a', '<i8')], 'fortran_order': False, 'shape': (3,), }",
    "descr-unknown": "{'descr': '<z8', 'fortran_order': False, 'shape': (3,), }",
    "descr-a-call": "{'descr': __import__('os').getcwd(), 'fortran_order': False, 'shape': (3,), }",
    "shape-5000-digits": "{'descr': '<i8', 'fortran_order': False, 'shape': (%s,), }" % ("9" * 5000),
}


@pytest.mark.parametrize("kind", HEADERS_REFUSED)
def test_headers_outside_the_fixed_form_are_refused_as_not_numpy(kind, tmp_path):
    header = HEADERS_REFUSED[kind]
    root = _layout_root(tmp_path, {"g": handmade_zip([{"name": "config_runtime.npy",
                                                        "raw": npy_text(header, RUNTIMES)}])})
    code, text = _refusal(root)
    assert code == "NPZ_UNREADABLE" and "g.npz: config_runtime is not a numpy array (.npy format 1.0 or 2.0)" in text


def test_a_header_over_numpy_s_size_limit_is_refused(tmp_path):
    header = "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }" + " " * MAX_NPY_HEADER_BYTES
    root = _layout_root(tmp_path, {"g": handmade_zip([{"name": "config_runtime.npy",
                                                        "raw": npy_text(header, RUNTIMES, version=2)}])})
    assert _refusal(root)[0] == "NPZ_UNREADABLE"


@pytest.mark.parametrize("method", [STORED, DEFLATED])
def test_a_member_over_1_mib_is_read_in_parts(method, tmp_path):
    """Members over 1 MiB have their header checked before the rest is decompressed (the streaming path)."""
    values = np.arange(300_000, 0, -1, dtype="<i8")  # 2.4 MB
    big = handmade_zip([{"name": "config_runtime.npy", "raw": npy(values.shape, values.tobytes()), "method": method}])
    lie = handmade_zip([{"name": "config_runtime.npy", "raw": npy((400_000,), values.tobytes()), "method": method}])
    assert _read_runtimes(_layout_root(tmp_path / "a", {"g": big})) == {"g": values.tolist()}
    code, text = _refusal(_layout_root(tmp_path / "b", {"g": lie}))
    assert code == "NPZ_MEMBER_TOO_LARGE" and "header declares shape (400000,)" in text


def test_every_truncation_of_a_numpy_file_is_a_coded_refusal(tmp_path):
    """A partial download cut at any byte: a coded NPZ_* fault naming the file, never another exception."""
    whole = io.BytesIO()
    np.savez_compressed(whole, config_runtime=np.arange(50, 0, -1), node_feat=np.ones((4, 3), np.float32))
    data = whole.getvalue()
    codes = set()
    for cut in range(0, len(data) - 1, 3):
        root = _layout_root(tmp_path / str(cut), {"g": data[:cut]})
        code, text = _refusal(root)
        assert code.startswith("NPZ_") and "g.npz" in text, (cut, text)
        codes.add(code)
    assert codes == {"NPZ_UNREADABLE"}  # no end record: not a zip archive at all


def test_a_duplicate_member_is_refused_not_the_last_copy_used(tmp_path, capsys):
    """zipfile (the old reader) silently used the last of two config_runtime.npy members: here [30, 10]."""
    first = {"name": "config_runtime.npy", "raw": npy((3,), RUNTIMES)}
    second = {"name": "config_runtime.npy", "raw": npy((2,), RUNTIMES[:16])}
    root = _layout_root(tmp_path, {"g": handmade_zip([first, second])})
    csv = tmp_path / "s.csv"
    csv.write_text("ID,TopConfigs\nlayout:xla:default:g,0;1;2\n")
    exit_code, text = run_cli(capsys, "validate", csv, "--data-root", root, "--split", "test")
    flat = " ".join(text.split())
    assert exit_code == 2 and "[NPZ_DUPLICATE_MEMBER]" in flat and "g.npz: config_runtime stored more than once" in flat


def test_a_duplicate_member_the_reader_does_not_need_is_refused_too(tmp_path):
    node = {"name": "node_feat.npy", "raw": npy((1,), bytes(8), "<f8")}
    root = _layout_root(tmp_path, {"g": handmade_zip([node, {"name": "config_runtime.npy", "raw": npy((3,), RUNTIMES)},
                                                      node])})
    assert _refusal(root) == ("NPZ_DUPLICATE_MEMBER", f"cannot read the test split of {root}: [NPZ_DUPLICATE_MEMBER] "
                              f"{root / LAYOUT / 'g.npz'}: node_feat stored more than once (a zip archive numpy does "
                              "not write: which copy is meant is unknown)")


# --- the cap on what one split decompresses (issue 16 item 1) ---------------------------------------------

def _member_bytes(c: int) -> int:
    return len(npy((c,), bytes(8 * c)))  # a config_runtime member of c int64 configs, header included


def test_a_split_may_decompress_up_to_its_cap_and_no_more(tmp_path, monkeypatch):
    """Three graphs of 3 configs declare 3 x 152 bytes: a cap of exactly that reads them, one byte less stops
    at the third file (named, with the split) before decompressing it."""
    files = {name: handmade_zip([{"name": "config_runtime.npy", "raw": npy((3,), RUNTIMES)}]) for name in "abc"}
    root = _layout_root(tmp_path, files)
    monkeypatch.setattr(npzread, "MAX_SPLIT_BYTES", 3 * _member_bytes(3))
    assert _read_runtimes(root) == {name: [30, 10, 20] for name in "abc"}
    monkeypatch.setattr(npzread, "MAX_SPLIT_BYTES", 3 * _member_bytes(3) - 1)
    code, text = _refusal(root)
    assert code == "NPZ_SPLIT_TOO_LARGE"
    assert text.startswith(f"cannot read the test split of {root}: [NPZ_SPLIT_TOO_LARGE] its ground-truth members "
                           "declare more than 455 bytes uncompressed in all") and f"stopped at {root / LAYOUT / 'c.npz'}" in text


def test_a_split_over_its_cap_decompresses_nothing(tmp_path, monkeypatch):
    """Every file's declared sizes are summed from the zip directories first (issue 24 item 12): the old reader
    decompressed the files before the one that passed the cap (an 11 MB root reached 1.08 GB before its refusal)."""
    files = {name: handmade_zip([{"name": "config_runtime.npy", "raw": npy((3,), RUNTIMES)}]) for name in "abc"}
    root = _layout_root(tmp_path, files)
    monkeypatch.setattr(npzread, "MAX_SPLIT_BYTES", 3 * _member_bytes(3) - 1)
    monkeypatch.setattr(npzread, "read_array", lambda *args, **kwargs: pytest.fail("a member was decompressed"))
    assert _refusal(root)[0] == "NPZ_SPLIT_TOO_LARGE"


def test_the_split_cap_counts_the_tile_normalizers_when_runtimes_are_read(tmp_path, monkeypatch):
    folder = tmp_path / "root" / TILE
    folder.mkdir(parents=True)
    for name in "ab":
        np.savez(folder / f"{name}.npz", config_runtime=np.array([3, 1, 2]), config_runtime_normalizers=np.ones(3, int))
    monkeypatch.setattr(npzread, "MAX_SPLIT_BYTES", 3 * _member_bytes(3))  # 2 graphs x 2 members = 4 members
    data_root = resolve_data_root(tmp_path / "root")
    assert npzread.scan_catalog(data_root, "valid").collections["tile:xla"].n_configs.tolist() == [3, 3]
    with pytest.raises(DataError) as caught:
        load_ground_truth(data_root, "valid")
    assert caught.value.code == "NPZ_SPLIT_TOO_LARGE" and "the valid split" in str(caught.value)


def test_the_split_cap_holds_the_largest_real_split_at_the_largest_real_graph_size():
    """docs/codes.md and npzread.MAX_SPLIT_BYTES: train (dataset.REAL_GRAPH_COUNTS: 61 + 69 + 198 + 207 layout graphs) at
    100,000 configs per layout graph (the largest real one) leaves room for 5709 tile graphs of 7,000 configs."""
    layout = (61 + 69 + 198 + 207) * _member_bytes(100_000)
    tile = 5709 * 2 * _member_bytes(7_000)
    assert layout + tile <= npzread.MAX_SPLIT_BYTES == 1 << 30
    # the member cap alone would let the train split's 5709 + 535 graphs declare about 100 GB: the split cap is the bound
    assert (5709 * 2 + 535) * npzread.MAX_MEMBER_BYTES > 90 * npzread.MAX_SPLIT_BYTES
