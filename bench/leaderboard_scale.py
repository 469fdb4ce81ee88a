"""Leaderboard cost against the number of submissions, for bench_leaderboard.py (issue 8, item 5).

Folders of N Kaggle-shaped test submissions (10,000 and 20,000 by default) over N / 16 teams are built
cheaply: a pool of a few distinct submission CSVs (written by ``bench_leaderboard.write_submissions``) is
copied under distinct team and file names (copies, not hard links: the leaderboard refuses a file with
more than one name, ``SUBMISSION_HARDLINK``), and every submission gets its own metadata (time, selection). Each folder is built cold (empty store: every file is scored, duplicates too) and warm
(nothing changed: every file's stat, metadata and record from the store, the finals' resampled overalls from its
bootstrap rows);
the standings and the bootstrap are also timed alone against the plain reference
(tests/naive_leaderboard.py) on the same records, and checked to give the same result.
"""

from __future__ import annotations

import gc
import json
import os
import shutil
import time
from pathlib import Path
from typing import Any, Callable

from leaderboard_helpers import plain_standings, plain_submissions

from tpugraphs_eval.leaderboard import build_leaderboard
from tpugraphs_eval.leaderboard.assemble import board_graphs, ranked_team_samples
from tpugraphs_eval.leaderboard.folder import read_folder
from tpugraphs_eval.leaderboard.scorer import score_entries
from tpugraphs_eval.leaderboard.standings import DEFAULT_MAX_DAILY, standings
from tpugraphs_eval.leaderboard.store import Store
from tpugraphs_eval.leaderboard.uncertainty import uncertainty
from tpugraphs_eval.options import Options
from tpugraphs_eval.scoring.bootstrap import draw_positions
from tpugraphs_eval.truth.solution import load_solution

PER_TEAM = 16
"""Submissions per team: 10,000 submissions come from 625 teams, about the 617 teams of the competition's real
private leaderboard (SPEC §4)."""
TARGET_RATIO = 2.1
"""Time of 20,000 submissions over the time of 10,000 (issue 8: cost linear in the submissions)."""


def copy_folder(folder: Path, pool: list[Path], n: int, teams: int) -> None:
    """n submissions over ``teams`` team folders, each a copy of a pool file (submission k: pool file
    k mod len(pool)), with its own metadata: day k // teams, hour by team; a team selects its 4th and 8th
    submissions, except every 5th team (none selected: its 2 best public count)."""
    for k in range(n):
        team, j = k % teams, k // teams
        target = folder / f"team{team:05d}"
        if j == 0:
            target.mkdir(parents=True)
        shutil.copyfile(pool[k % len(pool)], target / f"sub{j:04d}.csv")
        meta = {"submitted": f"2023-{10 + j // 28:02d}-{1 + j % 28:02d}T{team % 24:02d}:{team // 24 % 60:02d}:00Z",
                "selected": j in (3, 7) and team % 5 != 0}
        (target / f"sub{j:04d}.json").write_text(json.dumps(meta), encoding="utf-8")


def _best_of(repeats: int, call: Callable[[], object], cpu: list[float] | None = None) -> tuple[float, object]:
    """The least wall time of ``repeats`` calls and the last result; the least CPU time of this process is
    appended to ``cpu`` when given."""
    best, least_cpu, result = float("inf"), float("inf"), None
    for _ in range(repeats):
        gc.collect()
        start, start_cpu = time.perf_counter(), time.process_time()
        result = call()
        best = min(best, time.perf_counter() - start)
        least_cpu = min(least_cpu, time.process_time() - start_cpu)
    if cpu is not None:
        cpu.append(least_cpu)
    return best, result


def _naive_bootstrap(naive, rows, records, board, draws, resamples):
    finals = [[{n: records[i].per_graph_values(board, n) for n in draws} for i in row.finals] for row in rows]
    scores = naive.team_samples(finals, draws, resamples)
    ranks = [r.rank for r in rows]
    return scores, naive.ranks_per_resample(scores), naive.tied_with_leader(scores, ranks)


def assemble_parts(subs: Path, solution: Path, cache: Path, naive, resamples: int = 1000) -> dict[str, float]:
    """Standings (both boards) and the private bootstrap, ours and the plain reference's, timed alone (least
    CPU time of 2) on records read from a filled store; raises AssertionError when they differ."""
    folder = read_folder(subs)
    truth = load_solution(solution)
    store = Store(cache)
    records, counts = score_entries(folder.entries, truth, solution, Options(), store, workers=1)
    assert counts["cached"] == len(folder.entries), counts
    out: dict[str, float] = {}
    cpu: list[float] = []  # CPU times of this process, in the order measured: steadier than wall times on shared cores
    args = (folder.teams, folder.entries, records)
    plain = (folder.teams, plain_submissions(folder.entries, records))
    _, ours = _best_of(2, lambda: [standings(*args, b, DEFAULT_MAX_DAILY) for b in ("private", "public")], cpu)
    _, theirs = _best_of(2, lambda: [naive.standings(*plain, b, DEFAULT_MAX_DAILY) for b in ("private", "public")], cpu)
    assert [plain_standings(rows, folder.entries) for rows in ours] == theirs, "standings differ from the per-team scan"
    ranked = [r for r in ours[0] if r.rank is not None]
    draws = draw_positions(board_graphs(truth, "private"), resamples, 0)

    def bootstrap():
        scores = ranked_team_samples(ranked, records, "private", draws)
        return scores, uncertainty(scores, [r.rank for r in ranked])

    _, (scores, bounds) = _best_of(2, bootstrap, cpu)
    _, (naive_scores, _, tied) = _best_of(2, lambda: _naive_bootstrap(naive, ranked, records, "private", draws,
                                                                       resamples), cpu)
    assert scores.tobytes() == naive_scores.tobytes() and bounds.tied_with_leader == tied, "bootstrap differs"
    out.update(zip(("standings_s", "standings_naive_s", "bootstrap_s", "bootstrap_naive_s"), cpu))
    out["finals"] = sum(len(r.finals) for r in ranked)
    out["ranked_teams"] = len(ranked)
    store.close(prune=False)
    return out


def measure(work: Path, solution: Path, pool: list[Path], sizes: list[int], workers: int, naive,
            cold: bool = True) -> dict[int, dict[str, Any]]:
    """Per size: copy the folder; ``cold_s`` (a build with an empty store), ``warm_s`` and ``warm_cpu_s``
    (least wall and CPU time of 3 rebuilds with nothing changed, all in this process), their steps, and
    :func:`assemble_parts`. Without ``cold`` the first (cold) build is not reported."""
    figures: dict[int, dict[str, Any]] = {}
    for n in sizes:
        subs, out = work / f"subs{n}", work / f"out{n}"
        start = time.perf_counter()
        copy_folder(subs, pool, n, max(1, n // PER_TEAM))
        os.sync()
        row: dict[str, Any] = {"copy_s": time.perf_counter() - start, "teams": max(1, n // PER_TEAM)}
        gc.collect()
        start = time.perf_counter()
        first = build_leaderboard(subs, solution, out, workers=workers)
        if cold:
            row["cold_s"] = time.perf_counter() - start
            row["cold_steps"] = dict(first.seconds)
            row["cold_load"] = os.getloadavg()[0]
        assert first.document["counts"]["scored"] == n, first.document["counts"]
        cpu: list[float] = []
        row["warm_s"], warm = _best_of(3, lambda: build_leaderboard(subs, solution, out, workers=workers), cpu)
        row["warm_cpu_s"] = cpu[0]
        row["warm_load"] = os.getloadavg()[0]
        assert warm.counts["cached"] == n and warm.files == first.files, "a warm rebuild must give the same files"
        row["warm_steps"] = dict(warm.seconds)
        row["output_mb"] = sum(len(t.encode()) for t in warm.files.values()) / 1e6
        row.update(assemble_parts(subs, solution, out / ".cache", naive))
        figures[n] = row
    return figures


def rows(figures: dict[int, dict[str, Any]], estimate: int = 50_000) -> list[tuple[str, str, str, str]]:
    """Summary rows ``(id, figure, value, target)``: per size, then the ratios of the two largest sizes and
    the linear estimate for ``estimate`` submissions (t(b) + (t(b) - t(a)) * (estimate - b) / (b - a))."""
    out = []
    for n, f in figures.items():
        steps = ", ".join(f"{k} {v:.2f}" for k, v in f["warm_steps"].items())
        if "cold_s" in f:
            cold_steps = ", ".join(f"{k} {v:.2f}" for k, v in f["cold_steps"].items())
            out.append((f"5c-{n}", f"{n} submissions ({f['teams']:.0f} teams), cold build",
                        f"{f['cold_s']:.2f} s = {n / f['cold_s']:.0f}/s (steps: {cold_steps}; load average "
                        f"{f['cold_load']:.1f} at the end)", "info"))
        out.append((f"5w-{n}", f"{n} submissions, warm build (best of 3)", f"{f['warm_s']:.2f} s, CPU "
                    f"{f['warm_cpu_s']:.2f} s (steps: {steps}; outputs {f['output_mb']:.0f} MB; load average "
                    f"{f['warm_load']:.1f})", "info"))
        out.append((f"5s-{n}", f"{n}: standings, both boards, CPU: ours / per-team scan",
                    f"{f['standings_s'] * 1e3:.0f} ms / {f['standings_naive_s'] * 1e3:.0f} ms = "
                    f"**{f['standings_naive_s'] / f['standings_s']:.1f}x faster**, same standings", "info"))
        out.append((f"5b-{n}", f"{n}: bootstrap ({f['ranked_teams']:.0f} teams, {f['finals']:.0f} final submissions): "
                    "CPU, ours / loops", f"{f['bootstrap_s']:.2f} s / {f['bootstrap_naive_s']:.2f} s = "
                    f"{f['bootstrap_naive_s'] / f['bootstrap_s']:.2f}x faster, same bytes", "info"))
    if len(figures) >= 2:
        (a, fa), (b, fb) = list(figures.items())[-2:]
        for kind in ("cold", "warm", "warm_cpu"):
            key = f"{kind}_s"
            if key not in fa:
                continue
            ratio = fb[key] / fa[key]
            what = "warm build CPU" if kind == "warm_cpu" else f"{kind} build wall"
            out.append((f"5r-{kind}", f"{what} time, {b} / {a} submissions", f"**{ratio:.2f}**",
                        f"<= {TARGET_RATIO} " + ("PASS" if ratio <= TARGET_RATIO else "FAIL")))
            guess = fb[key] + (fb[key] - fa[key]) * (estimate - b) / (b - a)
            out.append((f"5e-{kind}", f"{what} time, {estimate} submissions (linear estimate)", f"{guess:.0f} s",
                        "info"))
        for part in ("standings", "standings_naive", "bootstrap", "bootstrap_naive"):
            out.append((f"5r-{part}", f"{part.replace('_', ' (') + (')' if 'naive' in part else '')} CPU time, "
                        f"{b} / {a}", f"{fb[part + '_s'] / fa[part + '_s']:.2f}", "info"))
    return out


def pool_files(subs: Path) -> list[Path]:
    """The distinct CSVs written by ``write_submissions``, in a fixed order."""
    return sorted(subs.rglob("*.csv"))

