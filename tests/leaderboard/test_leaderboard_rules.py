"""Leaderboard rules on small inputs: the folder layout, selection and ranking, bootstrap intervals, shake-up.

Expected values are worked by hand in the tests or computed with plain loops and scipy on the same inputs.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
import scipy.stats
from leaderboard_helpers import rows_for

from tpugraphs_eval.leaderboard import read_folder
from tpugraphs_eval.leaderboard.folder import Entry, parse_time
from tpugraphs_eval.leaderboard.record import BoardScores, Record
from tpugraphs_eval.leaderboard.scorer import score_entries
from tpugraphs_eval.leaderboard.standings import standings
from tpugraphs_eval.leaderboard.store import Store
from tpugraphs_eval.leaderboard.uncertainty import (
    ranks_per_resample,
    resampled_overall,
    shakeup,
    uncertainty,
)
from tpugraphs_eval.options import Options
from tpugraphs_eval.scoring.bootstrap import draw_positions
from tpugraphs_eval.truth.solution import load_solution

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
    assert folder.teams == ["alpha", "beta", "linked-team"]  # a link for a team folder: listed, not followed
    assert [n["code"] for n in folder.team_notes["linked-team"]] == ["TEAM_FOLDER_NOT_READ"]
    assert [e.id for e in folder.entries] == ["alpha/B.CSV", "alpha/a.csv", "beta/c.csv", "beta/link.csv"]
    b, a, c, link = folder.entries  # the link is a submission, refused by the scorer's read (reading.py)
    assert link.notes == [] and link.path == root / "beta" / "link.csv"
    assert a.submitted == "2023-11-17T12:00:00Z" and a.selected and a.description == "first\\x1b[2J"
    assert b.submitted == "2023-11-18T08:30:00Z" and not b.selected  # no zone: UTC; "yes" is not a boolean
    assert sorted(n["code"] for n in b.notes) == ["METADATA_INVALID", "METADATA_INVALID"]
    assert c.submitted is None and [n["code"] for n in c.notes] == ["METADATA_INVALID"]
    ignored = {i["path"]: i["message"] for i in folder.ignored}
    assert set(ignored) == {".git", "loose.csv", "alpha/.DS_Store", "alpha/nested", "alpha/notes.txt",
                            "alpha/orphan.json"}
    assert all(i["code"] == "IGNORED_ENTRY" for i in folder.ignored)
    assert "metadata without a submission" in ignored["alpha/orphan.json"]
    assert "not a submission file (a name ending in .csv, .gz or .zip)" in ignored["alpha/notes.txt"]


def test_parse_time():
    assert parse_time("2023-11-17T12:00:00Z") == "2023-11-17T12:00:00Z"
    assert parse_time("2023-11-17T12:00:00.250-01:00") == "2023-11-17T13:00:00.250000Z"
    for bad in ("yesterday", 20231117, None):
        with pytest.raises(ValueError):
            parse_time(bad)


# -- selection and ranking rules (hand-worked records) -----------------------------------------------------------


def _scored(public: float, private: float) -> Record:
    return Record("scored", boards={"public": BoardScores(public), "private": BoardScores(private)})


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
               Record("invalid"), _scored(0.2, 0.4)]
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


@pytest.mark.parametrize("zero", [0.0, -0.0], ids=["zero", "minus-zero"])
def test_a_public_overall_of_zero_is_a_score_when_the_two_best_public_become_finals(zero):
    # no selection: the finals are the 2 best public overalls, 0.0 and -1/3 (by hand), not -1/3 and -2/3
    # (a 0.0 read as "no score" sorted last); the private score is then 0.9, the 0.0 one's
    E = Entry
    entries = [E("t", "zero.csv", Path("x"), "2023-01-01T00:00:00Z"), E("t", "third.csv", Path("x"), "2023-01-02T00:00:00Z"),
               E("t", "two-thirds.csv", Path("x"), "2023-01-03T00:00:00Z")]
    records = [_scored(zero, 0.9), _scored(-1 / 3, 0.2), _scored(-2 / 3, 0.1)]
    private = standings(["t"], entries, records, "private")[0]
    assert (private.finals, private.chosen, private.score) == ([0, 1], 0, 0.9)
    public = standings(["t"], entries, records, "public")[0]
    assert (public.chosen, public.score) == (0, 0.0)


# -- uncertainty (independent loops over the same draws) ----------------------------------------------------------


def test_resampled_overall_matches_a_plain_loop():
    rng = np.random.default_rng(7)
    per_graph = {"tile:xla": rng.normal(0.8, 0.1, 12), "layout:xla:default": rng.normal(0.2, 0.3, 4),
                 "layout:nlp:random": np.array([0.5, np.nan, 0.1])}
    counts = {name: v.size for name, v in per_graph.items()}
    got = resampled_overall(per_graph, draw_positions(counts, 200, seed=11))
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
    records, _ = score_entries(entries, truth, demo_solution, Options(), Store(None), workers=1)
    per_graph = {n: records[0].per_graph_values("private", n) for n in records[0].per_graph["private"]}
    identity = {n: np.arange(v.size)[None, :] for n, v in per_graph.items()}
    assert abs(resampled_overall(per_graph, identity)[0] - records[0].overall("private")) <= 1e-12


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
