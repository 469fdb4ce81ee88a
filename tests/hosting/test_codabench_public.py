"""The Codabench scoring program's public rule (rules/public_rule.py): it counts the phase's graphs whose
metric is defined whatever the submission, and writes the overall only over at least 2 of them."""

from __future__ import annotations

import json
import re

import pytest
from csv_rows import csv_bytes, demo_rows
from test_export_codabench import _zip, bundle, run_worker  # noqa: F401 (bundle: the module-scoped fixture)

from tpugraphs_eval.truth.solution import load_solution

yaml = pytest.importorskip("yaml")


@pytest.mark.parametrize("case", ["flat-layout-graph", "one-public-graph"])
def test_the_program_counts_graphs_with_a_defined_metric(bundle, demo_solution, tmp_path, case):  # noqa: F811
    """flat-layout-graph: layout:xla:default's 2 Public graphs, one with every runtime equal (tau-b undefined
    whatever the submission): its column would be the other graph's tau, so it is left out.
    one-public-graph: the phase holds one graph in all: the overall would be its value, so it is left out too."""
    import shutil

    import pandas as pd

    copy = tmp_path / "bundle"
    shutil.copytree(bundle, copy)
    task = yaml.safe_load((copy / "competition.yaml").read_text())["tasks"][0]
    path = copy / task["reference_data"] / "solution.csv"
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    assert set(frame.columns) >= {"ID", "Usage", "runtimes"}
    xla = frame.index[frame.ID.str.startswith("layout:xla:default:")]
    if case == "flat-layout-graph":
        frame.loc[xla[:2], "Usage"] = "Public"
        n = frame.loc[xla[0], "runtimes"].count(";") + 1
        frame.loc[xla[0], "runtimes"] = ";".join(["5000000"] * n)
    else:
        frame["Usage"] = "Private"
        frame.loc[frame.index[frame.ID.str.startswith("tile:xla:")][0], "Usage"] = "Public"
    frame.to_csv(path, index=False)
    data = csv_bytes(demo_rows(load_solution(demo_solution), "random", seed=5))
    done, scores_path = run_worker(copy, 0, _zip(tmp_path / "s.zip", {"s.csv": data}), tmp_path / "work")
    assert done.returncode == 0, done.stderr
    scores = json.loads(scores_path.read_text())
    if case == "flat-layout-graph":  # public: tile 10, xla:default 1 defined, the other layouts 1 each
        assert sorted(scores) == ["overall", "tile_xla"]
    else:
        assert scores == {}
    page = (scores_path.parent / "detailed_results.html").read_text()
    values = re.findall(r'<td class="num">([-0-9.]+)</td>', page)
    if case == "flat-layout-graph":
        assert values == [f"{scores['overall']:.5f}", f"{scores['tile_xla']:.5f}"]
        # the header names what the first column holds (it read "value | score" over the names)
        assert re.findall(r"<tr><th>([^<]*)</th><th>([^<]*)</th></tr>", page) == [("leaderboard column", "score")]
        assert re.findall(r"<tr><td>([^<]*)</td>", page) == ["Overall", "tile:xla"]
    else:  # one graph in all: the page shows no value either
        assert values == [] and "No value can be shown" in page
