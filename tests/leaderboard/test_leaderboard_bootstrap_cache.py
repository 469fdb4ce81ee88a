"""The bootstrap cache (tpugraphs_eval.leaderboard.bootstrap_cache): a warm build takes each final submission's
resampled overalls from it instead of drawing them again, and gives the same bytes.

Where expected values come from: a build without any cache (``cache_dir=None``: every final submission resampled
from its per-graph values) with the same seed and number of resamples, whose files a build through the bootstrap
cache must equal byte for byte; the rows the file must hold are the final submissions of the documents (one per
final, :func:`bootstrap_cache.row_key`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from leaderboard_helpers import build_folder

from tpugraphs_eval.leaderboard import bootstrap_cache, build_leaderboard
from tpugraphs_eval.leaderboard.bootstrap_cache import BOOTSTRAP_FILE, read_rows
from tpugraphs_eval.leaderboard.record import Record

SPEC = {"north": [("n1", 0.2, True), ("n2", 0.6, False)], "south": [("s1", 0.4, True)],
        "west": [("w1", 0.3, False), ("w2", 0.5, False)]}  # west selects none: its 2 best public submissions count


def _build(subs: Path, solution: Path, out: Path, **options):
    return build_leaderboard(subs, solution, out, workers=1, **{"resamples": 20, **options})


def _count_per_graph(monkeypatch) -> list[str]:
    """The records asked for their per-graph values (by sha256)."""
    asked: list[str] = []
    real = Record.per_graph_values

    def counted(self, board, collection):
        asked.append(self.sha256)
        return real(self, board, collection)

    monkeypatch.setattr(Record, "per_graph_values", counted)
    return asked


def _finals(document: dict) -> int:
    return sum(len(t["final_submissions"]) for t in document["teams"] if t["rank"] is not None)


def test_a_warm_build_takes_the_resampled_overalls_from_the_cache_and_gives_the_cold_bytes(demo_solution, tmp_path,
                                                                                           monkeypatch):
    subs = build_folder(tmp_path / "subs", demo_solution, SPEC)
    out = tmp_path / "out"
    cold = _build(subs, demo_solution, tmp_path / "cold" / "out", cache_dir=None)
    first = _build(subs, demo_solution, out)
    assert first.files == cold.files
    resamples, keys, rows = read_rows((out / ".cache" / BOOTSTRAP_FILE).read_bytes())
    assert resamples == 20 and len(keys) == _finals(first.document) == 4 and rows.shape == (4, 20)
    asked = _count_per_graph(monkeypatch)
    second = _build(subs, demo_solution, out)
    assert asked == [] and second.notes == [] and second.files == cold.files


@pytest.mark.parametrize("other", [{"seed": 1}, {"resamples": 30}], ids=["another-seed", "more-resamples"])
def test_rows_of_other_draws_are_not_used(demo_solution, tmp_path, monkeypatch, other):
    subs = build_folder(tmp_path / "subs", demo_solution, SPEC)
    out = tmp_path / "out"
    first = _build(subs, demo_solution, out)
    asked = _count_per_graph(monkeypatch)
    second = _build(subs, demo_solution, out, **other)
    assert len(set(asked)) == 4  # every final resampled again, from its per-graph values
    cold = _build(subs, demo_solution, tmp_path / "cold" / "out", cache_dir=None, **other)
    assert second.files == cold.files and second.files != first.files  # the other draws' intervals
    _, keys, _ = read_rows((out / ".cache" / BOOTSTRAP_FILE).read_bytes())
    assert len(keys) == 4  # exactly that build's rows: the first build's are gone
    asked.clear()
    assert _build(subs, demo_solution, out).files == first.files and len(set(asked)) == 4


def _parts(path: Path) -> tuple[bytes, bytes, bytes]:
    head, _, rest = path.read_bytes().partition(b"\n")
    meta, _, blob = rest.partition(b"\n")
    return head, meta, blob


def _sealed(meta: bytes, blob: bytes) -> bytes:
    import hashlib

    rest = meta + b"\n" + blob
    return json.dumps({"format": 1, "sha256": hashlib.sha256(rest).hexdigest()}).encode() + b"\n" + rest


DAMAGE = {
    "empty": lambda p: p.write_bytes(b""),
    "header-not-json": lambda p: p.write_bytes(b"{x" + p.read_bytes()),
    "other-format": lambda p: p.write_bytes(p.read_bytes().replace(b'"format": 1', b'"format": 9', 1)),
    "truncated": lambda p: p.write_bytes(p.read_bytes()[:-8]),
    "a-value-changed": lambda p: p.write_bytes(p.read_bytes()[:-1] + bytes([p.read_bytes()[-1] ^ 0x40])),
    "keys-altered": lambda p: p.write_bytes(p.read_bytes().replace(b'"keys": ["', b'"keys": ["0', 1)),
    "rows-of-another-length": lambda p: p.write_bytes(_sealed(_parts(p)[1], _parts(p)[2][:-8])),
    "meta-not-json": lambda p: p.write_bytes(_sealed(b"{x", _parts(p)[2])),
    "a-folder": lambda p: (p.unlink(), p.mkdir()),
    "a-link": lambda p: (p.rename(p.with_name("real")), p.symlink_to("real")),
}


@pytest.mark.parametrize("kind", DAMAGE)
def test_a_damaged_bootstrap_cache_is_a_note_and_every_final_is_resampled(demo_solution, tmp_path, monkeypatch, kind):
    subs = build_folder(tmp_path / "subs", demo_solution, SPEC)
    out = tmp_path / "out"
    first = _build(subs, demo_solution, out)
    path = out / ".cache" / BOOTSTRAP_FILE
    DAMAGE[kind](path)
    asked = _count_per_graph(monkeypatch)
    second = _build(subs, demo_solution, out)
    codes = [n["code"] for n in second.notes]
    assert codes[0] == "CACHE_ENTRY_CORRUPT" and BOOTSTRAP_FILE in second.notes[0]["message"]
    assert len(set(asked)) == 4 and second.files == first.files
    if kind != "a-folder":  # a folder is not replaced (written over: the note says it cannot be written)
        assert codes == ["CACHE_ENTRY_CORRUPT"]
        read_rows(path.read_bytes())  # rewritten whole
        asked.clear()
        third = _build(subs, demo_solution, out)
        assert asked == [] and third.notes == [] and third.files == first.files


def test_a_bootstrap_cache_that_cannot_be_written_is_a_note_and_the_build_goes_on(demo_solution, tmp_path,
                                                                                  monkeypatch):
    subs = build_folder(tmp_path / "subs", demo_solution, SPEC)
    cold = _build(subs, demo_solution, tmp_path / "cold" / "out", cache_dir=None)

    def full_disk(path, write, **options):
        raise OSError(28, "No space left on device", str(path))

    monkeypatch.setattr(bootstrap_cache, "write_atomically", full_disk)
    result = _build(subs, demo_solution, tmp_path / "out")
    assert [n["code"] for n in result.notes] == ["CACHE_ENTRY_UNWRITABLE"]
    assert result.notes[0]["message"].startswith(f"{BOOTSTRAP_FILE}: the bootstrap cache cannot be written")
    assert result.counts["unwritable"] == 1 and result.files == cold.files
