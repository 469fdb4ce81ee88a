"""What changes no value is read, in both modes, exactly as every CSV reader reads it (SPEC §2, amended).

RFC 4180 quoting, a UTF-8 byte-order mark, CRLF, CR and CR CR LF line ends are info notes (one per
file, not one per line); blank lines are warnings. The bytes of each case are written by pandas or by
Python's csv module the way real tools write them, and the rows the validator reads from them are
compared with the rows Python's ``csv`` module and ``pandas.read_csv`` read from the same bytes: the
expected values come from those two readers, not from this package. Also: dot files in a data root
(macOS ``._*.npz``) are ignored with a note.
"""

from __future__ import annotations

import csv
import io

import pandas as pd
import pytest
from badinput import ROW_A, ROW_B, ROW_L, TILE3, TILE_TEST, VALID, A, B, L, build_tiny_root, run_cli

from tpugraphs_eval import evaluate, resolve_data_root, scan_catalog, validate_submission
from tpugraphs_eval.submission.csvfile import SubmissionCsv
from tpugraphs_eval.submission.problems import ProblemLog, Severity

ROWS = [(A, "0;1;2"), (B, "0;1;2;3;4"), (L, "0;1;2;3;4;5")]
FRAME = pd.DataFrame(ROWS, columns=["ID", "TopConfigs"])


def pandas_bytes(**to_csv) -> bytes:
    """FRAME as pandas writes it with these ``to_csv`` options."""
    buffer = io.BytesIO()
    FRAME.to_csv(buffer, index=False, **to_csv)
    return buffer.getvalue()


def text_mode_bytes(newline: str, *, bom: bool = False, quoting: int = csv.QUOTE_MINIMAL) -> bytes:
    """FRAME written by ``csv.writer`` (lines end in CRLF) into a text file opened with ``newline``: with
    ``"\\r\\n"`` every ``\\n`` becomes ``\\r\\n``, as in text mode on Windows, so each line ends in CR CR LF."""
    buffer = io.BytesIO()
    with io.TextIOWrapper(buffer, encoding="utf-8-sig" if bom else "utf-8", newline=newline) as text:
        writer = csv.writer(text, quoting=quoting)
        writer.writerow(FRAME.columns)
        writer.writerows(ROWS)
        text.flush()
        return buffer.getvalue()


def csv_module_rows(data: bytes) -> list[tuple[str, str]]:
    """Data rows as Python's csv module reads them (BOM skipped by utf-8-sig; empty rows dropped)."""
    rows = list(csv.reader(io.TextIOWrapper(io.BytesIO(data), encoding="utf-8-sig", newline="")))
    rows = [r for r in rows if r and any(f.strip() for f in r)]
    assert rows[0] == ["ID", "TopConfigs"]
    return [tuple(r) for r in rows[1:]]


def pandas_rows(data: bytes) -> list[tuple[str, str]]:
    """Data rows as ``pandas.read_csv`` reads them (what Kaggle's scorer read)."""
    frame = pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False)
    assert list(frame.columns) == ["ID", "TopConfigs"]
    return list(frame.itertuples(index=False, name=None))


def our_rows(data: bytes) -> list[tuple[str, str]]:
    return [(ident, bytes(configs).decode()) for _, ident, configs in SubmissionCsv(data, ProblemLog("strict"))]


WRITTEN = {
    "pandas-quote-nonnumeric": (pandas_bytes(quoting=csv.QUOTE_NONNUMERIC), {"QUOTED_FIELD"}),
    "pandas-quote-all-crlf": (pandas_bytes(quoting=csv.QUOTE_ALL, lineterminator="\r\n"), {"QUOTED_FIELD", "CRLF"}),
    "excel-csv-utf8-bom-crlf": (pandas_bytes(encoding="utf-8-sig", lineterminator="\r\n"), {"BOM", "CRLF"}),
    "bom-only": (pandas_bytes(encoding="utf-8-sig"), {"BOM"}),
    "windows-text-mode-cr-cr-lf": (text_mode_bytes("\r\n"), {"CRLF"}),
    "windows-text-mode-bom-quoted": (text_mode_bytes("\r\n", bom=True, quoting=csv.QUOTE_ALL),
                                     {"BOM", "QUOTED_FIELD", "CRLF"}),
    "old-mac-cr": (pandas_bytes(lineterminator="\r"), {"CRLF"}),
}


def test_the_cases_hold_what_they_say():
    """The writers really produced quotes, a BOM and CR CR LF (else the tests below would prove nothing)."""
    assert WRITTEN["pandas-quote-nonnumeric"][0].startswith(b'"ID","TopConfigs"\n"tile:xla:')
    assert WRITTEN["excel-csv-utf8-bom-crlf"][0].startswith(b"\xef\xbb\xbfID,TopConfigs\r\n")
    assert WRITTEN["windows-text-mode-cr-cr-lf"][0].count(b"\r\r\n") == 4


@pytest.mark.parametrize("name", WRITTEN)
def test_read_as_csv_module_and_pandas_read_it(name, catalog):
    data, notes = WRITTEN[name]
    assert our_rows(data) == csv_module_rows(data) == pandas_rows(data) == ROWS
    plain = validate_submission(VALID, catalog)
    for mode in ("strict", "lenient"):
        validation = validate_submission(data, catalog, mode=mode)
        assert validation.valid
        assert validation.submission.rankings == plain.submission.rankings
        assert [p.code for p in validation.problems] == sorted(notes, key=[p.code for p in validation.problems].index)
        assert {p.code for p in validation.problems} == notes and len(validation.problems) == len(notes)  # one each
        assert all(p.severity == Severity.INFO for p in validation.problems)


def test_one_quoted_note_for_the_file_naming_the_lines(catalog):
    data = WRITTEN["pandas-quote-nonnumeric"][0]
    [note] = validate_submission(data, catalog).problems
    assert (note.code, note.line) == ("QUOTED_FIELD", 1)
    assert "4 line(s) (line 1, 2, 3, … (4 in all))" in note.message


def test_cr_cr_lf_counts_one_line_each(catalog):
    """A problem on the third line is reported on line 3 (CR CR LF is one line end, not a blank line)."""
    data = VALID.replace(b"\n", b"\r\r\n").replace(b"0;1;2;3;4\r", b"0;1;2;3;4;99\r")
    validation = validate_submission(data, catalog)
    assert [(p.code, p.line) for p in validation.problems] == [("INDEX_OUT_OF_RANGE", 3), ("CRLF", None)]
    assert "4 line(s)" in validation.problems[-1].message


def test_blank_lines_are_warnings_and_skipped_as_pandas_skips_them(catalog):
    data = f"ID,TopConfigs\n\n{ROW_A}\n   \n{ROW_B}\n{ROW_L}\n\n".encode()
    assert our_rows(data) == csv_module_rows(data) == pandas_rows(data) == ROWS
    for mode in ("strict", "lenient"):
        validation = validate_submission(data, catalog, mode=mode)
        assert validation.valid
        assert [(p.code, p.line, p.severity) for p in validation.problems] == [
            ("BLANK_LINE", 2, Severity.WARNING), ("BLANK_LINE", 4, Severity.WARNING),
            ("BLANK_LINE", 7, Severity.WARNING)]


def test_a_bom_inside_the_file_is_an_error(catalog):
    """Concatenated files: pandas keeps a BOM that starts a later line in the ID, so the value changes."""
    data = VALID + b"\xef\xbb\xbf" + ROW_A.encode() + b"\n"
    assert pandas_rows(data)[-1][0] == "\ufeff" + A
    for mode in ("strict", "lenient"):
        validation = validate_submission(data, catalog, mode=mode)
        assert ("BOM_INSIDE", 5, Severity.ERROR) in [(p.code, p.line, p.severity) for p in validation.problems]


def test_exit_code_of_a_forgiven_file(tmp_path, tiny_root, capsys):
    path = tmp_path / "excel.csv"
    path.write_bytes(WRITTEN["windows-text-mode-bom-quoted"][0])
    code, out = run_cli(capsys, "validate", path, "--split", "test", "--data-root", tiny_root)
    assert code == 0, out
    assert "VALID" in out and "3 note(s)" in out


def test_dot_files_in_a_data_root_are_ignored_with_a_note(tmp_path, capsys):
    root = build_tiny_root(tmp_path / "root")
    apple_double = b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        "  # the AppleDouble header macOS writes
    (root / TILE_TEST / f"._{TILE3}.npz").write_bytes(apple_double)
    (root / TILE_TEST / ".DS_Store").write_bytes(b"\x00\x00\x00\x01Bud1")
    catalog = scan_catalog(resolve_data_root(root), "test")
    assert sorted(catalog.collections["tile:xla"].names) == [TILE3, "matmul_fedcba9876543210"]
    report = evaluate(VALID, split="test", data_root=root, validate_only=True)
    assert report.valid
    expected = [f"{TILE_TEST}/.DS_Store", f"{TILE_TEST}/._{TILE3}.npz"]
    assert report.ignored_files == expected and report.to_dict()["ignored_files"] == expected
    path = tmp_path / "submission.csv"
    path.write_bytes(VALID)
    code, out = run_cli(capsys, "validate", path, "--split", "test", "--data-root", root)
    assert code == 0 and "2 dot file(s)" in out and "._conv_net" in out
