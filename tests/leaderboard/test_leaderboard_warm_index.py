"""Warm rebuilds open no cache entry and no metadata file whose stat is unchanged: the stat index holds the entries'
records and the metadata read (issue 17 item 4; docs/leaderboard.md, "Warm rebuilds"), checked against its sha256.

Where expected values come from: a build without any cache on the same folder (``cache_dir=None``: every file read
and scored), whose files a warm build must equal byte for byte; the metadata written by the test (what a build that
reads the file must show). Files are changed in place with ``os.utime`` restoring the recorded times, so that only the
stat fields a case is about differ (or none, for the case the index cannot see).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from leaderboard_helpers import build_folder, cold_files

from tpugraphs_eval.commands import leaderboard as cli
from tpugraphs_eval.leaderboard import build_leaderboard, cache, folder, scorer
from tpugraphs_eval.leaderboard.cache import STAT_INDEX, ScoreCache, read_stat_index

SPEC = {"north": [("n1", 0.2, True), ("n2", 0.6, False)], "south": [("s1", 0.4, True)]}


def _build(subs: Path, solution: Path, out: Path, **options):
    return build_leaderboard(subs, solution, out, workers=1, resamples=20, **options)


def _count_entry_reads(monkeypatch, per_graph: list[str] | None = None) -> list[str]:
    """The cache entries opened for their record (by key), recorded as the build reads them; those opened for their
    per-graph values only (the bootstrap's) go to ``per_graph`` when given."""
    opened: list[str] = []
    real = ScoreCache._read

    def counted(self, key, *args, **kwargs):
        (opened if kwargs.get("keep", True) else per_graph if per_graph is not None else []).append(key)
        return real(self, key, *args, **kwargs)

    monkeypatch.setattr(ScoreCache, "_read", counted)
    return opened


def _count_metadata_reads(monkeypatch) -> list[str]:
    """The metadata files the folder reader opens (by name)."""
    opened: list[str] = []
    real = folder.read_file_stat

    def counted(path, limit):
        opened.append(Path(path).name)
        return real(path, limit)

    monkeypatch.setattr(folder, "read_file_stat", counted)
    return opened


@pytest.mark.parametrize("workers", [1, 2], ids=["in-process", "workers"])
def test_a_warm_rebuild_opens_no_cache_entry_until_the_bootstrap_asks(demo_solution, tmp_path, monkeypatch, workers):
    subs = build_folder(tmp_path / "subs", demo_solution, SPEC)
    out = tmp_path / "out"
    monkeypatch.setattr(scorer, "PARALLEL_MIN_BYTES", 0)  # with 2 workers: the entries are written by the workers
    first = build_leaderboard(subs, demo_solution, out, workers=workers, resamples=20)
    assert first.files == cold_files(subs, demo_solution, tmp_path / "cold" / "out")
    per_graph: list[str] = []
    opened = _count_entry_reads(monkeypatch, per_graph)
    records, counts = cache_records(subs, demo_solution, out)
    assert counts["cached"] == 3 and opened == [] and per_graph == []  # every record from the index
    records[0].per_graph_values("private", "tile:xla")  # the per-graph values: read from the entry when asked
    assert opened == [] and len(per_graph) == 1
    second = _build(subs, demo_solution, out)
    assert second.files == first.files and second.notes == [] and second.counts["cached"] == 3


def cache_records(subs: Path, solution: Path, out: Path):
    from tpugraphs_eval.leaderboard.folder import read_folder
    from tpugraphs_eval.leaderboard.scorer import score_entries
    from tpugraphs_eval.options import Options
    from tpugraphs_eval.truth.solution import load_solution

    return score_entries(read_folder(subs).entries, load_solution(solution), solution, Options(),
                         ScoreCache(out / ".cache"), workers=1)


def test_a_warm_rebuild_opens_no_metadata_file(demo_solution, tmp_path, monkeypatch):
    subs = build_folder(tmp_path / "subs", demo_solution, SPEC)
    (subs / "south" / "s1.json").write_text('{"selected": "yes", "extra": 1}')  # notes, kept with the fields
    out = tmp_path / "out"
    first = _build(subs, demo_solution, out)
    opened = _count_metadata_reads(monkeypatch)
    second = _build(subs, demo_solution, out)
    assert opened == [] and second.files == first.files
    assert second.files == cold_files(subs, demo_solution, tmp_path / "cold" / "out")  # (a build without cache reads)
    opened.clear()
    third = _build(subs, demo_solution, out, rehash=True)  # --rehash trusts no stat: every metadata file is read
    assert sorted(opened) == ["n1.json", "n2.json", "s1.json"] and third.files == first.files


def _rewrite_keeping_stat(path: Path, text: str) -> None:
    """Write ``text`` (of the same length) over ``path`` in place and set its times back."""
    before = os.stat(path)
    assert len(text.encode()) == before.st_size
    with open(path, "r+b") as handle:
        handle.write(text.encode())
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = os.stat(path)
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (before.st_size, before.st_mtime_ns, before.st_ino)


def _selected(document: dict, sub_id: str) -> bool:
    return next(s for s in document["submissions"] if s["id"] == sub_id)["selected"]


def test_metadata_changed_with_its_stat_kept_is_the_documented_limitation_and_a_changed_stat_reads_it(
        demo_solution, tmp_path):
    subs = build_folder(tmp_path / "subs", demo_solution, SPEC)
    out = tmp_path / "out"
    meta = subs / "north" / "n2.json"
    meta.write_text('{"selected": false}')
    first = _build(subs, demo_solution, out)
    assert _selected(first.document, "north/n2.csv") is False
    _rewrite_keeping_stat(meta, '{"selected": true} ')  # same size, same mtime, same inode
    second = _build(subs, demo_solution, out)
    assert _selected(second.document, "north/n2.csv") is False  # not read again: what it said before (documented)
    assert _selected(_build(subs, demo_solution, out, rehash=True).document, "north/n2.csv") is True
    meta.write_text('{"selected": false}')
    assert _selected(_build(subs, demo_solution, out).document, "north/n2.csv") is False  # mtime changed: read
    os.utime(meta, ns=(0, 10**18))
    meta.write_text('{"selected": true}')  # another size
    third = _build(subs, demo_solution, out)
    assert _selected(third.document, "north/n2.csv") is True
    assert third.files == cold_files(subs, demo_solution, tmp_path / "cold" / "out")


def _index_parts(path: Path) -> tuple[bytes, bytes]:
    head, _, body = path.read_bytes().partition(b"\n")
    return head, body


def _resealed(body: bytes) -> bytes:
    """An index of that body with the right sha256 (a well-formed index of other contents)."""
    import hashlib

    return json.dumps({"format": cache.STAT_INDEX_FORMAT, "sha256": hashlib.sha256(body).hexdigest()}).encode() + (
        b"\n" + body)


def _edit_entry_record(path: Path, change) -> None:
    head, body = _index_parts(path)
    sections = json.loads(body)
    change(next(iter(sections["entries"].values()))[3])
    path.write_bytes(_resealed(json.dumps(sections, sort_keys=True).encode()))


INDEX_DAMAGE = {
    "header-not-json": lambda p: p.write_bytes(b"{x\n" + _index_parts(p)[1]),
    "no-body": lambda p: p.write_bytes(_index_parts(p)[0]),
    "other-format": lambda p: p.write_bytes(_index_parts(p)[0].replace(b'"format": 2', b'"format": 1') + b"\n"
                                            + _index_parts(p)[1]),
    "truncated": lambda p: p.write_bytes(p.read_bytes()[: len(p.read_bytes()) * 2 // 3]),
    "a-byte-changed": lambda p: p.write_bytes(p.read_bytes()[:-2] + bytes([p.read_bytes()[-2] ^ 1]) + b"}"),
    "a-score-altered": lambda p: p.write_bytes(_index_parts(p)[0] + b"\n"
                                               + _index_parts(p)[1].replace(b'"overall": 0.', b'"overall": 1.', 1)),
    "sections-missing": lambda p: p.write_bytes(_resealed(b'{"files": {}}')),
    "body-not-utf8": lambda p: p.write_bytes(_resealed(b"\xff\xfe")),
}


@pytest.mark.parametrize("kind", INDEX_DAMAGE)
def test_a_damaged_stat_index_is_a_note_and_every_file_is_read_again(demo_solution, tmp_path, monkeypatch, capsys,
                                                                     kind):
    subs = build_folder(tmp_path / "subs", demo_solution, SPEC)
    out = tmp_path / "out"
    first = _build(subs, demo_solution, out)
    index = out / ".cache" / STAT_INDEX
    INDEX_DAMAGE[kind](index)
    with pytest.raises(ValueError):
        read_stat_index(index.read_bytes())
    opened, metadata = _count_entry_reads(monkeypatch), _count_metadata_reads(monkeypatch)
    second = _build(subs, demo_solution, out)
    assert [n["code"] for n in second.notes] == ["CACHE_ENTRY_CORRUPT"] and STAT_INDEX in second.notes[0]["message"]
    assert len(opened) == 3 and sorted(metadata) == ["n1.json", "n2.json", "s1.json"]  # every file read again ...
    assert (second.counts["scored"], second.counts["cached"]) == (0, 3) and second.files == first.files  # ... no rescore
    read_stat_index(index.read_bytes())  # rewritten whole
    opened.clear()
    third = _build(subs, demo_solution, out)
    assert third.notes == [] and opened == [] and third.files == first.files


@pytest.mark.parametrize("change", [lambda r: r.update(sha256="0" * 64), lambda r: r.update(status="great"),
                                    lambda r: r.pop("boards"), lambda r: r["boards"].pop("all"),
                                    lambda r: r.update(problems="x")],
                         ids=["another-submission", "status-unknown", "boards-missing", "board-missing",
                              "problems-not-a-list"])
def test_a_foreign_record_in_a_well_formed_index_is_not_used_the_entry_is_read(demo_solution, tmp_path,
                                                                               monkeypatch, change):
    subs = build_folder(tmp_path / "subs", demo_solution, SPEC)
    out = tmp_path / "out"
    first = _build(subs, demo_solution, out)
    _edit_entry_record(out / ".cache" / STAT_INDEX, change)
    opened = _count_entry_reads(monkeypatch)
    second = _build(subs, demo_solution, out)
    assert len(opened) == 1 and second.notes == []  # that entry read from its file (sound): no note, no rescore
    assert (second.counts["scored"], second.counts["cached"]) == (0, 3) and second.files == first.files


def test_an_entry_file_changed_since_indexed_is_read_and_checked(demo_solution, tmp_path, capsys):
    """The index's record of an entry is used only while the entry file's stat is unchanged: an entry
    replaced (a new inode) is read, and a corrupt one is a CACHE_ENTRY_CORRUPT note and rescored."""
    subs = build_folder(tmp_path / "subs", demo_solution, SPEC)
    out = tmp_path / "out"
    argv = ["build", str(subs), "--solution", str(demo_solution), "-o", str(out), "--workers", "1",
            "--resamples", "20", "--no-progress"]
    assert cli.main(argv) == 0
    clean = {n: (out / n).read_bytes() for n in ("leaderboard.json", "leaderboard.csv")}
    entry = sorted((out / ".cache").glob("*.json"))[0]
    data = entry.read_bytes()
    entry.unlink()
    entry.write_bytes(data[: len(data) // 2])
    capsys.readouterr()
    assert cli.main(argv) == 0
    printed, err = capsys.readouterr()
    assert "[CACHE_ENTRY_CORRUPT]" in err and "Scored now 1, from the cache 2, 1 corrupt cache entries rescored" in printed
    assert {n: (out / n).read_bytes() for n in clean} == clean


def test_an_older_versions_stat_index_is_read_past_without_a_warning(demo_solution, tmp_path, monkeypatch):
    """A format-1 index (one line of JSON, submission files only, as the previous version wrote it) is no fault:
    every file is read once, and the index rewritten in this format."""
    subs = build_folder(tmp_path / "subs", demo_solution, SPEC)
    out = tmp_path / "out"
    first = _build(subs, demo_solution, out)
    files = read_stat_index((out / ".cache" / STAT_INDEX).read_bytes())["files"]
    (out / ".cache" / STAT_INDEX).write_text(json.dumps({"files": files, "format": 1}, sort_keys=True))
    metadata = _count_metadata_reads(monkeypatch)
    second = _build(subs, demo_solution, out)
    assert second.notes == [] and sorted(metadata) == ["n1.json", "n2.json", "s1.json"]
    assert (second.counts["scored"], second.counts["cached"]) == (0, 3) and second.files == first.files
    assert read_stat_index((out / ".cache" / STAT_INDEX).read_bytes())["files"] == files
