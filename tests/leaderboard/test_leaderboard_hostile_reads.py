"""Leaderboard reads of a hostile submissions folder: no link followed, no hard link read, sizes capped.

Each kind is built for real on disk (symbolic links, hard links, FIFOs, sparse files). A swap *during*
a build is made by wrapping ``read_folder`` so that the swap happens after the folder was listed and
before any file is read, the window the old stat-then-open code left. The secret marker planted in files
outside the folder must appear in no output file.
"""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

import pytest
from leaderboard_helpers import OUTPUTS, build_folder

from tpugraphs_eval.commands import leaderboard as cli
from tpugraphs_eval.leaderboard import build as build_module
from tpugraphs_eval.leaderboard import build_leaderboard
from tpugraphs_eval.leaderboard import folder as folder_module
from tpugraphs_eval.leaderboard.folder import read_folder
from tpugraphs_eval.leaderboard.reading import DEFAULT_MAX_BYTES, RefusedFile, read_file_stat
from tpugraphs_eval.leaderboard.scorer import MAX_ECHO_CHARS, MAX_PROBLEMS_LISTED

SECRET = b"ID,TopConfigs\ntile:xla:SECRET-OUTSIDE-THE-FOLDER,0;1;2;3;4\n"


def outputs_text(out: Path) -> str:
    return "".join((out / name).read_text(encoding="utf-8") for name in OUTPUTS)


def statuses(document: dict) -> dict[str, tuple[str, list[str]]]:
    return {s["id"]: (s["status"], sorted(s["problem_counts"])) for s in document["submissions"]}


@pytest.fixture
def folder(demo_solution, tmp_path):
    """A valid team ``good`` and a team ``victim`` with one valid file, plus a secret file outside."""
    subs = build_folder(tmp_path / "subs", demo_solution, {"good": [("g", 0.3, True)], "victim": [("v", 0.5, True)]})
    secret_dir = tmp_path / "elsewhere"
    secret_dir.mkdir()
    (secret_dir / "v.csv").write_bytes(SECRET)
    return subs, secret_dir / "v.csv"


def build_with_swap(monkeypatch, swap, subs, solution, out, **kwargs):
    """Build, calling ``swap()`` right after the folder is listed (before any file is read)."""
    def listed_then_swapped(root, *memory):
        found = read_folder(root, *memory)
        swap()
        return found
    monkeypatch.setattr(build_module, "read_folder", listed_then_swapped)
    return build_leaderboard(subs, solution, out, workers=1, resamples=20, cache_dir=None, **kwargs).document


def test_a_file_swapped_for_a_symlink_during_the_build_is_refused(folder, demo_solution, tmp_path, monkeypatch):
    subs, secret = folder
    victim = subs / "victim" / "v.csv"

    def swap():
        victim.unlink()
        victim.symlink_to(secret)
    document = build_with_swap(monkeypatch, swap, subs, demo_solution, tmp_path / "out")
    assert statuses(document)["victim/v.csv"] == ("error", ["SUBMISSION_SYMLINK"])
    assert statuses(document)["good/g.csv"] == ("scored", [])
    assert "SECRET" not in outputs_text(tmp_path / "out")


def test_a_team_folder_swapped_for_a_symlink_during_the_build_is_refused(folder, demo_solution, tmp_path,
                                                                         monkeypatch):
    subs, secret = folder  # the old code stat-ed the file through the linked folder and read the secret

    def swap():
        (subs / "victim").rename(tmp_path / "victim-moved")
        (subs / "victim").symlink_to(secret.parent, target_is_directory=True)
    document = build_with_swap(monkeypatch, swap, subs, demo_solution, tmp_path / "out")
    assert statuses(document)["victim/v.csv"] == ("error", ["SUBMISSION_SYMLINK"])
    assert "SECRET" not in outputs_text(tmp_path / "out")


def test_a_fifo_swapped_in_during_the_build_is_refused_without_blocking(folder, demo_solution, tmp_path,
                                                                        monkeypatch):
    subs, _ = folder
    victim = subs / "victim" / "v.csv"

    def swap():
        victim.unlink()
        os.mkfifo(victim)  # no writer: a blocking open would hang the build
    document = build_with_swap(monkeypatch, swap, subs, demo_solution, tmp_path / "out")
    assert statuses(document)["victim/v.csv"] == ("error", ["SUBMISSION_NOT_REGULAR"])


def test_a_hard_link_to_a_file_outside_the_folder_is_not_read(folder, demo_solution, tmp_path):
    subs, secret = folder
    os.link(secret, subs / "victim" / "linked.csv")
    code = cli.main(["build", str(subs), "--solution", str(demo_solution), "-o", str(tmp_path / "out"),
                     "--workers", "1", "--resamples", "20", "--no-progress", "-q"])
    document = json.loads((tmp_path / "out" / "leaderboard.json").read_text(encoding="utf-8"))
    assert code == 0
    assert statuses(document)["victim/linked.csv"] == ("error", ["SUBMISSION_HARDLINK"])
    assert "SECRET" not in outputs_text(tmp_path / "out")


def test_read_file_checks_the_opened_file(tmp_path):
    (tmp_path / "team").mkdir()
    plain = tmp_path / "team" / "a.csv"
    plain.write_bytes(b"ID,TopConfigs\n")
    assert read_file_stat(plain, 100)[0] == b"ID,TopConfigs\n"
    with pytest.raises(RefusedFile) as refused:
        read_file_stat(plain, 13)  # 14 bytes
    assert refused.value.code == "SUBMISSION_TOO_LARGE"
    (tmp_path / "team" / "gone.csv").symlink_to(plain)
    with pytest.raises(RefusedFile) as refused:
        read_file_stat(tmp_path / "team" / "gone.csv", 100)
    assert refused.value.code == "SUBMISSION_SYMLINK"
    with pytest.raises(RefusedFile) as refused:
        read_file_stat(tmp_path / "team" / "missing.csv", 100)
    assert refused.value.code == "SUBMISSION_UNREADABLE"
    with socket.socket(socket.AF_UNIX) as listening:  # a socket cannot be opened at all (ENXIO)
        listening.bind(str(tmp_path / "team" / "sock.csv"))
        with pytest.raises(RefusedFile) as refused:
            read_file_stat(tmp_path / "team" / "sock.csv", 100)
    assert (refused.value.code, refused.value.reason) == ("SUBMISSION_NOT_REGULAR", "the file is a socket, not a "
                                                                                    "regular file; not read")


def test_the_default_size_cap_is_64_mib_and_an_option(folder, demo_solution, tmp_path, capsys):
    subs, _ = folder
    assert DEFAULT_MAX_BYTES == 64 << 20
    with open(subs / "victim" / "huge.csv", "wb") as handle:  # sparse: 200 MB never read
        handle.truncate(200_000_000)
    code = cli.main(["build", str(subs), "--solution", str(demo_solution), "-o", str(tmp_path / "out"),
                     "--workers", "1", "--resamples", "20", "--no-progress", "-q"])
    document = json.loads((tmp_path / "out" / "leaderboard.json").read_text(encoding="utf-8"))
    assert code == 0 and statuses(document)["victim/huge.csv"] == ("error", ["SUBMISSION_TOO_LARGE"])
    assert os.path.getsize(tmp_path / "out" / "leaderboard.json") < 64_000
    with open(subs / "victim" / "huge.csv", "wb") as handle:
        handle.truncate((1 << 20) + 1)
    cli.main(["build", str(subs), "--solution", str(demo_solution), "-o", str(tmp_path / "out"),
              "--workers", "1", "--resamples", "20", "--no-progress", "-q", "--max-size", "1"])
    document = json.loads((tmp_path / "out" / "leaderboard.json").read_text(encoding="utf-8"))
    assert statuses(document)["victim/huge.csv"] == ("error", ["SUBMISSION_TOO_LARGE"])
    assert "1048577 bytes, more than the limit of 1048576" in json.dumps(document)


def single_line_build(subs: Path, solution: Path, out: Path, size: int, max_mib: int) -> dict:
    (subs / "victim" / "line.csv").write_bytes(b"ID,TopConfigs\n" + b"A" * size)
    assert cli.main(["build", str(subs), "--solution", str(solution), "-o", str(out), "--max-size", str(max_mib),
                     "--workers", "1", "--resamples", "20", "--no-progress", "-q", "--no-cache"]) == 0
    return json.loads((out / "leaderboard.json").read_text(encoding="utf-8"))


def test_one_long_line_echoes_a_bounded_text(folder, demo_solution, tmp_path):
    subs, _ = folder  # the old code echoed the whole line twice (as the ID and in the message): 32 MB
    document = single_line_build(subs, demo_solution, tmp_path / "out", 16 << 20, 64)
    line = next(s for s in document["submissions"] if s["id"] == "victim/line.csv")
    assert line["status"] == "invalid" and "MISSING_COLUMN" in line["problem_counts"]
    assert all(len(p["id"] or "") <= MAX_ECHO_CHARS["id"] and len(p["message"]) <= MAX_ECHO_CHARS["message"]
               for p in line["problems"])
    assert "(16777216 characters)" in json.dumps(line)  # the shortened ID says how long it was
    sizes = {name: os.path.getsize(tmp_path / "out" / name) for name in OUTPUTS}
    assert max(sizes.values()) < 100_000, sizes


def test_many_problems_are_counted_not_all_listed(folder, demo_solution, tmp_path):
    subs, _ = folder
    rows = b"".join(b"tile:xla:nope-%d,0;1;2;3;4\n" % i for i in range(3000))
    (subs / "victim" / "many.csv").write_bytes(b"ID,TopConfigs\n" + rows)
    document = build_leaderboard(subs, demo_solution, tmp_path / "out", workers=1, resamples=20).document
    many = next(s for s in document["submissions"] if s["id"] == "victim/many.csv")
    assert many["problem_counts"]["UNKNOWN_ID"] == 3000
    assert len(many["problems"]) == MAX_PROBLEMS_LISTED + 1
    assert many["problems"][-1]["code"] == "PROBLEMS_NOT_LISTED"
    assert many["problems"][-1]["message"].startswith(f"{1000 + 1 - MAX_PROBLEMS_LISTED + 5} more problems")


@pytest.mark.slow
def test_a_200_mb_single_line_file_makes_a_small_leaderboard(folder, demo_solution, tmp_path):
    subs, _ = folder  # read and scored (--max-size 256): about 0.7 GB of memory, a few seconds
    document = single_line_build(subs, demo_solution, tmp_path / "out", 200_000_000, 256)
    assert next(s for s in document["submissions"] if s["id"] == "victim/line.csv")["status"] == "invalid"
    sizes = {name: os.path.getsize(tmp_path / "out" / name) for name in OUTPUTS}
    assert max(sizes.values()) < 100_000, sizes


def test_a_link_or_fifo_named_as_a_submission_is_that_teams_unread_submission(folder, demo_solution, tmp_path):
    subs, secret = folder  # README "Guarantees": a coded note on that submission, where the team looks
    (subs / "victim" / "linked.csv").symlink_to(secret)
    os.mkfifo(subs / "victim" / "piped.csv.gz")  # no writer: a blocking open would hang the build
    (subs / "victim" / "piped.json").write_text(json.dumps({"description": "piped", "selected": True}))
    (subs / "victim" / "v.json").unlink()
    (subs / "victim" / "v.json").symlink_to(secret)  # the metadata of v.csv, as a link
    (subs / "victim" / "notes.txt").symlink_to(secret)  # not named as a submission: an ignored entry
    document = build_leaderboard(subs, demo_solution, tmp_path / "out", workers=1, resamples=20).document
    found = {s["id"]: s for s in document["submissions"]}
    assert statuses(document) == {"good/g.csv": ("scored", []), "victim/linked.csv": ("error", ["SUBMISSION_SYMLINK"]),
                                  "victim/piped.csv.gz": ("error", ["SUBMISSION_NOT_REGULAR"]),
                                  "victim/v.csv": ("scored", [])}
    assert found["victim/linked.csv"]["problems"][0]["message"] == ("victim/linked.csv: the file is a symbolic link; "
                                                                    "not followed, not read")
    assert found["victim/piped.csv.gz"]["problems"][0]["message"] == ("victim/piped.csv.gz: the file is a FIFO (named "
                                                                      "pipe), not a regular file; not read")
    assert (found["victim/piped.csv.gz"]["description"], found["victim/piped.csv.gz"]["selected"]) == ("piped", True)
    assert [(n["code"], n["message"]) for n in found["victim/v.csv"]["notes"]] == [
        ("METADATA_INVALID", "victim/v.json: the file is a symbolic link; not followed, not read; ignored")]
    victim = next(t for t in document["teams"] if t["team"] == "victim")
    assert victim["submissions"] == 3 and "SELECTED_INVALID" in {n["code"] for n in victim["notes"]}
    assert [i["path"] for i in document["ignored"]] == ["victim/notes.txt"]
    assert "SECRET" not in outputs_text(tmp_path / "out")


def test_a_link_or_fifo_in_place_of_a_team_folder_is_that_team_with_a_note(folder, demo_solution, tmp_path):
    subs, secret = folder  # README "Guarantees": a coded note on the team, not a build-level ignored entry
    (subs / "linked-team").symlink_to(secret.parent, target_is_directory=True)  # holds a valid-looking v.csv
    os.mkfifo(subs / "piped-team")
    (subs / "README.txt").write_text("about the folder")  # a regular file at the top level: not a team
    document = build_leaderboard(subs, demo_solution, tmp_path / "out", workers=1, resamples=20).document
    teams = {t["team"]: t for t in document["teams"]}
    assert sorted(teams) == ["good", "linked-team", "piped-team", "victim"]
    for team, words in (("linked-team", "a symbolic link, not followed"), ("piped-team", "a FIFO (named pipe), "
                                                                                       "not a folder")):
        assert (teams[team]["rank"], teams[team]["submissions"]) == (None, 0)
        assert [(n["code"], n["message"]) for n in teams[team]["notes"]][0] == (
            "TEAM_FOLDER_NOT_READ", f"the team folder {team} is {words}: no submission of it is read")
        assert [n["code"] for n in teams[team]["notes"]][1:] == ["NO_VALID_SUBMISSION"]
    assert sorted(statuses(document)) == ["good/g.csv", "victim/v.csv"]
    assert [i["path"] for i in document["ignored"]] == ["README.txt"]
    assert document["counts"]["teams"] == 4
    assert "SECRET" not in outputs_text(tmp_path / "out")


def test_a_team_folder_that_cannot_be_listed_is_that_team_with_a_note(folder, monkeypatch):
    subs, _ = folder  # as root, permissions do not stop a listing: the listing is made to fail
    listing = folder_module._listing

    def refused(path):
        if path.name == "victim":
            raise PermissionError(13, "Permission denied")
        return listing(path)
    monkeypatch.setattr(folder_module, "_listing", refused)
    found = read_folder(subs)
    assert found.teams == ["good", "victim"] and [e.id for e in found.entries] == ["good/g.csv"]
    assert found.ignored == []
    assert [(n["code"], n["message"]) for n in found.team_notes["victim"]] == [
        ("TEAM_FOLDER_NOT_READ", "the team folder victim cannot be listed (Permission denied): no submission of it "
                                 "is read")]
