"""One team cannot stop a build: each kind of faulty metadata is a note on that submission, and team names
that look the same after Unicode normalisation and case folding are one team.

Each case runs the CLI on a folder with a good team plus the faulty one, and checks exit code 0, no
traceback, the good team ranked, and the coded note. The old code raised RecursionError (nested JSON)
and OverflowError (a date before year 1 in UTC), and read a metadata file with a BOM as broken.
"""

from __future__ import annotations

import json
import unicodedata

import pytest
from leaderboard_helpers import build_folder

from tpugraphs_eval.commands import leaderboard as cli
from tpugraphs_eval.leaderboard.folder import parse_time, read_folder, team_key

GOOD = {"good": [("g", 0.3, True)], "other": [("o", 0.5, False)]}


def run_build(subs, solution, out, capsys) -> dict:
    code = cli.main(["build", str(subs), "--solution", str(solution), "-o", str(out), "--workers", "1",
                     "--resamples", "20", "--no-progress", "-q", "--no-cache"])
    captured = capsys.readouterr()
    assert code == 0 and "Traceback" not in captured.err, captured.err
    document = json.loads((out / "leaderboard.json").read_text(encoding="utf-8"))
    assert next(t for t in document["teams"] if t["team"] == "good")["rank"] is not None
    return document


def notes_of(document: dict, sub_id: str) -> list[str]:
    return [n["message"] for s in document["submissions"] if s["id"] == sub_id for n in s["notes"]
            if n["code"] == "METADATA_INVALID"]


@pytest.mark.parametrize("content, expected", [
    (b"[" * 30000 + b"]" * 30000, "nested too deeply"),  # under the 64 KiB metadata cap
    (b'{"a":' * 6000 + b"1" + b"}" * 6000, "nested too deeply"),
    (b'{"description": ' + b"[" * 8 + b"1" + b"]" * 8 + b"}", "nested too deeply"),  # depth 9: any Python parses it
    (b'{"submitted": "0001-01-01T00:00:00+01:00"}', "out of range in UTC"),
    (b'{"submitted": "9999-12-31T23:30:00-01:00"}', "out of range in UTC"),
    (b'{"submitted": "2023-02-30T00:00:00Z"}', "day is out of range"),
    (b'{"description": "caf\xe9"}', "not UTF-8 (byte 20)"),
    (b'\xef\xbb\xbf\xef\xbb\xbf{"selected": true}', "not JSON"),  # one BOM is read, a second is not
], ids=["nested-list", "nested-object", "nested-nine-levels", "before-year-1", "after-year-9999", "no-such-day", "latin-1", "two-boms"])
def test_faulty_metadata_is_a_note_and_the_build_goes_on(content, expected, demo_solution, tmp_path, capsys):
    subs = build_folder(tmp_path / "subs", demo_solution, GOOD)
    (subs / "other" / "o.json").write_bytes(content)
    document = run_build(subs, demo_solution, tmp_path / "out", capsys)
    messages = notes_of(document, "other/o.csv")
    assert len(messages) == 1 and expected in messages[0], messages
    other = next(s for s in document["submissions"] if s["id"] == "other/o.csv")
    assert other["status"] == "scored" and other["submitted"] is None and other["selected"] is False


def test_metadata_with_a_utf8_bom_is_read(demo_solution, tmp_path, capsys):
    subs = build_folder(tmp_path / "subs", demo_solution, GOOD)
    meta = {"submitted": "2023-10-05T10:00:00+02:00", "description": "café", "selected": True}
    (subs / "other" / "o.json").write_bytes(b"\xef\xbb\xbf" + json.dumps(meta, ensure_ascii=False).encode())
    document = run_build(subs, demo_solution, tmp_path / "out", capsys)
    other = next(s for s in document["submissions"] if s["id"] == "other/o.csv")
    assert other["notes"] == []
    assert (other["submitted"], other["description"], other["selected"]) == ("2023-10-05T08:00:00Z", "café", True)


def test_parse_time_raises_value_error_only():
    assert parse_time("0001-01-01T00:00:00-01:00") == "0001-01-01T01:00:00Z"
    for bad in ("0001-01-01T00:00:00+00:01", "9999-12-31T23:59:59-00:01", "", "2023-13-01", 20231005):
        with pytest.raises(ValueError):
            parse_time(bad)


def test_team_names_equal_after_nfc_and_casefold_are_one_team(demo_solution, tmp_path, capsys):
    nfc, nfd, upper = "Café", unicodedata.normalize("NFD", "Café"), "CAFÉ"
    assert len({nfc, nfd, upper}) == 3 and len({team_key(n) for n in (nfc, nfd, upper)}) == 1
    subs = build_folder(tmp_path / "subs", demo_solution, {**GOOD, nfc: [("a", 0.4, False)],
                                                           nfd: [("a", 0.2, False)], upper: [("b", 2.0, False)]})
    found = read_folder(subs)
    shown = sorted((nfc, nfd, upper), key=lambda n: n.encode())[0]  # the first folder in byte order
    assert found.teams.count(shown) == 1 and len(found.teams) == 3
    document = run_build(subs, demo_solution, tmp_path / "out", capsys)
    cafe = [t for t in document["teams"] if team_key(t["team"]) == team_key(nfc)]
    assert len(cafe) == 1 and cafe[0]["team"] == shown and cafe[0]["submissions"] == 3
    assert [n["code"] for n in cafe[0]["notes"]] == ["TEAM_NAMES_MERGED"]
    ids = [s["id"] for s in document["submissions"] if s["team"] == shown]
    assert sorted(ids) == sorted([f"{nfc}/a.csv", f"{nfd}/a.csv", f"{upper}/b.csv"])  # each file named by its folder
    assert document["counts"]["teams"] == 3


def test_distinct_names_stay_distinct(demo_solution, tmp_path):
    subs = build_folder(tmp_path / "subs", demo_solution, {"ana": [("a", 0.4, False)], "anna": [("a", 0.4, False)],
                                                           "ana\u200b": [("a", 0.4, False)]})
    found = read_folder(subs)
    assert len(found.teams) == 3 and found.team_notes == {}


def test_a_newline_in_a_team_name_is_escaped_in_every_output(demo_solution, tmp_path, capsys):
    """A team folder "a<newline>b" is shown as `a\\x0ab` (as other control characters are) in the CSV, the
    Markdown, the JSON and the page; it used to keep the raw newline in the CSV and become "a b" in the
    Markdown, where it could not be told from a real team "a b"."""
    subs = build_folder(tmp_path / "subs", demo_solution, {**GOOD, "a\nb": [("x", 0.4, False)],
                                                           "a b": [("y", 0.6, False)],
                                                           "a\\x0ab": [("z", 0.5, False)]})
    out = tmp_path / "out"
    document = run_build(subs, demo_solution, out, capsys)
    shown, spelled = "a\\x0ab", "a\\\\x0ab"  # a folder spelling the escape keeps its backslash doubled
    assert {t["team"] for t in document["teams"]} == {"good", "other", shown, "a b", spelled}
    assert {s["id"] for s in document["submissions"]} >= {f"{shown}/x.csv", "a b/y.csv", f"{spelled}/z.csv"}
    assert all(not t["notes"] for t in document["teams"])  # no TEAM_NAMES_MERGED: five distinct teams
    import csv

    with open(out / "leaderboard.csv", newline="", encoding="utf-8") as handle:
        teams = [row["team"] for row in csv.DictReader(handle)]
    assert sorted(teams) == sorted(["good", "other", shown, "a b", spelled])
    markdown = (out / "leaderboard.md").read_text(encoding="utf-8")
    assert "| a\\\\x0ab |" in markdown.replace("  ", " ")  # the backslash itself Markdown-escaped
    assert "a\nb" not in markdown and "a\nb" not in (out / "leaderboard.html").read_text(encoding="utf-8")
    assert shown in (out / "leaderboard.html").read_text(encoding="utf-8")
