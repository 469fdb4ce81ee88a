"""The measurements of bench_speed.py: the timing harness (:class:`Bench`) and measurements 1-6.

Each measurement is a method of :class:`Bench` adding summary rows; :data:`MEASUREMENTS` names them for
the driver (bench_speed.py). What each one measures: bench/README.md.
"""

from __future__ import annotations

import cProfile
import gc
import json
import os
import pstats
import resource
import shutil
import statistics
import subprocess
import sys
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO / "tests"))

import naive_scorer  # noqa: E402
import numpy as np  # noqa: E402
import rss_probe  # noqa: E402
import scipy  # noqa: E402
import scipy.stats  # noqa: E402
import synth_data  # noqa: E402

from tpugraphs_eval import load_ground_truth, resolve_data_root, score_submission, validate_submission  # noqa: E402
from tpugraphs_eval.scoring.score import score_parsed  # noqa: E402
from tpugraphs_eval.truth.solution import build_solution, load_solution  # noqa: E402

SPEEDUP_TARGET = 10.0
SCORE_TOLERANCE = 1e-9
RSS_CSV_RATIO_TARGET = 3.0
BIG_LOAD_RISE_TARGET_MB = 100.0
BIG_SHAPE = (1000, 15000, 18)  # float32: 1.08 GB
MB = 1e6  # figures in MB are 10^6 bytes


@dataclass
class Row:
    ident: str
    figure: str
    value: str
    target: str = "-"
    status: str = "info"  # PASS, FAIL, info, ERROR, SKIP
    how: str = ""


class Bench:
    def __init__(self, workdir: Path, repeats: int, runs: int, profile: bool, against: Path | None = None) -> None:
        self.workdir, self.repeats, self.runs, self.profile = workdir, repeats, runs, profile
        self.against = against  # another source tree (a checkout of an older commit) for measurement 7
        self.rows: list[Row] = []

    def add(self, *args, **kwargs) -> None:
        row = Row(*args, **kwargs)
        self.rows.append(row)
        flag = "" if row.status == "info" else f"  [{row.status}]"
        print(f"  {row.ident:<3} {row.figure}: {row.value}{flag}", flush=True)

    def best_of(self, fn, n: int | None = None):
        """(best seconds of n calls, last result)."""
        times, result = [], None
        for _ in range(n or self.repeats):
            gc.collect()
            t0 = time.perf_counter()
            result = fn()
            times.append(time.perf_counter() - t0)
        return min(times), result

    def best_of_interleaved(self, *fns):
        """Like best_of for several functions, run in turns (ours, naive, ours, ...): drift hits them alike."""
        times: list[list[float]] = [[] for _ in fns]
        results: list[object] = [None] * len(fns)
        for _ in range(self.repeats):
            for k, fn in enumerate(fns):
                gc.collect()
                t0 = time.perf_counter()
                results[k] = fn()
                times[k].append(time.perf_counter() - t0)
        return [(min(t), r) for t, r in zip(times, results)]

    # -- helpers shared by measurements 1 and 2 -------------------------------------------------------

    def compare(self, prefix: str, csv_path: Path, root: Path, split: str) -> None:
        """Load both ground truths, time both scorers, check they agree, break our time down."""
        n = self.repeats
        t_load, truth = self.best_of(lambda: load_ground_truth(resolve_data_root(root), split), min(n, 3))
        t_nload, ntruth = self.best_of(lambda: naive_scorer.load_runtimes(root, split), min(n, 3))
        self.add(f"{prefix}a", "ground-truth load, ours / naive",
                 f"{t_load * 1e3:.1f} ms / {t_nload * 1e3:.1f} ms", how=f"best of {min(n, 3)}")
        (t_ours, report), (t_naive, naive) = self.best_of_interleaved(
            lambda: score_submission(csv_path, truth), lambda: naive_scorer.score(csv_path, ntruth))
        if not report.valid or not naive["valid"]:
            raise RuntimeError(f"submission rejected: ours valid={report.valid} ({report.n_errors} errors: "
                               f"{[p.code for p in report.problems[:5]]}), naive errors={naive['errors'][:5]}")
        self.add(f"{prefix}b", "score time, ours", f"{t_ours * 1e3:.1f} ms", how=f"best of {n}")
        self.add(f"{prefix}c", "score time, naive reference", f"{t_naive * 1e3:.1f} ms", how=f"best of {n}")
        ratio = t_naive / t_ours
        self.add(f"{prefix}d", "speed-up (naive / ours)", f"{ratio:.1f}x", f">= {SPEEDUP_TARGET:.0f}x",
                 "PASS" if ratio >= SPEEDUP_TARGET else "FAIL", how=f"best of {n}")
        diff = abs(report.overall - naive["overall"])
        self.add(f"{prefix}e", "overall score, ours vs naive", f"{report.overall:.12f} vs "
                 f"{naive['overall']:.12f} (|diff| {diff:.1e})", f"|diff| <= {SCORE_TOLERANCE:g}",
                 "PASS" if diff <= SCORE_TOLERANCE else "FAIL")
        catalog = truth.catalog
        t_val, validation = self.best_of(lambda: validate_submission(csv_path, catalog))
        t_score, _ = self.best_of(lambda: score_parsed(validation.submission, truth, None))
        self.add(f"{prefix}f", "ours, split: validate_submission / score_parsed",
                 f"{t_val * 1e3:.1f} ms / {t_score * 1e3:.1f} ms", how=f"best of {n}")
        if self.profile:
            self.profile_ours(prefix, csv_path, truth, validation.submission)

    def profile_ours(self, prefix: str, csv_path: Path, truth, parsed) -> None:
        """cProfile of score_submission (main thread only), and the tau-b kernel alone over every layout graph."""
        from tpugraphs_eval.scoring.metrics import ranking_tau_b

        profiler = cProfile.Profile()
        profiler.runcall(score_submission, csv_path, truth)
        print(f"  cProfile of score_submission ({prefix}; main thread only), top 12 by internal time:")
        pstats.Stats(profiler, stream=sys.stdout).sort_stats("tottime").print_stats(12)
        jobs = [(ct.runtimes[g], parsed.ranking(name, g)) for name, ct in truth.collections.items()
                if ct.graphs.collection.kind == "layout" for g in range(len(ct.runtimes))]
        t_gather, ordered = self.best_of(lambda: [y[r] for y, r in jobs])
        t_tau, _ = self.best_of(lambda: [ranking_tau_b(o) for o in ordered])
        t_scipy, _ = self.best_of(lambda: [scipy.stats.kendalltau(np.arange(o.size), o) for o in ordered])
        self.add(f"{prefix}p", f"{len(jobs)} layout graphs, serial: y[ranking] / ranking_tau_b / scipy tau",
                 f"{t_gather * 1e3:.1f} / {t_tau * 1e3:.1f} / {t_scipy * 1e3:.1f} ms", how=f"best of {self.repeats}")

    def probe(self, *args: str) -> dict:
        """Run rss_probe.py in a fresh interpreter; its JSON result."""
        proc = subprocess.run([sys.executable, str(HERE / "rss_probe.py"), *args], cwd=REPO,
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"rss_probe.py {' '.join(args)} exited {proc.returncode}:\n{proc.stderr}")
        return json.loads(proc.stdout.strip().splitlines()[-1])

    # -- the measurements -------------------------------------------------------------------------------

    def m1_test_submission(self) -> None:
        root, csv_path = self.workdir / "m1_test_root", self.workdir / "m1_test_submission.csv"
        t0 = time.perf_counter()
        sizes = synth_data.write_test_root(root, csv_path)
        print(f"  data: {sum(sizes.values())} graphs {sizes}, CSV {csv_path.stat().st_size / MB:.2f} MB "
              f"(made in {time.perf_counter() - t0:.1f} s)")
        self.compare("1", csv_path, root, "test")

    def m2_large_valid(self) -> None:
        root, csv_path = self.workdir / "m2_valid_root", self.workdir / "m2_valid_submission.csv"
        t0 = time.perf_counter()
        synth_data.write_large_valid_root(root, csv_path)
        size = csv_path.stat().st_size
        print(f"  data: 20 layout graphs x 100,000 configs (made in {time.perf_counter() - t0:.1f} s)")
        self.add("2", "CSV size", f"{size / MB:.2f} MB (SPEC expected ~25 MB)")
        self.compare("2", csv_path, root, "valid")
        for ident, mode, name in (("2g", "score-ours", "ours"), ("2h", "score-naive", "naive")):
            out = self.probe(mode, str(root), "valid", str(csv_path))
            rise = out["rise_kb"] * 1024 / MB
            ratio = rise / (size / MB)
            target, status = ("-", "info")
            if mode == "score-ours":
                target = f"<= {RSS_CSV_RATIO_TARGET:.0f}x CSV ({RSS_CSV_RATIO_TARGET * size / MB:.1f} MB)"
                status = "PASS" if ratio <= RSS_CSV_RATIO_TARGET else "FAIL"
            self.add(ident, f"peak RSS rise while scoring, {name}",
                     f"{rise:.1f} MB = {ratio:.2f}x CSV (RSS before {out['rss_before_kb'] / 1024:.0f} MiB)",
                     target, status, how=f"1 fresh process, {out['method']}")

    def m3_big_npz(self) -> None:
        root = self.workdir / "m3_big_root"
        need = int(np.prod(BIG_SHAPE)) * 4 * 1.2
        free = shutil.disk_usage(self.workdir).free
        if free < need:
            self.add("3", "big-npz ground-truth load", f"skipped: {free / 1e9:.1f} GB free, need "
                     f"{need / 1e9:.1f} GB", status="SKIP")
            return
        try:
            written = rss_probe.measure(lambda: synth_data.write_big_layout_root(root, shape=BIG_SHAPE))
            path = written["result"]
            with zipfile.ZipFile(path) as archive, archive.open("node_config_feat.npy") as member:
                version = np.lib.format.read_magic(member)
                read_header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                               else np.lib.format.read_array_header_2_0)
                shape, _, dtype = read_header(member)
                stored = archive.getinfo("node_config_feat.npy")
            print(f"  data: {path.name} {path.stat().st_size / 1e9:.2f} GB; node_config_feat {dtype} {shape}, "
                  f"{stored.file_size / 1e9:.2f} GB {'stored' if stored.compress_type == zipfile.ZIP_STORED else 'compressed'}"
                  f" (written in {written['seconds']:.1f} s; writer's peak RSS rise {written['rise_kb'] / 1024:.0f} MiB)")
            out = self.probe("load-ours", str(root), "valid")
            rise = out["rise_kb"] * 1024 / MB
            self.add("3a", f"peak RSS rise, load_ground_truth ({path.stat().st_size / 1e9:.2f} GB npz)",
                     f"{rise:.1f} MB", f"<= {BIG_LOAD_RISE_TARGET_MB:.0f} MB",
                     "PASS" if rise <= BIG_LOAD_RISE_TARGET_MB else "FAIL", how=f"1 fresh process, {out['method']}")
            self.add("3b", "load time, load_ground_truth (big npz)", f"{out['seconds'] * 1e3:.1f} ms",
                     how="1 fresh process")
        finally:
            shutil.rmtree(root, ignore_errors=True)  # never keep the 1 GB file, even with --keep

    def m4_cli_cold_start(self) -> None:
        script = Path(sys.executable).parent / "tpugraphs-eval"
        if not script.exists():
            raise RuntimeError(f"no console script {script}: is tpugraphs-eval installed in this venv?")
        env = dict(os.environ, TPUGRAPHS_DEMO_CACHE=str(self.workdir / "m4_demo_cache"))
        cli = [str(script), str(REPO / "sample_submissions" / "demo_random_test.csv"), "--data-root", "demo",
               "--split", "test", "-q"]
        imports = [sys.executable, "-c", "import numpy, scipy.stats"]
        first = subprocess.run(cli, env=env, capture_output=True, text=True)  # builds the demo cache
        if first.returncode != 0:
            raise RuntimeError(f"{' '.join(cli)} exited {first.returncode}:\n{first.stdout}{first.stderr}")
        print(f"  CLI says: {first.stdout.strip()}")
        times: dict[str, list[float]] = {"cli": [], "imports": []}
        for _ in range(self.runs):  # interleaved, so drift hits both alike
            for key, cmd in (("cli", cli), ("imports", imports)):
                t0 = time.perf_counter()
                subprocess.run(cmd, env=env, capture_output=True, check=True)
                times[key].append(time.perf_counter() - t0)
        cli_s, imp_s = statistics.median(times["cli"]), statistics.median(times["imports"])
        how = f"median of {self.runs}"
        self.add("4a", "CLI on the demo (tpugraphs-eval ... -q)", f"{cli_s * 1e3:.0f} ms", how=how)
        self.add("4b", "python -c 'import numpy, scipy.stats'", f"{imp_s * 1e3:.0f} ms", how=how)
        self.add("4c", "CLI / bare imports", f"{cli_s / imp_s:.2f}x", how=how)


    def m5_solution_file(self) -> None:
        """Issue 4: scoring against a solution file gives the npz tree's numbers and loads faster."""
        root, csv_path = self.workdir / "m1_test_root", self.workdir / "m1_test_submission.csv"
        if not csv_path.exists():
            synth_data.write_test_root(root, csv_path)
        solution = self.workdir / "m5_solution.parquet"
        t0 = time.perf_counter()
        build_solution(resolve_data_root(root), "test", solution)
        print(f"  solution: {solution.stat().st_size / MB:.2f} MB (built in {time.perf_counter() - t0:.1f} s)")
        (t_npz, from_npz), (t_sol, from_sol) = self.best_of_interleaved(
            lambda: load_ground_truth(resolve_data_root(root), "test"), lambda: load_solution(solution))
        how = f"best of {self.repeats}"
        self.add("5a", "ground-truth load: npz tree / solution file",
                 f"{t_npz * 1e3:.1f} ms / {t_sol * 1e3:.1f} ms = {t_npz / t_sol:.1f}x faster", how=how)
        same = (from_npz.sha256 == from_sol.sha256 and
                score_submission(csv_path, from_npz).to_dict()["graphs"] ==
                score_submission(csv_path, from_sol).to_dict()["graphs"])
        self.add("5b", "same runtimes sha256 and per-graph scores", "yes" if same else "NO", "identical",
                 "PASS" if same else "FAIL")


    def m6_kernels(self) -> None:
        """Issue 8: the numpy fallback (kernels_numpy) against the C extension, on the same inputs."""
        from tpugraphs_eval import kernels

        if kernels._native is None:
            raise RuntimeError("the C extension is not built here: there is nothing to compare the fallback with")
        inputs = (("6a", "Kaggle-shaped test (m1)", "m1_test", "test", synth_data.write_test_root),
                  ("6b", "20 x 100,000 configs (m2)", "m2_valid", "valid", synth_data.write_large_valid_root))
        how = f"best of {self.repeats}, C and numpy in turns"
        for prefix, label, stem, split, write in inputs:
            root, csv_path = self.workdir / f"{stem}_root", self.workdir / f"{stem}_submission.csv"
            if not csv_path.exists():
                write(root, csv_path)
            truth = load_ground_truth(resolve_data_root(root), split)
            catalog = truth.catalog

            def with_kernel(name, fn):
                def run():
                    previous = kernels.use(name)
                    try:
                        return fn()
                    finally:
                        kernels.use(previous)
                return run

            validate = lambda: validate_submission(csv_path, catalog)  # noqa: E731
            (t_c, v_c), (t_np, v_np) = self.best_of_interleaved(with_kernel("c", validate), with_kernel("numpy", validate))
            self.add(f"{prefix}1", f"{label}: validate_submission, C / numpy",
                     f"{t_c * 1e3:.1f} ms / {t_np * 1e3:.1f} ms = {t_np / t_c:.1f}x slower", how=how)
            parsed = v_c.submission
            score = lambda: score_parsed(parsed, truth, None)  # noqa: E731
            (t_c, s_c), (t_np, s_np) = self.best_of_interleaved(with_kernel("c", score), with_kernel("numpy", score))
            self.add(f"{prefix}2", f"{label}: score_parsed, C / numpy",
                     f"{t_c * 1e3:.1f} ms / {t_np * 1e3:.1f} ms = {t_np / t_c:.1f}x slower", how=how)
            report = lambda: score_submission(csv_path, truth).to_json()  # noqa: E731  (the JSON: compared below)
            (t_c, r_c), (t_np, r_np) = self.best_of_interleaved(with_kernel("c", report), with_kernel("numpy", report))
            self.add(f"{prefix}3", f"{label}: score_submission + JSON report, C / numpy",
                     f"{t_c * 1e3:.1f} ms / {t_np * 1e3:.1f} ms = {t_np / t_c:.1f}x slower", how=how)
            same = r_c == r_np and v_c.problems == v_np.problems and v_c.submission.rankings == v_np.submission.rankings
            self.add(f"{prefix}4", f"{label}: same parsed rows and JSON report with both kernels",
                     "yes" if same else "NO", "identical", "PASS" if same else "FAIL")

        rng = np.random.default_rng(6)  # the kernels alone: 20 rankings of 100,000 configs with ties, as in m2
        ranks = np.concatenate([rng.integers(0, 90_000, 100_000) for _ in range(20)]).astype(np.int32)
        args = ranks, np.full(20, 100_000, np.int64), np.full(20, 90_000, np.int64)
        (t_c, c), (t_np, fallback) = self.best_of_interleaved(lambda: kernels._native.inversions(*args),
                                                              lambda: kernels.kernels_numpy.inversions(*args))
        self.add("6c", "inversions alone, 20 x 100,000 values, C / numpy",
                 f"{t_c * 1e3:.1f} ms / {t_np * 1e3:.1f} ms = {t_np / t_c:.1f}x slower"
                 f"{'' if c == fallback else ' (COUNTS DIFFER)'}", how=how, status="info" if c == fallback else "FAIL")
    def m7_whole_process(self) -> None:
        """Issue 17: the Kaggle-shaped scoring run as a user runs it (a fresh process), and the split's read
        in-process (a fresh interpreter each), for this tree and, with --against, another one, in turns."""
        root, csv_path = self.workdir / "m1_test_root", self.workdir / "m1_test_submission.csv"
        if not csv_path.exists():
            synth_data.write_test_root(root, csv_path)
        trees = {"this tree": None} | ({f"--against {self.against}": self.against} if self.against else {})
        envs = {}
        for label, tree in trees.items():
            env = dict(os.environ)
            if tree is not None:
                env["PYTHONPATH"] = str(tree / "evaluator") + os.pathsep + env.get("PYTHONPATH", "")
            envs[label] = env
        cmd = [sys.executable, "-m", "tpugraphs_eval", str(csv_path), "--data-root", str(root), "--split", "test", "-q"]
        for label, env in envs.items():
            first = subprocess.run(cmd, env=env, capture_output=True, text=True)
            if first.returncode != 0:
                raise RuntimeError(f"{label}: {' '.join(cmd)} exited {first.returncode}:\n{first.stdout}{first.stderr}")
            print(f"  {label} says: {first.stdout.strip()}")
        wall: dict[str, list[float]] = {label: [] for label in envs}
        cpu: dict[str, list[float]] = {label: [] for label in envs}
        for _ in range(self.runs):  # interleaved, so drift hits every tree alike
            for label, env in envs.items():
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                t0 = time.perf_counter()
                subprocess.run(cmd, env=env, capture_output=True, check=True)
                wall[label].append(time.perf_counter() - t0)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu[label].append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        how = f"median of {self.runs}, fresh processes in turns"
        loads = {label: [] for label in envs}
        for _ in range(3):
            for label, env in envs.items():
                proc = subprocess.run([sys.executable, str(HERE / "load_timer.py"), str(root), "test",
                                       str(self.repeats)], env=env, capture_output=True, text=True, check=True)
                loads[label].append(json.loads(proc.stdout.strip().splitlines()[-1]))
        for k, label in enumerate(envs):
            w, c = statistics.median(wall[label]), statistics.median(cpu[label])
            self.add(f"7a{'ab'[k]}", f"whole process, Kaggle-shaped score -q ({label})",
                     f"{w * 1e3:.0f} ms wall, {c * 1e3:.0f} ms CPU", how=how)
            best = {key: min(run[key] for run in loads[label]) for key in ("read_wall", "read_cpu", "load_wall", "load_cpu")}
            self.add(f"7b{'ab'[k]}", f"in-process, 894 files: read_split / load_ground_truth ({label})",
                     f"{best['read_wall'] * 1e3:.1f} / {best['load_wall'] * 1e3:.1f} ms wall, "
                     f"{best['read_cpu'] * 1e3:.1f} / {best['load_cpu'] * 1e3:.1f} ms CPU",
                     how=f"best of {self.repeats} in each of 3 fresh interpreters")
        if len(envs) == 2:
            (a, b) = envs
            self.add("7c", "whole process: --against / this tree", f"{statistics.median(wall[b]) / statistics.median(wall[a]):.2f}x "
                     f"wall, {statistics.median(cpu[b]) / statistics.median(cpu[a]):.2f}x CPU", how=how)
    def m8_big_graph_rss(self) -> None:
        """Issue 17 item 5: the peak RSS rise of load_ground_truth for one layout graph of 1M configs and for ten of
        100k (the same total), each in a fresh process, for this tree and, with --against, another one."""
        rng = np.random.default_rng(8)
        roots = {}
        for label, sizes in (("1 x 1,000,000", [1_000_000]), ("10 x 100,000", [100_000] * 10)):
            root = self.workdir / f"m8_{sizes[0]}"
            folder = root / "npz/layout/xla/default/valid"
            if not folder.exists():
                folder.mkdir(parents=True)
                for k, c in enumerate(sizes):  # int64 runtimes with chance ties, stored as numpy writes them
                    np.savez(folder / f"g{k}.npz", config_runtime=rng.integers(1_000_000, 2_000_000, c))
            roots[label] = root
        trees = {"this tree": None} | ({f"--against {self.against}": self.against} if self.against else {})
        seen = []
        for k, (tree_label, tree) in enumerate(trees.items()):
            env = dict(os.environ)
            if tree is not None:
                env["PYTHONPATH"] = str(tree / "evaluator") + os.pathsep + env.get("PYTHONPATH", "")
            rises, digests = {}, set()
            for label, root in roots.items():
                runs = []
                for _ in range(3):
                    proc = subprocess.run([sys.executable, str(HERE / "rss_probe.py"), "load-ours", str(root), "valid"],
                                          cwd=REPO, env=env, capture_output=True, text=True, check=True)
                    runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
                rises[label] = min(r["rise_kb"] for r in runs) * 1024 / MB
                digests.add((label, runs[0]["result"]))
            seen.append(digests)
            one, ten = rises["1 x 1,000,000"], rises["10 x 100,000"]
            self.add(f"8{'ab'[k]}", f"peak RSS rise, load_ground_truth: 1 graph of 1M / 10 of 100k ({tree_label})",
                     f"{one:.1f} MB / {ten:.1f} MB = {one / ten:.2f}x", how="least of 3 fresh processes each")
        if len(seen) == 2:
            same = seen[0] == seen[1]
            self.add("8c", "same ground-truth sha256 from both trees", "yes" if same else "NO", "identical",
                     "PASS" if same else "FAIL")


MEASUREMENTS = {
    "1": ("Kaggle-shaped test submission (844 tile + 50 layout graphs)", Bench.m1_test_submission),
    "2": ("valid-shaped submission, 20 layout graphs x 100,000 configs", Bench.m2_large_valid),
    "3": ("ground truth from a layout npz with >= 1 GB of node_config_feat", Bench.m3_big_npz),
    "4": ("CLI cold start on the demo", Bench.m4_cli_cold_start),
    "5": ("solution file vs npz tree (Kaggle-shaped test split)", Bench.m5_solution_file),
    "6": ("kernels: the numpy fallback against the C extension, same inputs", Bench.m6_kernels),
    "7": ("whole process and in-process read, Kaggle-shaped test split (optionally against another tree)",
          Bench.m7_whole_process),
    "8": ("peak RSS of the ground truth: one graph of 1M configs against ten of 100k (optionally another tree)",
          Bench.m8_big_graph_rss),
}
