"""Scoring predictions (tpugraphs_eval.score_predictions): the same Report as the CSV route when the predictions
have no ties; with ties, tau-b equals scipy.stats.kendalltau on the predictions, OPA the brute-force pair count,
and top-K / slowdown the runtimes of a stable argsort's first k. Each kernel.

Expected values: "CSV route" (the ranking argsort(predictions) written as a submission and scored), "scipy"
(scipy.stats.kendalltau(predictions, runtimes)), "brute force" (tests/brute_force_pairs.py), "by hand".
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats
from brute_force_pairs import brute_force_opa

from tpugraphs_eval import (
    Evaluator,
    Options,
    UsageError,
    evaluate,
    load_eval_indices,
    load_ground_truth,
    resolve_data_root,
    score_predictions,
)

pytestmark = pytest.mark.usefixtures("kernel")  # every test with each kernel (conftest.py)


@pytest.fixture(scope="module")
def valid_truth(demo_root):
    return load_ground_truth(demo_root, "valid")


def _predictions(truth, rng, ties: bool) -> dict[str, np.ndarray]:
    """Random predicted runtimes per graph: distinct floats, or (ties) a few distinct values each."""
    out = {}
    for t in truth.collections.values():
        for graph_id, runtime in zip(t.graphs.ids, t.runtimes):
            noise = rng.normal(size=runtime.size)
            out[graph_id] = (np.round(noise * 2) if ties else runtime * (1 + 0.5 * noise) + noise)
    return out


def _csv_of(truth, predictions) -> bytes:
    """The CSV route's submission of predictions: each graph's configs by stable argsort (tile: the first 10)."""
    rows = ["ID,TopConfigs"]
    for name, t in truth.collections.items():
        for graph_id in t.graphs.ids:
            ranking = np.argsort(predictions[graph_id], kind="stable")
            rows.append(f"{graph_id},{';'.join(map(str, ranking[:10] if name == 'tile:xla' else ranking))}")
    return ("\n".join(rows) + "\n").encode()


@pytest.mark.parametrize("configs", ["all", "official"])
def test_without_ties_the_report_equals_the_csv_route(demo_root, valid_truth, configs):
    predictions = _predictions(valid_truth, np.random.default_rng(1), ties=False)
    assert all(np.unique(p).size == p.size for p in predictions.values())
    options = Options(configs=configs)
    ours = score_predictions(predictions, valid_truth, split="valid", configs=configs)
    csv_route = evaluate(_csv_of(valid_truth, predictions), split="valid", data_root=demo_root, options=options)
    assert ours.valid and ours.scored and csv_route.valid
    assert ours.overall == csv_route.overall
    assert ours.collection_values() == csv_route.collection_values()
    for name, result in csv_route.collections.items():
        mine = ours.collections[name]
        assert mine.ids == result.ids and set(mine.per_graph) == set(result.per_graph)
        for metric, values in result.per_graph.items():
            np.testing.assert_array_equal(mine.per_graph[metric], values, err_msg=f"{name} {metric}")
    assert ours.references == csv_route.references
    assert ours.to_dict()["provenance"]["scored_from"] == "predictions"
    assert ours.options == options


def test_a_graph_selection_counts_the_other_graphs_predictions_as_the_csv_route_counts_its_rows(demo_root, valid_truth):
    """``graphs=`` (``--graphs``): predictions of graphs left out are GRAPH_NOT_SELECTED (info), not UNKNOWN_ID; the
    selected graphs score as the CSV route scores the same selection."""
    predictions = _predictions(valid_truth, np.random.default_rng(4), ties=False)
    chosen = [i for t in valid_truth.collections.values() for i in t.graphs.ids[:2]]
    evaluator = Evaluator.load(split="valid", data_root=demo_root, graphs=chosen)
    ours, csv_route = evaluator.evaluate_predictions(predictions), evaluator.evaluate(_csv_of(valid_truth, predictions))
    assert ours.valid and ours.validation.code_counts() == {"GRAPH_NOT_SELECTED": 1}
    assert csv_route.validation.code_counts() == {"GRAPH_NOT_SELECTED": 1}
    assert ours.collection_values() == csv_route.collection_values() and ours.overall == csv_route.overall
    assert sorted(i for r in ours.collections.values() for i in r.ids) == sorted(chosen)


def test_a_demo_solution_file_finds_the_demos_official_lists(demo_root, valid_truth, tmp_path):
    """``--solution`` of the demo's valid split with ``--configs official``: the demo's own lists, as the data root
    finds them (it looked for a folder inside the Parquet file: DATA_ERROR), and the same scores."""
    from tpugraphs_eval.truth.solution import build_solution

    build_solution(demo_root, "valid", tmp_path / "valid.parquet")
    submission = _csv_of(valid_truth, _predictions(valid_truth, np.random.default_rng(5), ties=False))
    by_solution = Evaluator.load(split=None, solution=tmp_path / "valid.parquet", options=Options(configs="official"))
    by_root = Evaluator.load(split="valid", data_root=demo_root, options=Options(configs="official"))
    ours, reference = by_solution.score(submission), by_root.score(submission)
    assert ours.scored and ours.collection_values() == reference.collection_values()


def test_with_ties_tau_b_is_scipys_on_the_predictions_and_opa_the_brute_force_count(valid_truth):
    predictions = _predictions(valid_truth, np.random.default_rng(2), ties=True)
    report = score_predictions(predictions, valid_truth, split="valid")
    checked = 0
    for name, t in valid_truth.collections.items():
        result = report.collections[name]
        for g, (graph_id, runtime) in enumerate(zip(t.graphs.ids, t.runtimes)):
            pred = predictions[graph_id]
            order = np.argsort(pred, kind="stable")  # ties: the lower config index first
            if name == "tile:xla":  # the official rule: the runtimes of argsort(preds)[:k], by hand
                assert result.per_graph["score"][g] == 2 - runtime[order[:5]].min() / runtime.min()
                assert result.per_graph["top1_error"][g] == runtime[order[0]] / runtime.min() - 1
                continue
            assert np.unique(pred).size < pred.size  # the case of this test: tied predictions
            expected_tau = scipy.stats.kendalltau(pred, runtime).statistic
            assert abs(result.per_graph["kendall_tau"][g] - expected_tau) <= 1e-12
            assert result.per_graph["opa"][g] == brute_force_opa(pred, runtime)
            for k in (1, 10, 100):
                assert result.per_graph[f"slowdown{k}"][g] == runtime[order[:k]].min() / runtime.min() - 1
            checked += 1
    assert checked >= 4


def test_with_ties_the_csv_route_differs_it_cannot_tie(demo_root, valid_truth):
    predictions = _predictions(valid_truth, np.random.default_rng(3), ties=True)
    ours = score_predictions(predictions, valid_truth, split="valid")
    csv_route = evaluate(_csv_of(valid_truth, predictions), split="valid", data_root=demo_root)
    name = "layout:xla:default"
    assert not np.array_equal(ours.collections[name].per_graph["kendall_tau"],
                              csv_route.collections[name].per_graph["kendall_tau"])
    # the slowdowns and the tile metrics use the same stable argsort on both routes
    np.testing.assert_array_equal(ours.collections[name].per_graph["slowdown10"],
                                  csv_route.collections[name].per_graph["slowdown10"])
    np.testing.assert_array_equal(ours.collections["tile:xla"].per_graph["score"],
                                  csv_route.collections["tile:xla"].per_graph["score"])


def test_hand_worked_layout_graph_with_tied_predictions(tmp_path):
    folder = tmp_path / "npz" / "layout" / "xla" / "default" / "valid"
    folder.mkdir(parents=True)
    np.savez(folder / "g.npz", config_runtime=np.array([40, 10, 30, 20, 50], dtype=np.int64))
    report = score_predictions({"layout:xla:default:g": [1.0, 0.0, 1.0, 0.0, 2.0]}, tmp_path, split="valid")
    per_graph = report.collections["layout:xla:default"].per_graph
    # 10 pairs, no runtime tie; predictions tie (1,3) and (0,2). Of the other 8: (0,1) 40 vs 10 predicted 1 > 0
    # right; (0,3) right; (0,4) right; (1,2) right; (1,4) right; (2,3) right; (2,4) right; (3,4) right: C=8, D=0;
    # x_tied=2: tau-b = 8 / sqrt(10 - 2) / sqrt(10) = 8 / sqrt(80); OPA = 8 / 10
    assert per_graph["kendall_tau"][0] == pytest.approx(8 / math.sqrt(80), abs=1e-15)
    assert per_graph["opa"][0] == 0.8
    # stable argsort of the predictions: 1, 3, 0, 2, 4: the top 1 is config 1 (runtime 10, the best)
    assert per_graph["slowdown1"][0] == 0.0


def test_official_arrays_may_be_by_config_or_aligned_with_the_list(demo_root, valid_truth):
    indices, _ = load_eval_indices(demo_root.path / "eval_indices", valid_truth.catalog)
    by_config = _predictions(valid_truth, np.random.default_rng(4), ties=False)
    aligned = dict(by_config)
    for name, lists in indices.items():
        for g, graph_id in enumerate(valid_truth.collections[name].graphs.ids):
            if lists[g].size != by_config[graph_id].size:
                aligned[graph_id] = by_config[graph_id][lists[g]]
    assert any(aligned[i].size != by_config[i].size for i in by_config)
    first = score_predictions(by_config, demo_root, split="valid", configs="official")
    second = score_predictions(aligned, "demo", split="valid", configs="official")
    assert first.valid and second.valid and first.overall == second.overall


def test_data_root_needs_a_split_and_options_must_agree(demo_root, valid_truth):
    with pytest.raises(UsageError, match="split"):
        score_predictions({}, demo_root)
    with pytest.raises(UsageError, match="official"):
        score_predictions({}, valid_truth, configs="official", options=Options(configs="all"))
    with pytest.raises(UsageError, match="valid split, not test"):
        score_predictions({}, valid_truth, split="test")


def test_invalid_predictions_give_a_report_with_problems_and_no_scores(valid_truth):
    predictions = _predictions(valid_truth, np.random.default_rng(5), ties=False)
    graph_id = valid_truth.collections["tile:xla"].graphs.ids[0]
    predictions[graph_id] = np.full(predictions[graph_id].size, np.nan)
    report = score_predictions(predictions, valid_truth)
    assert not report.valid and not report.scored
    assert [p.code for p in report.problems] == ["PREDICTION_NAN"] and report.problems[0].id == graph_id


def test_solution_file_scores_both_leaderboards(demo_solution):
    from tpugraphs_eval import load_solution

    truth = load_solution(demo_solution)
    predictions = _predictions(truth, np.random.default_rng(6), ties=False)
    report = score_predictions(predictions, demo_solution)
    assert report.valid and set(report.leaderboards) == {"public", "private"}
    assert report.overall == score_predictions(predictions, truth).overall


def test_real_valid_graph_with_tied_runtimes(realdata):
    truth = load_ground_truth(resolve_data_root(realdata / "tpugraphs"), "valid")
    t = truth.collections["layout:xla:default"]
    runtime = t.runtimes[0]  # unet_3d.4x4.bf16: 1965 configs, 1924 distinct runtimes
    predictions = {i: np.zeros(c) for i, c in zip(truth.catalog.index, (r.n_configs for r in truth.catalog.index.values()))}
    predictions[t.graphs.ids[0]] = np.round(runtime / 1e6)  # a model whose outputs tie
    report = score_predictions(predictions, truth, collections=["layout:xla:default"])
    result = report.collections["layout:xla:default"]
    pred = predictions[t.graphs.ids[0]]
    assert abs(result.per_graph["kendall_tau"][0] - scipy.stats.kendalltau(pred, runtime).statistic) <= 1e-12
    assert result.per_graph["opa"][0] < 1.0


def test_constant_predictions_score_tau_0_and_are_not_left_out(demo_root):
    """docs/metrics.md Decision: a graph whose predictions are all equal (runtimes differ) scores tau-b 0 and OPA 0
    (worked by hand: every pair is tied in x, none is strictly ordered), so constant predictions cannot drop a
    collection from the overall. Before, every layout collection came out undefined and the overall rose to the
    tile value alone (0.726 on the demo valid split, against 0.146 for random predictions)."""
    from tpugraphs_eval import load_ground_truth, score_predictions

    truth = load_ground_truth(demo_root, "valid")
    constant = {f"{name}:{graph}": np.zeros(y.size) for name, ct in truth.collections.items()
                for graph, y in zip(ct.graphs.names, ct.runtimes)}
    report = score_predictions(constant, truth)
    for name, result in report.collections.items():
        if result.collection.kind == "layout":
            assert result.value == 0.0 and not result.undefined
    assert report.overall == pytest.approx(sum(r.value for r in report.collections.values()) / 5, abs=1e-15)


@pytest.mark.parametrize("name", ["p.npz", "p.parquet"])
def test_a_text_file_named_as_a_binary_format_is_unreadable_not_a_csv(demo_root, tmp_path, name):
    """A file named .npz or .parquet whose first bytes are neither format: PREDICTIONS_UNREADABLE (it was read as a
    CSV: 'the table has the columns garbage')."""
    (tmp_path / name).write_text("garbage\n")
    report = Evaluator.load(split="valid", data_root=demo_root).evaluate_predictions(tmp_path / name)
    assert not report.valid and report.validation.code_counts() == {"PREDICTIONS_UNREADABLE": 1}
