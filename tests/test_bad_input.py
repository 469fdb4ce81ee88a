"""Malformed submissions and data roots: exact problem codes and lines, CLI exit status, no traceback.

Every submission case states, explicitly, the problems the validator must report as ``(code, line)``
pairs in report order (file-level problems such as MISSING_IDS have line None and come last), the CLI
exit status, and optionally a phrase its first message must contain (the near-miss hints). Each case is
checked three ways: :func:`validate_submission` (codes, lines, severities), the CLI in-process
(exit status, the same problems in its JSON report, no traceback), and for a handful, the installed
console script as a subprocess.

The tiny data root (official layout) built once per session:

    npz/tile/xla/test/          conv_net_0123456789abcdef   3 configs
                                matmul_fedcba9876543210    25 configs
    npz/layout/xla/default/test resnet_v1                   6 configs
    npz/tile/xla/valid/         other_graph_1111222233334444 4 configs  (the "other split" hint)
    npz/layout/xla/default/valid valid_layout               4 configs  (eval-indices checks)

A valid test submission is ``HEADER`` + rows A (line 2), B (line 3), L (line 4).
"""

from __future__ import annotations

import json
import math
import random
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from tpugraphs_eval import cli, resolve_data_root, scan_catalog, validate_submission
from tpugraphs_eval.problems import CODES, Severity

# --- the tiny data root ---------------------------------------------------------------------------

TILE3 = "conv_net_0123456789abcdef"
TILE25 = "matmul_fedcba9876543210"
LAYOUT6 = "resnet_v1"
VALID_TILE = "other_graph_1111222233334444"
VALID_LAYOUT = "valid_layout"

A = f"tile:xla:{TILE3}"
B = f"tile:xla:{TILE25}"
L = f"layout:xla:default:{LAYOUT6}"
HEADER = "ID,TopConfigs"
ROW_A = f"{A},0;1;2"
ROW_B = f"{B},0;1;2;3;4"
ROW_L = f"{L},0;1;2;3;4;5"

TILE_TEST = "npz/tile/xla/test"
LAYOUT_TEST = "npz/layout/xla/default/test"


def _tile(folder: Path, name: str, runtime: list[int], normalizers: list[int]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    np.savez(folder / f"{name}.npz", config_runtime=np.array(runtime, dtype=np.int64),
             config_runtime_normalizers=np.array(normalizers, dtype=np.int64))


def _layout(folder: Path, name: str, runtime: list[int]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    np.savez(folder / f"{name}.npz", config_runtime=np.array(runtime, dtype=np.int64))


def build_tiny_root(root: Path) -> Path:
    """Write the tiny data root described in the module docstring into ``root``; returns ``root``."""
    tile25 = [1000 + 37 * ((7 * i) % 25) for i in range(25)]
    _tile(root / TILE_TEST, TILE3, [3000, 1000, 2000], [10, 10, 10])
    _tile(root / TILE_TEST, TILE25, tile25, [5] * 25)
    _layout(root / LAYOUT_TEST, LAYOUT6, [600, 100, 500, 200, 400, 300])
    _tile(root / "npz/tile/xla/valid", VALID_TILE, [40, 10, 30, 20], [2, 2, 2, 2])
    _layout(root / "npz/layout/xla/default/valid", VALID_LAYOUT, [40, 10, 30, 20])
    return root


def csv(*rows: str, header: str | None = HEADER, end: str = "\n") -> bytes:
    """A submission: ``header`` (None: no header line) and ``rows``, each line ended by ``end``."""
    lines = ([header] if header is not None else []) + list(rows)
    return "".join(line + end for line in lines).encode("utf-8")


VALID = csv(ROW_A, ROW_B, ROW_L)


@pytest.fixture(scope="session")
def tiny_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_root(tmp_path_factory.mktemp("tiny") / "root")


@pytest.fixture(scope="session")
def catalog(tiny_root: Path):
    return scan_catalog(resolve_data_root(tiny_root), "test")


# --- running the CLI ------------------------------------------------------------------------------

CONSOLE_SCRIPT = Path(sys.executable).with_name("tpugraphs-eval")


def run_cli(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str]:
    """Run ``tpugraphs_eval.cli.main`` in-process; (exit code, stdout + stderr). Fails on a traceback."""
    try:
        code = cli.main([str(a) for a in argv])
    except SystemExit as exc:  # argparse errors (see test_main_returns_on_argparse_errors)
        code = exc.code
    out, err = capsys.readouterr()
    text = out + err
    assert "Traceback" not in text, text
    assert "internal error" not in text, text
    return code, text


def submit(capsys, tmp_path: Path, data: bytes, root: Path, *extra: object, split: str = "test"):
    """Score ``data`` with the CLI; (exit code, output, JSON report or None)."""
    path = tmp_path / "submission.csv"
    path.write_bytes(data)
    report_path = tmp_path / "report.json"
    report_path.unlink(missing_ok=True)
    code, text = run_cli(capsys, path, "--data-root", root, "--split", split, "--no-progress",
                         "--json", report_path, *extra)
    report = json.loads(report_path.read_text()) if report_path.exists() else None
    return code, text, report


def run_script(*argv: object) -> subprocess.CompletedProcess[str]:
    if not CONSOLE_SCRIPT.exists():
        pytest.skip(f"console script {CONSOLE_SCRIPT} is not installed")
    return subprocess.run([str(CONSOLE_SCRIPT), *map(str, argv)], capture_output=True, text=True, timeout=120)


# --- malformed submissions, strict mode -----------------------------------------------------------

RNG = random.Random(20231121)
BINARY_GARBAGE = RNG.randbytes(300) + b"\x00\x00\x00" + RNG.randbytes(300)
HIGH_BYTES = bytes(range(0x80, 0x100)) * 4  # not UTF-8, no NUL, no newline

NEG_ZERO = csv(f"{A},0;1;2;-0", ROW_B, ROW_L)
HUGE = "1" * 5000  # more digits than Python's int() accepts by default (4300)


def case(name, data, expected, exit_code, hint=None):
    """One case: ``expected`` = [(code, line)] in report order; ``hint``: text of the first message."""
    return pytest.param(data, expected, exit_code, hint, id=name)


STRICT_CASES = [
    # the header
    case("header-missing", csv(ROW_A, ROW_B, ROW_L, header=None), [("HEADER_MISSING", 1)], 1, "read as data"),
    case("header-renamed", csv(ROW_A, ROW_B, ROW_L, header="id,topconfigs"), [("HEADER_RENAMED", 1)], 1,
         "`id,topconfigs`"),
    case("header-renamed-spaces", csv(ROW_A, ROW_B, ROW_L, header="ID, TopConfigs"), [("HEADER_RENAMED", 1)], 1),
    case("header-extra-columns", csv(ROW_A, ROW_B, ROW_L, header="ID,TopConfigs,Extra"), [("EXTRA_COLUMNS", 1)],
         1, "3 columns"),
    case("header-trailing-comma", csv(ROW_A, ROW_B, ROW_L, header="ID,TopConfigs,"), [("EXTRA_COLUMNS", 1)], 1),
    case("header-repeated", csv(ROW_A, HEADER, ROW_B, ROW_L), [("HEADER_REPEATED", 3)], 1, "concatenated"),
    case("header-repeated-trailing-space", csv(ROW_A, HEADER + " ", ROW_B, ROW_L), [("HEADER_REPEATED", 3)], 1),
    case("header-repeated-leading-space", csv(ROW_A, " " + HEADER, ROW_B, ROW_L), [("HEADER_REPEATED", 3)], 1),
    case("header-repeated-with-bom", VALID + b"\xef\xbb\xbf" + csv(header=HEADER),
         [("BOM", 5), ("HEADER_REPEATED", 5)], 1),
    case("header-not-utf8", b"ID,TopConfigs\xe9\n" + csv(ROW_A, ROW_B, ROW_L, header=None), [("NOT_UTF8", 1)], 1),
    case("bom", b"\xef\xbb\xbf" + VALID, [("BOM", 1)], 1, "byte-order mark"),
    case("bom-without-header", b"\xef\xbb\xbf" + csv(ROW_A, ROW_B, ROW_L, header=None),
         [("BOM", 1), ("HEADER_MISSING", 1)], 1),
    # the shape of a row
    case("extra-columns", csv(f"{ROW_A},7", ROW_B, ROW_L), [("EXTRA_COLUMNS", 2)], 1, "3 comma-separated fields"),
    case("missing-column", csv(A, ROW_B, ROW_L), [("MISSING_COLUMN", 2), ("MISSING_IDS", None)], 1, "one field"),
    case("missing-column-semicolon", csv(f"{A};0;1;2", ROW_B, ROW_L), [("MISSING_COLUMN", 2), ("MISSING_IDS", None)],
         1, "`;`"),
    case("wrong-delimiter-tab", csv(*(r.replace(",", "\t") for r in (ROW_A, ROW_B, ROW_L)), header="ID\tTopConfigs"),
         [("WRONG_DELIMITER", 1)], 1, "a tab"),
    case("wrong-delimiter-semicolon", csv(*(r.replace(",", ";", 1) for r in (ROW_A, ROW_B, ROW_L)),
                                          header="ID;TopConfigs"), [("WRONG_DELIMITER", 1)], 1, "`;`"),
    case("quoted-fields", csv(f'"{A}","0;1;2"', ROW_B, ROW_L), [("QUOTED_FIELD", 2)], 1, "unquoted values"),
    case("quoted-header", csv(ROW_A, ROW_B, ROW_L, header='"ID","TopConfigs"'), [("QUOTED_FIELD", 1)], 1),
    case("malformed-quotes-unbalanced", csv(f'"{A},0;1;2', ROW_B, ROW_L),
         [("MALFORMED_QUOTES", 2), ("MISSING_IDS", None)], 1),
    case("malformed-quotes-stray", csv(f'{A},0;1"2', ROW_B, ROW_L), [("MALFORMED_QUOTES", 2), ("MISSING_IDS", None)],
         1, "double quote"),
    # the ID
    case("unknown-collection-tiles", csv(ROW_A.replace("tile:", "tiles:"), ROW_B, ROW_L),
         [("UNKNOWN_COLLECTION", 2), ("MISSING_IDS", None)], 1, "Did you mean `tile:xla`?"),
    case("id-npz-suffix", csv(f"{A}.npz,0;1;2", ROW_B, ROW_L), [("UNKNOWN_ID", 2), ("MISSING_IDS", None)], 1,
         f"did you mean `{A}` (a `.npz` suffix)"),
    case("id-slashes", csv(f"tile/xla/{TILE3},0;1;2", ROW_B, ROW_L), [("UNKNOWN_COLLECTION", 2), ("MISSING_IDS", None)],
         1, f"did you mean `{A}` (`/` instead of `:`)"),
    case("id-slash-layout", csv(ROW_A, ROW_B, f"layout/xla/default/{LAYOUT6},0;1;2;3;4;5"),
         [("UNKNOWN_COLLECTION", 4), ("MISSING_IDS", None)], 1, "`/` instead of `:`"),
    case("id-upper-case", csv(f"tile:xla:{TILE3.upper()},0;1;2", ROW_B, ROW_L),
         [("UNKNOWN_ID", 2), ("MISSING_IDS", None)], 1, f"did you mean `{A}` (case)"),
    case("id-surrounding-whitespace", csv(f" {A} ,0;1;2", ROW_B, ROW_L), [("UNKNOWN_ID", 2), ("MISSING_IDS", None)],
         1, "(surrounding whitespace)"),
    case("id-of-other-split", csv(f"tile:xla:{VALID_TILE},0;1;2", ROW_B, ROW_L),
         [("UNKNOWN_ID", 2), ("MISSING_IDS", None)], 1, "a graph of the valid split, not of test"),
    case("id-cut-off", csv(f"tile:xla:{TILE3[:12]},0;1;2", ROW_B, ROW_L), [("UNKNOWN_ID", 2), ("MISSING_IDS", None)],
         1, "cut off"),
    case("id-of-other-collection", csv(ROW_A, ROW_B, f"layout:xla:default:{TILE3},0;1;2;3;4;5"),
         [("UNKNOWN_ID", 4), ("MISSING_IDS", None)], 1, "one of tile:xla"),
    case("id-collection-absent-from-root", csv(ROW_A, ROW_B, ROW_L, f"layout:nlp:random:{LAYOUT6},0;1"),
         [("COLLECTION_ABSENT", None)], 0, "no layout:nlp:random test graphs"),
    case("duplicate-id", csv(ROW_A, ROW_B, ROW_A, ROW_L), [("DUPLICATE_ID", 4)], 1, "first at line 2"),
    case("missing-ids", csv(ROW_A, ROW_L), [("MISSING_IDS", None)], 1,
         f"1 of the 2 tile:xla test graphs have no row: {B}"),
    # TopConfigs
    case("empty-configs", csv(f"{A},", ROW_B, ROW_L), [("EMPTY_CONFIGS", 2)], 1),
    case("empty-token-middle", csv(f"{A},0;;1;2", ROW_B, ROW_L), [("EMPTY_TOKEN", 2)], 1, "position 2 of 4"),
    case("empty-token-trailing", csv(f"{A},0;1;2;", ROW_B, ROW_L), [("EMPTY_TOKEN", 2)], 1, "position 4 of 4"),
    case("empty-token-leading", csv(f"{A},;0;1;2", ROW_B, ROW_L), [("EMPTY_TOKEN", 2)], 1, "position 1 of 4"),
    case("non-integer-3.0", csv(f"{A},0;1;2;3.0", ROW_B, ROW_L), [("NON_INTEGER", 2)], 1, "'3.0'"),
    case("non-integer-1e3", csv(f"{A},0;1;2;1e3", ROW_B, ROW_L), [("NON_INTEGER", 2)], 1, "'1e3'"),
    case("non-integer-abc", csv(f"{A},0;1;2;abc", ROW_B, ROW_L), [("NON_INTEGER", 2)], 1, "'abc'"),
    case("non-integer-space", csv(f"{A},0;1;2; 1", ROW_B, ROW_L), [("NON_INTEGER", 2)], 1, "no spaces"),
    case("non-integer-plus", csv(f"{A},0;1;2;+1", ROW_B, ROW_L), [("NON_INTEGER", 2)], 1, "no sign"),
    case("non-integer-fullwidth-digit", csv(f"{A},0;1;2;\uff11", ROW_B, ROW_L), [("NON_INTEGER", 2)], 1),
    case("non-integer-only-tokens", csv(f"{A},0;1;2.5", ROW_B, ROW_L), [("NON_INTEGER", 2), ("TILE_TOO_FEW", 2)], 1),
    case("negative-index", csv(f"{A},0;1;2;-1", ROW_B, ROW_L), [("NEGATIVE_INDEX", 2)], 1, "-1"),
    case("negative-zero", NEG_ZERO, [("NON_INTEGER", 2)], 1, "'-0'"),
    case("index-out-of-range", csv(f"{A},0;1;2;3", ROW_B, ROW_L), [("INDEX_OUT_OF_RANGE", 2)], 1,
         "the graph has 3 configurations"),
    case("index-with-5000-digits", csv(f"{A},0;1;2;{HUGE}", ROW_B, ROW_L), [("INDEX_OUT_OF_RANGE", 2)], 1),
    case("negative-index-with-5000-digits", csv(f"{A},0;1;2;-{HUGE}", ROW_B, ROW_L), [("NEGATIVE_INDEX", 2)], 1),
    case("duplicate-index", csv(f"{A},0;1;2;1", ROW_B, ROW_L), [("DUPLICATE_INDEX", 2)], 1, "1 (x2)"),
    case("tile-too-few-of-25", csv(ROW_A, f"{B},0;1;2;3", ROW_L), [("TILE_TOO_FEW", 3)], 1, "min(5, c) = 5"),
    case("tile-too-few-of-3", csv(f"{A},2;0", ROW_B, ROW_L), [("TILE_TOO_FEW", 2)], 1, "min(5, c) = 3"),
    case("tile-too-many", csv(ROW_A, f"{B},0;1;2;3;4;5", ROW_L), [("TILE_TOO_MANY", 3)], 1, "6 entries"),
    case("layout-not-permutation", csv(ROW_A, ROW_B, f"{L},0;1;2;3;4"), [("LAYOUT_NOT_PERMUTATION", 4)], 1,
         "missing: 5"),
    case("layout-permutation-with-duplicate", csv(ROW_A, ROW_B, f"{L},0;1;2;3;4;4"),
         [("DUPLICATE_INDEX", 4), ("LAYOUT_NOT_PERMUTATION", 4)], 1),
    case("nothing-usable", csv(f"{A},5;6;7", ROW_B, ROW_L), [("INDEX_OUT_OF_RANGE", 2), ("NO_USABLE_CONFIGS", 2)], 1),
    # lines and encodings
    case("blank-lines", csv(ROW_A, "", ROW_B, "   ", ROW_L), [("BLANK_LINE", 3), ("BLANK_LINE", 5)], 1, "blank line"),
    case("blank-line-before-header", b"\n" + VALID, [("BLANK_LINE", 1)], 1),
    case("blank-line-at-end", VALID + b"\n", [("BLANK_LINE", 5)], 1),
    case("crlf", csv(ROW_A, ROW_B, ROW_L, end="\r\n"), [("CRLF", None)], 0, "4 line(s)"),
    case("old-mac-cr", csv(ROW_A, ROW_B, ROW_L, end="\r"), [("CRLF", None)], 0),
    case("lone-cr-inside-a-row", csv(ROW_A, ROW_B, f"{L},0;1;2\r3;4;5"),
         [("LAYOUT_NOT_PERMUTATION", 4), ("MISSING_COLUMN", 5), ("CRLF", None)], 1),
    case("no-final-newline-valid", VALID[:-1], [], 0),
    case("cut-off-mid-row", VALID[:-7], [("LAYOUT_NOT_PERMUTATION", 4), ("NO_FINAL_NEWLINE", 4)], 1,
         "missing: 3, 4, 5"),
    case("cut-off-after-semicolon", VALID[:-4],
         [("EMPTY_TOKEN", 4), ("LAYOUT_NOT_PERMUTATION", 4), ("NO_FINAL_NEWLINE", 4)], 1),
    case("cut-off-in-id", csv(ROW_A, ROW_B) + L[:22].encode(),
         [("MISSING_COLUMN", 4), ("NO_FINAL_NEWLINE", 4), ("MISSING_IDS", None)], 1),
    case("empty-file", b"", [("EMPTY_FILE", None)], 1),
    case("whitespace-only-file", b"  \n\n", [("EMPTY_FILE", 1)], 1),
    case("header-only", csv(), [("MISSING_IDS", None), ("MISSING_IDS", None)], 1,
         "2 of the 2 tile:xla test graphs have no row"),
    case("binary-garbage-with-nuls", BINARY_GARBAGE,  # the line of the first NUL byte
         [("NOT_TEXT", BINARY_GARBAGE[:BINARY_GARBAGE.index(b"\x00")].count(b"\n") + 1)], 1, "NUL bytes"),
    case("binary-high-bytes", HIGH_BYTES, [("NOT_TEXT", None)], 1, "not UTF-8"),
    case("nul-bytes-after-8-KiB", VALID + b"x" * 9000 + b"\n" + b"\x00\x00\n" + csv(ROW_A, header=None),
         [("MISSING_COLUMN", 5), ("NOT_TEXT", 6)], 1, "one field"),
    case("utf16-with-bom", VALID.decode().encode("utf-16"), [("NOT_TEXT", None)], 1, "UTF-16"),
    case("utf16-big-endian-with-bom", b"\xfe\xff" + VALID.decode().encode("utf-16-be"), [("NOT_TEXT", None)], 1,
         "UTF-16"),
    case("utf16-without-bom", VALID.decode().encode("utf-16-le"), [("NOT_TEXT", None)], 1, "UTF-16"),
    case("non-utf8-byte-in-row", csv(ROW_A) + f"{B}\xff,0;1;2;3;4\n".encode("latin-1") + csv(ROW_L, header=None),
         [("NOT_UTF8", 3), ("MISSING_IDS", None)], 1, "0xff at column 33"),
    case("cp1252-text", csv(ROW_A, ROW_B, ROW_L) + "tile:xla:café,0\n".encode("cp1252"), [("NOT_UTF8", 5)], 1),
]


@pytest.mark.parametrize("data, expected, exit_code, hint", STRICT_CASES)
def test_strict(data, expected, exit_code, hint, catalog, tiny_root, tmp_path, capsys):
    validation = validate_submission(data, catalog, mode="strict")
    problems = validation.problems
    assert [(p.code, p.line) for p in problems] == expected, [(p.code, p.line, p.message) for p in problems]
    for p in problems:
        assert p.severity == CODES[p.code].strict
    if hint is not None:
        assert hint in problems[0].message
    assert validation.valid == (exit_code == 0)

    code, text, report = submit(capsys, tmp_path, data, tiny_root)
    assert code == exit_code, text
    assert [(p["code"], p["line"]) for p in report["problems"]] == expected
    assert report["scored"] == (exit_code == 0)


# --- lenient mode ---------------------------------------------------------------------------------

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO


def lenient(name, data, expected, exit_code):
    """``expected`` = [(code, line, severity)] under --lenient."""
    return pytest.param(data, expected, exit_code, id=name)


LENIENT_CASES = [
    # downgraded to warnings, the file is scored
    lenient("bom", b"\xef\xbb\xbf" + VALID, [("BOM", 1, W)], 0),
    lenient("blank-lines", csv(ROW_A, "", ROW_B, "   ", ROW_L), [("BLANK_LINE", 3, W), ("BLANK_LINE", 5, W)], 0),
    lenient("quoted-fields", csv(f'"{A}","0;1;2"', ROW_B, ROW_L), [("QUOTED_FIELD", 2, W)], 0),
    lenient("negative-index", csv(f"{A},0;1;2;-1", ROW_B, ROW_L), [("NEGATIVE_INDEX", 2, W)], 0),
    lenient("index-out-of-range", csv(f"{A},0;1;2;3", ROW_B, ROW_L), [("INDEX_OUT_OF_RANGE", 2, W)], 0),
    lenient("kaggle-sample-0-to-4-on-3-configs", csv(f"{A},0;1;2;3;4", ROW_B, ROW_L),
            [("INDEX_OUT_OF_RANGE", 2, W)], 0),
    lenient("duplicate-index", csv(f"{A},0;1;2;1", ROW_B, ROW_L), [("DUPLICATE_INDEX", 2, W)], 0),
    lenient("tile-too-many", csv(ROW_A, f"{B},0;1;2;3;4;5;6;7;8;9", ROW_L), [("TILE_TOO_MANY", 3, W)], 0),
    lenient("tile-too-few", csv(ROW_A, f"{B},0;1;2", ROW_L), [("TILE_TOO_FEW", 3, W)], 0),
    lenient("official-baseline-padding", csv(ROW_A, f"{B},4;1;0;0;0;0;0;0;0;0", ROW_L),
            [("DUPLICATE_INDEX", 3, W), ("TILE_TOO_MANY", 3, W), ("TILE_TOO_FEW", 3, W)], 0),
    lenient("layout-partial", csv(ROW_A, ROW_B, f"{L},5;0;1;2;3"), [("LAYOUT_NOT_PERMUTATION", 4, W)], 0),
    lenient("cut-off-layout-row", VALID[:-7], [("LAYOUT_NOT_PERMUTATION", 4, W), ("NO_FINAL_NEWLINE", 4, I)], 0),
    lenient("crlf", csv(ROW_A, ROW_B, ROW_L, end="\r\n"), [("CRLF", None, I)], 0),
    # nothing usable: still an error
    lenient("nothing-usable-out-of-range", csv(f"{A},5;6;7", ROW_B, ROW_L),
            [("INDEX_OUT_OF_RANGE", 2, W), ("NO_USABLE_CONFIGS", 2, E)], 1),
    lenient("nothing-usable-negative", csv(f"{A},-1;-2", ROW_B, ROW_L),
            [("NEGATIVE_INDEX", 2, W), ("NO_USABLE_CONFIGS", 2, E)], 1),
    lenient("layout-nothing-usable", csv(ROW_A, ROW_B, f"{L},6;7;8"),
            [("INDEX_OUT_OF_RANGE", 4, W), ("NO_USABLE_CONFIGS", 4, E)], 1),
    # errors in both modes
    lenient("non-integer", csv(f"{A},0;1;2;3.0", ROW_B, ROW_L), [("NON_INTEGER", 2, E)], 1),
    lenient("empty-token", csv(f"{A},0;1;2;", ROW_B, ROW_L), [("EMPTY_TOKEN", 2, E)], 1),
    lenient("empty-configs", csv(f"{A},", ROW_B, ROW_L), [("EMPTY_CONFIGS", 2, E)], 1),
    lenient("missing-ids", csv(ROW_A, ROW_L), [("MISSING_IDS", None, E)], 1),
    lenient("unknown-id", csv(ROW_A, ROW_B, ROW_L, f"{A}x,0"), [("UNKNOWN_ID", 5, E)], 1),
    lenient("duplicate-id", csv(ROW_A, ROW_B, ROW_L, ROW_B), [("DUPLICATE_ID", 5, E)], 1),
    lenient("header-renamed", csv(ROW_A, ROW_B, ROW_L, header="id,topconfigs"), [("HEADER_RENAMED", 1, E)], 1),
    lenient("header-missing", csv(ROW_A, ROW_B, ROW_L, header=None), [("HEADER_MISSING", 1, E)], 1),
    lenient("extra-columns", csv(f"{ROW_A},", ROW_B, ROW_L), [("EXTRA_COLUMNS", 2, E)], 1),
    lenient("malformed-quotes", csv(f'{A},"0;1;2', ROW_B, ROW_L),
            [("MALFORMED_QUOTES", 2, E), ("MISSING_IDS", None, E)], 1),
    lenient("not-utf8", csv(ROW_A, ROW_B) + f"{L},0;1;2;3;4;5\xe9\n".encode("latin-1"),
            [("NOT_UTF8", 4, E), ("MISSING_IDS", None, E)], 1),
    lenient("utf16", VALID.decode().encode("utf-16"), [("NOT_TEXT", None, E)], 1),
    lenient("empty-file", b"", [("EMPTY_FILE", None, E)], 1),
]


@pytest.mark.parametrize("data, expected, exit_code", LENIENT_CASES)
def test_lenient(data, expected, exit_code, catalog, tiny_root, tmp_path, capsys):
    problems = validate_submission(data, catalog, mode="lenient").problems
    assert [(p.code, p.line, p.severity) for p in problems] == expected, [(p.code, p.line, p.message) for p in problems]

    code, text, report = submit(capsys, tmp_path, data, tiny_root, "--lenient")
    assert code == exit_code, text
    assert [(p["code"], p["line"], p["severity"]) for p in report["problems"]] == [
        (c, line, str(s)) for c, line, s in expected]
    if exit_code == 0:  # accepted: scored, every collection value a number
        assert report["valid"] and report["scored"]
        assert set(report["collections"]) == {"tile:xla", "layout:xla:default"}
        assert all(v is not None and math.isfinite(v) for v in report["collections"].values())
        assert "VALID" in text
    else:
        assert not report["scored"] and "INVALID" in text


def test_strict_suggests_lenient_only_when_every_error_is_relaxable(tiny_root, tmp_path, capsys):
    relaxable = csv(f"{A},0;1;2;1", ROW_B, ROW_L)
    code, text, _ = submit(capsys, tmp_path, relaxable, tiny_root)
    assert code == 1 and "--lenient accepts them" in text
    code, text, _ = submit(capsys, tmp_path, csv(f"{A},0;1;2;3.0", ROW_B, ROW_L), tiny_root)
    assert code == 1 and "--lenient" not in text


def test_lenient_scores_the_first_five_distinct_valid_tile_indices(catalog, tiny_root, tmp_path, capsys):
    """Lenient drops out-of-range and repeated entries, then scores what is left (the Kaggle score)."""
    messy = csv(f"{A},7;1;1;0;2", f"{B},99;1;1;0;2;3;4;5;6", f"{L},9;0;1;2;3;4;5")
    clean = csv(f"{A},1;0;2", f"{B},1;0;2;3;4", ROW_L)
    _, _, messy_report = submit(capsys, tmp_path, messy, tiny_root, "--lenient")
    _, _, clean_report = submit(capsys, tmp_path, clean, tiny_root)
    assert messy_report["valid"] and clean_report["valid"]
    assert messy_report["collections"] == clean_report["collections"]


def test_several_submissions_one_invalid_exit_1(tiny_root, tmp_path, capsys):
    good, bad = tmp_path / "good.csv", tmp_path / "bad.csv"
    good.write_bytes(VALID)
    bad.write_bytes(csv(ROW_A, ROW_L))
    code, text = run_cli(capsys, good, bad, "--data-root", tiny_root, "--split", "test", "--no-progress")
    assert code == 1 and "Submissions" in text


def test_submission_as_path_bytes_and_file_object_agree(catalog, tmp_path):
    data = csv(f"{A},0;;1;2", ROW_L, f"{B}.npz,0;1;2;3;4")
    path = tmp_path / "s.csv"
    path.write_bytes(data)
    with path.open("rb") as handle:
        results = [validate_submission(src, catalog).problems for src in (data, path, str(path), handle)]
    assert results[0] == results[1] == results[2] == results[3]
    assert [(p.code, p.line) for p in results[0]] == [("EMPTY_TOKEN", 2), ("UNKNOWN_ID", 4), ("MISSING_IDS", None)]


def test_messages_never_show_runtimes(catalog):
    """Runtimes of the tiny root (3000, 1000, 2000, 600, 100, ...) never appear in a problem message."""
    bad = csv(f"{A},0;1;9", f"{B},0;1;2;3;4;5", f"{L},0;1")
    for mode in ("strict", "lenient"):
        for p in validate_submission(bad, catalog, mode=mode).problems:
            for runtime in ("3000", "1000", "600", "500", "400", "300"):
                assert runtime not in p.message


# --- a quoted layout field longer than Python's csv field limit -----------------------------------

def test_long_quoted_layout_field(tmp_path):
    root = tmp_path / "root"
    _layout(root / LAYOUT_TEST, "big", list(range(1, 30001)))
    big_catalog = scan_catalog(resolve_data_root(root), "test")
    field = ";".join(map(str, range(30000)))  # 168,889 characters
    data = csv(f'"layout:xla:default:big","{field}"')
    assert [(p.code, p.line, p.severity) for p in validate_submission(data, big_catalog, mode="lenient").problems] == [
        ("QUOTED_FIELD", 2, W)]


# --- bad data roots -------------------------------------------------------------------------------

def _clone(tiny_root: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(tiny_root, tmp_path / "root"))


def _rewrite(path: Path, **arrays) -> None:
    path.unlink()
    np.savez(path, **arrays)


def root_missing(tiny, tmp):
    return tmp / "nowhere"


def root_without_npz(tiny, tmp):
    (tmp / "empty").mkdir()
    return tmp / "empty"


def root_is_npz_itself(tiny, tmp):
    return _clone(tiny, tmp) / "npz"


def root_is_a_file(tiny, tmp):
    (tmp / "file").write_text("x")
    return tmp / "file"


def root_empty_collection(tiny, tmp):
    root = _clone(tiny, tmp)
    shutil.rmtree(root / LAYOUT_TEST)
    (root / LAYOUT_TEST).mkdir()
    return root


def root_no_split(tiny, tmp):
    root = _clone(tiny, tmp)
    shutil.rmtree(root / TILE_TEST)
    shutil.rmtree(root / LAYOUT_TEST)
    return root


def root_corrupt_npz(tiny, tmp):
    root = _clone(tiny, tmp)
    (root / TILE_TEST / f"{TILE3}.npz").write_bytes(random.Random(7).randbytes(400))
    return root


def root_truncated_npz(tiny, tmp):
    root = _clone(tiny, tmp)
    path = root / TILE_TEST / f"{TILE3}.npz"
    path.write_bytes(path.read_bytes()[:150])
    return root


def root_zero_byte_npz(tiny, tmp):
    root = _clone(tiny, tmp)
    (root / LAYOUT_TEST / f"{LAYOUT6}.npz").write_bytes(b"")
    return root


def root_zip_with_garbage_member(tiny, tmp):
    root = _clone(tiny, tmp)
    path = root / LAYOUT_TEST / f"{LAYOUT6}.npz"
    path.unlink()
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("config_runtime.npy", b"this is not an npy array")
    return root


def root_object_array(tiny, tmp):
    root = _clone(tiny, tmp)
    _rewrite(root / LAYOUT_TEST / f"{LAYOUT6}.npz", config_runtime=np.array([1, "a", None], dtype=object))
    return root


def root_no_config_runtime(tiny, tmp):
    root = _clone(tiny, tmp)
    _rewrite(root / LAYOUT_TEST / f"{LAYOUT6}.npz", node_feat=np.zeros((3, 2), np.float32))
    return root


def root_tile_without_normalizers(tiny, tmp):
    root = _clone(tiny, tmp)
    _rewrite(root / TILE_TEST / f"{TILE3}.npz", config_runtime=np.array([3, 1, 2], np.int64))
    return root


def root_runtime_2d(tiny, tmp):
    root = _clone(tiny, tmp)
    _rewrite(root / LAYOUT_TEST / f"{LAYOUT6}.npz", config_runtime=np.ones((2, 3), np.int64))
    return root


def root_zero_and_negative_runtime(tiny, tmp):
    root = _clone(tiny, tmp)
    _rewrite(root / TILE_TEST / f"{TILE3}.npz", config_runtime=np.array([3000, 0, -2000], np.int64),
             config_runtime_normalizers=np.array([10, 10, 10], np.int64))
    return root


def root_zero_normalizer(tiny, tmp):
    root = _clone(tiny, tmp)
    _rewrite(root / TILE_TEST / f"{TILE3}.npz", config_runtime=np.array([3000, 1000, 2000], np.int64),
             config_runtime_normalizers=np.array([10, 0, 10], np.int64))
    return root


def root_nan_runtime(tiny, tmp):
    root = _clone(tiny, tmp)
    _rewrite(root / LAYOUT_TEST / f"{LAYOUT6}.npz", config_runtime=np.array([6, 1, np.nan, 2, 4, 3]))
    return root


def root_all_zero(tiny, tmp):
    """The public test files: every config_runtime is 0."""
    root = _clone(tiny, tmp)
    for path in list((root / "npz").rglob("test/*.npz")):
        with np.load(path) as npz:
            arrays = {k: npz[k] for k in npz.files}
        arrays["config_runtime"] = np.zeros_like(arrays["config_runtime"])
        _rewrite(path, **arrays)
    return root


def droot(name, make, phrases):
    return pytest.param(make, phrases, id=name)


DATA_ROOT_CASES = [
    droot("missing-folder", root_missing, ["data root", "nowhere", "does not exist"]),
    droot("folder-without-npz", root_without_npz, ["holds no npz/ folder"]),
    droot("npz-folder-itself", root_is_npz_itself, ["looks like the npz/ folder itself", "pass its parent"]),
    droot("a-file", root_is_a_file, ["is not a folder"]),
    droot("empty-collection-folder", root_empty_collection, ["layout/xla/default/test", "holds no .npz files"]),
    droot("no-folder-for-the-split", root_no_split, ["has no test graphs"]),
    droot("corrupt-npz-random-bytes", root_corrupt_npz, [f"{TILE3}.npz", "not a readable .npz file"]),
    droot("truncated-npz", root_truncated_npz, [f"{TILE3}.npz", "not a readable .npz file"]),
    droot("zero-byte-npz", root_zero_byte_npz, [f"{LAYOUT6}.npz", "not a readable .npz file"]),
    droot("npz-member-not-npy", root_zip_with_garbage_member, [f"{LAYOUT6}.npz"]),
    droot("npz-object-array", root_object_array, [f"{LAYOUT6}.npz", "not a readable .npz file"]),
    droot("npz-missing-config-runtime", root_no_config_runtime, [f"{LAYOUT6}.npz", "no config_runtime",
                                                                 "keys: node_feat"]),
    droot("tile-npz-missing-normalizers", root_tile_without_normalizers, [f"{TILE3}.npz",
                                                                          "no config_runtime_normalizers"]),
    droot("runtime-not-1d", root_runtime_2d, [f"{LAYOUT6}.npz", "1-D"]),
    droot("zero-and-negative-runtimes", root_zero_and_negative_runtime,
          [f"{TILE3}.npz", "2 of 3 config_runtime values are not finite and positive"]),
    droot("zero-normalizer", root_zero_normalizer, [f"{TILE3}.npz", "config_runtime_normalizers values"]),
    droot("nan-runtime", root_nan_runtime, [f"{LAYOUT6}.npz", "1 of 6 config_runtime values"]),
    droot("all-zero-public-test-files", root_all_zero, ["public test files", "Validation still works"]),
]


@pytest.mark.parametrize("make, phrases", DATA_ROOT_CASES)
def test_bad_data_root(make, phrases, tiny_root, tmp_path, capsys):
    root = make(tiny_root, tmp_path)
    code, text, report = submit(capsys, tmp_path, VALID, root)
    assert code == 2
    assert report is None
    assert "tpugraphs-eval: error:" in text
    flat = " ".join(text.split())  # one line: the message lists faulty files on indented lines
    for phrase in phrases:
        assert phrase in flat, text
    for runtime in ("3000", "2000", "-2000"):  # messages never print runtimes
        assert f" {runtime} " not in flat and f"[{runtime}" not in flat


def test_corrupt_npz_message_does_not_advise_unpickling(tiny_root, tmp_path, capsys):
    code, text, _ = submit(capsys, tmp_path, VALID, root_corrupt_npz(tiny_root, tmp_path))
    assert code == 2
    assert "pickle" not in text


@pytest.mark.parametrize("make, validate_exit", [
    pytest.param(root_all_zero, 0, id="all-zero-runtimes"),
    pytest.param(root_zero_and_negative_runtime, 0, id="bad-runtimes"),
    pytest.param(root_tile_without_normalizers, 0, id="no-normalizers"),
    pytest.param(root_corrupt_npz, 2, id="corrupt-npz"),
    pytest.param(root_no_config_runtime, 2, id="no-config-runtime"),
])
def test_validate_needs_only_config_counts(make, validate_exit, tiny_root, tmp_path, capsys):
    """`validate` reads only config counts: runtimes (even all 0) and normalizers do not matter."""
    root = make(tiny_root, tmp_path)
    path = tmp_path / "submission.csv"
    path.write_bytes(VALID)
    code, text = run_cli(capsys, "validate", path, "--data-root", root, "--split", "test", "--no-progress")
    assert code == validate_exit, text
    code, text = run_cli(capsys, path, "--validate-only", "--data-root", root, "--split", "test", "--no-progress")
    assert code == validate_exit, text
    if validate_exit == 0:
        assert "VALID" in text
        path.write_bytes(csv(ROW_A, ROW_L))
        code, text = run_cli(capsys, "validate", path, "--data-root", root, "--split", "test", "--no-progress")
        assert code == 1 and "MISSING_IDS" in text


# --- options and eval indices ---------------------------------------------------------------------

VALID_SPLIT_CSV = csv(f"tile:xla:{VALID_TILE},1;3;2;0", f"layout:xla:default:{VALID_LAYOUT},1;3;2;0")


def _indices(tmp_path: Path, content: str | bytes | None) -> Path:
    folder = tmp_path / "eval_indices"
    folder.mkdir()
    if content is not None:
        path = folder / "xla_default.json"
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return folder


@pytest.mark.parametrize("content, phrases", [
    pytest.param(None, ["xla_default.json: missing", "layout:xla:default"], id="file-missing"),
    pytest.param('{"valid_layout": [0, 1,', ["not readable JSON"], id="invalid-json"),
    pytest.param(b"\xff\xfe{}", ["not readable JSON"], id="not-utf8"),
    pytest.param("[0, 1, 2]", ["expected an object"], id="not-an-object"),
    pytest.param('{"some_other_graph": [0, 1]}', ["no non-empty integer list", "valid_layout"], id="graph-absent"),
    pytest.param('{"valid_layout": []}', ["no non-empty integer list"], id="empty-list"),
    pytest.param('{"valid_layout": [0, 1.5]}', ["no non-empty integer list"], id="float-index"),
    pytest.param('{"valid_layout": [0, 1, 4]}', ["outside 0..3"], id="index-too-big"),
    pytest.param('{"valid_layout": [0, -1]}', ["outside 0..3"], id="negative-index"),
])
def test_bad_eval_indices(content, phrases, tiny_root, tmp_path, capsys):
    folder = _indices(tmp_path, content)
    code, text, report = submit(capsys, tmp_path, VALID_SPLIT_CSV, tiny_root, "--configs", "official",
                                "--eval-indices", folder, split="valid")
    assert code == 2 and report is None
    assert "cannot use the eval indices" in text
    flat = " ".join(text.split())
    for phrase in phrases:
        assert phrase in flat, text


def test_good_eval_indices_score(tiny_root, tmp_path, capsys):
    folder = _indices(tmp_path, '{"valid_layout": [3, 2, 1, 0, 0, 1]}')
    code, text, report = submit(capsys, tmp_path, VALID_SPLIT_CSV, tiny_root, "--configs", "official",
                                "--eval-indices", folder, split="valid")
    assert code == 0, text
    assert report["options"]["configs"] == "official" and report["provenance"]["eval_indices_sha256"]


@pytest.mark.parametrize("extra, split, phrases", [
    pytest.param(["--configs", "official"], "test", ["valid split", "--configs all"], id="official-on-test"),
    pytest.param(["--configs", "official", "--eval-indices", "IDX"], "test", ["valid split"],
                 id="official-on-test-with-indices"),
    pytest.param(["--configs", "official"], "valid", ["needs --eval-indices DIR"], id="official-without-indices"),
    pytest.param(["--configs", "official", "--eval-indices", "NOWHERE"], "valid", ["does not exist"],
                 id="indices-folder-missing"),
    pytest.param(["--json", "TMPDIR"], "test", ["cannot write the JSON report"], id="json-target-is-a-folder"),
])
def test_usage_errors(extra, split, phrases, tiny_root, tmp_path, capsys):
    folder = _indices(tmp_path, '{"valid_layout": [0, 1, 2, 3]}')
    replace = {"IDX": folder, "NOWHERE": tmp_path / "nowhere", "TMPDIR": tmp_path}
    path = tmp_path / "submission.csv"
    path.write_bytes(VALID if split == "test" else VALID_SPLIT_CSV)
    code, text = run_cli(capsys, path, "--data-root", tiny_root, "--split", split, "--no-progress",
                         *(replace.get(a, a) for a in extra))
    assert code == 2
    flat = " ".join(text.split())
    for phrase in phrases:
        assert phrase in flat, text


def test_failed_json_write_leaves_no_temporary_file(tiny_root, tmp_path, capsys):
    target = tmp_path / "out"
    target.mkdir()
    path = tmp_path / "submission.csv"
    path.write_bytes(VALID)
    code, _ = run_cli(capsys, path, "--data-root", tiny_root, "--split", "test", "--json", target)
    assert code == 2
    assert not (tmp_path / ".out.tmp").exists()


@pytest.mark.parametrize("argv", [
    pytest.param(["SUB", "--split", "bogus"], id="bad-split"),
    pytest.param(["SUB"], id="no-split"),
    pytest.param(["SUB", "--split", "test", "--tile-runtime", "bogus"], id="bad-tile-runtime"),
    pytest.param(["SUB", "--split", "test", "--max-problems", "many"], id="bad-int"),
    pytest.param(["validate", "SUB", "--split", "test", "--configs", "official"], id="option-of-score-only"),
])
def test_argparse_errors_exit_2(argv, tiny_root, tmp_path, capsys):
    path = tmp_path / "submission.csv"
    path.write_bytes(VALID)
    code, text = run_cli(capsys, *(path if a == "SUB" else a for a in argv), "--data-root", tiny_root)
    assert code == 2 and "error:" in text


def test_main_returns_on_argparse_errors(tiny_root, tmp_path):
    path = tmp_path / "submission.csv"
    path.write_bytes(VALID)
    assert cli.main([str(path), "--split", "bogus", "--data-root", str(tiny_root)]) == 2


@pytest.mark.parametrize("kind, phrase", [
    pytest.param("folder", "is a folder, not a submission CSV file", id="a-directory"),
    pytest.param("missing", "does not exist", id="a-missing-file"),
])
def test_unreadable_submission_path(kind, phrase, tiny_root, tmp_path, capsys):
    target = tmp_path if kind == "folder" else tmp_path / "nope.csv"
    code, text = run_cli(capsys, target, "--data-root", tiny_root, "--split", "test", "--no-progress")
    assert code == 2 and phrase in text
    code, text = run_cli(capsys, "validate", target, "--data-root", tiny_root, "--split", "test")
    assert code == 2 and phrase in text


# --- the console script, as a subprocess ----------------------------------------------------------

@pytest.mark.parametrize("name, data, make_root, exit_code", [
    pytest.param("garbage.csv", BINARY_GARBAGE, None, 1, id="binary-garbage"),
    pytest.param("utf16.csv", VALID.decode().encode("utf-16"), None, 1, id="utf16"),
    pytest.param("quoted.csv", csv(f'"{A}","0;1;2"', ROW_B, ROW_L), None, 1, id="quoted"),
    pytest.param("crlf.csv", csv(ROW_A, ROW_B, ROW_L, end="\r\n"), None, 0, id="crlf"),
    pytest.param("ok.csv", VALID, root_corrupt_npz, 2, id="corrupt-npz"),
    pytest.param("ok.csv", VALID, root_missing, 2, id="missing-data-root"),
    pytest.param("ok.csv", VALID, root_all_zero, 2, id="public-test-files"),
    pytest.param("huge.csv", csv(f"{A},0;1;2;{HUGE}", ROW_B, ROW_L), None, 1, id="5000-digit-token"),
])
def test_console_script(name, data, make_root, exit_code, tiny_root, tmp_path):
    path = tmp_path / name
    path.write_bytes(data)
    root = make_root(tiny_root, tmp_path) if make_root else tiny_root
    result = run_script(path, "--data-root", root, "--split", "test")
    assert "Traceback" not in result.stderr + result.stdout
    assert result.returncode == exit_code, result.stderr
    if exit_code == 2:
        assert result.stderr.startswith("tpugraphs-eval: error:")


def test_console_script_quoted_lenient_exit_0(tiny_root, tmp_path):
    path = tmp_path / "quoted.csv"
    path.write_bytes(csv(f'"{A}","0;1;2"', ROW_B, ROW_L))
    result = run_script(path, "--data-root", tiny_root, "--split", "test", "--lenient", "-q")
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr and "VALID" in result.stdout


def test_console_script_bad_split_exit_2(tiny_root, tmp_path):
    path = tmp_path / "ok.csv"
    path.write_bytes(VALID)
    result = run_script(path, "--data-root", tiny_root, "--split", "bogus")
    assert result.returncode == 2 and "Traceback" not in result.stderr and "invalid choice" in result.stderr
