"""Noise ceilings and search curves where they show: the noise file, report, compare, leaderboard, public view
(docs/metrics.md, "Measurement noise", "Search curve")."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from csv_rows import csv_bytes, demo_rows

from tpugraphs_eval import Evaluator, load_ground_truth, resolve_data_root, score_submission
from tpugraphs_eval.errors import DataError
from tpugraphs_eval.options import Options
from tpugraphs_eval.scoring.noisefile import build_noise, read_noise
from tpugraphs_kit import cli_data

LAYOUT = "npz/layout/xla/default/valid"
# graph a: configs 0, 1 share a row (runtimes 1000, 1010); graph b: 2, 3 share one (2000, 1990); graph c: none
GRAPHS = {"a": ([1000, 1010, 1100, 1200, 1300, 1005], [(0, 1)]), "b": ([2000, 2100, 2000, 1990, 2300, 2050], [(2, 3)]),
          "c": ([500, 510, 520, 530, 540, 550], [])}


def _root(tmp_path, graphs=GRAPHS):
    for name, (runtimes, pairs) in graphs.items():
        features = np.arange(len(runtimes) * 2 * 18, dtype=np.float32).reshape(len(runtimes), 2, 18)
        for i, j in pairs:
            features[j] = features[i]
        (tmp_path / LAYOUT).mkdir(parents=True, exist_ok=True)
        np.savez(tmp_path / LAYOUT / f"{name}.npz", node_feat=np.zeros((2, 140), np.float32),
                 node_opcode=np.zeros(2, np.uint8), edge_index=np.zeros((1, 2), np.int64), node_config_feat=features,
                 node_config_ids=np.arange(2), node_splits=np.zeros((1, 1), np.int64),
                 config_runtime=np.array(runtimes, dtype=np.int64))
    assert cli_data.main(["noise", "--data-root", str(tmp_path), "--splits", "valid"]) == 0
    return tmp_path


def _rows(order_of, only=None):
    """Each graph's row: ``order_of(runtimes)`` (only for graph ``only`` when given; the others sorted)."""
    return csv_bytes({f"layout:xla:default:{n}": (order_of if only in (None, n) else np.argsort)(np.array(y)).tolist()
                      for n, (y, _) in GRAPHS.items()})


def test_curves_equal_slowdowns_and_top_k_errors_to_the_last_bit(demo_root):
    truth = load_ground_truth(demo_root, "valid")
    for options in (Options(), Options(configs="official")):
        report = score_submission(csv_bytes(demo_rows(truth, "random", 3)), truth, options)
        for name, result in report.collections.items():
            families = ("top{}_error", (1, 5, 10)) if name == "tile:xla" else ("slowdown{}", (1, 10, 100))
            for k in families[1]:
                value = result.per_graph[families[0].format(k)]
                defined = ~np.isnan(value)
                assert np.array_equal(result.curves[defined, k - 1], 1.0 + value[defined])  # bitwise


def test_noise_file_gives_the_analytic_sd_and_pooled_values(tmp_path, capsys):
    root = _root(tmp_path)
    noise = json.loads((root / "noise" / "valid.json").read_text())["collections"]["layout:xla:default"]
    # by hand: a pair (1000, 1010): mean 1005, squares 2 * (5/1005)^2, dof 1; b: (2000, 1990): 2 * (5/1995)^2
    a, b = 2 * (5 / 1005) ** 2, 2 * (5 / 1995) ** 2
    assert noise["graphs"]["a"]["sd"] == pytest.approx(math.sqrt(a), rel=1e-12)
    assert noise["sd"] == pytest.approx(math.sqrt((a + b) / 2), rel=1e-12) and noise["dof"] == 2
    assert noise["graphs"]["c"]["sd_source"] == "pooled" and noise["graphs"]["c"]["sd"] == noise["sd"]
    report = Evaluator.load(split="valid", data_root=str(root)).evaluate(_rows(lambda y: np.argsort(y)))
    out = report.to_dict()
    graph = out["graphs"]["layout:xla:default:a"]
    assert graph["noise"]["ceiling"]["kendall_tau"][0] < 1.0 and graph["search_curve"]["curve"][0] == 1.0
    detail = out["collection_details"]["layout:xla:default"]
    assert detail["noise"]["graphs_pooled"] == 1 and detail["noise"]["ceiling"] < 1.0
    assert out["noise_file"] == str(root / "noise" / "valid.json") and out["normalised_to_ceiling"]["layout:xla:default"] > 1
    from tpugraphs_eval.report.html import render_html

    page = render_html(report).split('id="noise-and-curves"')[1]
    assert page.count("<circle") == 3 and page.count("<polyline") == 2  # 3 graphs; the mean and random curves
    ceiling, to_ceiling = detail["noise"]["ceiling"], out["normalised_to_ceiling"]["layout:xla:default"]
    assert f"ceiling {ceiling:.3f} · norm./ceil. {to_ceiling:.3f}" in page  # the JSON's (and the terminal's) figures


def test_leaderboard_notes_the_top_ranks_inside_the_noise(tmp_path):
    from tpugraphs_eval.leaderboard.build import build_leaderboard
    from tpugraphs_eval.truth.solution import build_solution

    root = _root(tmp_path / "root")
    solution = tmp_path / "solution.parquet"
    build_solution(resolve_data_root(str(root)), "valid", solution, public_fraction=0.34, seed=0)
    for team, rows in (("best", _rows(np.argsort)), ("close", _rows(lambda y: np.argsort(y)[[1, 0, 2, 3, 4, 5]], "a")),
                       ("worst", _rows(lambda y: np.argsort(-y)))):
        (tmp_path / "subs" / team).mkdir(parents=True)
        (tmp_path / "subs" / team / "s.csv").write_bytes(rows)
    result = build_leaderboard(tmp_path / "subs", solution, tmp_path / "out", noise=root / "noise" / "valid.json",
                               cache_dir=None, workers=1, resamples=10)
    ranks = {t["team"]: t["rank"] for t in result.document["teams"]}
    pairs = result.document["noise"]["collections"]["layout:xla:default"]["pairs_within_noise"]
    assert [ranks["best"], ranks["close"]] in pairs and [ranks["close"], ranks["worst"]] not in pairs
    assert "Measurement noise" in result.files["leaderboard.md"]


def test_without_any_duplicate_there_is_no_ceiling(tmp_path):
    root = _root(tmp_path, {n: (y, []) for n, (y, _) in GRAPHS.items()})
    report = Evaluator.load(split="valid", data_root=str(root)).evaluate(_rows(np.argsort))
    out = report.to_dict()
    graph = out["graphs"]["layout:xla:default:a"]["noise"]
    assert graph["sd"] is None and graph["sd_source"] is None and "ceiling" not in graph
    assert out["collection_details"]["layout:xla:default"]["noise"]["ceiling"] is None
    from rich.console import Console

    from tpugraphs_eval.report.terminal import render

    console = Console(record=True, width=200)
    render(report, console)
    assert "layout:xla:default: no noise estimate" in console.export_text()


def test_a_noise_file_of_other_runtimes_is_refused(tmp_path, demo_root):
    root = _root(tmp_path)
    with pytest.raises(DataError, match="other runtimes"):
        read_noise(root / "noise" / "valid.json", load_ground_truth(demo_root, "valid"))
    assert build_noise(resolve_data_root(str(root)), load_ground_truth(resolve_data_root(str(root)), "valid"))[
        "ground_truth_sha256"] == json.loads((root / "noise" / "valid.json").read_text())["ground_truth_sha256"]


def test_compare_marks_a_difference_inside_the_noise(tmp_path):
    from tpugraphs_eval.scoring.compare import compare_reports

    root = _root(tmp_path)
    evaluator = Evaluator.load(split="valid", data_root=str(root))
    best = evaluator.evaluate(_rows(lambda y: np.argsort(y, kind="stable")))
    swapped = evaluator.evaluate(_rows(lambda y: np.argsort(y, kind="stable")[[1, 0, 2, 3, 4, 5]], "a"))
    reverse = evaluator.evaluate(_rows(lambda y: np.argsort(-y, kind="stable")))
    # one swapped neighbour pair of graph a: tau-b 13/15 there, the mean 2/45 = 0.044 lower; the noise spread of the
    # mean is sqrt(0.076^2 + 0.080^2 + 0) / 3 = 0.037 (the ceilings' spreads), the bound 2 sqrt(2) 0.037 = 0.104;
    # reversing every graph: about 1.9 lower
    assert compare_reports(best, swapped, resamples=20)[0]["collections"]["layout:xla:default"]["within_noise"] is True
    assert compare_reports(best, reverse, resamples=20)[0]["collections"]["layout:xla:default"]["within_noise"] is False


def test_the_public_view_shows_no_noise_and_no_curve(tmp_path):
    """`solution build --noise` writes the noise file of the solution's runtimes; the organiser's report shows it,
    the public view nothing of it."""
    from tpugraphs_eval.commands import evaluate as cli

    root = _root(tmp_path / "root")
    solution, noise = tmp_path / "solution.parquet", tmp_path / "solution-noise.json"
    assert cli.main(["solution", "build", "--data-root", str(root), "--split", "valid", "-o", str(solution),
                     "--public-fraction", "0.67", "--noise", str(noise)]) == 0
    organiser = Evaluator.load(split=None, solution=solution, noise=noise).evaluate(_rows(lambda y: np.argsort(y)))
    assert "noise" in organiser.to_dict()["collection_details"]["layout:xla:default"]
    public = Evaluator.load(split=None, solution=solution, noise=noise, public_only=True)
    text = public.evaluate(_rows(lambda y: np.argsort(y))).to_json()
    assert not any(word in text for word in ("noise", "ceiling", "curve"))


def test_real_unet_report_json(realdata, tmp_path):
    """docs/metrics.md's table through the JSON report: xla default valid unet_3d.4x4.bf16, relative sd 1.61e-5 (within
    5%), noise ceiling 0.638 ± 0.006 (within 0.03)."""
    source = realdata / "tpugraphs" / LAYOUT / "unet_3d.4x4.bf16.npz"
    (tmp_path / LAYOUT).mkdir(parents=True)
    (tmp_path / LAYOUT / source.name).symlink_to(source)
    assert cli_data.main(["noise", "--data-root", str(tmp_path), "--splits", "valid"]) == 0
    y = np.load(source)["config_runtime"]
    rows = csv_bytes({"layout:xla:default:unet_3d.4x4.bf16": np.argsort(y, kind="stable").tolist()})
    graph = Evaluator.load(split="valid", data_root=str(tmp_path)).evaluate(rows).to_dict()["graphs"][
        "layout:xla:default:unet_3d.4x4.bf16"]["noise"]
    assert graph["sd"] == pytest.approx(1.61e-5, rel=0.05) and graph["dof"] == 496
    mean, spread = graph["ceiling"]["kendall_tau"]
    assert abs(mean - 0.638) <= 0.03 and 0.002 < spread < 0.02
