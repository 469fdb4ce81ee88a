"""The leaderboard's score cache (tpugraphs_eval.leaderboard.cache): what its key covers, and corrupt entries.

Where expected values come from: a build without any cache against the same solution file (the scores
the cached build must equal), and the bytes of a clean build (what a build over corrupt entries must
write). A solution rebuilt with another seed or public fraction has other Public graphs, hence other
public scores: the cached build must show the new ones, never the old.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from leaderboard_helpers import OUTPUTS, build_folder

from tpugraphs_eval import DataError
from tpugraphs_eval.commands import leaderboard as cli
from tpugraphs_eval.leaderboard import build_leaderboard, cache, scorer
from tpugraphs_eval.leaderboard.cache import ScoreCache, cache_key, solution_digest
from tpugraphs_eval.options import Options
from tpugraphs_eval.truth.solution import build_solution, load_solution, read_manifest

SPEC = {"north": [("n1", 0.2, True), ("n2", 0.6, False)], "south": [("s1", 0.4, True)]}


def _public(document: dict) -> dict[str, float]:
    """Submission id → its public overall."""
    return {s["id"]: s["public"]["overall"] for s in document["submissions"]}


@pytest.mark.parametrize("rebuild", [{"seed": 7}, {"public_fraction": 0.5}], ids=["seed", "public-fraction"])
def test_a_rebuilt_solution_never_reuses_old_records(demo_root, tmp_path, rebuild):
    solution = tmp_path / "solution.parquet"
    build_solution(demo_root, "test", solution)
    subs = build_folder(tmp_path / "subs", solution, SPEC)
    out = tmp_path / "out"
    first = build_leaderboard(subs, solution, out, workers=1, resamples=20)
    assert (first.counts["scored"], first.counts["cached"]) == (3, 0)
    build_solution(demo_root, "test", solution, **rebuild)  # same runtimes, same path: another Usage split
    assert load_solution(solution).sha256 == first.document["solution"]["ground_truth_sha256"]
    second = build_leaderboard(subs, solution, out, workers=1, resamples=20)
    assert (second.counts["scored"], second.counts["cached"], second.counts["pruned"]) == (3, 0, 3)
    fresh = build_leaderboard(subs, solution, tmp_path / "fresh", workers=1, resamples=20, cache_dir=None)
    assert _public(second.document) == _public(fresh.document)  # the new split's scores ...
    assert all(_public(second.document)[i] != v for i, v in _public(first.document).items())  # ... not the old
    third = build_leaderboard(subs, solution, out, workers=1, resamples=20)  # the cache still serves its own
    assert (third.counts["scored"], third.counts["cached"]) == (0, 3) and third.files == second.files


def test_the_key_covers_submission_solution_options_and_version(demo_solution, demo_root, tmp_path, monkeypatch):
    truth, manifest = load_solution(demo_solution), read_manifest(demo_solution)
    digest = solution_digest(truth, manifest)
    base = cache_key("a" * 64, digest, Options().to_dict())
    assert base == cache_key("a" * 64, digest, Options().to_dict())
    assert base != cache_key("b" * 64, digest, Options().to_dict())
    assert base != cache_key("a" * 64, digest, Options(mode="lenient").to_dict())
    assert base != cache_key("a" * 64, digest, Options(tile_runtime="raw").to_dict())
    # one flipped Public graph, or one manifest field, is another solution
    truth.collections["tile:xla"].public[0] = not truth.collections["tile:xla"].public[0]
    assert solution_digest(truth, manifest) != digest
    truth.collections["tile:xla"].public[0] = not truth.collections["tile:xla"].public[0]
    assert solution_digest(truth, manifest) == digest
    assert solution_digest(truth, {**manifest, "usage": {**manifest["usage"], "seed": 1}}) != digest
    assert solution_digest(load_solution(demo_solution, tile_runtime="raw"), manifest) != digest
    monkeypatch.setattr(cache, "__version__", "999.0")
    assert cache_key("a" * 64, digest, Options().to_dict()) != base


def _entry_of(out: Path, submission: Path) -> Path:
    """The cache file holding ``submission``'s record."""
    sha = hashlib.sha256(submission.read_bytes()).hexdigest()
    found = [p for p in (out / ".cache").glob("*.json") if json.loads(p.read_text())["record"]["sha256"] == sha]
    assert len(found) == 1
    return found[0]


def _record_edit(change):
    def edit(path: Path) -> None:
        data = json.loads(path.read_text())
        change(data["record"])
        path.write_text(json.dumps(data))
    return edit


CORRUPTIONS = {
    "truncated-json": lambda p: p.write_bytes(p.read_bytes()[: len(p.read_bytes()) // 2]),
    "empty-file": lambda p: p.write_bytes(b""),
    "not-utf8": lambda p: p.write_bytes(b"\xff\xfe" + p.read_bytes()),
    "not-an-object": lambda p: p.write_text("[1, 2, 3]"),
    "another-key": lambda p: p.write_text(json.dumps({**json.loads(p.read_text()), "key": "0" * 64})),
    "record-not-an-object": lambda p: p.write_text(json.dumps({**json.loads(p.read_text()), "record": "x"})),
    "overall-a-string": _record_edit(lambda r: r["boards"]["public"].update(overall="0.9")),
    "overall-nan": _record_edit(lambda r: r["boards"]["private"].update(overall=float("nan"))),
    "n-rows-a-bool": _record_edit(lambda r: r.update(n_rows=True)),
    "status-unknown": _record_edit(lambda r: r.update(status="great")),
    "problems-not-objects": _record_edit(lambda r: r.update(problems=["x"])),
    "boards-missing": _record_edit(lambda r: r.pop("boards")),
    "collection-unknown": _record_edit(lambda r: r["boards"]["all"]["collections"].update({"tile:nope": 0.5})),
    "per-graph-missing": _record_edit(lambda r: r.pop("per_graph")),
    "per-graph-short": _record_edit(lambda r: r["per_graph"]["public"].update({"tile:xla": "AAAAAAAAAAA="})),
    "per-graph-not-base64": _record_edit(lambda r: r["per_graph"]["private"].update({"tile:xla": "!!"})),
    "another-submission": _record_edit(lambda r: r.update(sha256="0" * 64)),
    "deeply-nested": lambda p: p.write_text("[" * 100_000 + "]" * 100_000),
    "a-fifo": lambda p: (p.unlink(), os.mkfifo(p)),  # read naively, it would block the build for ever
    "a-link": lambda p: (p.rename(p.with_suffix(".real")), p.symlink_to(p.with_suffix(".real").name)),
    "a-folder": lambda p: (p.unlink(), p.mkdir()),
}


def _built_once(demo_solution, tmp_path) -> tuple[list[str], Path, dict[str, bytes]]:
    """SPEC built once through the CLI: (its argv, the entry file of north/n1.csv, the output bytes)."""
    subs = build_folder(tmp_path / "subs", demo_solution, SPEC)
    out = tmp_path / "out"
    argv = ["build", str(subs), "--solution", str(demo_solution), "-o", str(out), "--workers", "1",
            "--resamples", "20", "--no-progress"]
    assert cli.main(argv) == 0
    return argv, _entry_of(out, subs / "north" / "n1.csv"), {n: (out / n).read_bytes() for n in OUTPUTS}


@pytest.mark.parametrize("kind", CORRUPTIONS)
def test_a_corrupt_entry_is_rescored_with_a_note(demo_solution, tmp_path, capsys, kind):
    argv, entry, clean = _built_once(demo_solution, tmp_path)
    out = entry.parent.parent
    capsys.readouterr()
    CORRUPTIONS[kind](entry)
    code = cli.main(argv)
    printed, err = capsys.readouterr()
    assert code == 0 and "Traceback" not in err
    assert "[CACHE_ENTRY_CORRUPT] north/n1.csv: cache entry" in err and "scored again" in err
    assert "Scored now 1, from the cache 2, 1 corrupt cache entries rescored" in printed
    assert {n: (out / n).read_bytes() for n in OUTPUTS} == clean
    json.loads(entry.read_text())  # rewritten whole
    assert cli.main(argv) == 0 and "CACHE_ENTRY_CORRUPT" not in capsys.readouterr().err


def test_a_folder_holding_files_in_place_of_an_entry_is_left_with_a_note_saying_why(demo_solution, tmp_path,
                                                                                     capsys):
    argv, entry, clean = _built_once(demo_solution, tmp_path)
    out = entry.parent.parent
    entry.unlink()
    entry.mkdir()
    (entry / "kept.txt").write_text("not the cache's")
    capsys.readouterr()
    for _ in range(2):  # the cache deletes only files it wrote: the folder stays, and each build says why
        assert cli.main(argv) == 0
        printed, err = capsys.readouterr()
        assert (f"[CACHE_ENTRY_CORRUPT] north/n1.csv: cache entry {entry.name} unusable (a folder, not a file; it "
                "holds files and is left as it is (the cache deletes only files it wrote), so the entry cannot be "
                "rewritten until the folder is removed); scored again") in err
        assert "Scored now 1, from the cache 2, 1 corrupt cache entries rescored" in printed
        assert {n: (out / n).read_bytes() for n in OUTPUTS} == clean
    assert (entry / "kept.txt").read_text() == "not the cache's"


def test_a_solution_replaced_before_the_workers_load_it_is_a_data_error(demo_root, demo_solution, tmp_path,
                                                                        monkeypatch):
    other = tmp_path / "other.parquet"
    build_solution(demo_root, "test", other, seed=3)
    subs = build_folder(tmp_path / "subs", demo_solution, {"a": [("x", 0.3, True), ("y", 0.5, False)]})
    entries = sorted((p for p in subs.rglob("*.csv")), key=str)
    from tpugraphs_eval.leaderboard.folder import Entry

    monkeypatch.setattr(scorer, "PARALLEL_MIN_BYTES", 0)  # score in worker processes
    truth = load_solution(demo_solution)  # what the build loaded; the workers load `other`
    with pytest.raises(DataError, match="changed during the build"):
        scorer.score_entries([Entry("a", p.name, p) for p in entries], truth, other, Options(),
                             ScoreCache(tmp_path / "cache"), workers=2)


def test_entries_written_by_workers_are_found_by_the_next_build(demo_solution, tmp_path, monkeypatch):
    subs = build_folder(tmp_path / "subs", demo_solution, SPEC)
    out = tmp_path / "out"
    monkeypatch.setattr(scorer, "PARALLEL_MIN_BYTES", 0)  # score in worker processes, which write the entries
    first = build_leaderboard(subs, demo_solution, out, workers=2, resamples=20)
    assert (first.counts["scored"], first.counts["pruned"]) == (3, 0)
    assert len(list((out / ".cache").glob("*.json"))) == 3
    second = build_leaderboard(subs, demo_solution, out, workers=1, resamples=20)
    assert (second.counts["scored"], second.counts["cached"]) == (0, 3) and second.files == first.files


def test_a_code_change_under_the_same_version_reuses_nothing(demo_solution, tmp_path, monkeypatch):
    """The key holds the digest of the package's source: a build after a code change (an editable install
    between releases) rescored nothing before and showed the old code's problem messages from the cache."""
    from tpugraphs_eval import source_digest

    truth, manifest = load_solution(demo_solution), read_manifest(demo_solution)
    digest = solution_digest(truth, manifest)
    base = cache_key("a" * 64, digest, Options().to_dict())
    monkeypatch.setattr(cache, "source_digest", lambda: "0" * 64)
    assert cache_key("a" * 64, digest, Options().to_dict()) != base
    # the digest itself: every source file, by path and bytes, computed once per process
    package = source_digest.PACKAGE
    copy = tmp_path / "pkg"
    for path in package.rglob("*.py"):
        (copy / path.relative_to(package)).parent.mkdir(parents=True, exist_ok=True)
        (copy / path.relative_to(package)).write_bytes(path.read_bytes())
    for path in package.rglob("*.c"):
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


def test_an_entry_that_cannot_be_written_is_a_note_and_the_build_goes_on(demo_solution, tmp_path, capsys,
                                                                         monkeypatch):
    subs = build_folder(tmp_path / "subs", demo_solution, SPEC)
    clean = build_leaderboard(subs, demo_solution, tmp_path / "c" / "out", workers=1, resamples=20, cache_dir=None)

    def full_disk(path, write, **options):
        raise OSError(28, "No space left on device", str(path))

    monkeypatch.setattr(cache, "write_atomically", full_disk)
    out = tmp_path / "out"
    argv = ["build", str(subs), "--solution", str(demo_solution), "-o", str(out), "--workers", "1",
            "--resamples", "20", "--no-progress"]
    assert cli.main(argv) == 0
    printed, err = capsys.readouterr()
    assert err.count("[CACHE_ENTRY_UNWRITABLE]") == 3 and "Traceback" not in err
    assert "north/n1.csv: cache entry " in err and "cannot be written (No space left on device)" in err
    assert "Scored now 3, from the cache 0, 3 cache entries not written." in printed
    assert {n: (out / n).read_bytes() for n in OUTPUTS} == {n: t.encode() for n, t in clean.files.items()
                                                           if n in OUTPUTS}


def test_an_entry_a_worker_cannot_write_is_noted_by_the_build(demo_solution, tmp_path, monkeypatch):
    subs = build_folder(tmp_path / "subs", demo_solution, SPEC)
    out = tmp_path / "out"
    first = build_leaderboard(subs, demo_solution, out, workers=1, resamples=20)
    entry = _entry_of(out, subs / "north" / "n1.csv")
    entry.unlink()
    entry.mkdir()  # a folder holding a file: never removed by the cache, so the worker cannot write the entry
    (entry / "kept.txt").write_text("not the cache's")
    monkeypatch.setattr(scorer, "PARALLEL_MIN_BYTES", 0)  # score in worker processes, which write the entries
    second = build_leaderboard(subs, demo_solution, out, workers=2, resamples=20)
    assert [n["code"] for n in second.notes] == ["CACHE_ENTRY_CORRUPT", "CACHE_ENTRY_UNWRITABLE"]
    assert second.notes[1]["message"].startswith(f"north/n1.csv: cache entry {entry.name} cannot be written")
    assert (second.counts["corrupt"], second.counts["unwritable"]) == (1, 1) and second.files == first.files
