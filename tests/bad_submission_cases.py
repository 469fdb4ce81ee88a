"""The malformed-submission cases (strict and lenient) over the tiny data root of ``badinput.py``: each
states the problems the validator must report as ``(code, line)`` pairs in report order (file-level
problems such as MISSING_IDS have line None and come last), the CLI exit status, and optionally a phrase
its first message must contain. Used by tests/submission/test_bad_submissions.py and
tests/hosting/test_codabench_malformed.py."""



import pytest
from badinput import (
    BINARY_GARBAGE,
    HEADER,
    HIGH_BYTES,
    HUGE,
    LAYOUT6,
    NEG_ZERO,
    ROW_A,
    ROW_B,
    ROW_L,
    TILE3,
    VALID,
    VALID_TILE,
    A,
    B,
    L,
    csv,
)

from tpugraphs_eval.submission.problems import Severity

# --- malformed submissions, strict mode -----------------------------------------------------------



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
         [("BOM_INSIDE", 5), ("HEADER_REPEATED", 5)], 1),
    case("header-not-utf8", b"ID,TopConfigs\xe9\n" + csv(ROW_A, ROW_B, ROW_L, header=None), [("NOT_UTF8", 1)], 1),
    case("bom", b"\xef\xbb\xbf" + VALID, [("BOM", 1)], 0, "byte-order mark"),
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
    case("quoted-fields", csv(f'"{A}","0;1;2"', ROW_B, ROW_L), [("QUOTED_FIELD", 2)], 0, "unquoted values"),
    case("quoted-header", csv(ROW_A, ROW_B, ROW_L, header='"ID","TopConfigs"'), [("QUOTED_FIELD", 1)], 0),
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
         1, "is not a graph of the test split; `tile:xla:"),
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
    case("tile-six-is-fine", csv(ROW_A, f"{B},0;1;2;3;4;5", ROW_L), [], 0),
    case("tile-too-many", csv(ROW_A, f"{B},0;1;2;3;4;5;6;7;8;9;10", ROW_L), [("TILE_TOO_MANY", 3)], 1, "11 entries"),
    case("layout-not-permutation", csv(ROW_A, ROW_B, f"{L},0;1;2;3;4"), [("LAYOUT_NOT_PERMUTATION", 4)], 1,
         "missing: 5"),
    case("layout-permutation-with-duplicate", csv(ROW_A, ROW_B, f"{L},0;1;2;3;4;4"),
         [("DUPLICATE_INDEX", 4), ("LAYOUT_NOT_PERMUTATION", 4)], 1),
    case("nothing-usable", csv(f"{A},5;6;7", ROW_B, ROW_L), [("INDEX_OUT_OF_RANGE", 2), ("NO_USABLE_CONFIGS", 2)], 1),
    # lines and encodings
    case("blank-lines", csv(ROW_A, "", ROW_B, "   ", ROW_L), [("BLANK_LINE", 3), ("BLANK_LINE", 5)], 0, "blank line"),
    case("blank-line-before-header", b"\n" + VALID, [("BLANK_LINE", 1)], 0),
    case("blank-line-at-end", VALID + b"\n", [("BLANK_LINE", 5)], 0),
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
    case("utf32-with-bom", VALID.decode().encode("utf-32"), [("NOT_TEXT", None)], 1, "UTF-32"),  # was "UTF-16"
    case("utf32-big-endian-with-bom", b"\x00\x00\xfe\xff" + VALID.decode().encode("utf-32-be"), [("NOT_TEXT", None)],
         1, "UTF-32"),
    case("utf32-without-bom", VALID.decode().encode("utf-32-le"), [("NOT_TEXT", None)], 1, "UTF-32"),
    case("non-utf8-byte-in-row", csv(ROW_A) + f"{B}\xff,0;1;2;3;4\n".encode("latin-1") + csv(ROW_L, header=None),
         [("NOT_UTF8", 3), ("MISSING_IDS", None)], 1, "0xff at column 33"),
    case("cp1252-text", csv(ROW_A, ROW_B, ROW_L) + "tile:xla:café,0\n".encode("cp1252"), [("NOT_UTF8", 5)], 1),
]


# --- lenient mode ---------------------------------------------------------------------------------

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO  # noqa: E741 (the severity columns)


def lenient(name, data, expected, exit_code):
    """``expected`` = [(code, line, severity)] under --lenient."""
    return pytest.param(data, expected, exit_code, id=name)


LENIENT_CASES = [
    # downgraded to warnings, the file is scored
    lenient("bom", b"\xef\xbb\xbf" + VALID, [("BOM", 1, I)], 0),
    lenient("blank-lines", csv(ROW_A, "", ROW_B, "   ", ROW_L), [("BLANK_LINE", 3, W), ("BLANK_LINE", 5, W)], 0),
    lenient("quoted-fields", csv(f'"{A}","0;1;2"', ROW_B, ROW_L), [("QUOTED_FIELD", 2, I)], 0),
    lenient("negative-index", csv(f"{A},0;1;2;-1", ROW_B, ROW_L), [("NEGATIVE_INDEX", 2, W)], 0),
    lenient("index-out-of-range", csv(f"{A},0;1;2;3", ROW_B, ROW_L), [("INDEX_OUT_OF_RANGE", 2, W)], 0),
    lenient("kaggle-sample-0-to-4-on-3-configs", csv(f"{A},0;1;2;3;4", ROW_B, ROW_L),
            [("INDEX_OUT_OF_RANGE", 2, W)], 0),
    lenient("duplicate-index", csv(f"{A},0;1;2;1", ROW_B, ROW_L), [("DUPLICATE_INDEX", 2, W)], 0),
    lenient("tile-too-many", csv(ROW_A, f"{B},0;1;2;3;4;5;6;7;8;9;10", ROW_L), [("TILE_TOO_MANY", 3, W)], 0),
    lenient("tile-too-few", csv(ROW_A, f"{B},0;1;2", ROW_L), [("TILE_TOO_FEW", 3, W)], 0),
    lenient("official-baseline-padding", csv(ROW_A, f"{B},4;1;0;0;0;0;0;0;0;0", ROW_L),
            [("DUPLICATE_INDEX", 3, W), ("TILE_TOO_FEW", 3, W)], 0),
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


