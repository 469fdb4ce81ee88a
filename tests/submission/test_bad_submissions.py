"""Malformed submissions: exact problem codes and lines, severities per mode, CLI exit status, no traceback.

Every case states, explicitly, the problems the validator must report as ``(code, line)`` pairs in
report order (file-level problems such as MISSING_IDS have line None and come last), the CLI exit
status, and optionally a phrase its first message must contain (the near-miss hints). Each case is
checked three ways: :func:`validate_submission` (codes, lines, severities), the CLI in-process (exit
status, the same problems in its JSON report, no traceback), and for a handful, the installed console
script as a subprocess. The tiny data root is described in ``badinput.py``.
"""

from __future__ import annotations

import math

import pytest
from bad_submission_cases import LENIENT_CASES, STRICT_CASES, I
from badinput import (
    LAYOUT_TEST,
    ROW_A,
    ROW_B,
    ROW_L,
    VALID,
    A,
    B,
    L,
    _layout,
    csv,
    run_cli,
    submit,
)

from tpugraphs_eval import resolve_data_root, scan_catalog, validate_submission
from tpugraphs_eval.submission.problems import CODES

pytestmark = pytest.mark.usefixtures("kernel")  # every test with each kernel (conftest.py)

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
        ("QUOTED_FIELD", 2, I)]
