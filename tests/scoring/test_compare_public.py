"""``compare --public-only``: the comparison is over the public graphs only and shows no graph ID and no
per-graph number (the decision in report/public_comparison.py and docs/public-view.md). Expected values are worked by hand."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tpugraphs_eval import load_ground_truth
from tpugraphs_eval.commands import evaluate as cli
from tpugraphs_eval.report.public_comparison import PublicComparison, PublicRow, public_rows
from tpugraphs_eval.truth.solution import build_solution

RESAMPLES = 10_000


@pytest.fixture(scope="module")
def case(demo_root, tmp_path_factory):
    """A demo test solution with a hand-picked Usage, and submissions A (the oracle everywhere) and B.

    Public: 10 of the 40 tile graphs, 2 of the 3 layout:xla:default graphs, 1 graph of each other layout
    collection. B differs from A on: tile public graph t (lists the 2nd to 6th fastest configs), a tile
    private graph (the 5 slowest; both with more than 5 configs), xla:default public graph 0 and private graph 2 (reversed: tau-b -1), and the
    public graph of nlp:random (reversed)."""
    truth = load_ground_truth(demo_root, "test")
    folder = tmp_path_factory.mktemp("compare-public")
    ids = {name: list(c.graphs.ids) for name, c in truth.collections.items()}
    public = {*ids["tile:xla"][:10], *ids["layout:xla:default"][:2],
              *(ids[name][0] for name in ("layout:xla:random", "layout:nlp:default", "layout:nlp:random"))}
    usage = folder / "usage.csv"
    usage.write_text("ID,Usage\n" + "".join(f"{i},{'Public' if i in public else 'Private'}\n"
                                           for names in ids.values() for i in names))
    solution = folder / "solution.parquet"
    build_solution(demo_root, "test", solution, usage_file=usage)
    rows_a, rows_b = {}, {}
    for name, c in truth.collections.items():
        for graph_id, y in zip(c.graphs.ids, c.runtimes):
            order = np.argsort(y, kind="stable")
            rows_a[graph_id] = order[:5] if name == "tile:xla" else order
            rows_b[graph_id] = rows_a[graph_id]
    tile, xla, nlp = ids["tile:xla"], ids["layout:xla:default"], ids["layout:nlp:random"]
    runtimes = truth.collections["tile:xla"].runtimes
    t, private = (next(i for i in span if runtimes[i].size > 5) for span in (range(10), range(10, 40)))
    y = np.sort(runtimes[t])
    rows_b[tile[t]] = np.argsort(runtimes[t], kind="stable")[1:6]
    rows_b[tile[private]] = np.argsort(runtimes[private], kind="stable")[-5:]
    for graph_id in (xla[0], xla[2], nlp[0]):
        rows_b[graph_id] = rows_b[graph_id][::-1]
    paths = []
    for label, rows in (("a", rows_a), ("b", rows_b)):
        path = folder / f"{label}.csv"
        path.write_text("ID,TopConfigs\n" + "".join(f"{i},{';'.join(map(str, r))}\n" for i, r in rows.items()))
        paths.append(str(path))
    score_t = 2 - y[1] / y[0]  # SPEC §3.1: 2 - best listed runtime / best runtime; A (the oracle) scores 1
    return solution, paths, score_t, [i.rsplit(":", 1)[1] for names in ids.values() for i in names]


def test_public_only_compares_the_public_graphs_worked_by_hand(case, capsys, tmp_path):
    solution, (a, b), score_t, graph_names = case
    target = tmp_path / "public.json"
    code = cli.main(["compare", a, b, "--solution", str(solution), "--public-only", "--json", str(target)])
    out, err = capsys.readouterr()
    assert code == 0, err
    document = json.loads(target.read_text())
    d = score_t - 1  # B - A on tile public graph t, the only public tile graph where they differ
    assert d < 0  # the graph has no two equal runtimes
    tile = document["collections"]["tile:xla"]
    assert (tile["n_graphs"], tile["a"]) == (10, 1.0)
    assert tile["difference"] == pytest.approx(d / 10, abs=1e-15)  # the private reversed graph is not counted
    # resampled B - A = k d / 10, k ~ Binomial(10, 1/10) draws of graph t: P(k >= 4) = 1.3% and P(k >= 3) = 7.0%,
    # so the 2.5th percentile is at k = 3; P(k = 0) = 0.9^10 = 34.9%, so the 97.5th is 0 and B never wins
    assert tile["low"] == pytest.approx(3 * d / 10, abs=1e-12) and tile["high"] == 0.0
    assert tile["b_better"] == 0.0 and tile["tied"] == pytest.approx(0.9 ** 10, abs=0.02)
    assert tile["b_wins"] == tile["tied"] / 2
    assert tile["graphs"] == {"wins": 0, "losses": 1, "ties": 9, "undefined": 0}
    # layout:xla:default, 2 public graphs: tau-b 1 and 1 for A, -1 and 1 for B; shown without resampled fields
    xla = document["collections"]["layout:xla:default"]
    assert xla == {"metric": "kendall_tau", "n_graphs": 2, "a": 1.0, "b": pytest.approx(0.0, abs=1e-12),
                   "difference": pytest.approx(-1.0, abs=1e-12)}
    assert document["collections_not_shown"] == ["layout:xla:random", "layout:nlp:default", "layout:nlp:random"]
    # overall: A 1; B the mean of (1 + d/10, 0, 1, 1, -1): nlp:random's one public graph counts, unshown
    assert document["overall"] == {"a": 1.0, "b": pytest.approx((2 + d / 10) / 5, abs=1e-12),
                                   "difference": pytest.approx((2 + d / 10) / 5 - 1, abs=1e-12)}
    assert document["graphs_compared"] == "public leaderboard only"
    assert "ground_truth_sha256" not in document["provenance"] and "data_root" not in document
    # no graph ID, no per-graph number, in the JSON or the terminal
    text = target.read_text() + out
    assert not [name for name in graph_names if name in text]
    assert repr(score_t) not in text and repr(d) not in text and f"{score_t:.4f}" not in out
    assert "Not shown: layout:xla:random, layout:nlp:default, layout:nlp:random" in " ".join(out.split())


def test_the_organiser_view_compares_every_graph(case, capsys):
    solution, (a, b), score_t, _ = case
    assert cli.main(["compare", a, b, "--solution", str(solution), "--json", "-", "--resamples", "500"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["graphs_compared"] == "all" and "ground_truth_sha256" in document["provenance"]
    tile = document["collections"]["tile:xla"]
    assert tile["n_graphs"] == 40 and tile["graphs"]["losses"] == 2
    assert document["collections"]["layout:xla:default"]["difference"] == pytest.approx(-4 / 3, abs=1e-12)


def test_public_rows():
    assert public_rows({"t": 10, "x": 2, "y": 1, "z": 1}) == (["t", "x"], ["t"], False)
    # one left-out graph: the overall less the shown collections would give its value, so none is shown
    assert public_rows({"t": 10, "x": 2, "y": 1}) == ([], [], False)
    assert public_rows({"t": 12, "x": 10, "y": 0}) == (["t", "x"], ["t", "x"], True)
    assert public_rows({"t": 9}) == (["t"], [], False)


def test_a_public_row_cannot_hold_resampled_fields_over_few_graphs():
    """The rule is in the type: a row over fewer than 10 graphs in a collection drawn has no interval or tally,
    a row over fewer than 2 graphs in all does not exist, and a value is one number."""
    from tpugraphs_eval.scoring.compare import Difference, Tally

    d = Difference(1.0, 0.5, -0.5, -0.8, -0.2, 0.0, 0.0, 0.0, 0, Tally(0, 3, 0, 0))
    assert PublicRow(1.0, 0.5, -0.5, (10, 12), d).to_dict()["graphs"] == {"wins": 0, "losses": 3, "ties": 0,
                                                                          "undefined": 0}
    assert PublicRow(1.0, 0.5, -0.5, (9,), None).to_dict() == {"a": 1.0, "b": 0.5, "difference": -0.5}
    with pytest.raises(ValueError, match="at least 10"):
        PublicRow(1.0, 0.5, -0.5, (12, 3), d)
    with pytest.raises(ValueError, match="at least 2"):
        PublicRow(1.0, 0.5, -0.5, (1,), None)
    with pytest.raises(TypeError, match="one number"):
        PublicRow(np.array([1.0, 0.0]), 0.5, -0.5, (3,), None)
    with pytest.raises(ValueError, match="ground-truth"):
        PublicComparison({}, {}, (), None, (("ground_truth_sha256", "ab"),))
    with pytest.raises(ValueError, match="data_root"):
        PublicComparison({"data_root": "/organiser/solution"}, {}, (), None, ())
