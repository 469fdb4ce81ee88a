"""The leaderboard store (tpugraphs_eval.leaderboard.store, issue 21 item 3): what a record's key covers, damaged
rows and damaged or foreign files, warm rebuilds that open no metadata file, --rehash, the lock.

Where expected values come from: a build without any store against the same folder and solution
(``cache_dir=None``: every file read and scored; :func:`leaderboard_helpers.cold_files`), whose bytes a build through
a damaged store must equal; the metadata written by the test (what a build that reads the file must show). A
solution rebuilt with another seed or public fraction has other Public graphs, hence other public scores: the warm
build must show the new ones, never the old.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from leaderboard_helpers import OUTPUTS, build_folder, cold_files, rows_for, store_sql

from tpugraphs_eval import DataError
from tpugraphs_eval.commands import leaderboard as cli
from tpugraphs_eval.leaderboard import build_leaderboard, folder, scorer, store
from tpugraphs_eval.leaderboard.store import Store, record_keyer, solution_digest
from tpugraphs_eval.options import Options
from tpugraphs_eval.truth.solution import build_solution, load_solution, read_manifest

SPEC = {"north": [("n1", 0.2, True), ("n2", 0.6, False)], "south": [("s1", 0.4, True)]}


def _build(subs: Path, solution: Path, out: Path, **options):
    return build_leaderboard(subs, solution, out, workers=1, resamples=20, **options)


def _public(document: dict) -> dict[str, float]:
    """Submission id → its public overall."""
    return {s["id"]: s["public"]["overall"] for s in document["submissions"]}


@pytest.mark.parametrize("rebuild", [{"seed": 7}, {"public_fraction": 0.5}], ids=["seed", "public-fraction"])
def test_a_rebuilt_solution_never_reuses_old_records(demo_root, tmp_path, rebuild):
    solution = tmp_path / "solution.parquet"
    build_solution(demo_root, "test", solution)
    subs = build_folder(tmp_path / "subs", solution, SPEC)
    out = tmp_path / "out"
    first = _build(subs, solution, out)
    assert (first.counts["scored"], first.counts["cached"]) == (3, 0)
    build_solution(demo_root, "test", solution, **rebuild)  # same runtimes, same path: another Usage split
    assert load_solution(solution).sha256 == first.document["solution"]["ground_truth_sha256"]
    second = _build(subs, solution, out)
    assert (second.counts["scored"], second.counts["cached"], second.counts["pruned"]) == (3, 0, 3)
    fresh = _build(subs, solution, tmp_path / "fresh", cache_dir=None)
    assert _public(second.document) == _public(fresh.document)  # the new split's scores ...
    assert all(_public(second.document)[i] != v for i, v in _public(first.document).items())  # ... not the old
    third = _build(subs, solution, out)  # the store still serves its own
    assert (third.counts["scored"], third.counts["cached"]) == (0, 3) and third.files == second.files


def test_the_key_covers_submission_solution_options_version_and_code(demo_solution, monkeypatch):
    truth, manifest = load_solution(demo_solution), read_manifest(demo_solution)
    digest = solution_digest(truth, manifest)
    base = record_keyer(digest, Options().to_dict())("a" * 64)
    assert base == record_keyer(digest, Options().to_dict())("a" * 64)
    assert base != record_keyer(digest, Options().to_dict())("b" * 64)
    assert base != record_keyer(digest, Options(mode="lenient").to_dict())("a" * 64)
    assert base != record_keyer(digest, Options(tile_runtime="raw").to_dict())("a" * 64)
    # one flipped Public graph, or one manifest field, is another solution
    truth.collections["tile:xla"].public[0] = not truth.collections["tile:xla"].public[0]
    assert solution_digest(truth, manifest) != digest
    truth.collections["tile:xla"].public[0] = not truth.collections["tile:xla"].public[0]
    assert solution_digest(truth, manifest) == digest
    assert solution_digest(truth, {**manifest, "usage": {**manifest["usage"], "seed": 1}}) != digest
    assert solution_digest(load_solution(demo_solution, tile_runtime="raw"), manifest) != digest
    monkeypatch.setattr(store, "__version__", "999.0")
    assert record_keyer(digest, Options().to_dict())("a" * 64) != base
    monkeypatch.undo()
    monkeypatch.setattr(store, "source_digest", lambda: "0" * 64)  # a code change under the same version
    assert record_keyer(digest, Options().to_dict())("a" * 64) != base


def test_the_source_digest_covers_every_source_file(tmp_path, monkeypatch):
    from tpugraphs_eval import source_digest

    package = source_digest.PACKAGE
    copy = tmp_path / "pkg"
    for path in [*package.rglob("*.py"), *package.rglob("*.c")]:
        (copy / path.relative_to(package)).parent.mkdir(parents=True, exist_ok=True)
        (copy / path.relative_to(package)).write_bytes(path.read_bytes())
    monkeypatch.setattr(source_digest, "PACKAGE", copy)
    source_digest.source_digest.cache_clear()
    try:
        same = source_digest.source_digest()
        source_digest.source_digest.cache_clear()
        (copy / "report" / "html.py").write_bytes((copy / "report" / "html.py").read_bytes() + b"\n")
        changed = source_digest.source_digest()
    finally:
        source_digest.source_digest.cache_clear()
    assert same == source_digest_of(package) and changed != same


def source_digest_of(package: Path) -> str:
    """An independent digest of the same files: sha256 over (relative path, size, bytes) in path order."""
    digest = hashlib.sha256()
    for path in sorted(p for p in package.rglob("*") if p.suffix in (".py", ".c") and p.is_file()):
        data = path.read_bytes()
        digest.update(f"{path.relative_to(package).as_posix()}\0{len(data)}\0".encode() + data)
    return digest.hexdigest()


def _built_once(demo_solution, tmp_path) -> tuple[list[str], Path, dict[str, bytes]]:
    """SPEC built once through the CLI: (its argv, the output folder, the output bytes)."""
    subs = build_folder(tmp_path / "subs", demo_solution, SPEC)
    out = tmp_path / "out"
    argv = ["build", str(subs), "--solution", str(demo_solution), "-o", str(out), "--workers", "1",
            "--resamples", "20", "--no-progress"]
    assert cli.main(argv) == 0
    return argv, out, {n: (out / n).read_bytes() for n in OUTPUTS}


def test_bit_flips_in_stored_records_are_detected_rescored_and_never_published(demo_solution, tmp_path, capsys):
    """A seeded loop of single bit flips inside the records' bytes in the store file: each build exits 0 with the
    clean bytes, the damaged record named in a CACHE_ENTRY_CORRUPT note (before the checksums, some flips published
    other values without a word and some crashed the build with exit 3)."""
    argv, out, clean = _built_once(demo_solution, tmp_path)
    path = out / ".cache" / store.STORE_FILE
    rng = np.random.default_rng(21)
    for _ in range(12):
        texts = [t.encode()[:300] for (t,) in store_sql(out / ".cache", "SELECT record FROM records")]  # (contiguous)
        data = bytearray(path.read_bytes())
        text = texts[rng.integers(len(texts))]
        at = data.find(text)
        assert at >= 0 and data.find(text, at + 1) < 0
        bit = int(rng.integers(8 * len(text)))
        data[at + bit // 8] ^= 1 << (bit % 8)
        path.write_bytes(bytes(data))
        capsys.readouterr()
        code = cli.main(argv)
        printed, err = capsys.readouterr()
        assert code == 0 and "Traceback" not in err, err
        assert err.count("[CACHE_ENTRY_CORRUPT]") == 1 and "records table fails its checksum" in err
        assert "Scored now 1, from the store 2, 1 damaged rows of the store not used." in printed
        assert {n: (out / n).read_bytes() for n in OUTPUTS} == clean


def test_bit_flips_anywhere_in_the_store_never_publish_other_values(demo_solution, tmp_path, capsys):
    """Single bit flips at seeded places of the whole file (pages, headers, free space): every build exits 0 with
    the clean bytes; what was damaged is a note (a row, or the file set aside), or harmless (unused bytes)."""
    argv, out, clean = _built_once(demo_solution, tmp_path)
    path = out / ".cache" / store.STORE_FILE
    rng = np.random.default_rng(2021)
    for _ in range(12):
        data = bytearray(path.read_bytes())
        bit = int(rng.integers(8 * len(data)))
        data[bit // 8] ^= 1 << (bit % 8)
        path.write_bytes(bytes(data))
        capsys.readouterr()
        code = cli.main(argv)
        _, err = capsys.readouterr()
        assert code == 0 and "Traceback" not in err
        assert {n: (out / n).read_bytes() for n in OUTPUTS} == clean
        assert err.count("warning:") <= 1 + err.count("[CACHE_ENTRY_CORRUPT]")


def _foreign(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE notes (text TEXT)")


def _other_schema(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version = 99")


GARBAGE = np.random.default_rng(3).bytes(5000)
SET_ASIDE = {
    "garbage": lambda p: p.write_bytes(GARBAGE),
    "truncated": lambda p: p.write_bytes(p.read_bytes()[:1500]),
    "another-programs-database": lambda p: (p.unlink(), _foreign(p)),
    "another-schema": _other_schema,
    "a-fifo": lambda p: (p.unlink(), os.mkfifo(p)),  # opened naively, it would block the build for ever
    "a-folder": lambda p: (p.unlink(), p.mkdir(), (p / "kept.txt").write_text("x")),
    "a-link": lambda p: (p.rename(p.with_name("real")), p.symlink_to("real")),
}
OLDER = {  # an older set-aside (a folder when the store had been one) where the next one goes
    "a-folder": lambda aside: (aside.mkdir(), (aside / "older.txt").write_text("x")),
    "a-file": lambda aside: aside.write_text("older"),  # a folder cannot replace a file either
    "a-link": lambda aside: (aside.with_name("target").mkdir(), aside.symlink_to("target")),
}


@pytest.mark.parametrize(("kind", "older"), [(kind, None) for kind in SET_ASIDE] + [
    ("garbage", "a-folder"), ("a-folder", "a-file"), ("garbage", "a-link")])
def test_a_damaged_or_foreign_store_is_set_aside_with_one_note_and_rebuilt(demo_solution, tmp_path, capsys, kind,
                                                                          older):
    """One note, a new store, the same outputs, and the build after it reads that store; an older set-aside of any
    kind is replaced by this one (docs/leaderboard.md: "replacing an older one"; a set-aside folder made every later
    build unwritable), a link's target left alone."""
    argv, out, clean = _built_once(demo_solution, tmp_path)
    path = out / ".cache" / store.STORE_FILE
    aside = path.with_name(path.name + store.SET_ASIDE)
    if older is not None:
        OLDER[older](aside)
    SET_ASIDE[kind](path)
    capsys.readouterr()
    code = cli.main(argv)
    printed, err = capsys.readouterr()
    assert code == 0 and "Traceback" not in err
    assert err.count("warning:") == 1 and "[CACHE_SET_ASIDE]" in err and "leaderboard.sqlite.set-aside" in err
    assert "Scored now 3, from the store 0." in printed
    assert {n: (out / n).read_bytes() for n in OUTPUTS} == clean
    assert os.path.lexists(aside)
    if older is not None:  # the store just set aside is there, not the older one
        assert (aside / "kept.txt").is_file() if kind == "a-folder" else aside.read_bytes() == GARBAGE
        assert older != "a-link" or aside.with_name("target").is_dir()
    assert cli.main(argv) == 0  # the new store serves the next build, without a note
    printed, err = capsys.readouterr()
    assert "warning" not in err and "Scored now 0, from the store 3." in printed


def test_a_store_that_cannot_be_written_is_one_note_and_the_build_goes_on(demo_solution, tmp_path, capsys,
                                                                          monkeypatch):
    subs = build_folder(tmp_path / "subs", demo_solution, SPEC)
    clean = cold_files(subs, demo_solution, tmp_path / "c" / "out")
    real = store.checksum

    def full_disk(*parts):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(store, "checksum", full_disk)  # every write fails (as a full disk fails the INSERT)
    argv = ["build", str(subs), "--solution", str(demo_solution), "-o", str(tmp_path / "out"), "--workers", "1",
            "--resamples", "20", "--no-progress"]
    assert cli.main(argv) == 0
    printed, err = capsys.readouterr()
    assert err.count("warning:") == 1 and "[CACHE_ENTRY_UNWRITABLE]" in err and "database or disk is full" in err
    assert "Scored now 3, from the store 0, the store not written." in printed
    assert {n: (tmp_path / "out" / n).read_text() for n in OUTPUTS} == {n: clean[n] for n in OUTPUTS}
    monkeypatch.setattr(store, "checksum", real)
    assert cli.main(argv) == 0 and "Scored now 3, from the store 0." in capsys.readouterr().out  # nothing was kept


def test_a_second_build_on_the_same_store_is_refused(demo_solution, tmp_path, capsys):
    """Two output folders sharing one --cache-dir: while one build holds the store, another is BUILD_LOCKED (exit 2,
    nothing written); the output folder's own lock refuses a second build into the same folder (test_leaderboard_
    generations)."""
    subs = build_folder(tmp_path / "subs", demo_solution, SPEC)
    shared = tmp_path / "shared"
    _build(subs, demo_solution, tmp_path / "a", cache_dir=shared)
    holder = Store(shared)
    assert not holder.empty  # opened: this "build" holds the store's transaction
    code = cli.main(["build", str(subs), "--solution", str(demo_solution), "-o", str(tmp_path / "b"),
                     "--cache-dir", str(shared), "--workers", "1", "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and "[BUILD_LOCKED] another build is using the store" in err and "Traceback" not in err
    assert not (tmp_path / "b" / "leaderboard.json").exists()
    holder.close(prune=False)
    assert _build(subs, demo_solution, tmp_path / "b", cache_dir=shared).counts["cached"] == 3


def test_records_scored_by_workers_are_found_by_the_next_build(demo_solution, tmp_path, monkeypatch):
    subs = build_folder(tmp_path / "subs", demo_solution, SPEC)
    out = tmp_path / "out"
    monkeypatch.setattr(scorer, "PARALLEL_MIN_BYTES", 0)  # score in worker processes
    first = build_leaderboard(subs, demo_solution, out, workers=2, resamples=20)
    assert (first.counts["scored"], first.counts["pruned"]) == (3, 0)
    assert store_sql(out / ".cache", "SELECT count(*) FROM records") == [(3,)]
    second = _build(subs, demo_solution, out)
    assert (second.counts["scored"], second.counts["cached"]) == (0, 3) and second.files == first.files


def test_a_solution_replaced_before_the_workers_load_it_is_a_data_error(demo_root, demo_solution, tmp_path,
                                                                        monkeypatch):
    other = tmp_path / "other.parquet"
    build_solution(demo_root, "test", other, seed=3)
    subs = build_folder(tmp_path / "subs", demo_solution, {"a": [("x", 0.3, True), ("y", 0.5, False)]})
    entries = sorted((p for p in subs.rglob("*.csv")), key=str)
    monkeypatch.setattr(scorer, "PARALLEL_MIN_BYTES", 0)  # score in worker processes
    truth = load_solution(demo_solution)  # what the build loaded; the workers load `other`
    with pytest.raises(DataError, match="changed during the build"):
        scorer.score_entries([folder.Entry("a", p.name, p) for p in entries], truth, other, Options(),
                             Store(None), workers=2)


def _count_metadata_reads(monkeypatch) -> list[str]:
    """The metadata files the folder reader opens (by name)."""
    opened: list[str] = []
    real = folder.read_file_stat

    def counted(path, limit):
        opened.append(Path(path).name)
        return real(path, limit)

    monkeypatch.setattr(folder, "read_file_stat", counted)
    return opened


def test_a_warm_rebuild_opens_no_metadata_file(demo_solution, tmp_path, monkeypatch):
    subs = build_folder(tmp_path / "subs", demo_solution, SPEC)
    (subs / "south" / "s1.json").write_text('{"selected": "yes", "extra": 1}')  # notes, kept with the fields
    out = tmp_path / "out"
    first = _build(subs, demo_solution, out)
    opened = _count_metadata_reads(monkeypatch)
    second = _build(subs, demo_solution, out)
    assert opened == [] and second.files == first.files
    assert second.files == cold_files(subs, demo_solution, tmp_path / "cold" / "out")  # (a build without store reads)
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


@pytest.mark.parametrize("table", ["files", "metadata"])
def test_a_damaged_stat_row_is_a_note_and_its_file_is_read_again(demo_solution, tmp_path, monkeypatch, table):
    subs = build_folder(tmp_path / "subs", demo_solution, SPEC)
    out = tmp_path / "out"
    first = _build(subs, demo_solution, out)
    store_sql(out / ".cache", f"UPDATE {table} SET value = value || ' ' WHERE key = (SELECT min(key) FROM {table})")
    second = _build(subs, demo_solution, out)
    assert [n["code"] for n in second.notes] == ["CACHE_ENTRY_CORRUPT"] and table in second.notes[0]["message"]
    assert (second.counts["scored"], second.counts["cached"]) == (0, 3) and second.files == first.files
    third = _build(subs, demo_solution, out)
    assert third.notes == [] and third.files == first.files


def test_rehash_reads_every_file_whatever_the_store_holds(demo_solution, tmp_path):
    """A stat row rewritten with a valid checksum (a tampered store: n1's path now claims s1's bytes) fools a warm
    build (the documented trust in the stat), never --rehash: every file is read and hashed again."""
    subs = build_folder(tmp_path / "subs", demo_solution, SPEC)
    out = tmp_path / "out"
    first = _build(subs, demo_solution, out)
    n1, s1 = str(subs / "north" / "n1.csv"), str(subs / "south" / "s1.csv")
    (stat_n1,) = store_sql(out / ".cache", "SELECT stat FROM files WHERE key = ?", (n1,))[0]
    (sha_s1,) = store_sql(out / ".cache", "SELECT value FROM files WHERE key = ?", (s1,))[0]
    store_sql(out / ".cache", "UPDATE files SET value = ?, checksum = ? WHERE key = ?",
              (sha_s1, store.checksum(n1, stat_n1, sha_s1), n1))
    fooled = _build(subs, demo_solution, out)
    assert next(s for s in fooled.document["submissions"] if s["id"] == "north/n1.csv")["sha256"] == sha_s1
    rehashed = _build(subs, demo_solution, out, rehash=True)
    assert rehashed.notes == [] and rehashed.files == first.files
    assert rehashed.files == cold_files(subs, demo_solution, tmp_path / "cold" / "out")


def test_a_copy_of_a_submission_scored_in_the_same_build_is_not_scored_again(demo_solution, tmp_path):
    """Two new files of the same bytes in a warm build: the second finds the record the first stored (one scoring)."""
    subs = build_folder(tmp_path / "subs", demo_solution, SPEC)
    out = tmp_path / "out"
    _build(subs, demo_solution, out)
    data = rows_for(load_solution(demo_solution), 0.05, 77)
    for name in ("new-a.csv", "new-b.csv"):
        (subs / "south" / name).write_bytes(data)
    second = _build(subs, demo_solution, out)
    assert (second.counts["scored"], second.counts["cached"]) == (1, 4)
    assert second.files == cold_files(subs, demo_solution, tmp_path / "cold" / "out")


def test_names_that_are_not_utf8_are_kept_in_the_store(demo_solution, tmp_path, capsys):
    """A team folder and a file whose names are not UTF-8 (made on another system): the store's keys are text, so
    such a name stopped a default build with an internal error (exit 3, UnicodeEncodeError); a warm build now reads
    them from the store like any other file, and the outputs equal a build without the store."""
    subs = build_folder(tmp_path / "subs", demo_solution, SPEC)
    os.rename(subs / "south", os.path.join(os.fsencode(subs), b"s\xffuth"))
    os.rename(subs / "north" / "n1.csv", os.path.join(os.fsencode(subs / "north"), b"n\xfe1.csv"))
    argv = ["build", str(subs), "--solution", str(demo_solution), "--workers", "1", "--resamples", "20",
            "--no-progress", "--name", "t"]
    assert cli.main([*argv, "-o", str(tmp_path / "plain"), "--no-cache"]) == 0
    assert cli.main([*argv, "-o", str(tmp_path / "out")]) == 0
    assert "Scored now 3, from the store 0." in capsys.readouterr().out
    assert cli.main([*argv, "-o", str(tmp_path / "out")]) == 0
    printed, err = capsys.readouterr()
    assert "Scored now 0, from the store 3." in printed and "Traceback" not in err and "warning" not in err
    assert {n: (tmp_path / "out" / n).read_bytes() for n in OUTPUTS} == \
        {n: (tmp_path / "plain" / n).read_bytes() for n in OUTPUTS}
