"""Ordered pair accuracy (OPA, TF-Ranking's OPAMetric with relevance = faster): hand-worked cases, an
independent brute-force count over all pairs (tests/brute_force_pairs.py), OPA == (tau_a + 1) / 2 without ties (scipy's tau), and the
per-graph OPA of scored reports (all configs, lenient partial rows, the official protocol), with each kernel.

Expected values: "by hand" (worked in the comment), "brute force" (``brute_force_opa``, a double loop
over the pairs, not the evaluator's pair counts) or "scipy" (scipy.stats.kendalltau).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats
from brute_force_pairs import brute_force_opa

from tpugraphs_eval import Options, evaluate, load_ground_truth
from tpugraphs_eval.scoring.metrics import UndefinedMetricError, opa_from_counts, ordered_pair_accuracy, pair_counts

pytestmark = pytest.mark.usefixtures("kernel")  # every test with each kernel (conftest.py)


# --- hand-worked values ---------------------------------------------------------------------------

@pytest.mark.parametrize("predictions, runtimes, expected", [
    ([0, 1, 2], [1, 2, 3], 1.0),          # all 3 pairs in order
    ([0, 1, 2], [3, 2, 1], 0.0),          # all 3 pairs reversed
    ([0, 1, 2], [1, 3, 2], 2 / 3),        # (1,3) ok, (1,2) ok, (3,2) reversed
    ([0, 1, 2], [1, 1, 2], 1.0),          # the pair of equal runtimes is left out: 2 of 2
    ([0, 1, 2, 3], [2, 1, 1, 3], 3 / 5),  # (2,1)x (2,1)x (2,3)ok (1,1)left out (1,3)ok (1,3)ok: 3 of 5
    ([0, 0, 1], [1, 2, 3], 2 / 3),        # the first pair is tied in prediction: not correctly ordered
    ([5, 5], [1, 2], 0.0),                # the one pair tied in prediction: 0 of 1
    ([0.5, 0.5, 0.1], [7, 7, 3], 1.0),    # tied in both: left out; (7,3) and (7,3) predicted 0.5 > 0.1: 2 of 2
])
def test_opa_by_hand(predictions, runtimes, expected):
    assert ordered_pair_accuracy(predictions=np.array(predictions), runtimes=np.array(runtimes)) == pytest.approx(expected, abs=1e-15)
    assert brute_force_opa(predictions, runtimes) == pytest.approx(expected, abs=1e-15)


@pytest.mark.parametrize("predictions, runtimes", [([1], [1]), ([], []), ([0, 1, 2], [4, 4, 4])])
def test_opa_without_a_pair_of_different_runtimes_raises(predictions, runtimes):
    assert math.isnan(brute_force_opa(predictions, runtimes))
    with pytest.raises(UndefinedMetricError, match="OPA is undefined"):
        ordered_pair_accuracy(predictions=predictions, runtimes=runtimes)


def test_opa_from_counts_marks_undefined_without_nan():
    # n=3: all pairs tied in y (undefined); none tied, 1 discordant: 2 of 3 by hand; 2 tied in x of 3, none
    # in y, 0 discordant: concordant = 3 - 2 = 1 of 3
    opa, defined = opa_from_counts(np.array([3, 3, 3]), np.array([0, 0, 2]), np.array([3, 0, 0]), 0,
                                   np.array([0, 1, 0]))
    assert defined.tolist() == [False, True, True] and not np.isnan(opa).any()
    assert opa[1:].tolist() == [2 / 3, 1 / 3]


# --- an independent brute-force pair count, and scipy ------------------------------------------------

@pytest.mark.parametrize("seed", range(30))
def test_opa_equals_brute_force_with_ties_in_both(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 120))
    predictions = rng.integers(0, rng.integers(1, n + 1), n).astype(np.float64)  # some ties, or all
    runtimes = rng.integers(1, rng.integers(2, n + 2), n)
    expected = brute_force_opa(predictions, runtimes)
    if math.isnan(expected):
        with pytest.raises(UndefinedMetricError):
            ordered_pair_accuracy(predictions=predictions, runtimes=runtimes)
    else:
        assert ordered_pair_accuracy(predictions=predictions, runtimes=runtimes) == expected  # the same two integers divided


@pytest.mark.parametrize("n", [2, 3, 17, 64, 65, 500, 4097])
def test_opa_is_tau_a_plus_one_over_two_without_ties(n):
    rng = np.random.default_rng(n)
    predictions, runtimes = rng.permutation(n).astype(np.float64), rng.permutation(n) + 100
    tau_a = float(scipy.stats.kendalltau(predictions, runtimes).statistic)  # no tie: tau-b == tau-a
    assert abs(ordered_pair_accuracy(predictions=predictions, runtimes=runtimes) - (tau_a + 1) / 2) <= 1e-12


def test_pair_counts_by_hand():
    # x = [0, 0, 1, 2], y = [5, 5, 4, 9]: pairs (0,1) tied in both; (0,2), (1,2) discordant (x up, y down);
    # (0,3), (1,3), (2,3) concordant: n=4, x_tied=1, y_tied=1, xy_tied=1, discordant=2
    assert tuple(pair_counts([0, 0, 1, 2], [5, 5, 4, 9])) == (4, 1, 1, 1, 2)


# --- OPA in scored reports -------------------------------------------------------------------------

def _ranking_csv(truth, order_of) -> bytes:
    rows = ["ID,TopConfigs"]
    for name, t in truth.collections.items():
        for graph_id, runtime in zip(t.graphs.ids, t.runtimes):
            ranking = order_of(graph_id, runtime)
            rows.append(f"{graph_id},{';'.join(map(str, ranking[:5] if name == 'tile:xla' else ranking))}")
    return ("\n".join(rows) + "\n").encode()


def test_report_opa_per_layout_graph_equals_brute_force(demo_root):
    truth = load_ground_truth(demo_root, "valid")
    rng = np.random.default_rng(0)
    orders = {}

    def order_of(graph_id, runtime):
        orders[graph_id] = ranking = rng.permutation(runtime.size)
        return ranking

    report = evaluate(_ranking_csv(truth, order_of), split="valid", data_root=demo_root)
    checked = 0
    for name, result in report.collections.items():
        if result.collection.kind != "layout":
            assert "opa" not in result.per_graph
            continue
        for g, runtime in enumerate(truth.collections[name].runtimes):
            ranking = orders[result.ids[g]]
            predicted = np.empty(runtime.size)
            predicted[ranking] = np.arange(runtime.size)
            assert result.per_graph["opa"][g] == brute_force_opa(predicted, runtime)
            checked += 1
        assert result.means()["opa"] == math.fsum(result.per_graph["opa"].tolist()) / len(result.ids)
    assert checked >= 4


def test_report_opa_of_a_lenient_partial_row_counts_unlisted_ties_as_not_ordered(tmp_path):
    from tpugraphs_eval import resolve_data_root

    folder = tmp_path / "root" / "npz" / "layout" / "xla" / "default" / "valid"
    folder.mkdir(parents=True)
    runtime = np.array([40, 10, 30, 20, 50], dtype=np.int64)
    np.savez(folder / "g.npz", config_runtime=runtime)
    csv = b"ID,TopConfigs\nlayout:xla:default:g,1;3\n"  # configs 1 and 3 first, 0, 2, 4 tied last
    report = evaluate(csv, split="valid", data_root=resolve_data_root(tmp_path / "root"),
                      options=Options(mode="lenient"))
    predicted = np.array([2, 0, 2, 1, 2])
    # by hand: 10 pairs, none tied in runtime; (1,3),(1,x),(3,x) for x in {0,2,4}: 7 in order;
    # the 3 pairs among 0, 2, 4 tie in prediction: 7 of 10
    assert report.collections["layout:xla:default"].per_graph["opa"].tolist() == [0.7]
    assert brute_force_opa(predicted, runtime) == 0.7


def test_report_opa_official_protocol_equals_brute_force_on_the_sampled_configs(demo_root):
    from tpugraphs_eval.truth.eval_indices import load_eval_indices

    truth = load_ground_truth(demo_root, "valid")
    indices, _ = load_eval_indices(demo_root.path / "eval_indices", truth.catalog)
    csv = _ranking_csv(truth, lambda graph_id, runtime: np.arange(runtime.size)[::-1])
    report = evaluate(csv, split="valid", data_root=demo_root, options=Options(configs="official"))
    for name, result in report.collections.items():
        if result.collection.kind != "layout":
            continue
        for g, runtime in enumerate(truth.collections[name].runtimes):
            sampled = indices[name][g]
            predicted = (runtime.size - 1 - np.arange(runtime.size))[sampled]  # reversed ranking's ranks
            assert result.per_graph["opa"][g] == brute_force_opa(predicted, runtime[sampled])
