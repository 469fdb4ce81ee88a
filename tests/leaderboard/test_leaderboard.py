"""Building leaderboards from a folder of submissions (tpugraphs_eval.leaderboard): scores, outputs, robustness.

Where expected values come from: the naive reference scorer (tests/naive_scorer.py, no shared code)
for a team's score; the bytes of a first build for determinism. The rules on small inputs (selection,
ranking, bootstrap, shake-up) are in test_leaderboard_rules.py.
"""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

import naive_scorer
import numpy as np
import pytest
from leaderboard_helpers import OUTPUTS, build_folder, rows_for, store_sql

from tpugraphs_eval import UsageError
from tpugraphs_eval.commands import leaderboard as cli
from tpugraphs_eval.leaderboard import build_leaderboard
from tpugraphs_eval.leaderboard.folder import Entry
from tpugraphs_eval.leaderboard.scorer import score_entries
from tpugraphs_eval.leaderboard.store import Store
from tpugraphs_eval.options import Options
from tpugraphs_eval.truth.solution import load_solution


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
    # a changed file is scored again, the others come from the store; the stale record is pruned
    (subs / "east" / "e1.csv").write_bytes(rows_for(load_solution(demo_solution), 0.05, 5))
    third = build_leaderboard(subs, demo_solution, out, workers=1, resamples=100)
    assert (third.counts["scored"], third.counts["cached"], third.counts["pruned"]) == (1, 7, 1)
    assert store_sql(out / ".cache", "SELECT count(*) FROM records") == [(8,)]
    # a damaged record (one byte of its JSON changed) is rescored
    store_sql(out / ".cache", "UPDATE records SET record = replace(record, '\"n_rows\": ', '\"n_rows\": 1') "
                              "WHERE key = (SELECT min(key) FROM records)")
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
    assert not list((out / "generations").glob(".staging-*"))
    (out / "generations" / ".staging-left-by-a-kill").mkdir()  # what kill -9 would leave: removed by the next build
    build_leaderboard(subs, demo_solution, out, workers=1, resamples=50)
    assert sorted(p.name for p in out.iterdir()) == sorted([".cache", ".lock", "current", "generations", *OUTPUTS])
    assert len(list((out / "generations").iterdir())) == 2  # the new set and the one it replaced


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
    records, counts = score_entries([entry], load_solution(demo_solution), demo_solution, Options(), Store(None),
                                    workers=1)
    assert records[0].status == "error" and records[0].problems[0]["code"] == "SUBMISSION_UNREADABLE"
    assert counts["unread"] == 1
    entry = Entry("bad", "big.csv", bad / "big.csv")  # a byte limit below the file's size
    records, _ = score_entries([entry], load_solution(demo_solution), demo_solution, Options(), Store(None),
                               workers=1, max_bytes=5000)
    assert records[0].problems[0]["code"] == "SUBMISSION_TOO_LARGE" and "5014 bytes" in records[0].problems[0]["message"]


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
    assert sorted(p.name for p in out.iterdir()) == sorted([".cache", ".lock", "current", "generations", *OUTPUTS])
    teams = {t["team"]: t for t in result.document["teams"]}
    assert set(teams) == {"x..", "leaderboard.html", "%2e%2e%2fevil", "link-team"}
    assert [n["code"] for n in teams["link-team"]["notes"]] == ["TEAM_FOLDER_NOT_READ", "NO_VALID_SUBMISSION"]
    assert result.document["ignored"] == []  # the link is a team whose folder is not followed (a note on it)


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


def test_control_and_invisible_characters_are_written_as_escapes_in_the_page_and_markdown(demo_solution, tmp_path):
    """An ESC (a terminal's colour) and U+202E (right-to-left override, which reorders what follows on a page) in a
    submission's ID (in a problem's message) and in the board's name reach leaderboard.html and .md as \\x1b and
    \\u202e (display.safe, as team names and descriptions already did)."""
    hostile = "\x1b[31m\u202e"
    subs = build_folder(tmp_path / "subs", demo_solution, {"t": [("s", 0.3, True)]})
    with open(subs / "t" / "s.csv", "ab") as handle:
        handle.write(f"tile:xla:x{hostile},1;2\n".encode())
    files = build_leaderboard(subs, demo_solution, tmp_path / "out", workers=1, resamples=20,
                              name=f"board{hostile}").files
    shown = {"leaderboard.html": "\\x1b[31m\\u202e", "leaderboard.md": "\\\\x1b\\[31m\\\\u202e"}  # .md: \\ and \[ too
    for name, escaped in shown.items():
        assert "\x1b" not in files[name] and "\u202e" not in files[name], name
        assert f"tile:xla:x{escaped}" in files[name] and f"board{escaped}" in files[name], name


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
    # nothing else in the published folder either: its cache (private scores) is not kept there
    for path in (tmp_path / "pub").rglob("*"):
        if path.is_file():
            text = path.read_text(errors="replace")
            assert '"private"' not in text and not any(n in text for n in private_numbers), path
    with pytest.raises(UsageError, match="outside the output folder"):
        build_leaderboard(subs, demo_solution, tmp_path / "pub", workers=1, resamples=50, view="public",
                          cache_dir=tmp_path / "pub" / "cache")


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
