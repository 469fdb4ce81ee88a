"""The one rule of every participant-facing view (rules/public_rule.py), on its own and in the public
leaderboard document, with cases worked by hand."""

from __future__ import annotations

import json

import numpy as np
import pytest
from leaderboard_helpers import build_folder
from scipy.stats import kendalltau

from tpugraphs_eval import load_ground_truth
from tpugraphs_eval.leaderboard import build_leaderboard
from tpugraphs_eval.rules.public_rule import MIN_PUBLIC_GRAPHS, overall_shown, public_values, shown_collections
from tpugraphs_eval.truth.solution import build_solution, load_solution


def test_shown_collections():
    assert MIN_PUBLIC_GRAPHS == 2
    assert shown_collections({"t": 10, "x": 2, "y": 1, "z": 1}) == ["t", "x"]  # left out: a sum of 2 graphs
    assert shown_collections({"t": 10, "x": 2, "y": 1}) == []  # 3 overall - t - x would be y's one graph
    assert shown_collections({"t": 10, "x": 2, "y": 1, "z": 0}) == []  # an empty collection hides nothing
    assert shown_collections({"t": 3, "x": 2}) == ["t", "x"]
    assert shown_collections({"t": 1}) == [] and shown_collections({}) == []
    assert shown_collections({"x": 2, "t": 5}) == ["x", "t"]  # the given order


def test_public_values_apply_the_rule_to_numbers():
    values = {"overall": 0.4, "t": 0.9, "x": 0.1, "y": -0.2, "z": float("nan")}
    # worked: y and z hold 1 graph each, a sum of two graphs left out: t and x are shown with the overall
    assert public_values(values, {"t": 10, "x": 2, "y": 1, "z": 1}) == {"overall": 0.4, "t": 0.9, "x": 0.1}
    assert public_values(values, {"t": 10, "x": 2, "y": 1}) == {"overall": 0.4}  # y alone would be recovered
    assert public_values(values, {"t": 1}) == {}  # an overall over one graph is that graph's value
    assert public_values({"overall": None, "t": 0.5, "z": float("nan")}, {"t": 2, "z": 2}) == {"t": 0.5}
    assert list(public_values(values, {"x": 2, "t": 5})) == ["overall", "x", "t"]


def test_overall_shown():
    assert overall_shown({"t": 1, "x": 1}) and overall_shown({"t": 2})
    assert not overall_shown({"t": 1, "x": 0}) and not overall_shown({})


@pytest.mark.parametrize("nlp_public, shown", [(0, []), (1, ["tile:xla", "layout:xla:default"])],
                         ids=["one-hidden-graph", "two-hidden-graphs"])
def test_the_public_leaderboard_hides_every_collection_when_one_public_graph_is_left_out(
        demo_root, tmp_path, nlp_public, shown):
    """Public: 10 tile graphs, 2 xla:default, 1 xla:random (and 1 nlp:default in the second case). With one
    left-out graph, showing tile and xla:default would give it: 3 * overall - tile - xla:default is the
    xla:random graph's tau-b (checked here against scipy's on the submission's ranking)."""
    truth = load_ground_truth(demo_root, "test")
    ids = {name: list(c.graphs.ids) for name, c in truth.collections.items()}
    public = {*ids["tile:xla"][:10], *ids["layout:xla:default"][:2], ids["layout:xla:random"][0],
              *ids["layout:nlp:default"][:nlp_public]}
    usage = tmp_path / "usage.csv"
    usage.write_text("ID,Usage\n" + "".join(f"{i},{'Public' if i in public else 'Private'}\n"
                                           for names in ids.values() for i in names))
    solution = tmp_path / "solution.parquet"
    build_solution(demo_root, "test", solution, usage_file=usage)
    subs = build_folder(tmp_path / "subs", solution, {"north": [("n1", 0.5, True)]})
    document = build_leaderboard(subs, solution, tmp_path / "pub", workers=1, resamples=30, view="public").document
    assert document["collections"] == shown
    (team,) = document["teams"]
    assert list(team["collections"]) == shown
    organiser = build_leaderboard(subs, solution, tmp_path / "org", workers=1, resamples=30).document
    (submission,) = organiser["submissions"]
    board = submission["public"]["collections"]
    if nlp_public == 0:
        # what the old document showed would give the one xla:random public graph's value
        left = 3 * team["overall"] - board["tile:xla"] - board["layout:xla:default"]
        graph = ids["layout:xla:random"][0]
        ranking = next(line.split(",")[1] for line in (subs / "north" / "n1.csv").read_text().splitlines()
                       if line.startswith(graph + ","))
        runtimes = load_solution(solution).collections["layout:xla:random"].runtimes[0]
        ranks = np.empty(runtimes.size)
        ranks[np.array(ranking.split(";"), dtype=int)] = np.arange(runtimes.size)
        assert left == pytest.approx(kendalltau(ranks, runtimes).statistic, abs=1e-12)  # scipy: tau-b
    assert json.dumps(document).count("layout:xla:random") == 0
