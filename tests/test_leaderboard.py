"""Leaderboards from a folder of submissions (tpugraphs_eval.leaderboard).

Where expected values come from: the naive reference scorer (tests/naive_scorer.py, no shared code)
for a team's score; plain Python loops over the same seeded draws for the bootstrap; scipy for
Kendall's tau; hand-worked records for the selection and ranking rules; the bytes of a first build
for determinism.
"""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

import numpy as np
import pytest
import scipy.stats

import naive_scorer
from tpugraphs_eval.leaderboard import build_leaderboard, cli, read_folder
from tpugraphs_eval.leaderboard.folder import Entry, parse_time
from tpugraphs_eval.leaderboard.scorer import decode_array, score_entries
from tpugraphs_eval.leaderboard.cache import ScoreCache
from tpugraphs_eval.leaderboard.standings import standings
from tpugraphs_eval.leaderboard.uncertainty import draw, ranks_per_resample, resampled_overall, shakeup, uncertainty
from tpugraphs_eval.options import Options
from tpugraphs_eval.solution import build_solution, load_solution

REPO = Path(__file__).resolve().parent.parent
OUTPUTS = ("leaderboard.csv", "leaderboard.md", "leaderboard.json", "leaderboard.html")


@pytest.fixture(scope="session")
def demo_solution(demo_root, tmp_path_factory) -> Path:
    """The demo's test solution file (default seeded Usage: 10 of 40 tile graphs and 1 of 3 per layout collection
    public)."""
    path = tmp_path_factory.mktemp("lb-solution") / "test.parquet"
    build_solution(demo_root, "test", path)
    return path


def rows_for(truth, sigma: float, seed: int) -> bytes:
    """A strict-valid submission ranking each graph by log runtime + sigma * noise."""
    rng = np.random.default_rng(seed)
    lines = ["ID,TopConfigs"]
    for t in truth.collections.values():
        for graph_id, y in zip(t.graphs.ids, t.runtimes):
            order = np.argsort(np.log(y) + sigma * rng.standard_normal(y.size), kind="stable")
            order = order[: min(5, y.size)] if t.graphs.collection.kind == "tile" else order
            lines.append(f"{graph_id}," + ";".join(map(str, order.tolist())))
    return ("\n".join(lines) + "\n").encode()


def build_folder(root: Path, solution: Path, spec: dict[str, list[tuple]]) -> Path:
    """Team folders from ``{team: [(stem, sigma, selected[, day]), ...]}``; day d gives 2023-10-(d+1) 09:00 UTC."""
    truth = load_solution(solution)
    root.mkdir(parents=True, exist_ok=True)
    for t, (team, subs) in enumerate(spec.items()):
        (root / team).mkdir()
        for k, (stem, sigma, selected, *day) in enumerate(subs):
            (root / team / f"{stem}.csv").write_bytes(rows_for(truth, sigma, 1000 * t + k))
            meta = {"selected": selected, "submitted": f"2023-10-{(day[0] if day else k) + 1:02d}T09:00:00Z"}
            (root / team / f"{stem}.json").write_text(json.dumps(meta), encoding="utf-8")
    return root


# -- the folder ------------------------------------------------------------------------------------------------


def test_folder_layout_and_metadata(tmp_path):
    root = tmp_path / "subs"
    (root / "alpha" / "nested").mkdir(parents=True)
    (root / "beta").mkdir()
    (root / "alpha" / "a.csv").write_text("x")
    (root / "alpha" / "a.json").write_text(json.dumps({"submitted": "2023-11-17T14:00:00+02:00",
                                                       "description": "first\x1b[2J", "selected": True}))
    (root / "alpha" / "B.CSV").write_text("x")
    (root / "alpha" / "B.json").write_text(json.dumps({"submitted": "2023-11-18 08:30", "selected": "yes",
                                                       "colour": 1}))
    (root / "alpha" / "orphan.json").write_text("{}")
    (root / "alpha" / "notes.txt").write_text("x")
    (root / "alpha" / ".DS_Store").write_text("x")
    (root / "beta" / "c.csv").write_text("x")
    (root / "beta" / "c.json").write_text("[1, 2]")
    (root / "loose.csv").write_text("x")
    (root / ".git").mkdir()
    os.symlink(tmp_path, root / "linked-team")
    os.symlink(root / "alpha" / "a.csv", root / "beta" / "link.csv")
    folder = read_folder(root)
    assert folder.teams == ["alpha", "beta"]
    assert [e.id for e in folder.entries] == ["alpha/B.CSV", "alpha/a.csv", "beta/c.csv"]
    b, a, c = folder.entries
    assert a.submitted == "2023-11-17T12:00:00Z" and a.selected and a.description == "first\\x1b[2J"
    assert b.submitted == "2023-11-18T08:30:00Z" and not b.selected  # no zone: UTC; "yes" is not a boolean
    assert sorted(n["code"] for n in b.notes) == ["METADATA_INVALID", "METADATA_INVALID"]
    assert c.submitted is None and [n["code"] for n in c.notes] == ["METADATA_INVALID"]
    ignored = {i["path"]: i["message"] for i in folder.ignored}
    assert set(ignored) == {".git", "linked-team", "loose.csv", "alpha/.DS_Store", "alpha/nested",
                            "alpha/notes.txt", "alpha/orphan.json", "beta/link.csv"}
    assert all(i["code"] == "IGNORED_ENTRY" for i in folder.ignored)
    assert "symbolic link" in ignored["linked-team"] and "metadata without a CSV" in ignored["alpha/orphan.json"]


def test_parse_time():
    assert parse_time("2023-11-17T12:00:00Z") == "2023-11-17T12:00:00Z"
    assert parse_time("2023-11-17T12:00:00.250-01:00") == "2023-11-17T13:00:00.250000Z"
    for bad in ("yesterday", 20231117, None):
        with pytest.raises(ValueError):
            parse_time(bad)


# -- selection and ranking rules (hand-worked records) -----------------------------------------------------------


def _scored(public: float, private: float) -> dict:
    return {"status": "scored", "boards": {"public": {"overall": public}, "private": {"overall": private}}}


def test_selection_and_ranking_rules():
    E = Entry
    entries = [
        E("t1", "a.csv", Path("x"), "2023-01-01T00:00:00Z", selected=True),   # 0
        E("t1", "b.csv", Path("x"), "2023-01-02T00:00:00Z", selected=True),   # 1
        E("t1", "c.csv", Path("x"), "2023-01-03T00:00:00Z", selected=True),   # 2  three selected: b and c count
        E("t2", "a.csv", Path("x"), "2023-01-01T00:00:00Z"),                  # 3  none selected: best 2 public
        E("t2", "b.csv", Path("x"), "2023-01-02T00:00:00Z"),                  # 4
        E("t2", "c.csv", Path("x"), "2023-01-03T00:00:00Z"),                  # 5
        E("t3", "x.csv", Path("x"), None),                                    # 6  unknown time: ties with t1, shown after
        E("t4", "bad.csv", Path("x"), "2023-01-01T00:00:00Z", selected=True),  # 7  selected but invalid
        E("t4", "ok.csv", Path("x"), "2023-01-05T00:00:00Z"),                  # 8
    ]
    records = [_scored(0.9, 0.1), _scored(0.5, 0.6), _scored(0.4, 0.7),
               _scored(0.3, 0.9), _scored(0.8, 0.2), _scored(0.7, 0.3),
               _scored(0.1, 0.7),
               {"status": "invalid"}, _scored(0.2, 0.4)]
    teams = ["t1", "t2", "t3", "t4", "t5"]
    private = {s.team: s for s in standings(teams, entries, records, "private")}
    assert private["t1"].finals == [1, 2] and private["t1"].score == 0.7
    assert [n["code"] for n in private["t1"].notes] == ["TOO_MANY_SELECTED"]
    assert private["t2"].finals == [4, 5] and private["t2"].score == 0.3  # 0.9 private is not a final one
    assert private["t4"].finals == [8] and [n["code"] for n in private["t4"].notes] == ["SELECTED_INVALID"]
    assert private["t5"].rank is None and [n["code"] for n in private["t5"].notes] == ["NO_VALID_SUBMISSION"]
    order = [s.team for s in standings(teams, entries, records, "private")]
    assert order == ["t1", "t3", "t4", "t2", "t5"]  # t1 and t3 tie at 0.7: the known (earlier) time first
    assert [private[t].rank for t in order] == [1, 1, 3, 4, None]
    public = {s.team: s for s in standings(teams, entries, records, "public")}
    assert (public["t1"].score, public["t1"].chosen) == (0.9, 0)  # best public over all submissions
    assert [public[t].rank for t in ("t1", "t2", "t4", "t3")] == [1, 2, 3, 4]


# -- uncertainty (independent loops over the same draws) ----------------------------------------------------------


def test_resampled_overall_matches_a_plain_loop():
    rng = np.random.default_rng(7)
    per_graph = {"tile:xla": rng.normal(0.8, 0.1, 12), "layout:xla:default": rng.normal(0.2, 0.3, 4),
                 "layout:nlp:random": np.array([0.5, np.nan, 0.1])}
    counts = {name: v.size for name, v in per_graph.items()}
    got = resampled_overall(per_graph, draw(counts, 200, seed=11))
    again = np.random.default_rng(11)  # the documented draw: collection by collection, (B, G) each
    positions = {name: again.integers(0, n, size=(200, n)) for name, n in counts.items()}
    for b in range(200):
        means = []
        for name, values in per_graph.items():
            picked = [values[g] for g in positions[name][b] if not np.isnan(values[g])]
            if picked:
                means.append(sum(picked) / len(picked))
        assert abs(got[b] - sum(means) / len(means)) <= 1e-12


def test_identity_draw_gives_the_reported_private_overall(demo_solution):
    truth = load_solution(demo_solution)
    entries = [Entry("t", "s.csv", Path("unused"))]
    data = rows_for(truth, 0.5, 3)
    path = Path(demo_solution).parent / "identity-check.csv"
    path.write_bytes(data)
    entries[0].path = path
    records, _ = score_entries(entries, truth, demo_solution, Options(), ScoreCache(None), workers=1)
    per_graph = {n: decode_array(t) for n, t in records[0]["per_graph"]["private"].items()}
    identity = {n: np.arange(v.size)[None, :] for n, v in per_graph.items()}
    assert abs(resampled_overall(per_graph, identity)[0] - records[0]["boards"]["private"]["overall"]) <= 1e-12


def test_rank_and_score_intervals_by_hand():
    # 3 teams x 4 resamples; team 0 leads on the leaderboard
    scores = np.array([[0.9, 0.8, 0.7, 0.9],
                       [0.8, 0.85, 0.7, 0.5],
                       [0.1, 0.2, 0.3, 0.4]])
    ranks = ranks_per_resample(scores)
    assert ranks.tolist() == [[1, 2, 1, 1], [2, 1, 1, 2], [3, 3, 3, 3]]  # 0.7 = 0.7 share rank 1
    result = uncertainty(scores, [1, 2, 3])
    # linear percentiles of team 2's sorted [0.1, 0.2, 0.3, 0.4]: position 0.025*3 = 0.075 -> 0.1075; 0.975*3 -> 0.3925
    assert (result.low[2], result.high[2]) == (0.1075, 0.3925)
    # inverted_cdf: smallest rank reached in >= 2.5% / 97.5% of resamples
    assert (result.rank_low[0], result.rank_high[0]) == (1, 2) and (result.rank_low[2], result.rank_high[2]) == (3, 3)
    # paired differences leader - team 1: [0.1, -0.05, 0, 0.4] contain 0; leader - team 2: all > 0
    assert result.tied_with_leader == [True, True, False]


def test_shakeup_tau_matches_scipy():
    public, private = [1, 2, 3, 4, 5, 5], [2, 1, 6, 3, 4, 5]
    result = shakeup(list("abcdef"), public, private, largest=3)
    assert abs(result["kendall_tau"] - scipy.stats.kendalltau(public, private).statistic) <= 1e-12
    assert [(m["team"], m["move"]) for m in result["largest_moves"]] == [("c", -3), ("b", 1), ("a", -1)]  # then by private rank
    assert shakeup(["a"], [1], [1])["kendall_tau"] is None


def demo_root_file(tmp_path: Path) -> Path:
    """A file that is not a solution file."""
    path = tmp_path / "not-a-solution.parquet"
    path.write_bytes(b"PAR1 not really")
    return path


# -- whole builds -------------------------------------------------------------------------------------------------


SPEC = {"north": [("n1", 0.2, False), ("n2", 0.1, True)],
        "south": [("s1", 0.6, False), ("s2", 0.4, False), ("s3", 0.5, False)],
        "east": [("e1", 2.0, True)],
        "west": [("w1", 1.0, False), ("w2", 0.8, False)]}


def test_team_scores_equal_the_naive_reference(demo_solution, demo_root, tmp_path):
    subs = build_folder(tmp_path / "subs", demo_solution, SPEC)
    document = build_leaderboard(subs, demo_solution, tmp_path / "out", workers=1, resamples=200).document
    truth = load_solution(demo_solution)
    naive_truth = naive_scorer.load_runtimes(demo_root.path, "test")
    public = {i: bool(t.public[g]) for t in truth.collections.values() for g, i in enumerate(t.graphs.ids)}

    def board_overall(path: Path, board: str) -> float:  # SPEC §3.3 from the naive per-graph metrics
        graphs = naive_scorer.score(path, naive_truth)["graphs"]
        means = []
        for name in truth.collections:
            metric = "score" if name == "tile:xla" else "kendall_tau"
            values = [m[metric] for i, m in graphs.items() if i.startswith(name + ":")
                      and public[i] == (board == "public") and not np.isnan(m[metric])]
            means.append(sum(values) / len(values))
        return sum(means) / len(means)

    teams = {t["team"]: t for t in document["teams"]}
    # north selected n2 only; south selected nothing: its 2 best public count; east selected e1
    finals = {"north": ["n2"], "south": None, "east": ["e1"], "west": None}
    for team, subs_spec in SPEC.items():
        stems = [s[0] for s in subs_spec]
        public_scores = {s: board_overall(subs / team / f"{s}.csv", "public") for s in stems}
        private_scores = {s: board_overall(subs / team / f"{s}.csv", "private") for s in stems}
        chosen = finals[team] or sorted(stems, key=lambda s: -public_scores[s])[:2]
        assert teams[team]["overall"] == pytest.approx(max(private_scores[s] for s in chosen), abs=1e-12)
        assert teams[team]["public_overall"] == pytest.approx(max(public_scores.values()), abs=1e-12)
        assert sorted(teams[team]["final_submissions"]) == sorted(f"{team}/{s}.csv" for s in chosen)
        low, high = teams[team]["interval"]
        assert low <= teams[team]["overall"] + 1e-6 and high >= low
    assert [t["rank"] for t in document["teams"]] == [1, 2, 3, 4]
    assert document["counts"]["submissions"] == 8 == len(document["submissions"])


def test_outputs_agree_and_rebuilds_are_identical_and_cached(demo_solution, tmp_path):
    subs = build_folder(tmp_path / "subs", demo_solution, SPEC)
    out = tmp_path / "out"
    first = build_leaderboard(subs, demo_solution, out, workers=1, resamples=100)
    assert first.counts["scored"] == 8 and first.counts["cached"] == 0
    snapshot = {name: (out / name).read_bytes() for name in OUTPUTS}
    second = build_leaderboard(subs, demo_solution, out, workers=1, resamples=100)
    assert second.counts["scored"] == 0 and second.counts["cached"] == 8
    assert {name: (out / name).read_bytes() for name in OUTPUTS} == snapshot
    document = json.loads(snapshot["leaderboard.json"])
    table = list(csv.DictReader(io.StringIO(snapshot["leaderboard.csv"].decode())))
    assert [r["team"] for r in table] == [t["team"] for t in document["teams"]]
    assert [float(r["overall"]) for r in table] == [t["overall"] for t in document["teams"]]
    for team in document["teams"]:
        assert team["team"] in snapshot["leaderboard.md"].decode() and team["team"] in snapshot["leaderboard.html"].decode()
    # a changed file is scored again, the others come from the cache; the stale entry is pruned
    (subs / "east" / "e1.csv").write_bytes(rows_for(load_solution(demo_solution), 0.05, 5))
    third = build_leaderboard(subs, demo_solution, out, workers=1, resamples=100)
    assert (third.counts["scored"], third.counts["cached"], third.counts["pruned"]) == (1, 7, 1)
    assert len(list((out / ".cache").glob("*.json"))) == 8
    # a corrupt cache entry is rescored
    next((out / ".cache").glob("*.json")).write_text("{broken")
    fourth = build_leaderboard(subs, demo_solution, out, workers=1, resamples=100)
    assert (fourth.counts["scored"], fourth.counts["corrupt"]) == (1, 1)
    assert {n: (out / n).read_bytes() for n in OUTPUTS} == {n: third.files[n].encode() for n in OUTPUTS}


def test_two_workers_give_the_same_bytes_as_one(demo_solution, tmp_path, monkeypatch):
    from tpugraphs_eval.leaderboard import scorer

    spec = {f"team{k}": [(f"s{j}", 0.2 + 0.3 * k + 0.1 * j, j == 0) for j in range(2)] for k in range(5)}
    subs = build_folder(tmp_path / "subs", demo_solution, spec)
    one = build_leaderboard(subs, demo_solution, tmp_path / "one", name="x", workers=1, cache_dir=None)
    started = []
    monkeypatch.setattr(scorer, "PARALLEL_MIN_BYTES", 0)  # start workers even for these small files
    real_parallel = scorer._parallel
    monkeypatch.setattr(scorer, "_parallel", lambda *a: started.append(1) or real_parallel(*a))
    two = build_leaderboard(subs, demo_solution, tmp_path / "two", name="x", workers=2, cache_dir=None)
    assert started and one.files == two.files and two.counts["scored"] == 10


def test_interrupted_build_leaves_the_previous_leaderboard(demo_solution, tmp_path, monkeypatch):
    subs = build_folder(tmp_path / "subs", demo_solution, SPEC)
    out = tmp_path / "out"
    build_leaderboard(subs, demo_solution, out, workers=1, resamples=50)
    before = {n: (out / n).read_bytes() for n in OUTPUTS}
    (subs / "east" / "e1.csv").write_bytes(b"ID,TopConfigs\n")
    from tpugraphs_eval.leaderboard import output

    calls = []

    def interrupted(fd):
        calls.append(fd)
        if len(calls) == 3:
            raise KeyboardInterrupt
    monkeypatch.setattr(output.os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        build_leaderboard(subs, demo_solution, out, workers=1, resamples=50)
    monkeypatch.undo()
    assert {n: (out / n).read_bytes() for n in OUTPUTS} == before
    assert not [p for p in out.iterdir() if p.name.startswith(".staging-")]
    (out / ".staging-left-by-a-kill").mkdir()  # what kill -9 would leave: removed by the next build
    build_leaderboard(subs, demo_solution, out, workers=1, resamples=50)
    assert sorted(p.name for p in out.iterdir()) == sorted([".cache", *OUTPUTS])


def test_bad_submissions_are_recorded_never_fatal(demo_solution, tmp_path, capsys):
    subs = build_folder(tmp_path / "subs", demo_solution, {"good": [("g", 0.3, True)]})
    bad = subs / "bad"
    bad.mkdir()
    (bad / "garbage.csv").write_bytes(bytes(range(256)) * 20)
    (bad / "empty.csv").write_bytes(b"")
    (bad / "wrong_ids.csv").write_bytes(b"ID,TopConfigs\ntile:xla:nope,0;1;2;3;4\n")
    with open(bad / "huge.csv", "wb") as handle:  # sparse: 300 MiB that are never read
        handle.truncate(300 << 20)
    (bad / "big.csv").write_bytes(b"ID,TopConfigs\n" + b"x" * 5000)
    code = cli.main(["build", str(subs), "--solution", str(demo_solution), "-o", str(tmp_path / "out"),
                     "--workers", "1", "--resamples", "20", "--no-progress"])
    out, err = capsys.readouterr()
    assert code == 0 and "Traceback" not in err and "1 scored, 4 invalid, 1 unread" in out
    document = json.loads((tmp_path / "out" / "leaderboard.json").read_text(encoding="utf-8"))
    status = {s["id"]: (s["status"], sorted(s["problem_counts"])) for s in document["submissions"]}
    assert status["bad/huge.csv"] == ("error", ["SUBMISSION_TOO_LARGE"])
    assert status["bad/garbage.csv"][0] == "invalid" and "NOT_TEXT" in status["bad/garbage.csv"][1]
    assert status["bad/empty.csv"] == ("invalid", ["EMPTY_FILE"])
    assert status["bad/wrong_ids.csv"][0] == "invalid" and "UNKNOWN_ID" in status["bad/wrong_ids.csv"][1]
    assert status["good/g.csv"] == ("scored", [])
    assert len(document["submissions"]) == 6
    # a smaller limit, and --fail-on-invalid turns recorded problems into exit code 1
    code = cli.main(["build", str(subs), "--solution", str(demo_solution), "-o", str(tmp_path / "out2"),
                     "--workers", "1", "--resamples", "20", "--max-size", "1", "--fail-on-invalid", "-q"])
    assert code == 1 and capsys.readouterr().out == ""
    # a file that vanishes between listing and reading is recorded as unreadable
    entry = Entry("bad", "gone.csv", bad / "gone.csv")
    records, counts = score_entries([entry], load_solution(demo_solution), demo_solution, Options(), ScoreCache(None),
                                    workers=1)
    assert records[0]["status"] == "error" and records[0]["problems"][0]["code"] == "SUBMISSION_UNREADABLE"
    assert counts["unread"] == 1
    entry = Entry("bad", "big.csv", bad / "big.csv")  # a byte limit below the file's size
    records, _ = score_entries([entry], load_solution(demo_solution), demo_solution, Options(), ScoreCache(None),
                               workers=1, max_bytes=5000)
    assert records[0]["problems"][0]["code"] == "SUBMISSION_TOO_LARGE" and "5014 bytes" in records[0]["problems"][0]["message"]


def test_names_cannot_write_outside_the_output_folder(demo_solution, tmp_path):
    subs = build_folder(tmp_path / "subs", demo_solution, {"x..": [("a..", 0.3, True)],
                                                           "leaderboard.html": [("leaderboard.json", 0.5, True)],
                                                           "%2e%2e%2fevil": [("a", 0.7, False)]})
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    os.symlink(outside, subs / "link-team")
    before = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*"))
    out = tmp_path / "out"
    result = build_leaderboard(subs, demo_solution, out, workers=1, resamples=20)
    after = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if out not in p.parents and p != out)
    assert after == before  # nothing written anywhere but the output folder
    assert sorted(p.name for p in out.iterdir()) == sorted([".cache", *OUTPUTS])
    assert {t["team"] for t in result.document["teams"]} == {"x..", "leaderboard.html", "%2e%2e%2fevil"}
    assert [i["path"] for i in result.document["ignored"]] == ["link-team"]


def test_output_inside_the_submissions_folder_is_refused(demo_solution, tmp_path, capsys):
    subs = build_folder(tmp_path / "subs", demo_solution, {"a": [("s", 0.3, True)]})
    code = cli.main(["build", str(subs), "--solution", str(demo_solution), "-o", str(subs / "board")])
    assert code == 2 and "inside the submissions folder" in capsys.readouterr().err
    assert not (subs / "board").exists()


def test_untrusted_text_is_escaped_in_every_output(demo_solution, tmp_path):
    spec = {"=1+1": [("s", 0.3, True)], "<b>|x|<b> & [l](u)": [("t", 0.4, True)], "@sum": [("-u", 0.5, True)]}
    subs = build_folder(tmp_path / "subs", demo_solution, spec)
    (subs / "=1+1" / "s.json").write_text(json.dumps({"description": "<script>alert(1)</script>"}))
    files = build_leaderboard(subs, demo_solution, tmp_path / "out", workers=1, resamples=20).files
    table = list(csv.reader(io.StringIO(files["leaderboard.csv"])))
    assert {r[1] for r in table[1:]} == {"'=1+1", "<b>|x|<b> & [l](u)", "'@sum"}
    assert "'@sum/-u.csv" in {r[-1] for r in table[1:]}
    assert "<b>" not in files["leaderboard.md"] and "&lt;b&gt;\\|x\\|&lt;b&gt; &amp; \\[l\\](u)" in files["leaderboard.md"]
    page = files["leaderboard.html"]
    assert "<script>alert" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert page.count("<script>") == 1 and "<b>" not in page
    described = {s["id"]: s["description"] for s in json.loads(files["leaderboard.json"])["submissions"]}
    assert described["=1+1/s.csv"] == "<script>alert(1)</script>"  # JSON keeps the text; json.dumps escapes it


def test_public_view_holds_nothing_private(demo_solution, tmp_path):
    subs = build_folder(tmp_path / "subs", demo_solution, SPEC)
    organiser = build_leaderboard(subs, demo_solution, tmp_path / "org", workers=1, resamples=50).document
    public = build_leaderboard(subs, demo_solution, tmp_path / "pub", workers=1, resamples=50, view="public")
    assert public.document["ranked_by"] == "public" and "shakeup" not in public.document
    assert [t["overall"] for t in public.document["teams"]] == sorted(
        (t["public_overall"] for t in organiser["teams"]), reverse=True)
    private_numbers = {repr(s["private"]["overall"]) for s in organiser["submissions"]}
    for name, text in public.files.items():
        assert '"private"' not in text and not any(n in text for n in private_numbers), name


def test_cli_usage_errors_exit_2_without_traceback(demo_solution, tmp_path, capsys):
    (tmp_path / "subs").mkdir()
    subs, out = str(tmp_path / "subs"), str(tmp_path / "o")
    cases = [["build", str(tmp_path / "missing"), "--solution", str(demo_solution), "-o", out],
             ["build", subs, "--solution", str(tmp_path / "nope.parquet"), "-o", out],
             ["build", subs, "--solution", str(demo_root_file(tmp_path)), "-o", out],
             ["build", subs, "--solution", str(demo_solution), "-o", out, "--workers", "0"],
             ["frobnicate"]]
    for argv in cases:
        assert cli.main(argv) == 2
        assert "Traceback" not in capsys.readouterr().err
    assert cli.main(["codes"]) == 0 and "SUBMISSION_TOO_LARGE" in capsys.readouterr().out
