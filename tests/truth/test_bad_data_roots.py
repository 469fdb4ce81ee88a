"""Bad data roots, eval indices, options and paths: exit status 2, a message naming the problem, no traceback.

Also the installed console script on a few bad inputs, as a subprocess. The tiny data root is
described in ``badinput.py``.
"""

from __future__ import annotations

import random
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest
from badinput import (
    BINARY_GARBAGE,
    HUGE,
    LAYOUT6,
    LAYOUT_TEST,
    ROW_A,
    ROW_B,
    ROW_L,
    TILE3,
    TILE_TEST,
    VALID,
    VALID_LAYOUT,
    VALID_TILE,
    A,
    csv,
    run_cli,
    run_script,
    submit,
)

from tpugraphs_eval.commands import evaluate as cli

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
    droot("npz-object-array", root_object_array, [f"{LAYOUT6}.npz", "numeric array, found object"]),
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
    pytest.param(["--configs", "official"], "valid", ["official lists shipped with the package", "'valid_layout'",
                                                      "pass --eval-indices DIR"], id="official-without-indices"),
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
    pytest.param("folder", "is a folder, not a regular file", id="a-directory"),
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
    pytest.param("quoted.csv", csv(f'"{A}","0;1;2"', ROW_B, ROW_L), None, 0, id="quoted"),  # a note
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
