"""Warm rebuilds read no submission bytes: the store's file stats (issue 17 item 4, issue 21 item 3;
docs/leaderboard.md, "Warm rebuilds").

Where expected values come from: a build without any cache on the same folder (``cache_dir=None``: every file read
and scored), whose files a warm build must equal byte for byte, and the sha256 of the bytes a file holds (what the
leaderboard must show once the file is read again). Files are changed in place with ``os.utime`` restoring the
recorded ``st_mtime_ns``, so only the stat fields the index compares differ (or none, for the case it cannot see).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import replace
from pathlib import Path

import pytest
from leaderboard_helpers import build_folder, cold_files, store_sql

from tpugraphs_eval import DataError
from tpugraphs_eval.commands import leaderboard as cli
from tpugraphs_eval.leaderboard import build_leaderboard, scorer
from tpugraphs_eval.leaderboard.folder import read_folder
from tpugraphs_eval.leaderboard.scorer import score_entries
from tpugraphs_eval.leaderboard.store import Store
from tpugraphs_eval.options import Options
from tpugraphs_eval.truth.solution import load_solution

SPEC = {"north": [("n1", 0.2, True), ("n2", 0.6, False)], "south": [("s1", 0.4, True)]}


def _forbid_reads(monkeypatch) -> list[str]:
    """Make the scorer's read of a submission fail the test; returns the list of paths it was asked to read
    (a read that is allowed: none here)."""
    asked: list[str] = []

    def refuse(path, max_bytes):
        asked.append(str(path))
        raise AssertionError(f"a warm rebuild read the submission {path}")

    monkeypatch.setattr(scorer, "read_file_stat", refuse)
    return asked


def _reversed_layout_row(data: bytes) -> bytes:
    """The same bytes with the longest row's configurations in reverse order: same size, another ranking."""
    lines = data.split(b"\n")
    k = max(range(1, len(lines)), key=lambda i: lines[i].count(b";"))
    graph, configs = lines[k].split(b",")
    lines[k] = graph + b"," + b";".join(reversed(configs.split(b";")))
    changed = b"\n".join(lines)
    assert len(changed) == len(data) and changed != data
    return changed


def _submission(document: dict, sub_id: str) -> dict:
    return next(s for s in document["submissions"] if s["id"] == sub_id)


@pytest.mark.parametrize("workers", [1, 2], ids=["in-process", "workers"])
def test_a_warm_rebuild_reads_no_submission_bytes(demo_solution, tmp_path, monkeypatch, workers):
    subs = build_folder(tmp_path / "subs", demo_solution, SPEC)
    out = tmp_path / "out"
    monkeypatch.setattr(scorer, "PARALLEL_MIN_BYTES", 0)  # with 2 workers: the files are read in the workers
    first = build_leaderboard(subs, demo_solution, out, workers=workers, resamples=20)
    assert (first.counts["scored"], first.counts["cached"]) == (3, 0)
    assert first.files == cold_files(subs, demo_solution, tmp_path / "cold" / "out")
    asked = _forbid_reads(monkeypatch)
    second = build_leaderboard(subs, demo_solution, out, workers=1, resamples=20)
    assert asked == []
    assert (second.counts["scored"], second.counts["cached"]) == (0, 3) and second.notes == []
    assert second.files == first.files


def test_a_file_rewritten_in_place_with_size_and_mtime_kept_reuses_the_cached_score(demo_solution, tmp_path):
    """What the stat pre-check trusts (docs/leaderboard.md): same size, mtime and inode are the same bytes. A
    file rewritten in place with its mtime restored is not read, so its old score stays; ``--rehash`` reads it."""
    subs = build_folder(tmp_path / "subs", demo_solution, SPEC)
    out = tmp_path / "out"
    first = build_leaderboard(subs, demo_solution, out, workers=1, resamples=20)
    path = subs / "north" / "n1.csv"
    before = os.stat(path)
    old_sha = hashlib.sha256(path.read_bytes()).hexdigest()
    changed = _reversed_layout_row(path.read_bytes())
    with open(path, "r+b") as handle:  # in place: the inode stays
        handle.write(changed)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = os.stat(path)
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (before.st_size, before.st_mtime_ns, before.st_ino)
    second = build_leaderboard(subs, demo_solution, out, workers=1, resamples=20)
    assert (second.counts["scored"], second.counts["cached"]) == (0, 3)
    assert second.files == first.files and _submission(second.document, "north/n1.csv")["sha256"] == old_sha
    rehashed = build_leaderboard(subs, demo_solution, out, workers=1, resamples=20, rehash=True)
    assert (rehashed.counts["scored"], rehashed.counts["cached"]) == (1, 2)
    assert _submission(rehashed.document, "north/n1.csv")["sha256"] == hashlib.sha256(changed).hexdigest()
    assert rehashed.files == cold_files(subs, demo_solution, tmp_path / "cold" / "out") != first.files


def test_the_rehash_option_reads_every_file(demo_solution, tmp_path, monkeypatch, capsys):
    subs = build_folder(tmp_path / "subs", demo_solution, SPEC)
    out = tmp_path / "out"
    argv = ["build", str(subs), "--solution", str(demo_solution), "-o", str(out), "--workers", "1",
            "--resamples", "20", "--no-progress"]
    assert cli.main(argv) == 0
    read: list[str] = []
    real = scorer.read_file_stat
    monkeypatch.setattr(scorer, "read_file_stat", lambda path, limit: read.append(Path(path).name) or real(path, limit))
    assert cli.main(argv) == 0
    assert read == [] and "Scored now 0, from the store 3." in capsys.readouterr().out
    assert cli.main([*argv, "--rehash"]) == 0
    assert sorted(read) == ["n1.csv", "n2.csv", "s1.csv"]  # each read once, and found in the store
    assert "Scored now 0, from the store 3." in capsys.readouterr().out


def _same_size_other_mtime(path: Path, changed: bytes, before: os.stat_result) -> None:
    with open(path, "r+b") as handle:
        handle.write(changed)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000))


def _other_size_same_mtime(path: Path, changed: bytes, before: os.stat_result) -> None:
    with open(path, "r+b") as handle:
        handle.write(changed + b"\n")  # a trailing blank line: still a valid submission, one byte longer
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def _other_inode_same_size_and_mtime(path: Path, changed: bytes, before: os.stat_result) -> None:
    path.with_name("new.tmp").write_bytes(changed)  # kept until the rename, so the inode cannot be reused
    os.replace(path.with_name("new.tmp"), path)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


@pytest.mark.parametrize("change", [_same_size_other_mtime, _other_size_same_mtime, _other_inode_same_size_and_mtime],
                         ids=["mtime", "size", "inode"])
def test_a_changed_size_mtime_or_inode_is_read_again(demo_solution, tmp_path, change):
    subs = build_folder(tmp_path / "subs", demo_solution, SPEC)
    out = tmp_path / "out"
    build_leaderboard(subs, demo_solution, out, workers=1, resamples=20)
    path = subs / "south" / "s1.csv"
    before = os.stat(path)
    changed = _reversed_layout_row(path.read_bytes())
    change(path, changed, before)
    after = os.stat(path)
    differs = [after.st_size != before.st_size, after.st_mtime_ns != before.st_mtime_ns,
               after.st_ino != before.st_ino]
    assert sum(differs) == 1  # exactly the one field the case is about
    second = build_leaderboard(subs, demo_solution, out, workers=1, resamples=20)
    assert (second.counts["scored"], second.counts["cached"]) == (1, 2)
    assert _submission(second.document, "south/s1.csv")["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert second.files == cold_files(subs, demo_solution, tmp_path / "cold" / "out")
    assert store_sql(out / ".cache", "SELECT stat, value FROM files WHERE key = ?", (str(path),)) == [(
        f"{after.st_size}:{after.st_mtime_ns}:{after.st_ino}", hashlib.sha256(path.read_bytes()).hexdigest())]


def test_a_stat_match_whose_record_is_gone_is_scored_again(demo_solution, tmp_path):
    subs = build_folder(tmp_path / "subs", demo_solution, SPEC)
    out = tmp_path / "out"
    first = build_leaderboard(subs, demo_solution, out, workers=1, resamples=20)
    store_sql(out / ".cache", "DELETE FROM records WHERE key = (SELECT min(key) FROM records)")  # its file still known
    second = build_leaderboard(subs, demo_solution, out, workers=1, resamples=20)
    assert (second.counts["scored"], second.counts["cached"]) == (1, 2) and second.files == first.files
    assert second.notes == [] and store_sql(out / ".cache", "SELECT count(*) FROM records") == [(3,)]


def _scored(entries, truth, solution, folder: Path) -> tuple[list, dict, Store]:
    store = Store(folder)
    records, counts = score_entries(entries, truth, solution, Options(), store, workers=1)
    return records, counts, store


def test_a_stored_record_reads_its_per_graph_values_only_when_needed(demo_solution, tmp_path):
    """A record from the store keeps no per-graph values (most of a record's memory) until asked for them; then
    they are those stored, and of a record scored now. A row changed by then is a DataError, not a crash."""
    subs = build_folder(tmp_path / "subs", demo_solution, SPEC)
    truth = load_solution(demo_solution)
    entries = read_folder(subs).entries
    fresh, _, store = _scored(entries, truth, demo_solution, tmp_path / "cache")
    store.close(prune=True)
    cached, counts, store = _scored(entries, truth, demo_solution, tmp_path / "cache")
    assert counts["cached"] == 3 and all(r.per_graph == {} and r.load_per_graph is not None for r in cached)
    assert cached == [replace(r, per_graph={}) for r in fresh]  # all else equal; per_graph empty ...
    for mine, theirs in zip(cached, fresh, strict=True):
        for board in ("public", "private"):
            for name in truth.collections:
                assert mine.per_graph_values(board, name).tobytes() == theirs.per_graph_values(board, name).tobytes()
        assert mine.per_graph == theirs.per_graph and mine.load_per_graph is None  # ... until loaded
    again, _ = score_entries(entries, truth, demo_solution, Options(), store, workers=1)
    store.db.execute("UPDATE records SET per_graph = 'x'")  # (as no other build can while this one holds the store)
    with pytest.raises(DataError, match="changed during the build"):
        again[0].per_graph_values("public", next(iter(truth.collections)))
    store.close(prune=False)
