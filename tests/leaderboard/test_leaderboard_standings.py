"""The grouped standings and the vectorised bootstrap give exactly what the plain per-team scan and the
per-submission loops give (tests/naive_leaderboard.py, written from docs/leaderboard.md alone), on random
folders and random scores (0.0 and -0.0 among them), with and without a daily limit."""

from __future__ import annotations

from pathlib import Path

import naive_leaderboard as naive
import numpy as np
import pytest
from leaderboard_helpers import plain_standings, plain_submissions

from tpugraphs_eval.leaderboard.folder import Entry
from tpugraphs_eval.leaderboard.record import BoardScores, Record
from tpugraphs_eval.leaderboard.standings import competition_ranks, over_daily_limit, standings, submissions_by_team
from tpugraphs_eval.leaderboard.uncertainty import (
    best_of_teams,
    ranks_per_resample,
    resampled_overall,
    resampled_overalls,
    uncertainty,
)
from tpugraphs_eval.scoring.bootstrap import draw_positions


def _random_folder(seed: int, n_teams: int, n_entries: int):
    """Entries in random order (teams interleaved, some unknown times, equal times, selections, modification
    times on other days), their records (scored with repeated scores, 0.0, -0.0 and negative ones, undefined ones,
    invalid, unread), and the team list (some without entries, some entries of teams not in the list)."""
    rng = np.random.default_rng(seed)
    teams = [f"team{k:03d}" for k in range(n_teams)]
    entries, records = [], []
    for k in range(n_entries):
        team = teams[int(rng.integers(0, n_teams))] if rng.random() > 0.02 else "not-listed"
        day, hour = 1 + int(rng.integers(0, 9)), int(rng.integers(0, 3))  # few distinct times: equal times occur
        when = None if rng.random() < 0.1 else f"2023-10-{day:02d}T{hour:02d}:00:00Z"
        modified = f"2023-10-{1 + int(rng.integers(0, 4)):02d}T{int(rng.integers(0, 24)):02d}:30:00.250000Z"
        entries.append(Entry(team, f"s{k:04d}.csv", Path("x"), when, selected=bool(rng.random() < 0.3),
                             modified=None if rng.random() < 0.02 else modified))
        status = rng.choice(["scored"] * 8 + ["invalid", "error"])
        if status == "scored":
            def value():
                if rng.random() < 0.05:
                    return None
                if rng.random() < 0.25:
                    return float(rng.choice([0.0, -0.0]))
                return float(rng.choice([0.1, 0.2, 0.3, 0.4, -1 / 3, -2 / 3]) + rng.integers(-1, 1))
            records.append(Record("scored", boards={"public": BoardScores(value()), "private": BoardScores(value())}))
        else:
            records.append(Record(str(status)))
    order = rng.permutation(n_entries)
    return teams + ["team-empty"], [entries[i] for i in order], [records[i] for i in order]


@pytest.mark.parametrize("max_daily", [0, 1, 2])
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("board", ["public", "private"])
def test_grouped_standings_equal_the_per_team_scan(seed, board, max_daily):
    teams, entries, records = _random_folder(seed, n_teams=5 + 7 * seed, n_entries=40 + 60 * seed)
    got = standings(teams, entries, records, board, max_daily)
    expected = naive.standings(teams, plain_submissions(entries, records), board, max_daily)
    assert plain_standings(got, entries) == expected  # every field of every team, in display order
    assert sum(s.rank is not None for s in got) >= 3 and any(s.notes for s in got)  # the data exercises the rules
    if board == "private":  # a 0.0 or -0.0 public overall taken among a team's 2 best public ones (no selection)
        assert any(records[i].overall("public") == 0.0 and not entries[i].selected for s in got for i in s.finals)
    over = over_daily_limit(entries, records, max_daily)
    assert {entries[i].id for i in over} == naive.over_daily_limit(plain_submissions(entries, records), max_daily)
    assert bool(over) == (max_daily > 0)  # the limit bites when there is one


def test_submissions_by_team_by_hand():
    E = Entry
    entries = [E("b", "1.csv", Path("x"), "2023-01-02T00:00:00Z"), E("a", "2.csv", Path("x"), None),
               E("a", "3.csv", Path("x"), "2023-01-03T00:00:00Z"), E("z", "4.csv", Path("x")),
               E("a", "1.csv", Path("x"), None)]
    # unknown times after known ones, then by file name; team z is not listed; team c has none
    assert submissions_by_team(["a", "b", "c"], entries) == {"a": [2, 4, 1], "b": [0], "c": []}


def test_competition_ranks_by_hand():
    assert competition_ranks([0.9, 0.8, 0.8, 0.5, 0.5, 0.5, 0.1]) == [1, 2, 2, 4, 4, 4, 7]
    assert competition_ranks([]) == []


def _per_graph(rng, n: int, counts: dict[str, int]) -> dict[str, np.ndarray]:
    """(n, G) values per collection: some rows with undefined graphs, one row all undefined in a collection,
    and row 1 a copy of row 0 (identical submissions)."""
    out = {}
    for name, g in counts.items():
        values = rng.normal(0.5, 0.3, size=(n, g))
        values[rng.random((n, g)) < 0.05] = np.nan
        values[2] = np.nan
        values[1] = values[0]
        out[name] = values
    return out


def test_vectorised_bootstrap_gives_the_same_bytes_as_the_loops(monkeypatch):
    rng = np.random.default_rng(3)
    counts = {"tile:xla": 37, "layout:xla:default": 5, "layout:nlp:random": 9}
    draws = draw_positions(counts, 300, seed=4)
    per_graph = _per_graph(rng, 11, counts)
    rows = [{name: v[s] for name, v in per_graph.items()} for s in range(11)]
    loops = np.array([naive.resampled_overall(row, draws) for row in rows])
    monkeypatch.setattr("tpugraphs_eval.leaderboard.uncertainty.CHUNK_VALUES", 3 * 300 * 37)  # chunks of 3 rows
    for got in (resampled_overalls(per_graph, draws), np.array([resampled_overall(row, draws) for row in rows])):
        assert got.tobytes() == loops.tobytes()
    owner = np.array([0, 3, 1, 1, 1, 2, 4, 4, 5, 5, 6])  # team 7 owns none
    finals = [[rows[s] for s in np.flatnonzero(owner == t)] for t in range(8)]
    got = best_of_teams(resampled_overalls(per_graph, draws), owner, 8)
    assert got.tobytes() == naive.team_samples(finals, draws, 300).tobytes()
    assert np.isnan(got[7]).all() and np.array_equal(got[0], got[3])  # identical submissions: identical samples


def test_vectorised_ranks_and_ties_equal_the_loops():
    rng = np.random.default_rng(5)
    scores = rng.choice([0.1, 0.2, 0.3, 0.35, np.nan], size=(40, 250))  # many equal scores and NaN
    scores[7] = scores[3]  # a team identical to another
    scores[9] = np.nan
    assert np.array_equal(ranks_per_resample(scores), naive.ranks_per_resample(scores))
    continuous = rng.normal(size=(30, 200))
    assert np.array_equal(ranks_per_resample(continuous), naive.ranks_per_resample(continuous))
    ranks = [2, 1] + list(range(3, 31))
    assert uncertainty(continuous + 0.0, ranks).tied_with_leader == naive.tied_with_leader(continuous, ranks)
    ranks = [1] * 3 + list(range(4, 41))
    assert uncertainty(scores, ranks).tied_with_leader == naive.tied_with_leader(scores, ranks)
