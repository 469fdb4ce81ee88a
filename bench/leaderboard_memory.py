"""The main process's memory per submission in a warm leaderboard rebuild (issue 17 item 4).

    python bench/leaderboard_memory.py SOLUTION SUBS_A OUT_A SUBS_B OUT_B [--tracemalloc]

SUBS_x/OUT_x: submissions folders and the output folders of builds already made from them (``leaderboard_scale.py``
keeps them with ``bench_leaderboard.py --only scale --keep``), of two sizes N_A < N_B. Each folder is first rebuilt
once (so the store is this version's), then measured in a fresh interpreter: imports done, the
peak reset (``rss_probe.measure``: ``/proc/self/clear_refs``), one warm ``build_leaderboard`` with 1 worker, its
peak RSS rise and CPU time. Per submission: ``(rise_B - rise_A) / (N_B - N_A)``, so what every build pays whatever
its size (the solution, the bootstrap's draws) cancels out. ``--tracemalloc`` also reports the peak of Python
allocations (tracemalloc, much slower) the same way.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def probe(solution: str, subs: str, out: str, trace: bool) -> dict:
    """In this (fresh) interpreter: one warm build, measured."""
    sys.path.insert(0, str(HERE))
    from rss_probe import measure

    from tpugraphs_eval.leaderboard import build_leaderboard

    def build():
        start = time.process_time()
        result = build_leaderboard(Path(subs), Path(solution), Path(out), workers=1)
        return {"cpu_s": time.process_time() - start, "cached": result.counts["cached"],
                "scored": result.counts["scored"], "submissions": len(result.document["submissions"]),
                "steps": result.seconds}

    if trace:
        import tracemalloc

        tracemalloc.start()
        figures = build()
        figures["traced_peak_kb"] = tracemalloc.get_traced_memory()[1] // 1024
        return figures
    return measure(build)


def run(solution: str, subs: str, out: str, trace: bool = False) -> dict:
    text = subprocess.run([sys.executable, __file__, "--probe", solution, subs, out] + (["--trace"] if trace else []),
                          check=True, capture_output=True, text=True).stdout
    return json.loads(text)


def main(argv: list[str]) -> int:
    if argv[0] == "--probe":
        print(json.dumps(probe(*argv[1:4], trace="--trace" in argv)))
        return 0
    trace = "--tracemalloc" in argv
    solution, subs_a, out_a, subs_b, out_b = [a for a in argv if a != "--tracemalloc"]
    figures = {}
    for name, subs, out in (("a", subs_a, out_a), ("b", subs_b, out_b)):
        run(solution, subs, out)  # this version's store
        rss = run(solution, subs, out)
        row = {"n": rss["result"]["submissions"], "rise_kb": rss["rise_kb"], "cpu_s": rss["result"]["cpu_s"],
               "cached": rss["result"]["cached"], "steps": rss["result"]["steps"]}
        if trace:
            row["traced_peak_kb"] = run(solution, subs, out, trace=True)["traced_peak_kb"]
        figures[name] = row
    a, b = figures["a"], figures["b"]
    figures["rss_per_submission_kb"] = (b["rise_kb"] - a["rise_kb"]) / (b["n"] - a["n"])
    if trace:
        figures["traced_per_submission_kb"] = (b["traced_peak_kb"] - a["traced_peak_kb"]) / (b["n"] - a["n"])
    print(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
