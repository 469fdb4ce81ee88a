"""Solution files and public/private scores (tpugraphs_eval.truth.solution).

Expected values: the same submission scored against the demo's .npz tree (an independent source of the
runtimes), and means over the public/private graphs worked out here from the per-graph metrics.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from csv_rows import csv_bytes, demo_rows
from solution_rows import write_rows

from tpugraphs_eval import DataError, Options, UsageError, load_ground_truth, score_submission
from tpugraphs_eval.commands import evaluate as cli
from tpugraphs_eval.report.public import public_report
from tpugraphs_eval.truth.solution import (
    assign_usage,
    build_solution,
    load_solution,
    read_manifest,
)


@pytest.fixture(scope="module")
def solution(demo_root, tmp_path_factory):
    path = tmp_path_factory.mktemp("solution") / "test.parquet"
    build_solution(demo_root, "test", path)
    return path


def test_solution_scores_equal_the_npz_tree(solution, demo_root):
    from_npz = load_ground_truth(demo_root, "test")
    from_solution = load_solution(solution)
    assert from_solution.sha256 == from_npz.sha256 and from_solution.has_usage
    for kind in ("random", "oracle"):
        data = csv_bytes(demo_rows(from_npz, kind, seed=3))
        a, b = score_submission(data, from_npz).to_dict(), score_submission(data, from_solution).to_dict()
        assert a["graphs"] == b["graphs"] and a["overall"] == b["overall"] and a["collections"] == b["collections"]
    raw = load_solution(solution, tile_runtime="raw")
    assert raw.sha256 == from_npz.sha256 and raw.tile_runtime == "raw"


def test_public_and_private_leaderboards_are_means_over_their_graphs(solution):
    truth = load_solution(solution)
    report = score_submission(csv_bytes(demo_rows(truth, "random", seed=5)), truth)
    graphs = report.graph_metrics()
    for board in ("public", "private"):
        values = {}
        for name, t in truth.collections.items():
            keep = t.public if board == "public" else ~t.public
            ids = [i for i, k in zip(t.graphs.ids, keep.tolist()) if k]
            metric = "score" if name == "tile:xla" else "kendall_tau"
            values[name] = np.mean([graphs[i][metric] for i in ids])  # worked out here from the per-graph values
            assert report.leaderboards[board].collections[name].value == pytest.approx(values[name], abs=1e-12)
        assert report.leaderboards[board].overall == pytest.approx(np.mean(list(values.values())), abs=1e-12)


def test_usage_is_a_seeded_stratified_quarter(solution, demo_root):
    manifest = read_manifest(solution)
    counts = manifest["counts"]
    assert counts["tile:xla"] == {"graphs": 40, "configs": counts["tile:xla"]["configs"], "public_graphs": 10}
    assert all(c["public_graphs"] == 1 for name, c in counts.items() if name != "tile:xla")  # round(0.75) = 1
    assert manifest["usage"] == {"source": "seeded", "public_fraction": 0.25, "seed": 0}
    truth = load_solution(solution)
    assert manifest["ground_truth_sha256"] == truth.sha256
    from tpugraphs_eval.truth.npzread import read_split

    read = read_split(demo_root, "test", with_runtimes=False, progress=False)
    again = assign_usage(read, 0.25, 0)
    assert all((again[n] == truth.collections[n].public).all() for n in again)
    other = assign_usage(read, 0.25, 1)
    assert any((other[n] != again[n]).any() for n in again)
    tiny = {c: g[:2] for c, g in read.items()}
    assert all(m.sum() == 1 for m in assign_usage(tiny, 0.0, 0).values())  # one graph on each side


def test_rebuilding_gives_the_same_bytes(solution, demo_root, tmp_path):
    again = tmp_path / "again.parquet"
    build_solution(demo_root, "test", again)
    assert again.read_bytes() == solution.read_bytes()


def test_usage_file(demo_root, tmp_path):
    truth = load_ground_truth(demo_root, "test")
    ids = [i for t in truth.collections.values() for i in t.graphs.ids]
    usage = tmp_path / "usage.csv"
    usage.write_text("ID,Usage\n" + "".join(f"{i},{'Public' if k % 2 else 'Private'}\n" for k, i in enumerate(ids)))
    out = tmp_path / "s.parquet"
    manifest = build_solution(demo_root, "test", out, usage_file=usage)
    assert manifest["usage"]["source"] == str(usage)
    loaded = load_solution(out)
    marks = np.concatenate([t.public for t in loaded.collections.values()])
    assert marks.tolist() == [bool(k % 2) for k in range(len(ids))]
    usage.write_text("ID,Usage\n" + f"{ids[0]},Public\n")
    with pytest.raises(DataError, match="have no Usage row"):
        build_solution(demo_root, "test", out, usage_file=usage)
    usage.write_text("ID,Usage\n" + f"{ids[0]},public\n")
    with pytest.raises(DataError, match="Public|Private"):
        build_solution(demo_root, "test", out, usage_file=usage)


def test_public_only_view_shows_nothing_private(solution, capsys):
    truth = load_solution(solution)
    report = score_submission(csv_bytes(demo_rows(truth, "random", seed=6)), truth)
    public = public_report(report).to_dict()
    assert "graphs" not in public and "leaderboards" not in public  # test_score_public.py scans every output
    assert public["overall"] == report.leaderboards["public"].overall
    text = json.dumps(public)
    assert repr(report.leaderboards["private"].overall) not in text and repr(report.overall) not in text
    # the CLI: the public view, and the organiser view with both leaderboards
    rows = solution.parent / "sub.csv"
    rows.write_bytes(csv_bytes(demo_rows(truth, "random", seed=6)))
    assert cli.main([str(rows), "--solution", str(solution), "--public-only", "--json", str(rows) + ".json"]) == 0
    out = capsys.readouterr().out
    assert "Public leaderboard only" in out and "Leaderboards" not in out
    assert cli.main([str(rows), "--solution", str(solution)]) == 0
    assert "Leaderboards" in capsys.readouterr().out


def test_solution_cli_and_errors(demo_root, tmp_path, capsys):
    out = tmp_path / "valid.parquet"
    assert cli.main(["solution", "build", "--data-root", "demo", "--split", "valid", "-o", str(out),
                     "--public-fraction", "0.5", "--seed", "7"]) == 0
    assert "tile:xla: 24 graphs (12 public)" in capsys.readouterr().out
    assert read_manifest(out)["split"] == "valid"
    sample = str(tmp_path / "none.csv")
    assert cli.main([sample, "--solution", str(out), "--split", "test"]) == 2  # the file is a valid-split solution
    assert "valid split, not test" in capsys.readouterr().err
    assert cli.main([sample, "--data-root", "demo", "--split", "test", "--public-only"]) == 2
    assert "--public-only needs --solution" in capsys.readouterr().err
    bogus = tmp_path / "bogus.parquet"
    bogus.write_bytes(b"not parquet")
    with pytest.raises(DataError, match="too short to be a Parquet file"):
        load_solution(bogus)
    with pytest.raises(UsageError):
        build_solution(demo_root, "valid", tmp_path / "x.parquet", public_fraction=1.5)
    assert score_submission(csv_bytes(demo_rows(load_solution(out), "oracle")), load_solution(out),
                            Options(configs="official"), eval_indices_dir=demo_root.path / "eval_indices").valid


def test_rows_in_any_order_load_the_same_and_gaps_are_refused(solution, tmp_path):
    import polars as pl

    frame = pl.read_parquet(solution)
    manifest = read_manifest(solution)
    shuffled = tmp_path / "shuffled.parquet"
    write_rows(frame.sample(fraction=1.0, shuffle=True, seed=1), shuffled, manifest)
    assert load_solution(shuffled).sha256 == load_solution(solution).sha256
    gap = tmp_path / "gap.parquet"
    write_rows(frame.filter(~((pl.col("collection") == "tile:xla") & (pl.col("config") == 1))), gap, manifest)
    with pytest.raises(DataError, match="missing or repeated configs"):
        load_solution(gap)


def test_public_only_with_an_invalid_submission_exits_1(solution, tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("ID,TopConfigs\ntile:xla:nope,0\n")
    assert cli.main([str(bad), "--solution", str(solution), "--public-only", "--json", str(tmp_path / "r.json")]) == 1
    assert json.loads((tmp_path / "r.json").read_text())["graphs_scored"] == "public leaderboard only"
    assert "internal error" not in capsys.readouterr().err


def test_malformed_usage_values_and_manifests_are_data_errors(solution, tmp_path):
    import polars as pl

    odd = tmp_path / "odd.parquet"
    write_rows(pl.read_parquet(solution).with_columns(pl.lit("Maybe").alias("usage")), odd, read_manifest(solution))
    with pytest.raises(DataError, match="Public or Private"):
        load_solution(odd)
    listed = tmp_path / "listed.parquet"
    pl.read_parquet(solution).write_parquet(listed, metadata={"tpugraphs_eval_solution": "[1, 2]"})
    with pytest.raises(DataError, match="solution format"):
        load_solution(listed)


def test_negative_seeds_are_usage_errors(tmp_path, capsys):
    out = str(tmp_path / "s.parquet")
    assert cli.main(["solution", "build", "--data-root", "demo", "--split", "test", "-o", out, "--seed", "-1"]) == 2
    assert "must be 0 or more" in capsys.readouterr().err


def test_a_collection_without_public_or_private_graphs_is_warned_about(tiny_root, demo_root, tmp_path, capsys):
    """The tiny root's valid split has one graph per collection: round(0.25 * 1) = 0 public graphs, so the
    public leaderboard would be empty (—, NaN) without a word; round(0.8 * 1) = 1 leaves no private graph."""
    out = tmp_path / "one.parquet"
    assert cli.main(["solution", "build", "--data-root", str(tiny_root), "--split", "valid", "-o", str(out),
                     "--no-progress"]) == 0
    captured = capsys.readouterr()
    assert "(0 public)" in captured.out
    lines = [line for line in captured.err.splitlines() if line.startswith("tpugraphs-eval: warning: ")]
    assert [line.split()[2] for line in lines] == ["[NO_PUBLIC_GRAPHS]"] * 2
    assert "tile:xla: no Public graph" in lines[0] and "--public-fraction above 0.5" in lines[0]
    warnings = read_manifest(out)["warnings"]
    assert [(w["code"], w["collection"]) for w in warnings] == [("NO_PUBLIC_GRAPHS", "tile:xla"),
                                                                 ("NO_PUBLIC_GRAPHS", "layout:xla:default")]
    assert cli.main(["solution", "build", "--data-root", str(tiny_root), "--split", "valid", "-o", str(out),
                     "--public-fraction", "0.8", "--no-progress"]) == 0
    assert capsys.readouterr().err.count("warning: [NO_PRIVATE_GRAPHS]") == 2
    assert read_manifest(out)["counts"]["tile:xla"]["public_graphs"] == 1
    # a usage file marking every graph Private: each collection warned about, with the fix named
    truth = load_ground_truth(demo_root, "test")
    usage = tmp_path / "usage.csv"
    usage.write_text("ID,Usage\n" + "".join(f"{i},Private\n" for t in truth.collections.values()
                                            for i in t.graphs.ids))
    manifest = build_solution(demo_root, "test", tmp_path / "private.parquet", usage_file=usage)
    assert [w["code"] for w in manifest["warnings"]] == ["NO_PUBLIC_GRAPHS"] * len(truth.collections)
    assert "marks all 40 of its graphs Private" in manifest["warnings"][0]["message"]


def test_the_default_draw_warns_about_nothing(solution):
    assert read_manifest(solution)["warnings"] == []


def test_usage_file_faults_each_say_what_is_wrong(demo_root, tmp_path):
    """One line per fault in one error: a repeated ID names its first line (it said "expected ... once per
    graph, got ['tile:…', 'Public']", a Python list), an unknown ID, a bad usage, a wrong field count."""
    ids = [i for t in load_ground_truth(demo_root, "test").collections.values() for i in t.graphs.ids]
    rows = [f"{i},Public" for i in ids] + [f"{ids[0]},Private", "tile:xla:nope,Public", "x,y,z"]
    rows[1] = f"{ids[1]},public"
    usage = tmp_path / "usage.csv"
    usage.write_text("ID,Usage\n" + "\n".join(rows) + "\n")
    with pytest.raises(DataError) as err:
        build_solution(demo_root, "test", tmp_path / "s.parquet", usage_file=usage)
    n = len(ids)
    assert str(err.value).splitlines()[1:] == [
        f"  line 3: `{ids[1]}`: usage `public` is neither Public nor Private",
        f"  line {n + 2}: `{ids[0]}` again (first on line 2)",
        f"  line {n + 3}: `tile:xla:nope` is not a graph of the split",
        f"  line {n + 4}: 3 field(s), expected 2 (`ID,Usage`)",
        f"  1 graph(s) have no Usage row, e.g. {ids[1]}"]
