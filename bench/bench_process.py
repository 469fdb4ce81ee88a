"""Whole-process figures: ``tpugraphs-eval`` as a user runs it, against three other scorers, in the same run.

Each command is a fresh process (``python -m tpugraphs_eval ...`` for the product); the runs of all commands of
one measurement take turns (round-robin, after one untimed run of each that writes the bytecode), so machine
drift hits them alike; per command the median wall time,
the median CPU time (user + sys of the child, from ``os.wait4``) and the largest peak RSS are reported.

Commands of measurement K (Kaggle-shaped test split: 844 tile + 50 layout graphs, ``synth_data.write_test_root``)
and L (20 layout graphs of 100,000 configs, valid split, ``synth_data.write_large_valid_root``):

- ``naive``: ``bench/naive_process.py``, the refscore-style naive scorer (csv module, scipy kendalltau);
- ``pandas``: ``bench/pandas_scorer.py``, a notebook scorer (pandas read_csv, np.load, scipy);
- ``floor``: ``bench/floor_scorer.py``, numpy only, no checks (K only: its tau is pairwise);
- ``cold``: ``tpugraphs-eval CSV --data-root R --split S -q`` with an empty prepared-truth cache (the cache
  folder is removed before each run, outside the timing);
- ``warm``: the same with the cache written by an earlier run;
- ``no-cache``: the same with ``--no-cache``;
- ``today``: the same command run by the baseline revision's code (``--baseline-rev``, default ``main``: its
  ``evaluator/`` extracted with ``git archive``, the compiled C extension copied in);
- ``validate-warm``, ``validate-today`` (K): ``tpugraphs-eval validate CSV ... -q``.

Usage: ``python bench/bench_process.py [--runs 7] [--only K,L] [--baseline-rev main] [--workdir DIR]``.
Targets (issue 17, CPU-time ratios in the same run): K warm >= 6x naive and <= 1.5x floor; K cold >= 3x naive;
validate warm <= 0.4x today's; L warm >= 6x naive; no product command's peak RSS above today's.
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

import synth_data  # noqa: E402


def run_once(cmd: list[str], env: dict[str, str]) -> tuple[float, float, float, str]:
    """(wall s, CPU s, peak RSS MB, stdout) of one run of ``cmd``; bytecode is written and read as on a user's
    machine (``PYTHONDONTWRITEBYTECODE`` is dropped)."""
    env = {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO)
    out, err = proc.stdout.read(), proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}): {err.decode()[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out.decode().strip()


def measure(commands: dict[str, tuple[list[str], dict[str, str], callable]], runs: int) -> dict[str, dict]:
    """Round-robin ``runs`` runs of every command (``prepare()`` before each, untimed); medians and max RSS."""
    samples = {name: [] for name in commands}
    outputs = {}
    for cmd, env, prepare in commands.values():  # untimed: writes every module's bytecode (__pycache__)
        prepare()
        run_once(cmd, env)
    for _ in range(runs):
        for name, (cmd, env, prepare) in commands.items():
            prepare()
            samples[name].append(run_once(cmd, env))
            outputs[name] = samples[name][-1][3]
    return {name: {"wall": statistics.median(s[0] for s in runs_), "cpu": statistics.median(s[1] for s in runs_),
                   "rss": max(s[2] for s in runs_), "out": outputs[name]} for name, runs_ in samples.items()}


def baseline_tree(rev: str, into: Path) -> Path:
    """``evaluator/`` of ``rev`` (git archive), with this checkout's compiled C extension copied in."""
    data = subprocess.run(["git", "archive", rev, "evaluator"], cwd=REPO, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        archive.extractall(into, filter="data")
    for built in (REPO / "evaluator" / "tpugraphs_eval").glob("_native*.so"):
        shutil.copy2(built, into / "evaluator" / "tpugraphs_eval" / built.name)
    return into / "evaluator"


def product_commands(root: Path, split: str, csv: Path, cache: Path, baseline: Path | None,
                     validate: bool) -> dict:
    py = sys.executable
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    env.pop("TPUGRAPHS_NO_CACHE", None)
    args = [str(csv), "--data-root", str(root), "--split", split, "-q"]
    ours = [py, "-m", "tpugraphs_eval"]
    nothing = lambda: None  # noqa: E731

    def empty_cache() -> None:
        shutil.rmtree(cache, ignore_errors=True)

    subprocess.run(ours + args, env=env, capture_output=True)  # fills the cache for the warm runs
    commands = {"cold": (ours + args, env, empty_cache), "warm": (ours + args, env, nothing),
                "no-cache": (ours + args + ["--no-cache"], env, nothing)}
    if baseline is not None:
        today_env = {**env, "PYTHONPATH": str(baseline)}
        commands["today"] = (ours + args, today_env, nothing)
    if validate:
        commands["validate-warm"] = (ours + ["validate"] + args, env, nothing)
        if baseline is not None:
            commands["validate-today"] = (ours + ["validate"] + args, today_env, nothing)
    return commands


def peak_rss_against_today(results: dict) -> bool:
    """Print the product's peak RSS (cold, warm, no-cache) over today's; True when none is above it (2% slack for
    the page-granular measure)."""
    ok = True
    for name in ("cold", "warm", "no-cache"):
        ok &= ratio_line(f"peak RSS {name} / today", results[name]["rss"] / results["today"]["rss"], "<= 1",
                         results[name]["rss"] <= results["today"]["rss"] * 1.02)
    return ok


def others(root: Path, split: str, csv: Path, floor: bool) -> dict:
    py, env, nothing = sys.executable, dict(os.environ), (lambda: None)
    names = {"naive": "naive_process.py", "pandas": "pandas_scorer.py"} | ({"floor": "floor_scorer.py"} if floor else {})
    return {name: ([py, str(HERE / script), str(root), split, str(csv)], env, nothing) for name, script in names.items()}


def in_process(root: Path, split: str, csv: Path, cache: Path, repeats: int = 7) -> None:
    """In-process figures beside the whole-process ones (best of ``repeats``, in turns): the ground truth from the
    ``.npz`` files and from a warm prepared-truth cache, and one ``score_submission``."""
    import gc

    os.environ["XDG_CACHE_HOME"] = str(cache)
    from tpugraphs_eval import prepared_cache, resolve_data_root, score_submission
    from tpugraphs_eval.scoring.references import graph_references
    from tpugraphs_eval.truth import npzread

    data_root = resolve_data_root(root)
    prepared_cache.load_ground_truth(data_root, split)  # warm

    def npz():
        graph_references(npzread.load_ground_truth(data_root, split))  # what the cache holds: with references

    def cached():
        prepared_cache.load_ground_truth(data_root, split)

    truth = prepared_cache.load_ground_truth(data_root, split)
    timings = {"ground truth from .npz (+ references)": npz, "ground truth from the warm cache": cached,
               "score_submission (truth loaded)": lambda: score_submission(csv, truth)}
    best = dict.fromkeys(timings, float("inf"))
    for _ in range(repeats):
        for name, call in timings.items():
            gc.collect()
            start = time.perf_counter()
            call()
            best[name] = min(best[name], time.perf_counter() - start)
    for name, seconds in best.items():
        print(f"- in process, {name}: {seconds * 1000:.1f} ms (best of {repeats})")


def report(title: str, figures: dict[str, dict]) -> None:
    print(f"\n{title}")
    print("| command | wall (median) | CPU (median) | peak RSS | output |\n|---|---|---|---|---|")
    for name, f in figures.items():
        print(f"| {name} | {f['wall'] * 1000:.0f} ms | {f['cpu'] * 1000:.0f} ms | {f['rss']:.0f} MB | {f['out'][:60]} |")


def ratio_line(label: str, value: float, target: str, ok: bool | None) -> bool:
    verdict = "info" if ok is None else "PASS" if ok else "FAIL"
    print(f"- {label}: **{value:.2f}x** (target {target}) {verdict}")
    return ok is not False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--only", default="S,K,L", help="S: start-up, K: Kaggle-shaped, L: 20 x 100k")
    parser.add_argument("--baseline-rev", default="main", help="the revision run as `today` ('' for none)")
    parser.add_argument("--workdir", type=Path)
    args = parser.parse_args()
    work = Path(args.workdir or tempfile.mkdtemp(prefix="bench-process-"))
    work.mkdir(parents=True, exist_ok=True)
    baseline = baseline_tree(args.baseline_rev, work / "baseline") if args.baseline_rev else None
    ok = True
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; "
          f"{args.runs} runs per command, round-robin; CPU = user + sys of the process")
    if "S" in args.only:
        py, env, nothing = sys.executable, dict(os.environ), (lambda: None)
        commands = {"import numpy": ([py, "-c", "import numpy"], env, nothing),
                    "--version": ([py, "-m", "tpugraphs_eval", "--version"], env, nothing),
                    "--help": ([py, "-m", "tpugraphs_eval", "--help"], env, nothing)}
        if baseline is not None:
            today_env = {**env, "PYTHONPATH": str(baseline)}
            commands |= {"--version today": ([py, "-m", "tpugraphs_eval", "--version"], today_env, nothing),
                         "--help today": ([py, "-m", "tpugraphs_eval", "--help"], today_env, nothing)}
        start = measure(commands, args.runs)
        for f in start.values():
            f["out"] = f["out"].splitlines()[0] if f["out"] else ""
        report("S: start-up", start)
        for name in ("--version", "--help"):
            value = start[name]["wall"] / start["import numpy"]["wall"]
            ok &= ratio_line(f"{name} / import numpy (wall)", value, "<= 1.3", value <= 1.3)
    if "K" in args.only:
        root, csv = work / "kaggle", work / "kaggle.csv"
        if not csv.exists():
            synth_data.write_test_root(root, csv)
        commands = others(root, "test", csv, floor=True) | product_commands(root, "test", csv, work / "cache-k",
                                                                            baseline, validate=True)
        k = measure(commands, args.runs)
        report("K: Kaggle-shaped test split (894 graphs), whole process", k)
        cpu = {n: f["cpu"] for n, f in k.items()}
        ok &= ratio_line("naive / warm (CPU)", cpu["naive"] / cpu["warm"], ">= 6", cpu["naive"] / cpu["warm"] >= 6)
        ok &= ratio_line("warm / floor (CPU)", cpu["warm"] / cpu["floor"], "<= 1.5", cpu["warm"] / cpu["floor"] <= 1.5)
        ok &= ratio_line("naive / cold (CPU)", cpu["naive"] / cpu["cold"], ">= 3", cpu["naive"] / cpu["cold"] >= 3)
        ratio_line("pandas / warm (CPU)", cpu["pandas"] / cpu["warm"], "-", None)
        ratio_line("naive / warm (wall)", k["naive"]["wall"] / k["warm"]["wall"], "-", None)
        ratio_line("warm / floor (wall)", k["warm"]["wall"] / k["floor"]["wall"], "-", None)
        ratio_line("naive / cold (wall)", k["naive"]["wall"] / k["cold"]["wall"], "-", None)
        if baseline is not None:
            ratio_line("naive / today (CPU)", cpu["naive"] / cpu["today"], "-", None)
            value = cpu["validate-warm"] / cpu["validate-today"]
            ok &= ratio_line("validate warm / validate today (CPU)", value, "<= 0.4", value <= 0.4)
            ok &= peak_rss_against_today(k)
        in_process(root, "test", csv, work / "cache-k")
    if "L" in args.only:
        root, csv = work / "large", work / "large.csv"
        if not csv.exists():
            synth_data.write_large_valid_root(root, csv)
        commands = others(root, "valid", csv, floor=False) | product_commands(root, "valid", csv, work / "cache-l",
                                                                              baseline, validate=False)
        big = measure(commands, max(3, args.runs // 2))
        report("L: 20 layout graphs x 100,000 configs (valid), whole process", big)
        cpu = {n: f["cpu"] for n, f in big.items()}
        ok &= ratio_line("naive / warm (CPU)", cpu["naive"] / cpu["warm"], ">= 6", cpu["naive"] / cpu["warm"] >= 6)
        ratio_line("naive / cold (CPU)", cpu["naive"] / cpu["cold"], "-", None)
        ratio_line("naive / warm (wall)", big["naive"]["wall"] / big["warm"]["wall"], "-", None)
        if baseline is not None:
            ratio_line("naive / today (CPU)", cpu["naive"] / cpu["today"], "-", None)
            ok &= peak_rss_against_today(big)
        in_process(root, "valid", csv, work / "cache-l")
    if args.workdir is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
