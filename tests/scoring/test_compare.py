"""``tpugraphs-eval compare``: per-graph tallies and the paired bootstrap (scoring/compare.py) against
hand-worked values and a naive per-resample loop on the same RNG draws; the command's output and exit codes."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from tpugraphs_eval import evaluate
from tpugraphs_eval.commands import evaluate as cli
from tpugraphs_eval.scoring.bootstrap import draw_positions, resampled_means
from tpugraphs_eval.scoring.compare import LEVEL, Tally, paired_bootstrap, tally

SAMPLES = Path(__file__).resolve().parents[2] / "sample_submissions"
RANDOM, IDENTITY, KAGGLE = (str(SAMPLES / n) for n in ("demo_random_test.csv", "demo_identity_test.csv",
                                                        "demo_kaggle_sample_test.csv"))
DEMO = ("--data-root", "demo", "--split", "test")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_three_graphs_worked_by_hand():
    # A = (0.5, 0.2, 0.9), B = (0.6, 0.2, 0.7): B better on graph 0, equal on 1, worse on 2.
    # Means by hand: A 1.6/3, B 1.5/3, so B - A = -0.1/3 = -1/30.
    a, b = np.array([0.5, 0.2, 0.9]), np.array([0.6, 0.2, 0.7])
    assert tally(a, b) == Tally(wins=1, losses=1, ties=1, undefined=0)
    assert tally(a, b, higher_is_better=False) == Tally(wins=1, losses=1, ties=1, undefined=0)
    assert tally(a, np.array([0.6, 0.3, 0.9]), higher_is_better=False) == Tally(0, 2, 1, 0)
    # the identity draw (each graph once) and two hand-picked draws: rows (0,0,0) and (2,2,1)
    positions = {"c": np.array([[0, 1, 2], [0, 0, 0], [2, 2, 1]])}
    collections, overall = paired_bootstrap({"c": a}, {"c": b}, positions)
    d = collections["c"]
    assert d.a == pytest.approx(1.6 / 3, abs=1e-15) and d.b == pytest.approx(0.5, abs=1e-15)
    assert d.difference == pytest.approx(-1 / 30, abs=1e-15)
    # resampled B - A by hand: -1/30; row (0,0,0): 0.6 - 0.5 = 0.1; row (2,2,1): (1.6 - 2.0)/3 = -0.4/3
    resampled = sorted([-1 / 30, 0.1, -0.4 / 3])
    # numpy's linear percentile of 3 values: position p * (n - 1) = 0.05 and 1.95
    assert d.low == pytest.approx(resampled[0] + 0.05 * (resampled[1] - resampled[0]), abs=1e-15)
    assert d.high == pytest.approx(resampled[1] + 0.95 * (resampled[2] - resampled[1]), abs=1e-15)
    assert (d.b_better, d.tied, d.b_wins) == (pytest.approx(1 / 3), 0.0, pytest.approx(1 / 3))
    assert overall.difference == pytest.approx(-1 / 30, abs=1e-15) and overall.graphs == d.graphs
    # a lower-is-better metric: the sign flips, so positive still means B is better
    flipped, _ = paired_bootstrap({"c": a}, {"c": b}, positions, higher_is_better=False)
    assert flipped["c"].difference == pytest.approx(1 / 30, abs=1e-15)
    assert flipped["c"].low == pytest.approx(-d.high, abs=1e-15)


def _naive(a: dict, b: dict, positions: dict, resamples: int) -> tuple[dict, list]:
    """Per resample, plain Python: each collection's mean over its defined drawn graphs, then the overall."""
    per_collection = {name: [] for name in a}
    overall = []
    for r in range(resamples):
        values_a, values_b = [], []
        for name in a:
            drawn = positions[name][r].tolist()
            mean_a = [a[name][g] for g in drawn if not math.isnan(a[name][g])]
            mean_b = [b[name][g] for g in drawn if not math.isnan(b[name][g])]
            ma = sum(mean_a) / len(mean_a) if mean_a else None
            mb = sum(mean_b) / len(mean_b) if mean_b else None
            per_collection[name].append(None if ma is None or mb is None else mb - ma)
            if ma is not None:
                values_a.append(ma)
            if mb is not None:
                values_b.append(mb)
        overall.append(sum(values_b) / len(values_b) - sum(values_a) / len(values_a))
    return per_collection, overall


def _percentile(values: list[float], q: float) -> float:
    """Linear interpolation between the order statistics (numpy's default, written out)."""
    ordered = sorted(values)
    position = q / 100 * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (position - low) * (ordered[high] - ordered[low])


def test_bootstrap_matches_a_naive_loop_on_the_same_draws():
    rng = np.random.default_rng(5)
    a = {"tile": rng.uniform(0.5, 1.0, 9), "layout": rng.uniform(-1, 1, 6)}
    b = {"tile": rng.uniform(0.5, 1.0, 9), "layout": rng.uniform(-1, 1, 6)}
    a["layout"][2] = b["layout"][2] = np.nan  # an undefined tau (the same graph in both)
    b["layout"][4] = np.nan  # undefined in B only: not a win, loss or tie
    resamples, seed = 400, 17
    draws = np.random.default_rng(seed)  # the documented draw: per collection, in order, (R, G) integers
    positions = {name: draws.integers(0, a[name].size, size=(resamples, a[name].size)) for name in a}
    got = draw_positions({name: v.size for name, v in a.items()}, resamples, seed)
    assert all(np.array_equal(got[n], positions[n]) for n in a)
    collections, overall = paired_bootstrap(a, b, positions)
    naive, naive_overall = _naive(a, b, positions, resamples)
    for name, d in [*collections.items(), ("overall", overall)]:
        differences = naive_overall if name == "overall" else [v for v in naive[name] if v is not None]
        assert d.undefined_resamples == resamples - len(differences)
        assert d.low == pytest.approx(_percentile(differences, 2.5), abs=1e-12)
        assert d.high == pytest.approx(_percentile(differences, 97.5), abs=1e-12)
        assert d.b_better == sum(v > 0 for v in differences) / len(differences)
    expected = Tally(int((b["tile"] > a["tile"]).sum()), int((b["tile"] < a["tile"]).sum()), 0, 0)
    assert collections["tile"].graphs == expected
    assert collections["layout"].graphs.undefined == 2
    assert overall.graphs.wins + overall.graphs.losses + overall.graphs.ties + overall.graphs.undefined == 15


def test_resampled_means_leave_undefined_graphs_out():
    values = np.array([[1.0, np.nan, 3.0], [1.0, 2.0, 3.0]])  # a second submission without holes
    means = resampled_means(values, np.array([[0, 1, 2], [1, 1, 1], [2, 2, 0]]))
    assert means[0, 0] == 2.0 and np.isnan(means[0, 1]) and means[0, 2] == pytest.approx(7 / 3)
    assert means[1].tolist() == [2.0, 2.0, pytest.approx(7 / 3)]


def test_a_collection_undefined_everywhere():
    a = {"c": np.array([np.nan, np.nan])}
    collections, overall = paired_bootstrap(a, a, draw_positions({"c": 2}, 50, 0))
    d = collections["c"]
    assert (d.difference, d.low, d.b_wins, d.undefined_resamples) == (None, None, None, 50)
    assert d.graphs == Tally(0, 0, 0, 2) and overall.difference is None


def test_a_against_itself_is_a_tie_everywhere(capsys, tmp_path):
    target = tmp_path / "same.json"
    code, out, err = run(capsys, "compare", RANDOM, RANDOM, *DEMO, "--resamples", "300", "--json", str(target))
    assert code == 0, err
    document = json.loads(target.read_text())
    for d in [*document["collections"].values(), document["overall"]]:
        assert (d["difference"], d["low"], d["high"]) == (0.0, 0.0, 0.0)
        assert (d["b_better"], d["tied"], d["b_wins"]) == (0.0, 1.0, 0.5)
        assert d["graphs"]["wins"] == d["graphs"]["losses"] == 0
    assert document["overall"]["graphs"]["ties"] == sum(c["n_graphs"] for c in document["collections"].values())
    # identical rows: "tied" (it read 50.0%, the coin flip of b_wins, which stays in the JSON)
    assert "50.0%" not in out and out.count(" tied ") == 6 + 4 and "positive: B better" in out  # + 4 OPA rows
    text = " ".join(out.split())  # rich wraps the note at the terminal width
    assert ("Fewer than 10 graphs in layout:xla:default, layout:xla:random, layout:nlp:default, "
            "layout:nlp:random: a bootstrap") in text  # the 40 tile graphs are not flagged


def test_compare_uses_the_scorer_and_is_seeded(capsys):
    code, out, _ = run(capsys, "compare", RANDOM, IDENTITY, *DEMO, "--resamples", "500", "--json", "-")
    assert code == 0
    document = json.loads(out)
    a = evaluate(RANDOM, split="test", data_root="demo")
    b = evaluate(IDENTITY, split="test", data_root="demo")
    assert document["overall"]["a"] == a.overall and document["overall"]["b"] == b.overall
    assert document["overall"]["difference"] == b.overall - a.overall
    for name, d in document["collections"].items():
        assert d["difference"] == b.collections[name].value - a.collections[name].value
        graphs_a = a.collections[name].per_graph[d["metric"]]
        graphs_b = b.collections[name].per_graph[d["metric"]]
        assert d["graphs"]["wins"] == int((graphs_b > graphs_a).sum())
        assert d["graphs"]["losses"] == int((graphs_b < graphs_a).sum())
        assert d["low"] <= d["difference"] <= d["high"] or d["n_graphs"] < 5
    assert document["resamples"] == 500 and document["seed"] == 0 and "positive means B is better" in document["sign"]
    assert run(capsys, "compare", RANDOM, IDENTITY, *DEMO, "--resamples", "500", "--json", "-")[1] == out
    other = json.loads(run(capsys, "compare", RANDOM, IDENTITY, *DEMO, "--resamples", "500", "--seed", "3",
                           "--json", "-")[1])
    assert other["overall"]["low"] != document["overall"]["low"]
    assert other["overall"]["difference"] == document["overall"]["difference"]


def test_invalid_submission_exits_1_with_a_code(capsys):
    code, out, err = run(capsys, "compare", RANDOM, KAGGLE, *DEMO)
    assert code == 1
    assert "[INVALID_SUBMISSION]" in err and "demo_kaggle_sample_test.csv" in err and "7 error(s)" in err
    assert out == ""
    code, _, err = run(capsys, "compare", KAGGLE, KAGGLE, *DEMO, "--lenient", "--resamples", "10")
    assert code == 0, err  # lenient: Kaggle's tolerated problems are warnings, both are scored


@pytest.mark.parametrize("argv, fragment", [
    (("compare", RANDOM, "nope.csv", *DEMO), "[SUBMISSION_NOT_FOUND]"),
    (("compare", RANDOM, IDENTITY, "--data-root", "demo"), "--split is required"),
    (("compare", RANDOM, IDENTITY, *DEMO, "--resamples", "0"), "must be 1 or more"),
    (("compare", RANDOM, IDENTITY, *DEMO, "--seed", "-1"), "must be 0 or more"),
    (("compare", RANDOM, IDENTITY, *DEMO, "--configs", "official"), "valid split"),
    (("compare", RANDOM, *DEMO), "required: B"),
])
def test_usage_errors_exit_2(capsys, argv, fragment):
    code, _, err = run(capsys, *argv)
    assert code == 2 and fragment in err


def test_compare_and_the_leaderboard_share_one_bootstrap(monkeypatch):
    """One implementation of the resampled means (scoring/bootstrap.py) serves both; the same file's
    resampled overall is the same bytes in each: with A = 0 on every graph, compare's overall interval
    is the percentile interval of the leaderboard's resampled overall of B."""
    from tpugraphs_eval.leaderboard import uncertainty
    from tpugraphs_eval.scoring import bootstrap

    calls = []
    real = bootstrap.resampled_means
    monkeypatch.setattr(bootstrap, "resampled_means", lambda *args: calls.append(1) or real(*args))
    import tpugraphs_eval.scoring.compare as compare_module

    monkeypatch.setattr(compare_module, "resampled_means", bootstrap.resampled_means)
    monkeypatch.setattr(uncertainty, "resampled_means", bootstrap.resampled_means)
    rng = np.random.default_rng(8)
    b = {"tile": rng.uniform(0.5, 1.0, 12), "layout": rng.uniform(-1, 1, 5)}
    b["layout"][1] = np.nan
    a = {name: np.zeros(v.size) for name, v in b.items()}
    positions = draw_positions({name: v.size for name, v in b.items()}, 300, 2)
    _, overall = paired_bootstrap(a, b, positions)
    assert len(calls) == 2  # one call per collection (A and B stacked)
    leaderboard = uncertainty.resampled_overall(b, positions)
    assert len(calls) == 4
    tails = (100 * (1 - LEVEL) / 2, 100 * (1 + LEVEL) / 2)  # compare's percentiles (2.500000000000002, 97.5)
    assert (overall.low, overall.high) == tuple(float(v) for v in np.percentile(leaderboard, tails))


def test_one_graph_per_collection_has_no_interval_and_no_share(capsys, demo_root, tmp_path):
    """With 1 graph per collection every resample draws the same graphs: the interval was a point and "B wins"
    0% or 100%; now both are "—" (None in the JSON), the point difference and the tally stay."""
    from small_roots import demo_subset

    one = {"c": np.array([0.25]), "d": np.array([0.5])}
    collections, overall = paired_bootstrap(one, {"c": np.array([0.75]), "d": np.array([0.5])},
                                            draw_positions({"c": 1, "d": 1}, 50, 0))
    for d in (*collections.values(), overall):
        assert (d.low, d.high, d.b_better, d.tied, d.b_wins) == (None,) * 5
    assert (collections["c"].difference, overall.difference, overall.graphs) == (0.5, 0.25, Tally(1, 0, 1, 0))
    from tpugraphs_eval import resolve_data_root, scan_catalog
    from tpugraphs_kit import write_random_submission

    root = demo_subset(demo_root, tmp_path / "root", 1, splits=("valid",))
    for seed in (0, 1):
        write_random_submission(scan_catalog(resolve_data_root(str(root)), "valid"), tmp_path / f"{seed}.csv", seed)
    target = tmp_path / "c.json"
    code, out, err = run(capsys, "compare", str(tmp_path / "0.csv"), str(tmp_path / "1.csv"), "--data-root",
                         str(root), "--split", "valid", "--json", str(target))
    assert code == 0, err
    document = json.loads(target.read_text())
    assert all(d["low"] is None and d["b_wins"] is None for d in [*document["collections"].values(),
                                                                   document["overall"]])
    rows = [line.split()[:-1] for line in out.splitlines() if line.strip().startswith(("tile:xla", "overall"))]
    assert [r[-2:] for r in rows] == [["—", "—"], ["—", "—"]]  # 95% interval, B wins; then +/-/=
