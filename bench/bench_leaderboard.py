#!/usr/bin/env python
"""Leaderboard build speed: 1,000 Kaggle-shaped test submissions against the naive reference scorer, and
the cost of 10,000 and 20,000 submissions (cold and warm) against the plain standings and bootstrap.

    /path/to/venv/bin/python bench/bench_leaderboard.py [--only rate,scale] [--submissions 1000] [--teams 200]
                                                        [--naive 50] [--sizes 10000,20000] [--pool 40]
                                                        [--no-cold] [--workers 2] [--workdir DIR] [--keep]
                                                        [--json PATH]

Everything is synthetic and seeded (bench/synth_data.py's Kaggle-shaped test split: 844 tile graphs and
8+8+17+17 layout graphs of 1000 configurations). Figures (see bench/README.md):

1. cold build (empty store) on ``--workers`` processes: submissions per second (target >= 50);
2. the same on 1 process (how the work scales);
3. rebuild with nothing changed (every record from the store), and with one submission changed;
4. the naive reference scorer (tests/naive_scorer.py) on the first ``--naive`` submissions, serially, in
   the same run: submissions per second, and the ratio of the leaderboard's rate to it; its overall
   scores are compared with the leaderboard's ``all`` figures (|diff| <= 1e-9);
5. (``scale``, bench/leaderboard_scale.py) ``--sizes`` folders of submissions copied from ``--pool``
   distinct ones over size / 16 teams: cold and warm builds, the time ratio of the two largest sizes
   (target <= 2.1) and a linear estimate for 50,000; the standings and the bootstrap alone against the
   plain reference (tests/naive_leaderboard.py), same results required.

Exit status: 0 when the targets pass and the results agree, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE))

import leaderboard_scale  # noqa: E402
import numpy as np  # noqa: E402
import synth_data  # noqa: E402

import tpugraphs_eval  # noqa: E402
from tpugraphs_eval.leaderboard import build_leaderboard  # noqa: E402
from tpugraphs_eval.truth.dataroot import DataRoot  # noqa: E402
from tpugraphs_eval.truth.solution import build_solution, load_solution  # noqa: E402

TARGET = 50.0
"""Submissions per second on 2 cores (issue: leaderboard regeneration, item 7)."""


def write_submissions(folder: Path, solution: Path, n: int, teams: int, seed: int = 5) -> float:
    """n strict-valid submissions spread over ``teams`` team folders, of graded quality, with metadata.

    Submission k of a team ranks each graph by ``rank / c + sigma * N(0, 1)`` (sigma by team); every
    third one is selected. Returns the seconds spent.
    """
    start = time.perf_counter()
    truth = load_solution(solution)
    graphs = [(t.graphs.collection.kind, graph_id, np.argsort(np.argsort(y, kind="stable")) / y.size)
              for t in truth.collections.values() for graph_id, y in zip(t.graphs.ids, t.runtimes)]
    rng = np.random.default_rng(seed)
    for k in range(n):
        team = k % teams
        sigma = 0.05 + 2.0 * team / teams
        lines = ["ID,TopConfigs"]
        for kind, graph_id, ranks in graphs:
            order = np.argsort(ranks + sigma * rng.standard_normal(ranks.size))
            order = order[: min(5, ranks.size)] if kind == "tile" else order
            lines.append(graph_id + "," + ";".join(map(str, order.tolist())))
        target = folder / f"team{team:04d}"
        target.mkdir(parents=True, exist_ok=True)
        stem = f"sub{k // teams:03d}"
        (target / f"{stem}.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
        meta = {"submitted": f"2023-10-{1 + k // teams:02d}T{team % 24:02d}:00:00Z", "selected": k % 3 == 0}
        (target / f"{stem}.json").write_text(json.dumps(meta), encoding="utf-8")
    return time.perf_counter() - start


def timed_build(subs: Path, solution: Path, out: Path, **kwargs) -> tuple[float, dict]:
    start = time.perf_counter()
    result = build_leaderboard(subs, solution, out, **kwargs)
    return time.perf_counter() - start, result


def rate(args: argparse.Namespace, work: Path, root: Path, subs: Path, solution: Path,
         rows: list[tuple[str, str, str, str]], figures: dict) -> None:
    """Measurements 1-4: rows and figures appended."""
    figures["generate_s"] = write_submissions(subs, solution, args.submissions, args.teams)
    os.sync()  # the files' write-back would otherwise compete with the first timed build
    n = args.submissions
    size = sum(p.stat().st_size for p in subs.rglob("*.csv"))
    rows.append(("0", "submissions (teams), total CSV size", f"{n} ({args.teams}), {size / 1e6:.0f} MB", "info"))

    cold, result = timed_build(subs, solution, work / "out", workers=args.workers)
    figures["cold_s"], figures["cold_rate"] = cold, n / cold
    verdict = "PASS" if n / cold >= TARGET else "FAIL"
    rows.append(("1", f"cold build, {args.workers} workers", f"{cold:.2f} s = {n / cold:.1f} submissions/s",
                 f">= {TARGET:.0f}/s {verdict}"))
    steps = ", ".join(f"{k} {v:.2f}" for k, v in result.seconds.items())
    rows.append(("1s", "  its steps (s)", steps, "info"))
    serial, single = timed_build(subs, solution, work / "out1", workers=1)
    figures["serial_s"] = serial
    rows.append(("2", "cold build, 1 process", f"{serial:.2f} s = {n / serial:.1f} submissions/s "
                 f"({args.workers} workers: {serial / cold:.2f}x faster)", "info"))
    rows.append(("2s", "  its steps (s)", ", ".join(f"{k} {v:.2f}" for k, v in single.seconds.items())
                 + f" (scoring step: {single.seconds['score'] / result.seconds['score']:.2f}x faster on "
                 f"{args.workers} workers)", "info"))
    unchanged, again = timed_build(subs, solution, work / "out", workers=args.workers)
    figures["nochange_s"] = unchanged
    same = all((work / "out" / f).read_text(encoding="utf-8") == t for f, t in result.files.items())
    rows.append(("3a", "rebuild, nothing changed", f"{unchanged:.2f} s ({again.counts['cached']} from the store, "
                 f"files {'identical' if same else 'DIFFERENT'}; steps: "
                 + ", ".join(f"{k} {v:.2f}" for k, v in again.seconds.items()) + ")", "info" if same else "FAIL"))
    first = next(iter(sorted(subs.rglob("*.csv"))))
    first.write_text(first.read_text(encoding="utf-8").replace("ID,TopConfigs\n", "ID,TopConfigs\r\n", 1),
                     encoding="utf-8")
    one, changed = timed_build(subs, solution, work / "out", workers=args.workers)
    figures["onechange_s"] = one
    rows.append(("3b", "rebuild, one submission changed", f"{one:.2f} s (scored {changed.counts['scored']})",
                 "info"))

    import naive_scorer  # here, not at the top: worker processes re-import this module (without scipy)

    naive_truth = naive_scorer.load_runtimes(root, "test")
    paths = sorted(subs.rglob("*.csv"))[1: args.naive + 1]
    start = time.perf_counter()
    naive = [naive_scorer.score(p, naive_truth) for p in paths]
    naive_s = time.perf_counter() - start
    figures["naive_rate"] = len(paths) / naive_s
    rows.append(("4a", f"naive reference, {len(paths)} submissions serially", f"{naive_s:.2f} s = "
                 f"{len(paths) / naive_s:.1f} submissions/s", "info"))
    figures["ratio"] = figures["cold_rate"] / figures["naive_rate"]
    rows.append(("4b", f"leaderboard ({args.workers} workers, whole build) / naive rate",
                 f"{figures['ratio']:.1f}x", "info"))
    ours = {s["id"]: s["all"]["overall"] for s in result.document["submissions"]}
    diff = max(abs(ours[f"{p.parent.name}/{p.name}"] - r["overall"]) for p, r in zip(paths, naive))
    rows.append(("4c", "overall, leaderboard vs naive", f"max |diff| {diff:.1e}", "PASS" if diff <= 1e-9 else "FAIL"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--submissions", type=int, default=1000)
    parser.add_argument("--teams", type=int, default=200)
    parser.add_argument("--naive", type=int, default=50, help="submissions scored by the naive reference")
    parser.add_argument("--only", default="rate,scale", help="parts to run: rate (measurements 1-4), scale (5)")
    parser.add_argument("--sizes", default="10000,20000", help="submission counts of part scale")
    parser.add_argument("--pool", type=int, default=40, help="distinct submissions copied in part scale")
    parser.add_argument("--no-cold", action="store_true", help="part scale: skip the cold builds")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--workdir", type=Path, help="generate the data there (default: a new temp folder)")
    parser.add_argument("--keep", action="store_true", help="keep the generated data")
    parser.add_argument("--json", type=Path, help="write the figures as JSON")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="bench-leaderboard-", dir=args.workdir))
    rows: list[tuple[str, str, str, str]] = []
    figures: dict[str, float] = {}
    try:
        root, subs = work / "root", work / "submissions"
        synth_data.write_test_root(root, work / "unused.csv")
        solution = work / "solution.parquet"
        build_solution(DataRoot(root), "test", solution)
        parts = set(args.only.split(","))
        if "rate" in parts:
            rate(args, work, root, subs, solution, rows, figures)
        if "scale" in parts:
            import naive_leaderboard

            pool = work / "pool"
            figures["pool_generate_s"] = write_submissions(pool, solution, args.pool, args.pool, seed=6)
            scale = leaderboard_scale.measure(work, solution, leaderboard_scale.pool_files(pool),
                                              [int(n) for n in args.sizes.split(",")], args.workers,
                                              naive_leaderboard, cold=not args.no_cold)
            figures["scale"] = scale
            rows.extend(leaderboard_scale.rows(scale))
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)

    print(f"{platform.node() or 'machine'}: {os.cpu_count()} CPUs, Python {platform.python_version()}, numpy "
          f"{np.__version__}, tpugraphs_eval {tpugraphs_eval.__version__}; CSVs written in "
          + ", ".join(f"{figures[key]:.1f} s ({part})" for key, part in (("generate_s", "rate"),
                                                                       ("pool_generate_s", "scale pool"))
                      if key in figures))
    print("| id | figure | value | target |\n|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "figures": figures}, indent=2) + "\n", encoding="utf-8")
    return 1 if any("FAIL" in r[3] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
