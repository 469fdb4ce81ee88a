"""Score every submission of a folder through :func:`tpugraphs_eval.score_submission`, on several cores.

The one scoring path: each submission's bytes go to ``score_submission(data, truth, options)``, the report cut down
to a :class:`record.Record` (:func:`record_of`). Workers are processes of a :class:`ProcessPoolExecutor` that load
the solution once each; results are placed by submission index, so the output does not depend on which finishes
first. Unchanged submissions come from the store (:mod:`store`), which only this process reads and writes.
"""

from __future__ import annotations

import hashlib
import itertools
import multiprocessing
import os
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from ..api import score_submission
from ..display import shorten
from ..errors import DataError
from ..options import Options
from ..report.report import LEADERBOARDS
from ..rules.metric_table import beside_primary
from ..scoring.score import CollectionResult
from ..truth.groundtruth import GroundTruth
from ..truth.solution import load_solution, read_manifest
from .codes import note
from .folder import Entry
from .reading import DEFAULT_MAX_BYTES, RefusedFile, read_file_stat, stat_readable
from .record import BoardScores, Record, encode_array
from .store import Store, record_keyer, solution_digest

MAX_PROBLEMS_LISTED = 100
"""Problems of one submission listed in the leaderboard; ``problem_counts`` and ``n_errors`` count them all
(the full list: ``tpugraphs-eval`` on the file)."""
MAX_ECHO_CHARS = {"id": 120, "message": 400}
"""Longest ``id`` and ``message`` of a listed problem, in characters: longer ones are shortened
(:func:`display.shorten`), so one huge line cannot make a huge leaderboard."""
IN_FLIGHT_PER_WORKER = 4
"""Submissions queued per worker (the queue holds entries; each worker reads its files itself)."""
PARALLEL_MIN_BYTES = 32 << 20
"""Submissions to score totalling fewer bytes are scored in this process: starting a worker (a fresh
interpreter that loads the solution) costs about as much as scoring 20 MB of CSV (bench/README.md)."""


def listed_problems(problems: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The first :data:`MAX_PROBLEMS_LISTED` problems (``{line, id, code, severity, message}`` dicts), their
    ``id`` and ``message`` shortened to :data:`MAX_ECHO_CHARS`, then one ``PROBLEMS_NOT_LISTED`` note
    counting the rest. Idempotent."""
    shown = [{**p, **{k: shorten(p[k], n) for k, n in MAX_ECHO_CHARS.items() if isinstance(p.get(k), str)}}
             for p in problems[:MAX_PROBLEMS_LISTED]]
    rest = problems[MAX_PROBLEMS_LISTED:]
    if len(rest) == 1 and rest[0].get("code") == "PROBLEMS_NOT_LISTED":
        shown += rest  # listed already
    elif rest:
        shown.append({"line": None, "id": None, **note("PROBLEMS_NOT_LISTED", f"{len(rest)} more problems are not "
                                                       "listed here (problem_counts counts them all)")})
    return shown


def secondary_means(collections: dict[str, CollectionResult]) -> dict[str, dict[str, float | None]]:
    """Collection → {metric: its mean where defined (None: nowhere)} for the metric shown beside the collection's
    value (:func:`..rules.metric_table.beside_primary`: layout ``opa``; tile collections have none and no entry)."""
    return {name: {metric.name: result.means()[metric.name]} for name, result in collections.items()
            if (metric := beside_primary(result.collection.kind)) is not None}


def record_of(data: bytes, truth: GroundTruth, options: Options) -> Record:
    """Score one submission and keep what the leaderboard needs: a :class:`record.Record`, ``scored`` or
    ``invalid`` (its fields: :class:`record.Record`; ``boards`` from the report's
    :class:`tpugraphs_eval.report.report.Scores`, with :func:`secondary_means`)."""
    report = score_submission(data, truth, options)
    record = Record("scored" if report.valid and report.scored else "invalid",
                    listed_problems([p.to_dict() for p in report.problems]), report.provenance["submission_sha256"],
                    report.n_rows, report.n_errors, dict(sorted(report.validation.counts.items())))
    if record.scored:
        boards = {**{b: report.leaderboards[b] for b in LEADERBOARDS}, "all": report.scores}
        record.boards = {b: BoardScores(scores.overall, {name: r.value for name, r in scores.collections.items()},
                                        secondary_means(scores.collections))
                         for b, scores in boards.items()}
        record.per_graph = {b: {name: encode_array(r.per_graph[r.metric])
                                for name, r in report.leaderboards[b].collections.items()}
                            for b in LEADERBOARDS}
    return record


_WORKER: dict[str, Any] = {}


def _init_worker(solution: str, digest: str, options: Options, max_bytes: int) -> None:
    """Worker initializer: load the solution once per process; note whether it is the one the build loaded
    (``digest``: :func:`store.solution_digest`), which it is not if the file was replaced meanwhile."""
    truth = load_solution(Path(solution), tile_runtime=options.tile_runtime)
    _WORKER.update(truth=truth, options=options, max_bytes=max_bytes, solution=solution,
                   changed=solution_digest(truth, read_manifest(Path(solution))) != digest)


def _score_in_worker(entry: Entry) -> tuple[Record, os.stat_result | None]:
    """:func:`_score` in a worker (which reads the file: no file travels between processes); a :class:`DataError`
    when the solution it loaded is not the build's (:func:`_init_worker`)."""
    if _WORKER["changed"]:
        raise DataError(f"the solution file {_WORKER['solution']} changed during the build: build again")
    return _score(entry, _WORKER["truth"], _WORKER["options"], _WORKER["max_bytes"])


def _score(entry: Entry, truth: GroundTruth, options: Options, max_bytes: int) -> tuple[Record, os.stat_result | None]:
    """Read and score one submission: its record, and the file's ``stat`` when read (for
    :meth:`store.Store.remember`)."""
    read = _read(entry, max_bytes)
    if isinstance(read, Record):
        return read, None
    return record_of(read[0], truth, options), read[1]


def _read(entry: Entry, max_bytes: int) -> tuple[bytes, os.stat_result] | Record:
    """The file's bytes and ``stat`` (read without following a link: :func:`reading.read_file_stat`), or an
    unread record."""
    try:
        return read_file_stat(entry.path, max_bytes)
    except RefusedFile as refused:
        hint = " (--max-size)" if refused.code == "SUBMISSION_TOO_LARGE" else ""
        return Record.unread(note(refused.code, f"{entry.id}: {refused.reason}{hint}"))


def _size(entry: Entry) -> int | Record:
    """The file's size, or an unread record when it cannot be looked at (the scorer reads it later)."""
    try:
        return os.stat(entry.path, follow_symlinks=False).st_size
    except OSError as err:
        return Record.unread(note("SUBMISSION_UNREADABLE", f"{entry.id}: {err.strerror or err}"))


class ScoringFailed(RuntimeError):
    """Scoring a submission raised (a bug in the evaluator) or a worker died."""


class _Pass:
    """One build's records (by entry index) and counts, found in the store or scored."""

    def __init__(self, entries: list[Entry], store: Store, key_of: Callable[[str], str], max_bytes: int,
                 rehash: bool, advance: Callable[[int], None] | None) -> None:
        self.entries, self.store, self.key_of, self.max_bytes, self.rehash = entries, store, key_of, max_bytes, rehash
        self.records: list[Record | None] = [None] * len(entries)
        self.counts = {"cached": 0, "scored": 0, "unread": 0}
        self.advance = advance or (lambda n: None)

    def _keep(self, i: int, record: Record, count: str) -> None:
        self.records[i] = record
        self.counts[count] += 1
        self.advance(1)

    def _found(self, i: int, sha: str) -> bool:
        """Take entry ``i``'s record from the store when it holds one for bytes of that sha256."""
        record = self.store.get(self.key_of(sha), self.entries[i].id)
        if record is not None:
            self._keep(i, record, "cached")
        return record is not None

    def misses(self) -> Iterator[tuple[int, int]]:
        """The first pass, lazily: ``(index, size)`` of each entry the store holds no record of."""
        empty = self.store.empty  # nothing to find: no need to read and hash here
        for i, entry in enumerate(self.entries):
            info = None if empty or self.rehash else stat_readable(entry.path, self.max_bytes)
            sha = None if info is None else self.store.known("files", entry.path, info)
            if sha is not None:  # unchanged since read: its bytes are not read again
                if not self._found(i, sha):
                    yield i, info.st_size
                continue
            data = _size(entry) if empty else _read(entry, self.max_bytes)
            if isinstance(data, Record):
                self._keep(i, data, "unread")
            elif isinstance(data, int):
                yield i, data if data <= self.max_bytes else 0  # too large: recorded unread by the scorer
            else:
                sha = hashlib.sha256(data[0]).hexdigest()
                self.store.remember("files", entry.path, data[1], sha)
                if not self._found(i, sha):
                    yield i, len(data[0])

    def done(self, i: int, result: tuple[Record, os.stat_result | None]) -> None:
        """Keep entry ``i``'s record scored now (stored under the hash of the bytes actually scored, the report's)."""
        record, info = result
        unread = record.status == "error"  # unreadable or too large (found by the scorer's read)
        if not unread:
            if info is not None:
                self.store.remember("files", self.entries[i].path, info, record.sha256)
            self.store.put(self.key_of(record.sha256), record)
        self._keep(i, record, "unread" if unread else "scored")


def score_entries(entries: list[Entry], truth: GroundTruth, solution: Path, options: Options, store: Store, *,
                  workers: int = 2, max_bytes: int = DEFAULT_MAX_BYTES, rehash: bool = False,
                  advance: Callable[[int], None] | None = None) -> tuple[list[Record], dict[str, int]]:
    """A record per entry (same order as ``entries``), and counts ``{cached, scored, unread}``.

    Two passes: the first finds each file in the store (one whose stat is unchanged is not read:
    :meth:`store.Store.known`, docs/leaderboard.md, "Warm rebuilds"; any other is read and hashed here); the
    misses are read again and scored, in ``workers`` processes (starting while the first pass goes on) once they total
    :data:`PARALLEL_MIN_BYTES`, else here. A new record is stored under the hash of the bytes actually scored (the
    report's ``submission_sha256``), so a file changed between the passes is never mis-keyed.

    Args:
        entries: the submissions (:func:`folder.read_folder`); options: validation and scoring options.
        truth: the loaded solution (used here for few submissions or ``workers <= 1``); solution: its path (each
            worker process loads it once).
        store: where records are found and kept, under :func:`store.record_keyer` of the
            :func:`store.solution_digest` of ``truth`` and ``solution``'s manifest.
        workers: processes scoring in parallel; max_bytes: larger submissions are not read (``SUBMISSION_TOO_LARGE``).
        rehash: trust no stat match (``--rehash``); advance: called with 1 after each submission (a progress bar).

    Raises:
        ScoringFailed: the evaluator raised on a submission (a bug), or a worker died.
        DataError: the solution file was replaced while workers loaded it.
    """
    digest = solution_digest(truth, read_manifest(solution))
    scoring = _Pass(entries, store, record_keyer(digest, options.to_dict()), max_bytes, rehash, advance)
    misses, first, total = scoring.misses(), [], 0
    while workers > 1 and total < PARALLEL_MIN_BYTES and (miss := next(misses, None)) is not None:
        first.append(miss[0])  # the first pass until its misses total PARALLEL_MIN_BYTES: then workers start
        total += miss[1]
    todo = itertools.chain(first, (i for i, _ in misses))
    if workers <= 1 or total < PARALLEL_MIN_BYTES:
        for i in todo:
            try:
                result = _score(entries[i], truth, options, max_bytes)
            except Exception as err:
                raise ScoringFailed(f"scoring {entries[i].id} failed: {type(err).__name__}: {err}") from err
            scoring.done(i, result)
    else:
        _parallel(todo, entries, solution, digest, options, workers, max_bytes, scoring.done)
    return scoring.records, scoring.counts  # type: ignore[return-value]


def _parallel(todo: Iterator[int], entries: list[Entry], solution: Path, digest: str, options: Options, workers: int,
              max_bytes: int, done: Callable[[int, tuple[Record, os.stat_result | None]], None]) -> None:
    """Score ``todo`` in worker processes, calling ``done`` with what :func:`_score_in_worker` returned, in index
    order of each batch finished."""
    pending: dict[Future, int] = {}
    # never a plain fork of this process, whose polars thread pool would deadlock in the child (polars documents this)
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context(method),
                             initializer=_init_worker, initargs=(str(solution), digest, options, max_bytes)) as pool:
        while True:
            for i in itertools.islice(todo, workers * IN_FLIGHT_PER_WORKER - len(pending)):
                pending[pool.submit(_score_in_worker, entries[i])] = i
            if not pending:
                break
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in sorted(finished, key=pending.__getitem__):
                i = pending.pop(future)
                try:
                    result = future.result()
                except BrokenProcessPool as err:
                    raise ScoringFailed(f"a scoring worker died while scoring {entries[i].id} "
                                        "(out of memory?)") from err
                except DataError:
                    raise
                except Exception as err:
                    raise ScoringFailed(f"scoring {entries[i].id} failed: {type(err).__name__}: {err}") from err
                done(i, result)
