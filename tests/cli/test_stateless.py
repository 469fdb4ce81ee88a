"""Scoring and validating keep no state (issue 21 item 1; docs/performance.md, "State"): a run against a data
root writes nothing in the user's cache folder (the old code kept a prepared-truth file there per data root
and split). The data root is a copy of the demo's at a path of its own, so that nothing is generated on the way."""

from __future__ import annotations

import json
import shutil

from conftest import REPO

from tpugraphs_eval.commands.evaluate import main

SAMPLE = REPO / "sample_submissions" / "demo_random_test.csv"


def test_scoring_and_validating_a_data_root_leave_the_cache_folder_empty(demo_root, tmp_path, monkeypatch, capsys):
    root = tmp_path / "root"
    shutil.copytree(demo_root.path, root)
    cache, home = tmp_path / "cache", tmp_path / "home"
    cache.mkdir()
    home.mkdir()
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    monkeypatch.setenv("HOME", str(home))
    base = ["--split", "test", "--data-root", str(root), "-q", "--no-progress"]
    assert main(["score", str(SAMPLE), *base, "--json", str(tmp_path / "report.json")]) == 0
    assert main(["validate", str(SAMPLE), *base]) == 0
    assert main(["compare", str(SAMPLE), str(SAMPLE), "--split", "test", "--data-root", str(root), "--no-progress",
                 "--resamples", "10"]) == 0
    capsys.readouterr()
    assert json.loads((tmp_path / "report.json").read_text())["valid"] is True  # it did score
    assert [p for p in cache.rglob("*")] == [] and [p for p in home.rglob("*")] == []
