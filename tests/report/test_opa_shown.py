"""OPA is shown beside tau-b (secondary, never the collection value): the terminal table, the JSON report, the HTML
page and ``compare``; the participant's public view shows primary values only, so no OPA.

Expected values: the per-graph OPA of the same report (its mean by ``math.fsum``), formatted as each view does.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from rich.console import Console

from tpugraphs_eval import Evaluator, evaluate
from tpugraphs_eval.report.html import render_html
from tpugraphs_eval.report.terminal import render
from tpugraphs_eval.scoring.compare import compare_reports

SAMPLES = Path(__file__).resolve().parents[2] / "sample_submissions"


@pytest.fixture(scope="module")
def report(demo_root):
    return evaluate(SAMPLES / "demo_random_test.csv", split="test", data_root=demo_root)


def _opa_mean(result) -> float:
    values = result.per_graph["opa"].tolist()
    return math.fsum(values) / len(values)


def test_opa_is_secondary_and_computed_for_layout_only(report):
    for name, result in report.collections.items():
        if result.collection.kind == "tile":
            assert "opa" not in result.per_graph
        else:
            assert result.metric == "kendall_tau" and result.value != result.means()["opa"]
            assert result.means()["opa"] == _opa_mean(result)
            assert 0.4 < result.means()["opa"] < 0.6  # a random ranking orders about half the pairs


def test_terminal_table_has_an_opa_column_beside_the_value(report):
    console = Console(record=True, width=160, color_system=None)
    render(report, console)
    lines = console.export_text().splitlines()
    header = next(line for line in lines if " value " in line and "OPA" in line)
    assert header.index("value") < header.index("OPA") < header.index("norm.")
    for name, result in report.collections.items():
        row = next(line for line in lines if line.lstrip().startswith(name + " "))
        if result.collection.kind == "layout":
            assert f"{result.means()['opa']:.3f}" in row.split()[4]
        else:
            assert len(row.split()) == 6  # collection, n, metric, value, norm., errors: no OPA cell


def test_json_report_has_per_graph_and_mean_opa(report):
    document = json.loads(report.to_json())
    for name, result in report.collections.items():
        details = document["collection_details"][name]
        if result.collection.kind == "layout":
            assert details["means"]["opa"] == _opa_mean(result) and details["means_over"]["opa"] == len(result.ids)
            for graph_id, value in zip(result.ids, result.per_graph["opa"].tolist()):
                assert document["graphs"][graph_id]["opa"] == value
        else:
            assert "opa" not in details["means"]


def test_html_collection_table_has_the_opa_mean(report):
    page = render_html(report)
    assert '<th scope="col" class=num>OPA</th>' in page
    for name, result in report.collections.items():
        row = page.split(f'<tr><td class="id">{name}</td>', 1)[1].split("</tr>", 1)[0]
        cells = row.split("<td")
        if result.collection.kind == "layout":
            assert f">{result.means()['opa']:.3f}</td>" in cells[4]
        else:
            assert cells[4] == "></td>"


def test_compare_adds_the_opa_difference_of_each_layout_collection(demo_root):
    evaluator = Evaluator.load(split="test", data_root=demo_root)
    a, b = (evaluator.score(SAMPLES / name) for name in ("demo_random_test.csv", "demo_identity_test.csv"))
    document, _, _ = compare_reports(a, b, resamples=200)
    rows = document["secondary"]["opa"]
    assert list(rows) == [n for n, r in a.collections.items() if r.collection.kind == "layout"]
    for name, row in rows.items():
        assert row["a"] == a.collections[name].means()["opa"] and row["b"] == b.collections[name].means()["opa"]
        assert row["difference"] == pytest.approx(row["b"] - row["a"], abs=1e-15)
        assert row["low"] <= row["difference"] <= row["high"]


def test_the_public_view_shows_no_opa(demo_solution):
    evaluator = Evaluator.load(split=None, solution=demo_solution, public_only=True)
    public = evaluator.evaluate(SAMPLES / "demo_random_test.csv")
    assert public.scored and "opa" not in json.dumps(public.to_dict()).lower()
    assert "OPA" not in render_html(public).split('id="collections"', 1)[1].split("</section>", 1)[0]
