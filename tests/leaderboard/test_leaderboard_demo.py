"""The committed demo leaderboard (leaderboards/demo/) is what `tpugraphs-leaderboard demo` builds, byte for byte.

If this fails after an intended change (evaluator version, scoring, rendering, the demo teams), rebuild
it with ``tpugraphs-leaderboard demo -o leaderboards/demo`` and commit the four files. Expected
features are the ones the demo teams were made to show (tpugraphs_eval.leaderboard.demo).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tpugraphs_eval.leaderboard.demo import build_demo

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "leaderboards" / "demo"
OUTPUTS = ("leaderboard.csv", "leaderboard.md", "leaderboard.json", "leaderboard.html")


@pytest.fixture(scope="module")
def rebuilt(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo-rebuild") / "demo"
    return out, build_demo(out, workers=2)


def test_demo_rebuild_is_byte_identical(rebuilt):
    out, _ = rebuilt
    for name in OUTPUTS:
        assert (out / name).read_bytes() == (DEMO / name).read_bytes(), (
            f"leaderboards/demo/{name} differs from a rebuild: run `tpugraphs-leaderboard demo -o leaderboards/demo`")


def test_demo_folder_holds_one_generation_behind_current(rebuilt):
    out, _ = rebuilt  # the committed layout (docs/leaderboard.md, "Outputs"): one set, reached by links
    assert os.readlink(DEMO / "current") == os.readlink(out / "current")
    assert sorted(os.listdir(DEMO / "generations")) == sorted(os.listdir(out / "generations")) == [
        os.readlink(out / "current").removeprefix("generations/")]
    assert {name: os.readlink(DEMO / name) for name in OUTPUTS} == {name: f"current/{name}" for name in OUTPUTS}


def test_demo_shows_the_rules(rebuilt):
    _, result = rebuilt
    document = result.document
    teams = {t["team"]: t for t in document["teams"]}
    assert document["solution"]["synthetic"] and document["counts"]["submissions"] == 25
    # an identical later copy ties and is shown after the original
    assert teams["aurora"]["rank"] == teams["fog-twin"]["rank"] == 1
    assert [t["team"] for t in document["teams"][:2]] == ["aurora", "fog-twin"]
    assert teams["fog-twin"]["tied_with_leader"]
    # tuned on the public graphs: first in public, last in private; the largest move of the shake-up
    assert teams["gale-overfit"]["public_rank"] == 1 and teams["gale-overfit"]["rank"] >= 8
    assert document["shakeup"]["largest_moves"][0]["team"] == "gale-overfit"
    assert {t: teams[t]["rank"] for t in ("chaos", "team-empty", "sample-kaggle-shape")} == dict.fromkeys(
        ("chaos", "team-empty", "sample-kaggle-shape"))
    notes = {n["code"] for t in document["teams"] for n in t["notes"]}
    assert {"TOO_MANY_SELECTED", "SELECTED_INVALID", "NO_VALID_SUBMISSION"} <= notes
    assert [i["path"] for i in document["ignored"]] == ["README.txt", "chaos/notes.txt"]
    # graded quality: the noisier the ranking, the lower the private score
    order = ["aurora", "borealis", "cirrus", "drizzle", "eclipse"]
    assert [teams[t]["rank"] for t in order] == sorted(teams[t]["rank"] for t in order)
    assert json.loads((DEMO / "leaderboard.json").read_text(encoding="utf-8")) == document
