"""Zip and gzip submissions in a team folder are submissions, read exactly as ``tpugraphs-eval`` reads them.

The old leaderboard listed ``a.csv.gz`` and ``b.zip`` as ``IGNORED_ENTRY`` ("not a .csv file") and scored
neither, though ``tpugraphs-eval`` scores both and Kaggle accepts both. Expected values: an archive holds
the plain CSV's bytes, so it must score exactly as the plain CSV (every board, every collection), with
one ``COMPRESSED`` note; its ``sha256`` and cache key are those of the stored file's bytes.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import zipfile
import zlib

from leaderboard_helpers import rows_for

from tpugraphs_eval.commands import leaderboard as cli
from tpugraphs_eval.leaderboard import build_leaderboard, scorer
from tpugraphs_eval.leaderboard.folder import read_folder, submission_stem
from tpugraphs_eval.submission import compressed
from tpugraphs_eval.truth.solution import load_solution


def zipped(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_submission_stems():
    assert {n: submission_stem(n) for n in ("a.csv", "a.csv.gz", "a.gz", "A.CSV.ZIP", "a.zip", "a.tar.gz")} == {
        "a.csv": "a", "a.csv.gz": "a", "a.gz": "a", "A.CSV.ZIP": "A", "a.zip": "a", "a.tar.gz": "a.tar"}
    assert [submission_stem(n) for n in ("a.json", "a.txt", "a.7z", "a.csv.bak")] == [None] * 4


def test_zip_and_gzip_submissions_score_as_their_csv_and_get_their_metadata(demo_solution, tmp_path):
    csv = rows_for(load_solution(demo_solution), 0.3, 7)
    team = tmp_path / "subs" / "t"
    team.mkdir(parents=True)
    files = {"plain.csv": csv, "a.csv.gz": gzip.compress(csv, mtime=0), "b.zip": zipped({"b.csv": csv}),
             "C.CSV.ZIP": zipped({"in/c.csv": csv, "__MACOSX/in/._c.csv": b"x"}), "d.gz": gzip.compress(csv, mtime=1)}
    for name, data in files.items():
        (team / name).write_bytes(data)
    (team / "a.json").write_text(json.dumps({"submitted": "2023-11-17T12:00:00Z", "description": "gzipped",
                                             "selected": True}))
    (team / "C.json").write_text(json.dumps({"description": "zipped on a Mac"}))
    out = tmp_path / "out"
    first = build_leaderboard(tmp_path / "subs", demo_solution, out, workers=1, resamples=20)
    document = first.document
    found = {s["file"]: s for s in document["submissions"]}
    assert sorted(found) == sorted(files) and document["ignored"] == []
    plain = found["plain.csv"]
    for name, data in files.items():
        assert found[name]["status"] == "scored"
        assert found[name]["sha256"] == hashlib.sha256(data).hexdigest()  # the stored bytes
        assert {b: found[name][b] for b in ("public", "private", "all")} == {b: plain[b] for b in
                                                                             ("public", "private", "all")}
        assert found[name]["problem_counts"] == ({} if name == "plain.csv" else {"COMPRESSED": 1})
    held = [p["message"] for p in found["C.CSV.ZIP"]["problems"]]
    assert held == [f"a zip file holding `in/c.csv`: its {len(csv):,} bytes of CSV are read (Kaggle accepts zip "
                    "and gzip submissions); line numbers are the CSV's."]
    a = found["a.csv.gz"]
    assert (a["submitted"], a["description"], a["selected"], a["notes"]) == ("2023-11-17T12:00:00Z", "gzipped",
                                                                             True, [])
    assert found["C.CSV.ZIP"]["description"] == "zipped on a Mac"
    assert first.counts["scored"] == 5
    second = build_leaderboard(tmp_path / "subs", demo_solution, out, workers=1, resamples=20)
    assert (second.counts["scored"], second.counts["cached"]) == (0, 5) and second.files == first.files
    (team / "a.csv.gz").write_bytes(gzip.compress(csv, mtime=2))  # same CSV, other stored bytes: scored again
    third = build_leaderboard(tmp_path / "subs", demo_solution, out, workers=1, resamples=20)
    assert (third.counts["scored"], third.counts["cached"]) == (1, 4)


def test_bad_archives_are_coded_problems_of_their_submission_not_a_stopped_build(demo_solution, tmp_path, capsys,
                                                                                monkeypatch):
    csv = rows_for(load_solution(demo_solution), 0.3, 7)
    for team in ("good", "bad"):
        (tmp_path / "subs" / team).mkdir(parents=True)
    (tmp_path / "subs" / "good" / "g.csv").write_bytes(csv)
    bad = tmp_path / "subs" / "bad"
    bomb = csv + b"tile:xla:x," + b"0;" * 1_000_000 + b"\n"  # 2 MB of one line packs into a few KB
    (bad / "bomb.csv.gz").write_bytes(gzip.compress(bomb))
    (bad / "bomb.zip").write_bytes(zipped({"bomb.csv": bomb}))
    (bad / "two.zip").write_bytes(zipped({"x.csv": csv, "y.csv": csv}))
    (bad / "cut.gz").write_bytes(gzip.compress(csv)[:200])
    monkeypatch.setattr(compressed, "MAX_UNPACKED_BYTES", 1 << 20)  # workers=1: scored in this process
    out = tmp_path / "out"
    code = cli.main(["build", str(tmp_path / "subs"), "--solution", str(demo_solution), "-o", str(out),
                     "--workers", "1", "--resamples", "20", "--no-progress", "-q"])
    assert code == 0 and "Traceback" not in capsys.readouterr().err
    document = json.loads((out / "leaderboard.json").read_text(encoding="utf-8"))
    found = {s["id"]: (s["status"], [p["code"] for p in s["problems"]]) for s in document["submissions"]}
    assert found == {"bad/bomb.csv.gz": ("invalid", ["ARCHIVE_TOO_LARGE"]), "bad/bomb.zip": ("invalid",
                                                                                           ["ARCHIVE_TOO_LARGE"]),
                     "bad/cut.gz": ("invalid", ["ARCHIVE_UNREADABLE"]), "bad/two.zip": ("invalid",
                                                                                     ["ARCHIVE_UNREADABLE"]),
                     "good/g.csv": ("scored", [])}
    assert [t["team"] for t in document["teams"] if t["rank"] is not None] == ["good"]


def test_one_metadata_file_for_two_submissions_is_read_for_neither(tmp_path):
    team = tmp_path / "subs" / "t"
    team.mkdir(parents=True)
    for name in ("x.csv", "x.csv.gz", "y.zip"):
        (team / name).write_bytes(b"x")
    for name in ("x.json", "y.json", "y.JSON"):
        (team / name).write_text(json.dumps({"selected": True}))
    folder = read_folder(tmp_path / "subs")
    assert folder.ignored == []
    found = {e.file: (e.selected, [(n["code"], n["message"]) for n in e.notes]) for e in folder.entries}
    shared = ("METADATA_INVALID", "t/x.json: the metadata of 2 submissions (x.csv, x.csv.gz); ignored (give each "
                                  "its own stem)")
    assert found == {"x.csv": (False, [shared]), "x.csv.gz": (False, [shared]),
                     "y.zip": (False, [("METADATA_INVALID", "t/y.zip: 2 metadata files (y.JSON, y.json); ignored "
                                                            "(keep one)")])}


def test_a_real_gzip_bomb_is_refused_in_a_worker_at_the_real_cap(demo_solution, tmp_path, monkeypatch):
    """300 MiB of zeros gzipped (about 300 KB), scored in a worker process (the real 256 MiB cap)."""
    team = tmp_path / "subs" / "t"
    team.mkdir(parents=True)
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)  # 31: a gzip container
    chunk = bytes(1 << 20)
    with open(team / "bomb.csv.gz", "wb") as handle:
        handle.writelines(packer.compress(chunk) for _ in range(300))
        handle.write(packer.flush())
    monkeypatch.setattr(scorer, "PARALLEL_MIN_BYTES", 0)  # score in worker processes
    result = build_leaderboard(tmp_path / "subs", demo_solution, tmp_path / "out", workers=2, resamples=20)
    (submission,) = result.document["submissions"]
    assert (submission["status"], [p["code"] for p in submission["problems"]]) == ("invalid", ["ARCHIVE_TOO_LARGE"])
    assert f"more than {compressed.MAX_UNPACKED_BYTES:,} bytes" in submission["problems"][0]["message"]
