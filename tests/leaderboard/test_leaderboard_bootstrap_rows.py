"""The store's bootstrap rows (tpugraphs_eval.leaderboard.store): a warm build takes each final submission's
resampled overalls from them instead of drawing them again, and gives the same bytes.

Where expected values come from: a build without any store (``cache_dir=None``: every final submission resampled
from its per-graph values) with the same seed and number of resamples, whose files a build through the stored rows
must equal byte for byte; the rows the store must hold are the final submissions of the documents (one per
final, :func:`store.row_key`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from leaderboard_helpers import build_folder, store_sql

from tpugraphs_eval.leaderboard import build_leaderboard
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


def test_a_warm_build_takes_the_resampled_overalls_from_the_store_and_gives_the_cold_bytes(demo_solution, tmp_path,
                                                                                           monkeypatch):
    subs = build_folder(tmp_path / "subs", demo_solution, SPEC)
    out = tmp_path / "out"
    cold = _build(subs, demo_solution, tmp_path / "cold" / "out", cache_dir=None)
    first = _build(subs, demo_solution, out)
    assert first.files == cold.files
    rows = store_sql(out / ".cache", "SELECT length(row) FROM bootstrap")
    assert len(rows) == _finals(first.document) == 4 and set(rows) == {(8 * 20,)}
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
    assert store_sql(out / ".cache", "SELECT count(*) FROM bootstrap") == [(4,)]  # that build's rows only
    asked.clear()
    assert _build(subs, demo_solution, out).files == first.files and len(set(asked)) == 4


@pytest.mark.parametrize("damage", ["a bit flipped", "cut short"])
def test_a_damaged_row_is_a_note_and_that_final_is_resampled(demo_solution, tmp_path, monkeypatch, damage):
    subs = build_folder(tmp_path / "subs", demo_solution, SPEC)
    out = tmp_path / "out"
    first = _build(subs, demo_solution, out)
    key, row = store_sql(out / ".cache", "SELECT key, row FROM bootstrap ORDER BY key LIMIT 1")[0]
    changed = row[:5] + bytes([row[5] ^ 0x10]) + row[6:] if damage == "a bit flipped" else row[:-8]
    store_sql(out / ".cache", "UPDATE bootstrap SET row = ? WHERE key = ?", (changed, key))
    asked = _count_per_graph(monkeypatch)
    second = _build(subs, demo_solution, out)
    assert [n["code"] for n in second.notes] == ["CACHE_ENTRY_CORRUPT"] and "bootstrap" in second.notes[0]["message"]
    assert len(set(asked)) == 1 and second.files == first.files  # that final only, resampled: the same bytes
    asked.clear()
    third = _build(subs, demo_solution, out)
    assert asked == [] and third.notes == [] and third.files == first.files
