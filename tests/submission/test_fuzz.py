"""Property tests: no input makes the validator raise, report an unknown code or a line outside the file.

(a) random bytes and CSV-like text; (b) mutations of valid submissions (characters deleted, inserted,
replaced; lines dropped, duplicated, swapped; the file cut off; TopConfigs replaced by random index
lists; fields quoted; a BOM; separators, quotes, CR, NUL, non-ASCII and digits swapped in): when no
error is reported, scoring works and gives finite values; strict and lenient find the same problems
(one parser); CRLF line ends change nothing but add a note; (c) the CLI on random files exits 0 or 1
(as the API's verdict says), never 2 or 3, and prints no traceback; (d) the accelerators (the plain-file
iterators of submission/csvfile.py, the kernel's row scan) equal the rules of rules/ on every input. The tiny data root is the one of
``test_bad_submissions``. The whole module runs in about 10 s.
"""

from __future__ import annotations

import contextlib
import io
import math
import re
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from badinput import ROW_A, ROW_B, ROW_L, A, B, L, build_tiny_root, csv
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tpugraphs_eval import Options, kernels, load_ground_truth, resolve_data_root, score_submission, validate_submission
from tpugraphs_eval.commands import evaluate as cli
from tpugraphs_eval.dataset import BY_NAME
from tpugraphs_eval.kernels import Scanned
from tpugraphs_eval.rules.csvshape import ShapeReader
from tpugraphs_eval.rules.sniff import refusal
from tpugraphs_eval.rules.topconfigs import check_field
from tpugraphs_eval.submission import csvfile
from tpugraphs_eval.submission.problems import CODES, ProblemLog, Severity
from tpugraphs_eval.submission.topconfigs import diagnose

pytestmark = pytest.mark.usefixtures("kernel")  # every test with each kernel (conftest.py)

FUZZ = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_root(tmp_path_factory.mktemp("fuzz") / "root")


@pytest.fixture(scope="module")
def truth(root: Path):
    return load_ground_truth(resolve_data_root(root), "test")


def n_lines(data: bytes) -> int:
    """Lines as the validator counts them: LF, CRLF and lone CR each end one."""
    parts = re.split(rb"\r\n|\r|\n", data)
    return len(parts) - (parts[-1] == b"")


def check_problems(data: bytes, validation) -> None:
    """Every code is registered, with its severity for the mode; every line is inside the file."""
    last = max(n_lines(data), 1)
    for p in validation.problems:
        assert p.code in CODES, p
        assert p.severity == CODES[p.code].severity(validation.mode), p
        assert p.line is None or 1 <= p.line <= last, (p, last)
        assert isinstance(p.message, str) and p.message


# --- (a) random bytes -----------------------------------------------------------------------------

@settings(FUZZ, max_examples=1500)
@given(data=st.binary(max_size=600), mode=st.sampled_from(["strict", "lenient"]))
def test_random_bytes_never_raise(data, mode, truth):
    validation = validate_submission(data, truth.catalog, mode=mode)
    check_problems(data, validation)


@settings(FUZZ, max_examples=600)
@given(text=st.text(alphabet=st.sampled_from(list("ID,TopConfigs;:tilexayoud0123456789-\r\n\" \t.é")), max_size=300))
def test_csv_like_text_never_raises(text, truth):
    data = text.encode("utf-8")
    for mode in ("strict", "lenient"):
        check_problems(data, validate_submission(data, truth.catalog, mode=mode))


# --- (b) mutations of valid submissions -----------------------------------------------------------

BASES = [
    csv(ROW_A, ROW_B, ROW_L),
    csv(ROW_L, f"{B},24;3;11;0;7", f"{A},2;1;0"),
    csv(ROW_A, ROW_B, ROW_L, end="\r\n"),
    csv(f"{A},2;0;1", f"{B},9;8;7;6;5", f"{L},5;4;3;2;1;0"),
]
PIECES = [b";", b",", b'"', b"\r", b"\n", b"\x00", b"\xc3\xa9", b"\xff", b"\xef\xbb\xbf", b" ", b"\t", b"-",
          b":", b".", b"+", b"e", b"\xe2\x80\xa8"] + [str(d).encode() for d in range(10)] + [b"24", b"25", b"99999"]


ALL_EDITS = ("delete", "insert", "replace", "cut", "digit_run", "drop_line", "dup_line", "swap_lines",
             "new_configs", "quote", "bom")
ROW_EDITS = ("new_configs", "swap_lines", "quote", "bom")
"""Edits that keep the file's shape: the result is often valid in lenient mode, so that it gets scored."""


@st.composite
def mutated(draw, edits: tuple[str, ...] = ALL_EDITS) -> bytes:
    """A valid base file with 1-4 edits; most edits land after the header, where the rows are."""
    data = bytearray(draw(st.sampled_from(BASES)))
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(edits))
        if op in ("delete", "insert", "replace", "cut", "digit_run"):
            first_row = data.find(b"\n") + 1 if draw(st.integers(0, 3)) else 0  # 1 in 4 edits may hit the header
            last = max(len(data) - 1, 0)
            at = draw(st.integers(min(first_row, last), last))
            if op == "delete":
                del data[at:at + draw(st.integers(1, 3))]
            elif op == "insert":
                data[at:at] = draw(st.sampled_from(PIECES))
            elif op == "replace":
                data[at:at + 1] = draw(st.sampled_from(PIECES))
            elif op == "cut":
                del data[at:]
            else:
                data[at:at] = draw(st.text(alphabet="0123456789;", min_size=1, max_size=12)).encode()
            continue
        if op == "bom":
            data[0:0] = b"\xef\xbb\xbf"
            continue
        lines = bytes(data).splitlines(keepends=True)
        if not lines:
            continue
        i = draw(st.integers(0, len(lines) - 1))
        if op == "drop_line":
            del lines[i]
        elif op == "dup_line":
            lines.insert(draw(st.integers(0, len(lines))), lines[i])
        elif op == "swap_lines":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        else:
            body = lines[i].rstrip(b"\r\n")
            end = lines[i][len(body):]
            graph_id, _, configs = body.partition(b",")
            if op == "new_configs":  # indices around the valid ranges (3, 6, 25 configs), negatives included
                values = draw(st.lists(st.integers(-2, 27), max_size=8))
                configs = ";".join(map(str, values)).encode()
            else:
                graph_id, configs = b'"' + graph_id + b'"', b'"' + configs + b'"'
            lines[i] = graph_id + b"," + configs + end
        data = bytearray(b"".join(lines))
    return bytes(data)


@settings(FUZZ, max_examples=2000)
@given(data=st.one_of(mutated(), mutated(ROW_EDITS)), mode=st.sampled_from(["strict", "lenient"]))
def test_mutated_submissions(data, mode, truth):
    validation = validate_submission(data, truth.catalog, mode=mode)
    check_problems(data, validation)
    if validation.n_errors:
        return
    report = score_submission(data, truth, Options(mode=mode))
    assert report.valid and report.scored
    assert set(report.collections) == set(truth.catalog.collections)
    for name, result in report.collections.items():
        if mode == "strict":  # full rows over distinct runtimes: every value is defined
            assert result.value is not None and math.isfinite(result.value), name
        else:  # a lenient partial layout row may leave tau undefined (None), never NaN or inf
            assert result.value is None or math.isfinite(result.value), name
    assert report.overall is None or math.isfinite(report.overall)


@settings(FUZZ, max_examples=1000)
@given(data=mutated())
def test_modes_share_one_parser(data, truth):
    """Lenient finds the same problems as strict, each no more severe (NO_FINAL_NEWLINE follows errors)."""
    strict = validate_submission(data, truth.catalog, mode="strict").problems
    lenient = validate_submission(data, truth.catalog, mode="lenient").problems
    def key(problems):
        return [(p.line, p.id, p.code, p.message) for p in problems if p.code != "NO_FINAL_NEWLINE"]

    assert key(strict) == key(lenient)
    order = {Severity.INFO: 0, Severity.WARNING: 1, Severity.ERROR: 2}
    for s, lenient_problem in zip([p for p in strict if p.code != "NO_FINAL_NEWLINE"],
                    [p for p in lenient if p.code != "NO_FINAL_NEWLINE"]):
        assert order[lenient_problem.severity] <= order[s.severity]
    if not any(p.severity == Severity.ERROR for p in strict):
        assert not any(p.severity == Severity.ERROR for p in lenient)


# --- (c) the CLI on random files ------------------------------------------------------------------

@settings(FUZZ, max_examples=150)
@given(data=st.one_of(st.binary(max_size=400), mutated()),
       flags=st.sampled_from([[], ["--lenient"], ["--validate-only"], ["--lenient", "--per-graph"], ["-q"]]))
def test_cli_on_random_files(data, flags, root, truth, tmp_path_factory):
    path = tmp_path_factory.getbasetemp() / "fuzz-submission.csv"
    path.write_bytes(data)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main([str(path), "--data-root", str(root), "--split", "test", "--no-progress", *flags])
    text = out.getvalue() + err.getvalue()
    assert "Traceback" not in text and "internal error" not in text, text
    assert code in (0, 1, 2)
    assert code != 2, text  # the file is readable and the data root is fine: never a usage/data error
    mode = "lenient" if "--lenient" in flags else "strict"
    assert (code == 0) == validate_submission(data, truth.catalog, mode=mode).valid


@settings(FUZZ, max_examples=600)
@given(data=st.one_of(mutated(), mutated(ROW_EDITS)).filter(lambda d: b"\r" not in d))
def test_crlf_changes_nothing_but_a_note(data, truth):
    """CRLF and CR CR LF line ends are accepted: the same file with either has the same problems, plus one
    CRLF note."""
    def key(problems):
        return [(p.line, p.id, p.code, p.severity, p.message) for p in problems if p.code != "CRLF"]

    for mode in ("strict", "lenient"):
        lf = validate_submission(data, truth.catalog, mode=mode)
        for end in (b"\r\n", b"\r\r\n"):
            crlf = validate_submission(data.replace(b"\n", end), truth.catalog, mode=mode)
            assert key(crlf.problems) == key(lf.problems)
            if not any(p.code in ("NOT_TEXT", "EMPTY_FILE") for p in lf.problems):  # files read to the end
                assert (b"\n" in data) == any(p.code == "CRLF" for p in crlf.problems)


# --- (d) the accelerators equal the rules (rules/csvshape.py, rules/topconfigs.py) --------------------------------

def _by_the_rules(data: bytes) -> tuple[list, list]:
    """(rows, problems) of a file read line by line by rules/csvshape.py alone (what the Codabench program does)."""
    found: list = []
    refused = refusal(data)
    if refused:
        return [], [(refused[0], refused[2], None, refused[1])]
    add = lambda code, message, line=None, id=None: found.append((code, line, id, message))  # noqa: E731
    rows = [(line, ident, bytes(configs)) for line, ident, configs in ShapeReader(add, BY_NAME).read(data)]
    return rows, found


def _by_the_validator(data: bytes, split_max: int | None = None) -> tuple[list, list]:
    """(rows, problems) of the same file through submission/csvfile.py (its plain-file paths where they apply)."""
    log = ProblemLog("strict")
    with mock.patch.object(csvfile, "_SPLIT_MAX_BYTES", csvfile._SPLIT_MAX_BYTES if split_max is None else split_max):
        rows = [(line, ident, bytes(configs)) for line, ident, configs in csvfile.SubmissionCsv(data, log)]
    return rows, [(p.code, p.line, p.id, p.message) for p in log.problems]


@settings(FUZZ, max_examples=400)
@given(data=st.one_of(mutated(), mutated(ROW_EDITS),
                      st.text(alphabet=st.sampled_from(list("ID,TopConfigs;:tilexayoud0123456789-\n \t[]")),
                              max_size=300).map(str.encode)),
       split_max=st.sampled_from([None, 0]))
def test_the_plain_file_paths_equal_the_rules(data, split_max):
    """Both plain-file iterators (split at once, and cut in place: ``split_max=0``) give the rows and problems that
    rules/csvshape.py gives reading every line itself, on any file (a zip or gzip is the validator's alone)."""
    if data.startswith((b"PK", b"\x1f\x8b")):
        return
    assert _by_the_validator(data, split_max) == _by_the_rules(data)


@settings(FUZZ, max_examples=600)
@given(field=st.one_of(st.text(alphabet=st.sampled_from(list("0123456789;-+ .,[]e")), max_size=30),
                       st.lists(st.integers(0, 31), max_size=12).map(lambda v: ";".join(map(str, v)))),
       n_configs=st.integers(1, 30), kind=st.sampled_from(["tile", "layout"]))
def test_the_fast_row_scan_equals_the_rules(field, n_configs, kind):
    """The kernel's row scan (C or numpy) and diagnose's use of it find what rules/topconfigs.py's check_field finds:
    a row the scan passes as clean has no problem by the rules and the same indices; any other, the same problems."""
    configs = field.encode()
    values, n_tokens, flags = kernels.active().scan_indices(configs, n_configs)
    rules = check_field(configs, kind, n_configs)
    need = min(5, n_configs) if kind == "tile" else n_configs
    if flags == 0 and (n_tokens == need or (kind == "tile" and need < n_tokens <= 10)):
        assert rules.problems == [] and rules.usable.tolist() == np.frombuffer(values, np.int32).tolist()
    else:
        fast = diagnose(configs, kind, n_configs, Scanned(values, n_tokens, flags))
        assert [code for code, _ in fast.problems] == [code for code, _ in rules.problems]
        assert (fast.usable.tolist(), fast.one_past_end) == (rules.usable.tolist(), rules.one_past_end)
