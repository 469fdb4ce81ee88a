"""OPA (ordered pair accuracy) on the organiser leaderboard: each layout collection's mean OPA of a team's scored
submission beside its tau-b, in leaderboard.json, .csv, .md and .html; not used for ranking; not in the public view.

Expected values are independent of the evaluator: each private layout graph's OPA is counted by a double loop over
its pairs of configs (tests/brute_force_pairs.py) from the submission's CSV bytes (a config's predicted rank is its
position in the listed ranking) and the solution's runtimes, then averaged over the graphs where it is defined.
"""

from __future__ import annotations

import csv
import io
import json
import math

import numpy as np
import pytest
from brute_force_pairs import brute_force_opa
from leaderboard_helpers import build_folder

from tpugraphs_eval.leaderboard import build_leaderboard
from tpugraphs_eval.truth.solution import load_solution

SPEC = {"north": [("n1", 0.3, True)], "south": [("s1", 1.5, True)]}
LAYOUT = ("layout:xla:default", "layout:xla:random", "layout:nlp:default", "layout:nlp:random")


def _brute_force_private_opa(submission: bytes, truth) -> dict[str, float]:
    """Collection → mean over its private graphs of the brute-force OPA (NaN graphs left out)."""
    rankings = {}
    for line in submission.decode().splitlines()[1:]:
        graph_id, configs = line.split(",")
        rankings[graph_id] = [int(c) for c in configs.split(";")]
    out = {}
    for name, t in truth.collections.items():
        if t.graphs.collection.kind != "layout":
            continue
        values = []
        for graph_id, y, public in zip(t.graphs.ids, t.runtimes, t.public):
            if public:
                continue
            position = np.empty(y.size, dtype=np.int64)
            position[rankings[graph_id]] = np.arange(y.size)
            values.append(brute_force_opa(position.tolist(), y.tolist()))
        defined = [v for v in values if not math.isnan(v)]
        out[name] = sum(defined) / len(defined)
    return out


@pytest.fixture(scope="module")
def built(demo_solution, tmp_path_factory):
    root = tmp_path_factory.mktemp("opa")
    subs = build_folder(root / "subs", demo_solution, SPEC)
    result = build_leaderboard(subs, demo_solution, root / "out", workers=1, resamples=20)
    truth = load_solution(demo_solution)
    expected = {team: _brute_force_private_opa((subs / team / f"{stem}.csv").read_bytes(), truth)
                for team, [(stem, *_)] in SPEC.items()}
    return root, result, expected


def test_each_layout_collection_has_the_brute_force_mean_opa_beside_its_tau(built):
    _, result, expected = built
    teams = {t["team"]: t for t in result.document["teams"]}
    for team, opa in expected.items():
        assert set(teams[team]["secondary"]) == set(LAYOUT)  # layout collections only: tile has no OPA
        for name in LAYOUT:
            assert teams[team]["secondary"][name]["opa"] == pytest.approx(opa[name], abs=1e-12)
    assert expected["north"]["layout:xla:default"] > expected["south"]["layout:xla:default"]  # the noisier is worse


def test_opa_is_in_the_csv_markdown_and_html_beside_each_layout_tau(built):
    _, result, expected = built
    rows = list(csv.DictReader(io.StringIO(result.files["leaderboard.csv"])))
    header = list(rows[0])
    for name in LAYOUT:
        assert header.index(f"{name} opa") == header.index(name) + 1
    for row in rows:
        for name in LAYOUT:
            assert float(row[f"{name} opa"]) == pytest.approx(expected[row["team"]][name], abs=1e-12)
    assert "tile:xla opa" not in header
    assert "| layout:xla:default | layout:xla:default OPA | layout:xla:random |" in result.files["leaderboard.md"]
    page = result.files["leaderboard.html"]
    assert page.count('<button type="button">OPA</button>') == len(LAYOUT)  # headed OPA, the collection in its title
    for name in LAYOUT:
        header = name.replace(":", ":<wbr>")
        assert (f'{header}</button></th><th scope="col" data-type="number" class=wide title="{name} OPA"><button '
                'type="button">OPA</button></th>') in page
    for team, opa in expected.items():  # 3 decimals, in the team's row (and its details row below 1100 px)
        assert f"layout:xla:default OPA {opa['layout:xla:default']:.3f}" in page


def test_opa_does_not_rank(built, demo_solution):
    """The ranks follow the private overall (tau-b and tile score), whatever the OPA."""
    _, result, _ = built
    ranked = sorted(result.document["teams"], key=lambda t: -t["overall"])
    assert [t["rank"] for t in ranked] == [1, 2]
    assert all(set(t["collections"]) == {"tile:xla", *LAYOUT} for t in result.document["teams"])


def test_the_public_view_has_no_opa(built, demo_solution):
    root, _, _ = built
    public = build_leaderboard(root / "subs", demo_solution, root / "public", view="public", workers=1)
    assert "opa" not in json.dumps(public.document).lower()
    assert all("secondary" not in t for t in public.document["teams"])
    assert "opa" not in "".join(public.files.values()).lower()


def test_a_stored_record_keeps_the_opa(built, demo_solution):
    root, first, _ = built
    again = build_leaderboard(root / "subs", demo_solution, root / "out", workers=1, resamples=20)
    assert again.counts["cached"] == 2 and again.files == first.files
