"""The random and learned baselines (tpugraphs_kit.random_baseline, tpugraphs_kit.learned) and their command.

Expected values: the tile expectation of random ranking is recomputed here independently (enumerating every
min(5, c)-subset for small graphs, a pure-Python sum over order statistics otherwise); ridge weights are
checked against numpy's least squares on the augmented system; scores come from the evaluator's
score_submission. Learned vs random on the demo valid split, measured when written (alpha 1e-2): tile
normalised 0.996, layout tau 0.727 / 0.706 / 0.652 / 0.694 (xla:default, xla:random, nlp:default,
nlp:random), against random's 0.713 tile score (normalised -0.01) and taus within 0.03 of 0.
"""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest

from tpugraphs_eval import (
    DataRoot,
    load_ground_truth,
    resolve_data_root,
    scan_catalog,
    score_submission,
    validate_submission,
)
from tpugraphs_kit import (
    KitError,
    fit_collection,
    random_expectations,
    random_rankings,
    train,
    write_learned_submission,
    write_random_submission,
)
from tpugraphs_kit.cli_baseline import main as baseline_main
from tpugraphs_kit.data import iter_graphs
from tpugraphs_kit.features import design


@pytest.fixture(scope="module")
def valid_truth(demo_root):
    return load_ground_truth(demo_root, "valid")


def _expected_best_of_k(y: np.ndarray) -> float:
    """E[min of a uniform min(5, c)-subset of y] / min y, independently of the evaluator."""
    c, k = y.size, min(5, y.size)
    if math.comb(c, k) <= 20000:
        mins = [min(y[list(s)]) for s in itertools.combinations(range(c), k)]
        return float(np.mean(mins)) / float(y.min())
    ys = sorted(y.tolist())
    return sum(ys[i] * math.comb(c - 1 - i, k - 1) for i in range(c)) / math.comb(c, k) / ys[0]


def test_random_files_are_reproducible_and_valid(tmp_path, demo_root):
    catalog = scan_catalog(demo_root, "test")
    a, b, c = tmp_path / "a.csv", tmp_path / "b.csv", tmp_path / "c.csv"
    write_random_submission(catalog, a, 3)
    write_random_submission(catalog, b, 3)
    write_random_submission(catalog, c, 4)
    assert a.read_bytes() == b.read_bytes() != c.read_bytes()
    assert validate_submission(a, catalog, mode="strict").valid
    rows = dict(line.split(",") for line in a.read_text().splitlines()[1:])
    for graph_id, (collection, _, n) in catalog.index.items():
        picked = [int(t) for t in rows[graph_id].split(";")]
        assert len(set(picked)) == len(picked) == (min(5, n) if collection.kind == "tile" else n)
    with pytest.raises(KitError) as err:
        random_rankings(catalog, -1)
    assert err.value.code == "BAD_SEED"


def test_random_rows_do_not_depend_on_other_graphs(demo_root):
    catalog = scan_catalog(demo_root, "valid")
    some = list(catalog.index)[::5]
    full = random_rankings(catalog, 11)
    part = random_rankings(catalog, 11, ids=some)
    assert all(np.array_equal(full[i], part[i]) for i in some)


def test_expected_random_score_is_exact(valid_truth):
    expectations = random_expectations(valid_truth, draws=0)
    tile = valid_truth.collections["tile:xla"]
    expected = np.mean([2.0 - _expected_best_of_k(y) for y in tile.runtimes])
    assert expectations["tile:xla"].expected == pytest.approx(expected, abs=1e-12)
    assert expectations["tile:xla"].oracle == 1.0 and expectations["tile:xla"].method.startswith("exact")
    for name in ("layout:xla:default", "layout:xla:random", "layout:nlp:default", "layout:nlp:random"):
        assert expectations[name].expected == 0.0 and 0.99 < expectations[name].oracle <= 1.0


def test_random_draws_estimate_every_metric(valid_truth):
    expectations = random_expectations(valid_truth, draws=5, seed=100)
    tile = expectations["tile:xla"]
    assert tile.draws == 5 and set(tile.estimated) == {"score", "top1_error", "top5_error", "top10_error"}
    # the mean over 5 seeded draws is within 3 standard errors of the exact expectation (values are fixed by the seeds)
    assert abs(tile.estimated["score"] - tile.expected) < 3 * tile.spread["score"] / math.sqrt(5) + 1e-9
    for name in ("layout:xla:default", "layout:nlp:random"):
        assert abs(expectations[name].estimated["kendall_tau"]) < 0.05
        assert set(expectations[name].estimated) == {"kendall_tau", "opa", "slowdown1", "slowdown10", "slowdown100"}
        assert abs(expectations[name].estimated["opa"] - 0.5) < 0.05  # a random ranking orders half the pairs


def test_official_expectations_of_a_demo_solution_file_are_the_data_roots(demo_root, valid_truth, tmp_path):
    """``configs="official"`` on a solution file of the demo reads the demo's own lists, as the data root does (the
    kit looked for them inside the Parquet file: DataError), and every figure, drawn ones included, is the same."""
    from tpugraphs_eval import Options
    from tpugraphs_eval.truth.solution import build_solution, load_solution

    build_solution(demo_root, "valid", tmp_path / "valid.parquet")
    official = Options(configs="official")
    by_file = random_expectations(load_solution(tmp_path / "valid.parquet"), draws=2, seed=7, options=official)
    by_root = random_expectations(valid_truth, draws=2, seed=7, options=official)
    assert by_file == by_root and by_root["layout:xla:default"].draws == 2


def test_ridge_matches_least_squares(demo_root):
    """The fitted weights equal numpy's lstsq on [sqrt(w) X / s; sqrt(alpha G) I] w = [sqrt(w) z; 0]."""
    alpha = 0.05
    model = fit_collection(demo_root, "layout:xla:random", "train", alpha=alpha, max_configs=10**6)
    blocks, targets = [], []
    for graph in iter_graphs(demo_root, "layout:xla:random", "train", progress=False):
        log_y = np.log(graph.runtimes().astype(np.float64))
        z = (log_y - log_y.mean()) / log_y.std()
        x = design(graph)
        blocks.append(x / np.sqrt(z.size))
        targets.append(z / np.sqrt(z.size))
    x, z = np.vstack(blocks), np.concatenate(targets)
    g = len(blocks)
    scale = np.sqrt((x ** 2).sum(0) / g)
    scale[scale == 0] = 1.0
    augmented = np.vstack([x / scale, np.sqrt(alpha * g) * np.eye(x.shape[1])])
    w = np.linalg.lstsq(augmented, np.concatenate([z, np.zeros(x.shape[1])]), rcond=None)[0]
    assert model.n_graphs == g
    np.testing.assert_allclose(model.weights, w, rtol=1e-6, atol=1e-8)


def test_ridge_ranks_an_exact_log_linear_collection_perfectly(tmp_path):
    """Tile graphs with runtime = exp(config_feat @ w): the model must order a new graph exactly."""
    rng = np.random.default_rng(5)
    w = rng.normal(0, 0.05, 24)
    for split, count in (("train", 12), ("valid", 3)):
        folder = tmp_path / "npz/tile/xla" / split
        folder.mkdir(parents=True)
        for i in range(count):
            feat = rng.integers(1, 32, (40, 24)).astype(np.float32)
            runtime = np.rint(1e6 * np.exp(feat @ w)).astype(np.int64)
            np.savez(folder / f"g{i}.npz", config_feat=feat, config_runtime=runtime,
                     config_runtime_normalizers=np.full(40, runtime[0]), node_feat=np.ones((3, 140), np.float32))
    root = DataRoot(tmp_path)
    models = train(root, "train", collections=["tile:xla"], alpha=1e-6)
    truth = load_ground_truth(root, "valid")
    write_learned_submission(models, truth.catalog, tmp_path / "l.csv")
    report = score_submission(tmp_path / "l.csv", truth)
    assert report.collections["tile:xla"].value == 1.0  # the fastest config is always first
    with pytest.raises(KitError) as err:
        fit_collection(root, "layout:xla:default", "train")
    assert err.value.code == "NO_TRAINING_DATA"


def test_learned_beats_random_on_demo_valid(tmp_path, demo_root, valid_truth):
    models = train(demo_root, "train")
    write_learned_submission(models, valid_truth.catalog, tmp_path / "learned.csv")
    write_random_submission(valid_truth.catalog, tmp_path / "random.csv", 0)
    learned = score_submission(tmp_path / "learned.csv", valid_truth)
    random = score_submission(tmp_path / "random.csv", valid_truth)
    assert learned.valid and random.valid
    learned_norm, random_norm = learned.normalised(), random.normalised()
    assert learned_norm["tile:xla"] > 0.9 and random_norm["tile:xla"] < 0.2
    for name in ("layout:xla:default", "layout:xla:random", "layout:nlp:default", "layout:nlp:random"):
        assert learned.collections[name].value > 0.5  # mean Kendall tau-b (random's expectation is 0)
        assert learned.collections[name].value > random.collections[name].value + 0.4
    test_catalog = scan_catalog(demo_root, "test")
    assert write_learned_submission(models, test_catalog, tmp_path / "test.csv").valid
    assert validate_submission(tmp_path / "test.csv", test_catalog).valid


def test_baseline_cli_random_and_learned(tmp_path, capsys, demo_root):
    out, report = tmp_path / "r.csv", tmp_path / "r.json"
    assert baseline_main(["random", "--split", "valid", "--data-root", "demo", "--seed", "1", "-o", str(out),
                          "--draws", "2", "--json", str(report), "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "SYNTHETIC" in text and "random (expected)" in text and "seeds 2…3" in text
    numbers = json.loads(report.read_text())
    truth = load_ground_truth(demo_root, "valid")
    evaluated = score_submission(out, truth)
    for name, result in evaluated.collections.items():
        assert numbers["collections"][name]["value"] == result.value
        assert numbers["collections"][name]["random"] == evaluated.references[name].random
    assert numbers["collections"]["tile:xla"]["random_draws"] == 2

    out2 = tmp_path / "l.csv"
    assert baseline_main(["learned", "--split", "valid", "--data-root", "demo", "-o", str(out2), "--json",
                          str(report), "--configs", "official", "--no-progress"]) == 0
    numbers = json.loads(report.read_text())
    assert numbers["scored"] and numbers["collections"]["layout:xla:default"]["normalised"] > 0.5
    assert "learned normalised" in capsys.readouterr().out

    assert baseline_main(["random", "--split", "valid", "--data-root", "demo", "--seed", "-3", "-o", str(out)]) == 2
    assert baseline_main(["random", "--split", "test", "--data-root", "demo", "-o", str(out),
                          "--configs", "official"]) == 2
    err = capsys.readouterr().err
    assert "[USAGE_ERROR]" in err and "Traceback" not in err


def test_baseline_cli_on_real_files(tmp_path, capsys, realdata):
    """Public test files: a valid file and no score (their runtimes are 0); valid split: scored."""
    root = str(realdata / "tpugraphs")
    out = tmp_path / "r.csv"
    assert baseline_main(["random", "--split", "test", "--data-root", root, "-o", str(out), "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "not scored" in text and "SYNTHETIC" not in text
    catalog = scan_catalog(resolve_data_root(root), "test")
    assert validate_submission(out, catalog).valid and validate_submission(out, catalog).n_rows == 5
    assert baseline_main(["random", "--split", "valid", "--data-root", root, "-o", str(out), "--draws", "1",
                          "--configs", "official", "--eval-indices", str(realdata / "eval_indices"),
                          "--no-progress"]) == 0
    assert "layout:xla:default" in capsys.readouterr().out
    learned_out = tmp_path / "l.csv"
    assert baseline_main(["learned", "--split", "test", "--data-root", root, "-o", str(learned_out),
                          "--no-progress"]) == 2  # the sample has no nlp train graphs: no model for them
    assert "[NO_MODEL]" in capsys.readouterr().err
    assert baseline_main(["learned", "--split", "test", "--data-root", root, "-o", str(learned_out),
                          "--fill-random", "0", "--no-progress"]) == 0
    assert "their rows are random" in capsys.readouterr().out
    assert validate_submission(learned_out, catalog).valid


def test_odd_learned_and_download_options_are_coded(tmp_path, capsys):
    from tpugraphs_kit.cli_baseline import main as baseline_main
    from tpugraphs_kit.cli_data import main as data_main

    assert baseline_main(["learned", "--split", "valid", "--data-root", "demo", "--alpha", "inf",
                          "-o", str(tmp_path / "l.csv")]) == 2
    assert "[USAGE_ERROR]" in capsys.readouterr().err
    assert data_main(["download", "--data-root", str(tmp_path), "--base-url", "notaurl",
                      "--collections", "tile:xla", "--splits", "valid"]) == 2
    err = capsys.readouterr().err
    assert "[USAGE_ERROR]" in err and "Traceback" not in err
