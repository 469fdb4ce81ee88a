"""The daily submission limit (``tpugraphs-leaderboard build --max-daily N``, default 5, Kaggle's rule).

Hand-worked folder: team ``busy`` makes 8 submissions that fall on the UTC day 2023-10-01 (one invalid, one
without metadata whose file time is that day, one whose ``submitted`` is 01:30 on 10-02 at +02:00, that
is 23:30 UTC on 10-01) and one on 10-02. Its valid ones in time order on 10-01 are a, c, d, e, f (the limit
of 5), then g and h: g and h are over the limit; i (10-02) is the first of its day. Which submission has
which score is read from a build without the limit (--max-daily 0), where every submission counts.
"""

from __future__ import annotations

import calendar
import json
import os

import pytest
from leaderboard_helpers import rows_for

from tpugraphs_eval.commands import leaderboard as cli
from tpugraphs_eval.leaderboard import build_leaderboard
from tpugraphs_eval.truth.solution import load_solution

BUSY = [  # (stem, sigma or None for an invalid file, submitted or None for no metadata, selected)
    ("a", 2.0, "2023-10-01T01:00:00Z", False),
    ("b", None, "2023-10-01T02:00:00Z", False),  # invalid: does not count
    ("c", 1.5, "2023-10-01T03:00:00Z", False),
    ("d", 1.8, "2023-10-01T04:00:00Z", False),
    ("e", 1.2, "2023-10-01T05:00:00Z", False),
    ("f", 1.6, None, False),  # no metadata: its file time, 2023-10-01T05:30:00Z, places it
    ("g", 0.02, "2023-10-01T06:00:00Z", False),  # the 6th valid one of the day: over
    ("h", 0.05, "2023-10-02T01:30:00+02:00", False),  # 23:30 UTC on 10-01: the 7th, over
    ("i", 1.9, "2023-10-02T00:00:00Z", False),  # the first of 10-02
]
OVER = {"busy/g.csv", "busy/h.csv"}


def _folder(root, solution, selected=()):
    truth = load_solution(solution)
    for team, rows in {"busy": BUSY, "calm": [("only", 0.8, "2023-10-01T12:00:00Z", True)]}.items():
        (root / team).mkdir(parents=True)
        for k, (stem, sigma, when, chosen) in enumerate(rows):
            path = root / team / f"{stem}.csv"
            path.write_bytes(b"ID,TopConfigs\nnope,1\n" if sigma is None else rows_for(truth, sigma, 50 + k))
            if when is None:
                stamp = calendar.timegm((2023, 10, 1, 5, 30, 0))
                os.utime(path, (stamp, stamp))
            else:
                meta = {"submitted": when, "selected": chosen or stem in selected}
                (root / team / f"{stem}.json").write_text(json.dumps(meta), encoding="utf-8")
    return root


def _by_id(document):
    return {s["id"]: s for s in document["submissions"]}


@pytest.fixture(scope="module")
def unlimited(demo_solution, tmp_path_factory):
    work = tmp_path_factory.mktemp("daily")
    subs = _folder(work / "subs", demo_solution)
    return subs, build_leaderboard(subs, demo_solution, work / "out", workers=1, resamples=20, max_daily=0).document


def test_submissions_beyond_five_a_utc_day_are_not_scored_on_the_public_board(demo_solution, tmp_path, unlimited):
    subs, free = unlimited
    public = {i: s["public"]["overall"] for i, s in _by_id(free).items() if s["public"]}
    within = {i: v for i, v in public.items() if i.startswith("busy/") and i not in OVER}
    assert max(public[i] for i in OVER) > max(within.values())  # the over-limit ones would have led
    limited = build_leaderboard(subs, demo_solution, tmp_path / "out", workers=1, resamples=20).document  # default 5
    assert limited["max_daily"] == 5 and free["max_daily"] == 0
    subs_by_id = _by_id(limited)
    noted = {i for i, s in subs_by_id.items() if any(n["code"] == "OVER_DAILY_LIMIT" for n in s["notes"])}
    assert noted == OVER
    assert not any(n["code"] == "OVER_DAILY_LIMIT" for s in free["submissions"] for n in s["notes"])
    message = next(n["message"] for n in subs_by_id["busy/h.csv"]["notes"] if n["code"] == "OVER_DAILY_LIMIT")
    assert message.startswith("busy/h.csv: valid submission 7 of busy on 2023-10-01 (UTC, by its submitted time)")
    busy = {t["team"]: t for t in limited["teams"]}["busy"]
    assert busy["public_overall"] == max(within.values())  # the best of a, c, d, e, f, i
    assert {t["team"]: t for t in free["teams"]}["busy"]["public_overall"] == max(public[i] for i in OVER | set(within))
    # none selected: the 2 best public ones within the limit are its finals; g and h have no public score
    best_two = sorted(within, key=lambda i: -within[i])[:2]
    assert sorted(busy["final_submissions"]) == sorted(best_two)
    # the public leaderboard agrees (what participants see)
    shown = build_leaderboard(subs, demo_solution, tmp_path / "public", workers=1, view="public").document
    assert {t["team"]: t["overall"] for t in shown["teams"]}["busy"] == max(within.values())


def test_a_selected_submission_over_the_limit_still_counts_for_the_private_board(demo_solution, tmp_path, unlimited):
    _, free = unlimited
    subs = _folder(tmp_path / "subs", demo_solution, selected={"g"})
    document = build_leaderboard(subs, demo_solution, tmp_path / "out", workers=1, resamples=20).document
    busy = {t["team"]: t for t in document["teams"]}["busy"]
    assert busy["final_submissions"] == ["busy/g.csv"] and busy["scored_by"] == "busy/g.csv"
    assert busy["overall"] == _by_id(free)["busy/g.csv"]["private"]["overall"]


def test_the_cli_option(demo_solution, tmp_path, capsys, unlimited):
    subs, free = unlimited
    out = tmp_path / "out"
    argv = ["build", str(subs), "--solution", str(demo_solution), "-o", str(out), "--workers", "1", "--resamples",
            "20", "--no-progress", "--max-daily", "0"]
    assert cli.main(argv) == 0
    assert json.loads((out / "leaderboard.json").read_text(encoding="utf-8"))["teams"] == free["teams"]
    assert cli.main(argv[:-1] + ["-1"]) == 2 and "--max-daily" in capsys.readouterr().err
