"""A solution manifest's split and synthetic flag are required and checked against the rows (issue 16 item 3).

The old code accepted a manifest without ``synthetic`` (read as false: demo data reported as real) and one whose
``split`` named another split than its rows. Expected values: the demo's own test split (its graph names,
tpugraphs_eval.demo.generate) and the real dataset's graph counts (dataset.REAL_GRAPH_COUNTS).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from tpugraphs_eval import DataError, resolve_data_root
from tpugraphs_eval.commands import evaluate as cli
from tpugraphs_eval.dataset import COLLECTIONS, REAL_GRAPH_COUNTS
from tpugraphs_eval.truth.solution import MANIFEST_KEY, build_solution, load_solution, read_manifest
from tpugraphs_eval.truth.solution_checks import rows_split


def _edited(solution: Path, out: Path, **changes) -> Path:
    manifest = read_manifest(solution)
    for key, value in changes.items():
        if value is None:
            manifest.pop(key)
        else:
            manifest[key] = value
    pl.read_parquet(solution).write_parquet(out, metadata={MANIFEST_KEY: json.dumps(manifest)})
    return out


def test_the_demo_solution_as_built_is_read(demo_solution):
    assert read_manifest(demo_solution)["synthetic"] is True
    assert load_solution(demo_solution).catalog.root.synthetic


@pytest.mark.parametrize("changes, code, shown", [
    ({"synthetic": None}, "SOLUTION_MANIFEST_INVALID", "lacks its synthetic flag"),
    ({"synthetic": False}, "SOLUTION_MANIFEST_MISMATCH",
     "says synthetic: false, but its rows are the synthetic demo's test split"),
    ({"split": "valid"}, "SOLUTION_MANIFEST_MISMATCH", "names the valid split, but its rows are the synthetic "
                                                       "demo's test split"),
    ({"split": "train", "synthetic": False}, "SOLUTION_MANIFEST_MISMATCH", "names the train split, but its rows are "
                                                                           "the synthetic demo's test split; says "
                                                                           "synthetic: false"),
])
def test_a_demo_solution_cannot_pass_as_real_or_as_another_split(demo_solution, tmp_path, changes, code, shown,
                                                                 capsys):
    odd = _edited(demo_solution, tmp_path / "odd.parquet", **changes)
    with pytest.raises(DataError) as caught:
        load_solution(odd)
    assert caught.value.code == code and shown in str(caught.value) and str(odd) in str(caught.value)
    assert cli.main([str(tmp_path / "none.csv"), "--solution", str(odd)]) == 2
    assert f"[{code}] {odd}" in capsys.readouterr().err


def test_the_real_graph_counts_of_a_split_must_be_named_as_that_split(tmp_path):
    """A data root with the real valid split's graph counts (676 tile, 7 + 7 + 20 + 20 layout; 2 configs each)."""
    root = tmp_path / "root"
    for c in COLLECTIONS:
        folder = root / c.split_dir("valid")
        folder.mkdir(parents=True)
        for k in range(REAL_GRAPH_COUNTS[c.name]["valid"]):
            extra = {"config_runtime_normalizers": np.array([1, 1])} if c.kind == "tile" else {}
            np.savez(folder / f"g{k:04}.npz", config_runtime=np.array([2, 1]) + k, **extra)
    solution = tmp_path / "valid.parquet"
    build_solution(resolve_data_root(root), "valid", solution)
    assert load_solution(solution).catalog.split == "valid"
    with pytest.raises(DataError) as caught:
        load_solution(_edited(solution, tmp_path / "odd.parquet", split="test"))
    assert caught.value.code == "SOLUTION_MANIFEST_MISMATCH"
    assert "names the test split, but its rows are as many graphs as the real valid split" in str(caught.value)


def test_other_rows_show_no_split(tiny_root, tmp_path):
    """A partial or held-out split (the tiny data root: 2 tile graphs) may be named as any split."""
    solution = tmp_path / "test.parquet"
    build_solution(resolve_data_root(tiny_root), "test", solution)
    assert rows_split({}) is None
    assert load_solution(_edited(solution, tmp_path / "valid.parquet", split="valid")).catalog.split == "valid"


def test_a_copy_of_the_demo_files_is_built_as_synthetic(demo_root, tmp_path):
    """A copied (even edited) demo folder is not the word `demo`: its solution still says synthetic: true."""
    import shutil

    root = tmp_path / "copy"
    shutil.copytree(demo_root.path, root)
    solution = tmp_path / "test.parquet"
    assert build_solution(resolve_data_root(str(root)), "test", solution)["synthetic"] is True
    assert load_solution(solution).catalog.root.synthetic


def test_the_demo_names_digests_are_the_generated_demos():
    """dataset.DEMO_GRAPH_NAMES_SHA256 (how truth/ tells the demo's rows without importing demo/) equals the digest
    of the names demo/generate.py makes, split by split; a generator change that renames graphs fails here."""
    from tpugraphs_eval.dataset import COLLECTIONS, DEMO_GRAPH_NAMES_SHA256, SPLITS, graph_names_digest
    from tpugraphs_eval.demo import generate

    for split in SPLITS:
        names = {c.name: generate.tile_names(split) if c.kind == "tile" else [row[0] for row in
                                                                              generate.layout_graphs(c, split)]
                 for c in COLLECTIONS}
        assert graph_names_digest(names) == DEMO_GRAPH_NAMES_SHA256[split]
    # the digest is of the set of (collection, name) lines: order-free, and one renamed graph changes it
    assert graph_names_digest({"tile:xla": ["b", "a"]}) == graph_names_digest({"tile:xla": ["a", "b"]})
    assert graph_names_digest({"tile:xla": ["a"]}) != graph_names_digest({"layout:xla:default": ["a"]})


@pytest.fixture(scope="module")
def prepared_solution(tmp_path_factory) -> Path:
    """A prepared competition's solution (not the demo's own split: opaque 32-hex test names)."""
    from tpugraphs_eval.prepare import prepare_dir

    out = tmp_path_factory.mktemp("prepared") / "comp"
    prepare_dir("demo", out, seed="manifest-test-seed-0123456789", max_configs=100, collections=["tile:xla"])
    return out / "private" / "solution.parquet"


@pytest.mark.parametrize("changes, shown", [
    ({"split": "valid"}, "names the valid split, but its rows are test graphs (every name is 32 hex digits)"),
    ({"split": "train"}, "names the train split, but its rows are test graphs"),
    ({"format": True}, "solution format True, this evaluator reads 1"),
    ({"format": 1.0}, "solution format 1.0, this evaluator reads 1"),
    ({"source": 7}, "has source 7, not text"),
    ({"evaluator_version": ["0"]}, "has evaluator_version ['0'], not text"),
])
def test_a_relabelled_or_mistyped_manifest_is_refused(prepared_solution, tmp_path, changes, shown):
    """Before: a non-demo solution relabelled valid or train was read (and reported as that split), and a format of
    true or 1.0 passed (both equal 1 in Python)."""
    assert load_solution(prepared_solution).catalog.split == "test"
    with pytest.raises(DataError) as caught:
        load_solution(_edited(prepared_solution, tmp_path / "odd.parquet", **changes))
    assert shown in str(caught.value)
    assert caught.value.code in ("SOLUTION_MANIFEST_INVALID", "SOLUTION_MANIFEST_MISMATCH")


def test_max_problems_help_says_the_json_lists_at_most_a_thousand_per_code(capsys):
    from tpugraphs_eval.submission.problems import MAX_LISTED_PER_CODE

    try:
        cli.main(["validate", "--help"])
    except SystemExit:
        pass
    text = " ".join(capsys.readouterr().out.split())
    assert f"JSON: every one counted, {MAX_LISTED_PER_CODE:,} listed" in text and "are in the JSON" not in text
