"""Build a leaderboard: submissions folder + solution file → ``leaderboard.{csv,md,json,html}``.

The straight line: :mod:`folder` → :mod:`scorer` (one record per submission, kept in :mod:`store`) →
:mod:`assemble` (:mod:`standings`, :mod:`uncertainty`: the document) → :mod:`render_text` / :mod:`render_html` →
:mod:`output` (a new generation, switched to at once, under a lock on the output folder).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..errors import DataError, UsageError
from ..options import Options
from ..scoring.noisefile import attach_noise
from ..truth.groundtruth import GroundTruth
from ..truth.solution import load_solution, read_manifest
from .assemble import VIEWS, assemble, tally
from .folder import Folder, read_folder
from .noise_note import noise_note
from .output import build_lock, check_output_folder, render_all, write_outputs
from .reading import DEFAULT_MAX_BYTES
from .scorer import score_entries
from .standings import DEFAULT_MAX_DAILY
from .store import Store
from .uncertainty import DEFAULT_RESAMPLES, DEFAULT_SEED

CACHE_FOLDER = ".cache"
"""The default cache folder's name inside the output folder (it holds the store, :data:`store.STORE_FILE`)."""


class _DefaultCache:
    def __repr__(self) -> str:
        return "DEFAULT_CACHE"


DEFAULT_CACHE = _DefaultCache()
"""``cache_dir``'s default: ``OUT/.cache`` for the organiser view, no store for the public view."""


def default_workers() -> int:
    """The CPUs this process may run on (``os.sched_getaffinity``), else ``os.cpu_count()``."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


@dataclass
class BuildResult:
    """What a build did.

    Attributes:
        document: the leaderboard document (``leaderboard.json``'s content).
        files: output file name → text written.
        counts: ``cached`` (records from the store), ``scored`` (scored now), ``unread`` (too large or
            unreadable), ``pruned`` (stale records deleted from the store), ``corrupt`` (damaged rows of the store,
            not used), ``unwritable`` (1 when the store could not be written).
        tally: what the build found (:func:`assemble.tally`: teams, ranked teams, submissions by status,
            ignored entries), whatever the view.
        notes: the store's notes (:attr:`store.Store.notes`), not part of any output (the outputs depend on the
            inputs only).
        seconds: wall time of each step: ``read`` (folder and solution), ``score``, ``assemble``
            (standings and bootstrap), ``write`` (render and write). Not part of any output.
    """

    document: dict[str, Any]
    files: dict[str, str]
    counts: dict[str, int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    tally: dict[str, int] = field(default_factory=dict)
    notes: list[dict[str, Any]] = field(default_factory=list)


def _check_options(view: str, options: Options, resamples: int, max_bytes: int, max_daily: int) -> None:
    if view not in VIEWS:
        raise UsageError(f"view must be one of {', '.join(VIEWS)}, not {view!r}")
    if options.configs != "all":
        raise UsageError("a leaderboard scores all configs (--configs all, the Kaggle test protocol)")
    if resamples < 1:
        raise UsageError(f"the number of bootstrap resamples must be at least 1, not {resamples}")
    if max_bytes < 1:
        raise UsageError(f"the size limit must be positive, not {max_bytes}")
    if max_daily < 0:
        raise UsageError(f"the daily submission limit must be 0 (none) or more, not {max_daily}")


def _cache_folder(submissions: Path, out: Path, view: str, cache_dir: Path | None | _DefaultCache) -> Path | None:
    """The folder of this build's store (None: none), after refusing an output folder that cannot be one or lies
    inside ``submissions``, and a public build whose store or folder would hold private scores where it is published."""
    check_output_folder(out)  # before anything is read or a cache folder is made under it
    subs, target = submissions.resolve(), out.resolve()
    if target == subs or subs in target.parents:
        raise UsageError(f"the output folder {out} is inside the submissions folder {submissions}: the next build "
                         "would read it as a team; write the leaderboard elsewhere")
    if view != "public":
        return out / CACHE_FOLDER if isinstance(cache_dir, _DefaultCache) else cache_dir
    if os.path.lexists(out / CACHE_FOLDER):
        raise UsageError(f"{out} holds an organiser build's store {CACHE_FOLDER} (private scores): build the public "
                         f"leaderboard into a folder of its own")
    if isinstance(cache_dir, _DefaultCache) or cache_dir is None:
        return None  # the store holds private scores: never inside a folder made to be published
    if Path(cache_dir).resolve().is_relative_to(out.resolve()):
        raise UsageError("a public leaderboard's store holds private scores: put --cache-dir outside the output folder")
    return Path(cache_dir)


def _stopwatch(seconds: dict[str, float]) -> Callable[[str], None]:
    """A function that keeps in ``seconds[step]`` the wall time since its last call (or since now)."""
    clock = [time.perf_counter()]

    def lap(step: str) -> None:
        clock.append(time.perf_counter())
        seconds[step] = clock[-1] - clock[-2]

    return lap


def _read_inputs(submissions: Path, solution: Path, options: Options, store: Store | None, allow_empty: bool,
                 noise: Path | None = None) -> tuple[Folder, dict[str, Any], GroundTruth]:
    """The folder (metadata unchanged since read taken from ``store``), the solution's manifest and its truth. A folder
    without teams leaves nothing behind (``store`` is first opened, and made, for a team's metadata)."""
    folder = read_folder(submissions, store)
    if not folder.teams and not allow_empty:
        held = (f"it holds only {len(folder.ignored)} entries that are not team folders (files or hidden entries at "
                f"the top level, e.g. {folder.ignored[0]['path']})" if folder.ignored else "it is empty")
        raise DataError(f"the submissions folder {submissions} holds no team folder ({held}): each team's submissions "
                        f"go in a folder named after the team ({submissions}/TEAM/NAME.csv). Nothing was written; "
                        "--allow-empty writes an empty leaderboard", code="NO_TEAM_FOLDERS")
    manifest = read_manifest(solution)
    truth = load_solution(solution, tile_runtime=options.tile_runtime)
    if not truth.has_usage:
        raise DataError(f"{solution} has no Public/Private usage: rebuild it with `tpugraphs-eval solution build`")
    if noise is not None:
        attach_noise(truth, noise)
    return folder, manifest, truth


def build_leaderboard(submissions: Path, solution: Path, out: Path, *, name: str | None = None,
                      options: Options = Options(), view: str = "organiser", workers: int | None = None,
                      resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                      cache_dir: Path | None | _DefaultCache = DEFAULT_CACHE, max_bytes: int = DEFAULT_MAX_BYTES,
                      max_daily: int = DEFAULT_MAX_DAILY,
                      progress: Callable[[int], Callable[[int], None]] | None = None,
                      allow_empty: bool = False, rehash: bool = False, noise: Path | None = None) -> BuildResult:
    """Score every submission of ``submissions`` against ``solution`` and write the leaderboard into ``out``.

    Args:
        submissions: the folder of team folders (:mod:`folder`); solution: a solution file (:mod:`..truth.solution`).
        out: the output folder (created; not inside ``submissions``); name: the title (default: ``out``'s folder name).
        options: validation mode (``configs`` must be ``all``); view: ``organiser`` or ``public`` (:data:`assemble.VIEWS`).
        workers: scoring processes (default :func:`default_workers`); resamples, seed: the bootstrap's (:mod:`uncertainty`).
        cache_dir: the folder of the store (:mod:`store`); :data:`DEFAULT_CACHE` is ``out/.cache`` (none for the
            public view: the store holds private scores); None: no store.
        max_daily: a team's valid submissions per UTC day on the public board (:func:`standings.over_daily_limit`).
        progress: given the number of submissions, the function to call with 1 per submission done.
        allow_empty: write a leaderboard even when ``submissions`` holds no team folder; max_bytes: larger submissions
            are recorded unread.
        rehash: trust no stat the store holds (:func:`scorer.score_entries`; docs/leaderboard.md, "Warm rebuilds").
        noise: the solution's noise file: the organiser's document gets a ``noise`` note (:mod:`noise_note`).

    Raises:
        UsageError: bad folders or options; output.OutputNotAFolder (``out`` is a file or link, or lies under one);
            output.BuildLocked: another build is writing into ``out`` or using the store. DataError: the solution
            file is unusable, or (``NO_TEAM_FOLDERS``) ``submissions`` holds no team folder and not ``allow_empty``.
        scorer.ScoringFailed: the evaluator raised on a submission (a bug) or a worker died.
    """
    submissions, solution, out = Path(submissions), Path(solution), Path(out)
    _check_options(view, options, resamples, max_bytes, max_daily)
    store = Store(_cache_folder(submissions, out, view, cache_dir))  # opened at first use: see _read_inputs
    seconds: dict[str, float] = {}
    lap = _stopwatch(seconds)
    try:
        folder, manifest, truth = _read_inputs(submissions, solution, options, None if rehash else store, allow_empty,
                                               noise)
        lap("read")
        with build_lock(out):
            records, counts = score_entries(folder.entries, truth, solution, options, store,
                                            workers=default_workers() if workers is None else workers,
                                            max_bytes=max_bytes, rehash=rehash,
                                            advance=progress(len(folder.entries)) if progress else None)
            lap("score")
            document = assemble(name if name is not None else out.resolve().name, folder, records, truth, manifest,
                                options, view=view, resamples=resamples, seed=seed, max_daily=max_daily,
                                bootstrap=store)
            if view != "public" and truth.noise is not None:
                document["noise"] = noise_note(document, truth)
            lap("assemble")
            files = render_all(document)
            write_outputs(out, files, keep_previous=view != "public")
            lap("write")
            counts["pruned"] = store.close(prune=True)
    finally:
        store.close(prune=False)
    counts.update({key: sum(n["code"] == code for n in store.notes)
                   for key, code in (("corrupt", "CACHE_ENTRY_CORRUPT"), ("unwritable", "CACHE_ENTRY_UNWRITABLE"))})
    found = tally(folder, records, sum(team["rank"] is not None for team in document["teams"]))
    return BuildResult(document, files, counts, seconds, found, store.notes)
