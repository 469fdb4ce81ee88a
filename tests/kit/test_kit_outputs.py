"""The kit's outputs (``tpugraphs-baseline -o`` / ``--json``, every command that writes): never over an input
(``OUTPUT_IS_INPUT``, exit 2, before any work), and a write that fails is ``OUTPUT_WRITE_FAILED``, the codes
docs/options.md "Output files" and docs/codes.md give for them, the same as ``tpugraphs-eval``'s.

On the old code ``combine tile.csv lay.csv -o tile.csv`` exited 0 and replaced ``tile.csv``, ``random -o`` onto a
graph file of the split replaced the graph with CSV, and a missing folder was ``[CANNOT_WRITE]``, a code that
is in no table.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tpugraphs_eval import UsageError, scan_catalog
from tpugraphs_eval.commands.evaluate import main as eval_main
from tpugraphs_kit import combine_submissions
from tpugraphs_kit.cli_baseline import main as baseline_main

SAMPLE = Path(__file__).resolve().parents[2] / "sample_submissions" / "demo_identity_test.csv"


@pytest.fixture()
def parts(tmp_path) -> tuple[Path, Path]:
    """The demo identity test submission split in two: its tile rows and its layout rows (the tester's files)."""
    header, *rows = SAMPLE.read_text().splitlines(keepends=True)
    tile, layout = tmp_path / "tile.csv", tmp_path / "lay.csv"
    tile.write_text(header + "".join(r for r in rows if r.startswith("tile:")))
    layout.write_text(header + "".join(r for r in rows if r.startswith("layout:")))
    return tile, layout


def _run(capsys, *argv) -> tuple[int, str]:
    code = baseline_main([str(a) for a in argv])
    return code, " ".join(capsys.readouterr().err.split())


def _combine(tile, layout, *more):
    return ("combine", tile, layout, "--split", "test", "--data-root", "demo", "--no-progress", *more)


@pytest.mark.parametrize("spelling", ["same", "dot", "symlink", "hardlink"])
def test_combine_refuses_an_output_that_is_one_of_its_inputs(spelling, parts, tmp_path, monkeypatch, capsys):
    tile, layout = parts
    before = tile.read_bytes()
    monkeypatch.chdir(tmp_path)
    target = {"same": tile, "dot": Path(".") / "tile.csv", "symlink": tmp_path / "link.csv",
              "hardlink": tmp_path / "hard.csv"}[spelling]
    if spelling == "symlink":
        os.symlink(tile, target)
    if spelling == "hardlink":
        os.link(tile, target)
    code, err = _run(capsys, *_combine(tile, layout, "-o", target))
    assert code == 2, err
    assert (f"[OUTPUT_IS_INPUT] -o {target} is the input {tile}: it would be overwritten; give another output "
            "path") in err
    assert tile.read_bytes() == before  # the old code exited 0 and replaced tile.csv with the combined file


def test_combine_refuses_a_json_report_onto_an_input_and_onto_its_output(parts, tmp_path, capsys):
    tile, layout = parts
    before = layout.read_bytes()
    code, err = _run(capsys, *_combine(tile, layout, "-o", tmp_path / "all.csv", "--json", layout))
    assert code == 2 and f"[OUTPUT_IS_INPUT] --json {layout} is the input {layout}" in err
    assert layout.read_bytes() == before and not (tmp_path / "all.csv").exists()
    code, err = _run(capsys, *_combine(tile, layout, "-o", tmp_path / "all.csv", "--json", tmp_path / "." / "all.csv"))
    assert code == 2 and (f"[SAME_OUTPUT_TWICE] -o {tmp_path / 'all.csv'} and --json {tmp_path / '.' / 'all.csv'} "
                          "are the same path") in err
    assert not (tmp_path / "all.csv").exists()


def test_combine_api_refuses_an_output_that_is_an_input(parts, demo_root):
    tile, layout = parts
    before = tile.read_bytes()
    with pytest.raises(UsageError) as err:
        combine_submissions([tile, layout], tile, scan_catalog(demo_root, "test"))
    assert err.value.code == "OUTPUT_IS_INPUT" and err.value.exit_code == 2 and tile.read_bytes() == before


@pytest.fixture()
def root_copy(demo_root, tmp_path) -> Path:
    """A copy of the demo data root (2.7 MB): a test that writes onto a graph file must not touch the cache."""
    return Path(shutil.copytree(demo_root.path, tmp_path / "root"))


@pytest.mark.parametrize("command, split, graph_split", [("random", "valid", "valid"), ("learned", "valid", "valid"),
                                                         ("learned", "valid", "train")])
def test_baselines_refuse_an_output_onto_a_graph_file_they_read(command, split, graph_split, root_copy, capsys):
    graph = next((root_copy / "npz/tile/xla" / graph_split).glob("*.npz"))
    before = graph.read_bytes()
    code, err = _run(capsys, command, "--split", split, "--data-root", root_copy, "--no-progress", "-o", graph)
    assert code == 2 and f"[OUTPUT_IS_INPUT] -o {graph} is the input {graph}" in err, err
    assert graph.read_bytes() == before
    report = graph.with_suffix(".json")  # the JSON report too, through a link
    os.symlink(graph, report)
    code, err = _run(capsys, command, "--split", split, "--data-root", root_copy, "--no-progress",
                     "-o", root_copy / "s.csv", "--json", report)
    assert code == 2 and f"[OUTPUT_IS_INPUT] --json {report} is the input {graph}" in err, err
    assert graph.read_bytes() == before and not (root_copy / "s.csv").exists()


def test_random_refuses_json_onto_its_own_submission(tmp_path, capsys):
    out = tmp_path / "r.csv"
    code, err = _run(capsys, "random", "--split", "valid", "--data-root", "demo", "--no-progress", "-o", out,
                     "--json", out)
    assert code == 2 and f"[SAME_OUTPUT_TWICE] -o {out} and --json {out} are the same path" in err
    assert not out.exists()


@pytest.mark.parametrize("option", ["-o", "--json"])
def test_an_unwritable_output_is_output_write_failed(option, tmp_path, capsys):
    target = tmp_path / "no-such-folder" / "r.out"
    argv = ["random", "--split", "valid", "--data-root", "demo", "--no-progress", "--draws", "0",
            "-o", target if option == "-o" else tmp_path / "r.csv"] + (["--json", target] if option == "--json" else [])
    code, err = _run(capsys, *argv)
    assert code == 2
    assert f"[OUTPUT_WRITE_FAILED] cannot write {target}: the folder {target.parent} does not exist" in err
    assert "CANNOT_WRITE" not in err


def test_an_output_that_is_a_folder_is_output_write_failed_and_left_alone(tmp_path, capsys):
    folder = tmp_path / "out"
    folder.mkdir()
    code, err = _run(capsys, "random", "--split", "valid", "--data-root", "demo", "--no-progress", "-o", folder)
    assert code == 2 and f"[OUTPUT_WRITE_FAILED] cannot write {folder}: it exists and is a folder" in err, err
    assert folder.is_dir() and list(folder.iterdir()) == []


def test_option_conflicts_carry_the_evaluators_code(tmp_path, capsys):
    """``--configs official`` on the test split: the kit printed ``[BAD_OPTION]``, a code in no table, where
    ``tpugraphs-eval`` prints ``[USAGE_ERROR]`` for the same words."""
    code, err = _run(capsys, "random", "--split", "test", "--data-root", "demo", "--no-progress",
                     "-o", tmp_path / "r.csv", "--configs", "official")
    assert code == 2 and "[USAGE_ERROR] --configs official is the paper's protocol for the valid split" in err
    assert eval_main([str(SAMPLE), "--data-root", "demo", "--split", "test", "--configs", "official"]) == 2
    assert "[USAGE_ERROR] --configs official is the paper's protocol for the valid split" in capsys.readouterr().err


def test_baselines_refuse_an_output_anywhere_in_the_npz_folder(root_copy, capsys):
    """`random --split valid -o R/npz/tile/xla/train/X.npz` replaced a training graph it does not read."""
    graph = next((root_copy / "npz/tile/xla/train").glob("*.npz"))
    before = graph.read_bytes()
    code, err = _run(capsys, "random", "--split", "valid", "--data-root", root_copy, "--no-progress", "-o", graph)
    assert code == 2 and (f"[OUTPUT_IS_INPUT] -o {graph} is inside the data root's npz/ folder {root_copy / 'npz'}"
                          in err), err
    assert graph.read_bytes() == before
