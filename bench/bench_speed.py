#!/usr/bin/env python
"""Speed and memory of tpugraphs_eval against the naive reference scorer (tests/naive_scorer.py).

Both run on the same machine in the same run; see bench/README.md for what each measurement means.

    /path/to/venv/bin/python bench/bench_speed.py [--quick] [--repeats N] [--runs N] [--only 1,2]
                                                  [--workdir DIR] [--keep] [--profile] [--json PATH]
                                                  [--against OLD_TREE]

In-process timings are the best (minimum) of N repeats; subprocess timings the median of N runs.
Exit status: 0 when every target passes, 1 when one fails or a measurement raised.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import sys
import tempfile
import time
import traceback
from dataclasses import asdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
import scipy  # noqa: E402
from speed_measurements import MEASUREMENTS, REPO, Bench  # noqa: E402

import tpugraphs_eval  # noqa: E402


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def stale_build_warning() -> str | None:
    """A warning when _native.c is newer than the compiled module the venv imports."""
    from tpugraphs_eval.kernels import _native

    if _native is None:
        return "WARNING: the C extension is not built: the bench times the numpy fallback (measurement 6 fails)"
    source = Path(tpugraphs_eval.__file__).with_name("_native.c")
    built = Path(_native.__file__)
    if source.exists() and source.stat().st_mtime > built.stat().st_mtime:
        return (f"WARNING: {source} is newer than {built.name}: the bench runs the old C code; reinstall with "
                f"{sys.executable} -m pip install -e '{REPO}[test]'")
    return None


def print_summary(bench: Bench, header: str) -> None:
    cols = [("id", "ident"), ("figure", "figure"), ("value", "value"), ("target", "target"),
            ("result", "status"), ("timing", "how")]
    widths = [max(len(name), *(len(getattr(r, attr)) for r in bench.rows)) for name, attr in cols]
    line = "  ".join(name.ljust(w) for (name, _), w in zip(cols, widths))
    print(f"\n{header}\n{line}\n{'-' * len(line)}")
    for r in bench.rows:
        print("  ".join(getattr(r, attr).ljust(w) for (_, attr), w in zip(cols, widths)).rstrip())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats (3 in-process, 3 subprocess runs)")
    parser.add_argument("--repeats", type=int, help="in-process repeats, best of N (default 7; --quick 3)")
    parser.add_argument("--runs", type=int, help="subprocess runs, median of N (default 7; --quick 3)")
    parser.add_argument("--only", default="1,2,3,4,5,6,7,8", help="measurements to run, e.g. 1,3 (default all)")
    parser.add_argument("--workdir", type=Path, help="where generated files go (default: a new temp folder)")
    parser.add_argument("--keep", action="store_true", help="keep the generated files (not the 1 GB npz)")
    parser.add_argument("--profile", action="store_true", help="also print a cProfile of score_submission")
    parser.add_argument("--json", type=Path, help="write the summary rows as JSON to this path")
    parser.add_argument("--against", type=Path, help="measurements 7 and 8: also measure this source tree (a checkout of "
                        "another commit, e.g. `git worktree add /tmp/old main`), in turns with this one")
    args = parser.parse_args(argv)
    repeats = args.repeats or (3 if args.quick else 7)
    runs = args.runs or (3 if args.quick else 7)
    selected = [m.strip() for m in args.only.split(",") if m.strip()]
    if unknown := [m for m in selected if m not in MEASUREMENTS]:
        parser.error(f"unknown measurement(s) {unknown}; choose from {', '.join(MEASUREMENTS)}")

    created = args.workdir is None or not args.workdir.exists()
    workdir = Path(tempfile.mkdtemp(prefix="tpugraphs-bench-")) if args.workdir is None else args.workdir.resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    before = set(workdir.iterdir())
    machine = (f"{cpu_model()}, {os.cpu_count()} CPUs, {platform.system()} {platform.machine()}; "
               f"Python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}, "
               f"tpugraphs_eval {tpugraphs_eval.__version__}")
    started = datetime.datetime.now().astimezone()
    print(f"tpugraphs-eval speed bench, {started:%Y-%m-%d %H:%M %Z}\n{machine}\nworkdir {workdir}; "
          f"in-process: best of {repeats}; subprocess: median of {runs}")
    if warning := stale_build_warning():
        print(warning)
    bench = Bench(workdir, repeats, runs, args.profile, args.against)
    t_all = time.perf_counter()
    try:
        for key in selected:
            title, method = MEASUREMENTS[key]
            print(f"\n[{key}] {title}", flush=True)
            t0 = time.perf_counter()
            try:
                method(bench)
            except Exception as err:  # keep going: the other measurements still count
                traceback.print_exc()
                bench.add(key, title, f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}",
                          status="ERROR")
            print(f"  ({time.perf_counter() - t0:.1f} s)")
    finally:
        if args.keep:
            print(f"\nkept the generated files in {workdir}")
        elif created:
            shutil.rmtree(workdir, ignore_errors=True)
        else:
            for path in set(workdir.iterdir()) - before:
                shutil.rmtree(path, ignore_errors=True) if path.is_dir() else path.unlink(missing_ok=True)
    print_summary(bench, f"SUMMARY {started:%Y-%m-%d}, total {time.perf_counter() - t_all:.0f} s; in-process: best of "
                         f"{repeats}, subprocess: median of {runs}\n{machine}")
    if args.json:
        args.json.write_text(json.dumps({"date": started.isoformat(), "machine": machine, "repeats": repeats,
                                         "runs": runs, "rows": [asdict(r) for r in bench.rows]}, indent=2))
    failed = [r.ident for r in bench.rows if r.status in ("FAIL", "ERROR")]
    print(f"\n{'all targets met' if not failed else 'NOT met: ' + ', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
