"""Every code the kit can print is registered and documented, and each is produced here (the kit's walk, as
``test_error_messages.py`` walks the evaluator's codes).

- every code given to ``KitError`` / ``DownloadError`` / ``SubmissionError`` in the kit's source is a key of
  ``KIT_ERROR_CODES`` or one of the evaluator's codes (``SHARED_CODES``), and every registered kit code is
  raised somewhere (on the old code ``NO_MODEL``, ``BAD_OPTION`` and ``CANNOT_WRITE`` were in no table);
- each kit code is produced through a command (``[CODE]`` on stderr, its exit code), or through the API
  where no command can reach it (argparse guards the command's values), or named with the test that
  produces it against the loopback HTTP server;
- a message carries its code once (the old ``write_predictions`` said ``[BAD_PREDICTIONS] g: [BAD_PREDICTIONS]``).
"""

from __future__ import annotations

import ast
import io
from pathlib import Path

import numpy as np
import pytest
from download_helpers import npz_bytes, tar_bytes

from tpugraphs_eval import load_ground_truth, resolve_data_root, scan_catalog
from tpugraphs_kit import KitError, learned, load_graph, random_expectations, random_rankings, write_predictions
from tpugraphs_kit.cli_baseline import main as baseline_main
from tpugraphs_kit.cli_data import main as data_main
from tpugraphs_kit.data import collection
from tpugraphs_kit.errors import KIT_ERROR_CODES, SHARED_CODES
from tpugraphs_kit.submission import restrict

KIT = Path(__file__).resolve().parents[2] / "kit" / "tpugraphs_kit"
SAMPLE = Path(__file__).resolve().parents[2] / "sample_submissions" / "demo_identity_test.csv"
ERROR_CLASSES = {"KitError", "DownloadError", "SubmissionError"}


def _raised_codes() -> dict[str, list[str]]:
    """Code → places (``file:line``) of every ``KitError("CODE", ...)``-like call with a literal code, and of every
    literal assigned to a variable ``code`` (then given to such a call)."""
    found: dict[str, list[str]] = {}
    for path in sorted(KIT.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            first = None
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ERROR_CLASSES:
                first = node.args[0] if node.args else None  # "CODE", or "A" if ... else "B"
            elif isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["code"]:
                first = node.value  # code = "A" if ... else "B", then KitError(code, ...)
            if first is not None:
                for arg in (first.body, first.orelse) if isinstance(first, ast.IfExp) else (first,):
                    if isinstance(arg, ast.Constant):
                        found.setdefault(arg.value, []).append(f"{path.name}:{node.lineno}")
    return found


def test_every_code_in_the_kit_source_is_registered_and_every_registered_code_is_raised():
    raised = _raised_codes()
    unregistered = {code: places for code, places in raised.items()
                    if code not in KIT_ERROR_CODES and code not in SHARED_CODES}
    assert unregistered == {}
    assert set(KIT_ERROR_CODES) <= set(raised), set(KIT_ERROR_CODES) - set(raised)
    # one code, one meaning: a kit code that is also a submission problem code means the same thing of another
    # object (a collection name that is none of the five; an archive over a limit, refused unread)
    assert set(KIT_ERROR_CODES) & SHARED_CODES == {"UNKNOWN_COLLECTION", "ARCHIVE_TOO_LARGE"}
    assert {"OUTPUT_WRITE_FAILED", "OUTPUT_IS_INPUT", "USAGE_ERROR"} <= SHARED_CODES
    assert not {"CANNOT_WRITE", "BAD_OPTION"} & (set(raised) | set(KIT_ERROR_CODES))


def test_an_unregistered_code_is_a_bug_not_a_message():
    with pytest.raises(ValueError, match="unregistered kit error code 'NOPE'"):
        KitError("NOPE", "anything")


def test_a_message_carries_its_code_once(demo_root):
    """The old code wrapped the ranking's error in another: ``[BAD_PREDICTIONS] ID: [BAD_PREDICTIONS] ...``."""
    catalog = scan_catalog(demo_root, "valid")
    graph_id = next(iter(catalog.index))
    c = catalog.index[graph_id][2]
    with pytest.raises(KitError) as err:
        write_predictions({graph_id: [float("nan")] * c}, "unused.csv", catalog)
    assert str(err.value) == (f"[BAD_PREDICTIONS] {graph_id}: predictions must be finite numbers (found NaN, "
                              "infinity or non-numbers)")
    assert str(err.value).count("BAD_PREDICTIONS") == 1


# --- through a command -------------------------------------------------------------------------------

def _tile(folder: Path, graphs: dict[str, list[int]], keys: tuple[str, ...] = ()) -> None:
    """Tile graph files: runtimes, normalizers equal to the first runtime, and only ``keys`` of the rest."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, runtime in graphs.items():
        full = dict(np.load(io.BytesIO(npz_bytes(runtime, True))))
        np.savez(folder / f"{name}.npz", **{k: v for k, v in full.items()
                                              if k.startswith("config_runtime") or k in keys})


def _learned(root: Path, tmp_path: Path) -> list:
    return [baseline_main, "learned", "--split", "valid", "--data-root", root, "-o", tmp_path / "s.csv",
            "--no-progress"]


def _no_model(tmp_path):
    root = tmp_path / "root"
    _tile(root / "npz/tile/xla/valid", {"v": [3, 1, 2]})
    _tile(root / "npz/tile/xla/train", {"t": [3, 1, 2]})
    (root / "npz/layout/xla/default/valid").mkdir(parents=True)
    (root / "npz/layout/xla/default/valid/v.npz").write_bytes(npz_bytes([3, 1, 2], False))
    return _learned(root, tmp_path), 2


def _missing_key(tmp_path):
    root = tmp_path / "root"
    _tile(root / "npz/tile/xla/valid", {"v": [3, 1, 2]})
    _tile(root / "npz/tile/xla/train", {"t": [3, 1, 2]})  # no config_feat, node_feat: nothing to learn from
    return _learned(root, tmp_path), 2


def _unreadable_graph(tmp_path):
    root = tmp_path / "root"
    _tile(root / "npz/tile/xla/valid", {"v": [3, 1, 2]})
    (root / "npz/tile/xla/train").mkdir(parents=True)
    (root / "npz/tile/xla/train/t.npz").write_bytes(b"not a zip archive")
    return _learned(root, tmp_path), 2


def _no_training_data(tmp_path):
    root = tmp_path / "root"
    keys = ("config_feat", "node_feat", "node_opcode", "edge_index")
    _tile(root / "npz/tile/xla/valid", {"v": [3, 1, 2]}, keys)
    _tile(root / "npz/tile/xla/train", {"t": [5, 5, 5]}, keys)  # constant runtimes: no order to learn
    return _learned(root, tmp_path), 2


def _no_graphs(tmp_path):
    root = tmp_path / "root"
    _tile(root / "npz/tile/xla/valid", {"v": [3, 1, 2]})
    return [data_main, "list", "--collection", "layout:xla:default", "--split", "valid", "--data-root", root], 2


def _demo_parts(tmp_path) -> tuple[Path, Path]:
    header, *rows = SAMPLE.read_text().splitlines(keepends=True)
    tile = tmp_path / "tile.csv"
    tile.write_text(header + "".join(r for r in rows if r.startswith("tile:")))
    return tile, tmp_path / "all.csv"


def _combine(tmp_path, *inputs):
    return [baseline_main, "combine", *inputs, "--split", "test", "--data-root", "demo", "-o", tmp_path / "all.csv",
            "--no-progress"]


def _same_input_twice(tmp_path):
    tile, _ = _demo_parts(tmp_path)
    return _combine(tmp_path, tile, tile), 2


def _missing_collections(tmp_path):
    tile, _ = _demo_parts(tmp_path)
    return _combine(tmp_path, tile), 1


def _download(tmp_path, archive: bytes | None, root: Path | None = None):
    """``tpugraphs-data download`` of the tile:xla valid archive from a ``file://`` folder holding ``archive``."""
    source = tmp_path / "source"
    source.mkdir()
    if archive is not None:
        (source / "npz_tile_xla_valid.tar").write_bytes(archive)
    return [data_main, "download", "--data-root", root or tmp_path / "data", "--collections", "tile:xla",
            "--splits", "valid", "--base-url", source.as_uri() + "/", "--no-progress"], 2


def _unsafe_target(tmp_path):
    root = tmp_path / "data"
    root.mkdir()
    (tmp_path / "elsewhere").mkdir()
    (root / ".downloads").symlink_to(tmp_path / "elsewhere")
    return _download(tmp_path, tar_bytes([("npz/tile/xla/valid/g.npz", npz_bytes([2, 1], True), {})]), root)


GOOD_TAR = tar_bytes([("npz/tile/xla/valid/g.npz", npz_bytes([2, 1], True), {})])

def _folds_mismatch(tmp_path):
    (tmp_path / "folds.csv").write_text("ID,fold\ntile:xla:no-such-graph,0\n")
    return [baseline_main, "learned", "--split", "valid", "--data-root", "demo", "--folds", tmp_path / "folds.csv",
            "-o", tmp_path / "oof.csv", "--no-progress"], 2


CLI_CASES = {
    "NO_GRAPHS": _no_graphs,
    "FOLDS_MISMATCH": _folds_mismatch,
    "SAME_INPUT_TWICE": _same_input_twice,
    "MISSING_COLLECTIONS": _missing_collections,
    "NO_MODEL": _no_model,
    "MISSING_KEY": _missing_key,
    "UNREADABLE_GRAPH": _unreadable_graph,
    "NO_TRAINING_DATA": _no_training_data,
    "DOWNLOAD_FAILED": lambda t: _download(t, None),
    "BAD_ARCHIVE": lambda t: _download(t, b"\x01" * 3000),
    "TRUNCATED_ARCHIVE": lambda t: _download(t, GOOD_TAR[:1536]),
    "UNSAFE_ARCHIVE": lambda t: _download(t, tar_bytes([("npz/link", None, {"type": b"2", "linkname": "/etc"})])),
    "ARCHIVE_TOO_LARGE": lambda t: _download(t, tar_bytes([("npz/huge.npz", None, {"size": 10**13})])),
    "ARCHIVE_OUTSIDE_ITS_FOLDER": lambda t: _download(t, tar_bytes([("npz/tile/xla/test/g.npz",
                                                                      npz_bytes([2, 1], True), {})])),
    "UNSAFE_TARGET": _unsafe_target,
}


def _no_platform(monkeypatch, tmp_path, demo_root):
    from tpugraphs_kit import extract

    monkeypatch.setattr(extract.os, "supports_dir_fd", set())
    (tmp_path / "a.tar").write_bytes(GOOD_TAR)
    extract.safe_extract(tmp_path / "a.tar", tmp_path / "root")


API_CASES = {  # argparse guards these values on the command line; the API checks them itself
    "UNKNOWN_COLLECTION": lambda m, t, demo: collection("tile:tpu"),
    "UNKNOWN_SPLIT": lambda m, t, demo: load_graph(demo, "tile:xla", "dev", "x"),
    "GRAPH_NOT_FOUND": lambda m, t, demo: load_graph(demo, "tile:xla", "valid", "no-such-graph"),
    "BAD_PREDICTIONS": lambda m, t, demo: write_predictions([1, 2], t / "s.csv", scan_catalog(demo, "valid")),
    "BAD_SEED": lambda m, t, demo: random_rankings(scan_catalog(demo, "valid"), -1),
    "BAD_DRAWS": lambda m, t, demo: random_expectations(load_ground_truth(demo, "valid"), draws=-1),
    "COLLECTION_NOT_IN_SPLIT": lambda m, t, demo: restrict(scan_catalog(resolve_data_root(t / "root"), "valid"),
                                                                   ["layout:nlp:random"]),
    "WRONG_COLLECTION": lambda m, t, demo: learned.train(demo, "train", collections=["tile:xla"])["tile:xla"].predict(
        load_graph(demo, "layout:xla:default", "valid", "unet_3d.4x4.bf16")),
    "UNSUPPORTED_PLATFORM": _no_platform,
}

SERVER_CASES = {  # need the loopback HTTP server (a Content-Length to disagree with, a stalling response, a published folder)
    "SIZE_MISMATCH": "test_kit_download.py::test_size_checks",
    "TIMED_OUT": "test_kit_download_servers.py::test_trickling_server_through_the_cli",
    "CHECKSUM_MISMATCH": "test_kit_publish.py::test_a_changed_archive_is_refused",
}


def test_every_kit_code_has_a_case_here():
    assert sorted([*CLI_CASES, *API_CASES, *SERVER_CASES]) == sorted(KIT_ERROR_CODES)
    tests = Path(__file__).resolve().parent
    for code, where in SERVER_CASES.items():
        module, name = where.split("::")
        assert f"def {name}(" in (tests / module).read_text() and code in (tests / module).read_text()


@pytest.mark.parametrize("code", CLI_CASES)
def test_each_kit_code_is_printed_by_a_command(code, tmp_path, capsys):
    (main, *argv), expected_exit = CLI_CASES[code](tmp_path)
    exit_code = main([str(a) for a in argv])
    err = " ".join(capsys.readouterr().err.split())
    assert f"error: [{code}] " in err and err.count(f"[{code}]") == 1 and "Traceback" not in err, err
    assert exit_code == expected_exit


@pytest.mark.parametrize("code", API_CASES)
def test_each_api_only_kit_code_is_raised(code, tmp_path, demo_root, monkeypatch):
    _tile(tmp_path / "root" / "npz/tile/xla/valid", {"v": [3, 1, 2]})
    with pytest.raises(KitError) as err:
        API_CASES[code](monkeypatch, tmp_path, demo_root)
    assert err.value.code == code and str(err.value).count(f"[{code}]") == 1


def test_the_kit_commands_say_their_version(capsys):
    """Before, `tpugraphs-baseline --version` answered `the following arguments are required: COMMAND`."""
    from tpugraphs_eval._version import __version__
    from tpugraphs_kit import cli_baseline, cli_data

    for program, main in (("tpugraphs-baseline", cli_baseline.main), ("tpugraphs-data", cli_data.main)):
        assert main(["--version"]) == 0
        assert capsys.readouterr().out == f"{program} {__version__}\n"
