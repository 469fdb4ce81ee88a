"""``tpugraphs-leaderboard build --public-only``: only what Kaggle's public leaderboard shows.

Every output file is scanned: no graph ID or name, no private or per-graph value, no file name,
description, selection or problem of any team; the fields present are exactly the documented ones
(assemble.PUBLIC_FIELDS, PUBLIC_TEAM_FIELDS). Where expected values come from: each submission scored
alone by ``record_of`` (its public/private/per-graph values) and the organiser build of the same folder
(each team's best public overall), and the metadata written here (entries, last submission time).
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from leaderboard_helpers import OUTPUTS, build_folder
from public_scan import graph_names, numbers, scored_values

from tpugraphs_eval.commands import leaderboard as cli
from tpugraphs_eval.leaderboard import build_leaderboard
from tpugraphs_eval.leaderboard.assemble import PUBLIC_FIELDS, PUBLIC_TEAM_FIELDS
from tpugraphs_eval.rules.public_rule import MIN_PUBLIC_GRAPHS
from tpugraphs_eval.truth.solution import build_solution, load_solution

SPEC = {"north": [("n1", 0.2, False), ("n2", 0.1, True, 4)],
        "south": [("s1", 0.6, False), ("s2", 0.4, True)],
        "east": [("e1", 2.0, True)]}
SECRETS = ("secret-description-31337", "hidden-plan-file", "UNKNOWN_ID", "MISSING_IDS", "METADATA_INVALID",
           "NO_VALID_SUBMISSION", "IGNORED_ENTRY", "stray-top-level", "selected", "final", "interval", "private",
           "ground_truth", "Description", "Problems")
"""Text that only the organiser view may hold: a description, file names, codes, private words."""
def _folder(root: Path, solution: Path) -> Path:
    """SPEC plus: a described submission, an invalid file naming a graph, a team with no valid submission,
    bad metadata and a stray top-level file."""
    subs = build_folder(root, solution, SPEC)
    (subs / "north" / "n1.json").write_text(json.dumps({"submitted": "2023-10-01T09:00:00Z", "selected": False,
                                                        "description": SECRETS[0]}))
    graph = load_solution(solution).collections["tile:xla"].graphs.ids[0]
    (subs / "south" / "hidden-plan-file.csv").write_text(f"ID,TopConfigs\n{graph},0;1;2;3;4\n")
    (subs / "south" / "hidden-plan-file.json").write_text('{"submitted": "2023-10-09T10:00:00Z", "x": 1}')
    (subs / "west").mkdir()
    (subs / "west" / "w.csv").write_text("ID,TopConfigs\n")
    (subs / "stray-top-level.txt").write_text("x")
    return subs


@pytest.mark.parametrize("fraction", [None, 0.7], ids=["demo-split", "two-public-graphs-each"])
def test_public_outputs_hold_only_the_public_board(demo_root, demo_solution, tmp_path, capsys, fraction):
    solution = demo_solution
    if fraction is not None:  # 3 layout graphs each: 2 public, so every collection is shown
        solution = tmp_path / "solution.parquet"
        build_solution(demo_root, "test", solution, public_fraction=fraction)
    truth = load_solution(solution)
    subs = _folder(tmp_path / "subs", solution)
    out = tmp_path / "public"
    assert cli.main(["build", str(subs), "--solution", str(solution), "-o", str(out), "--public-only",
                     "--workers", "1", "--resamples", "30", "--no-progress"]) == 0
    capsys.readouterr()
    # no cache, nothing else: one generation folder behind `current`, the four links, the build lock
    generations = list((out / "generations").iterdir())
    assert len(generations) == 1 and sorted(p.name for p in generations[0].iterdir()) == sorted(OUTPUTS)
    assert sorted(p.name for p in out.iterdir()) == sorted([".lock", "current", "generations", *OUTPUTS])
    assert all((out / name).is_symlink() for name in ["current", *OUTPUTS])
    files = {name: (out / name).read_text(encoding="utf-8") for name in OUTPUTS}

    # the fields are exactly the documented ones
    document = json.loads(files["leaderboard.json"])
    assert set(document) == set(PUBLIC_FIELDS) and set(document["solution"]) == {"split", "synthetic"}
    shown = [n for n, t in truth.collections.items() if int(t.public.sum()) >= MIN_PUBLIC_GRAPHS]
    assert document["collections"] == shown == (["tile:xla"] if fraction is None else list(truth.collections))
    organiser = build_leaderboard(subs, solution, tmp_path / "org", workers=1, resamples=30).document
    best = sorted(((t["public_overall"], t["team"]) for t in organiser["teams"] if t["public_rank"]), reverse=True)
    assert [(t["overall"], t["team"]) for t in document["teams"]] == best  # west (no valid submission) not listed
    assert [t["rank"] for t in document["teams"]] == [1, 2, 3]
    private, per_graph, public = scored_values(sorted(subs.glob("*/*.csv")), solution)
    for team in document["teams"]:
        assert set(team) == set(PUBLIC_TEAM_FIELDS) and sorted(team["collections"]) == sorted(shown)
        chosen = [b for sub, b in public.items() if sub.parent.name == team["team"] and b["overall"] == team["overall"]]
        assert team["collections"] == {n: chosen[0]["collections"][n] for n in shown}
    assert {t["team"]: (t["entries"], t["last_submission"]) for t in document["teams"]} == {
        "north": (2, "2023-10-05T09:00:00Z"), "south": (3, "2023-10-09T10:00:00Z"), "east": (1, "2023-10-01T09:00:00Z")}
    table = list(csv.reader(io.StringIO(files["leaderboard.csv"])))
    assert table[0] == ["rank", "team", "overall", *shown, "entries", "last_submission"]
    assert [[float(c) for c in row[2:3 + len(shown)]] for row in table[1:]] == [
        [t["overall"], *(t["collections"][n] for n in shown)] for t in document["teams"]]

    # nothing else anywhere: no graph, no private or per-graph number, no organiser-only text
    allowed = {f"{v:.{d}f}" for t in document["teams"] for v in (t["overall"], *t["collections"].values())
               if v is not None for d in (4, 5)} | {repr(v) for t in document["teams"]
                                                    for v in (t["overall"], *t["collections"].values())}
    graphs = graph_names(solution)
    hidden = {repr(v) for v in private | per_graph} - allowed
    assert hidden and graphs
    for name, text in files.items():
        assert not [g for g in graphs if g in text], name
        assert not [s for s in SECRETS if s in text], name
        body = re.sub(r"<(style|script)>.*?</\1>", "", text, flags=re.DOTALL)  # CSS and JS hold no data
        assert not numbers(body) & hidden, name
        assert numbers(body) <= allowed, (name, numbers(body) - allowed)
    for team in document["teams"]:
        assert all(team["team"] in text for text in files.values())


def test_a_public_build_refuses_a_folder_holding_an_organiser_cache(demo_solution, tmp_path, capsys):
    """An organiser build into OUT leaves OUT/.cache (private scores); a later --public-only build into the same
    folder would publish it: the build stops with exit 2 before writing anything."""
    subs = _folder(tmp_path / "subs", demo_solution)
    out = tmp_path / "board"
    common = ["--solution", str(demo_solution), "-o", str(out), "--workers", "1", "--resamples", "30", "--no-progress"]
    assert cli.main(["build", str(subs), *common]) == 0
    assert (out / ".cache").is_dir()
    before = (out / "leaderboard.json").read_bytes()
    capsys.readouterr()
    assert cli.main(["build", str(subs), *common, "--public-only"]) == 2
    err = capsys.readouterr().err
    assert ".cache" in err and "Traceback" not in err
    assert (out / "leaderboard.json").read_bytes() == before


def test_a_graph_with_equal_runtimes_does_not_count_toward_showing_a_collection(demo_root, tmp_path):
    """layout:xla:default with 2 public graphs, one of them with every runtime equal (tau-b undefined whatever
    the submission): its value is the other graph's tau, so it is not shown, and as the left-out collections
    then hold that one graph, no collection is (public_rule); the teams are still ranked by the overall."""
    import shutil

    import numpy as np

    from tpugraphs_eval import resolve_data_root
    from tpugraphs_eval.leaderboard.assemble import defined_public_graphs

    root = tmp_path / "root"
    shutil.copytree(demo_root.path, root)
    folder = root / "npz" / "layout" / "xla" / "default" / "test"
    constant = sorted(folder.iterdir())[0]
    arrays = dict(np.load(constant))
    arrays["config_runtime"] = np.full_like(arrays["config_runtime"], 5_000_000)
    np.savez(constant, **arrays)
    plain = tmp_path / "plain.parquet"
    build_solution(resolve_data_root(str(root)), "test", plain)
    xla_default = list(load_solution(plain).collections["layout:xla:default"].graphs.ids)
    flat = next(i for i in xla_default if i.endswith(constant.stem))
    public = {flat, next(i for i in xla_default if i != flat)}
    ids = [i for c in load_solution(plain).collections.values() for i in c.graphs.ids]
    usage = tmp_path / "usage.csv"
    usage.write_text("ID,Usage\n" + "".join(
        f"{i},{'Public' if i in public or not i.startswith('layout:xla:default') else 'Private'}\n" for i in ids))
    solution = tmp_path / "solution.parquet"
    build_solution(resolve_data_root(str(root)), "test", solution, usage_file=usage)
    truth = load_solution(solution)
    counts = defined_public_graphs(truth)
    assert counts["layout:xla:default"] == 1 and counts["tile:xla"] == truth.collections["tile:xla"].public.sum()

    subs = build_folder(tmp_path / "subs", solution, {"north": [("a", 0.3, True)], "south": [("b", 1.0, True)]})
    out = tmp_path / "public"
    assert cli.main(["build", str(subs), "--solution", str(solution), "-o", str(out), "--public-only",
                     "--workers", "1", "--resamples", "30", "--no-progress"]) == 0
    document = json.loads((out / "leaderboard.json").read_text())
    assert document["collections"] == []
    assert [t["rank"] for t in document["teams"]] == [1, 2] and all(t["collections"] == {} for t in document["teams"])


def test_a_public_team_row_holds_only_the_public_fields():
    """The public document's teams are PublicTeam rows: no field for anything else, one number per value."""
    import dataclasses

    import numpy as np

    from tpugraphs_eval.leaderboard.public_team import PublicTeam

    team = PublicTeam(1, "north", 0.25, {"tile:xla": 0.5, "layout:xla:default": None}, 2, None)
    assert tuple(team.to_dict()) == PUBLIC_TEAM_FIELDS
    assert [f.name for f in dataclasses.fields(PublicTeam)] == list(PUBLIC_TEAM_FIELDS)
    with pytest.raises(TypeError, match="one number"):
        PublicTeam(1, "north", 0.25, {"tile:xla": np.array([0.5, 0.7])}, 2, None)
    with pytest.raises(ValueError, match="not a collection"):
        PublicTeam(1, "north", 0.25, {"tile:xla:some_graph": 0.5}, 2, None)
    with pytest.raises((AttributeError, TypeError)):
        team.interval = [0.1, 0.3]
