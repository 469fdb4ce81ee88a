"""Time per call of the exported Kaggle metric's `score` (issue 15 item 3), against an older export, same run.

Kaggle calls `score(solution, submission, "ID")` once per Usage subset; this times one call on the Public and
one on the Private rows of (a) the demo test solution and (b) the Kaggle-shaped test split of bench_speed.py's
measurement 1 (synth_data.write_test_root: 844 tile graphs, 8+8+17+17 layout graphs of 1000 configs; a
seeded quarter Public), each with a valid random submission. Both files are loaded from their text (as a
platform loads them); calls alternate, best of N. Also times the solution table's parse alone: the metric's
numpy pass (`standalone_metric._integer_fields`) against the naive per-token `int()` (the code it replaced).

    python bench/bench_kaggle_metric.py [--before OLD_METRIC.py] [--repeats 5]

`--before`: an earlier `tpugraphs-eval export kaggle-metric` file (e.g. written from an older checkout).
"""

from __future__ import annotations

import argparse
import importlib.util
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from synth_data import write_test_root
from timing import best_seconds

from tpugraphs_eval import resolve_data_root
from tpugraphs_eval.hosting import standalone_metric
from tpugraphs_eval.hosting.kaggle_metric import solution_frame
from tpugraphs_eval.hosting.metric_file import write_metric_file
from tpugraphs_eval.truth.solution import build_solution


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module




def _random_submission(solution: pd.DataFrame, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for graph_id, runtimes in zip(solution.ID, solution.runtimes):
        c = runtimes.count(";") + 1
        order = rng.permutation(c)
        rows.append(";".join(map(str, order[:5] if graph_id.startswith("tile:") else order)))
    return pd.DataFrame({"ID": solution.ID, "TopConfigs": rows})


def _naive_parse(column: list[str]) -> list[np.ndarray]:
    return [np.array([int(v) for v in text.split(";")], dtype=np.int64) for text in column]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="an older exported metric file to compare with")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        work = Path(work)
        write_metric_file(work / "metric_now.py")
        metrics = {"now": _load(work / "metric_now.py", "metric_now")}
        if args.before:
            metrics["before"] = _load(args.before, "metric_before")
        build_solution(resolve_data_root("demo"), "test", work / "demo.parquet")
        write_test_root(work / "kaggle", work / "kaggle.csv")
        build_solution(resolve_data_root(work / "kaggle"), "test", work / "kaggle.parquet")
        tables = {"demo": solution_frame(work / "demo.parquet"), "kaggle-shaped": solution_frame(work / "kaggle.parquet")}
        print(f"{'solution':14} {'usage':8} {'graphs':>6} {'tokens':>8}  " + "  ".join(f"{n:>9}" for n in metrics)
              + ("  before/now" if args.before else ""))
        for name, solution in tables.items():
            submission = _random_submission(solution, seed=8)
            for usage in ("Public", "Private"):
                part = solution[solution.Usage == usage]
                sub = submission[submission.ID.isin(part.ID)]
                tokens = int(sum(r.count(";") + 1 for r in part.runtimes))
                values = {n: m.score(part, sub, "ID") for n, m in metrics.items()}
                assert len(set(values.values())) == 1, values  # same numbers
                times = {n: best_seconds(lambda m=m: m.score(part, sub, "ID"), args.repeats) for n, m in metrics.items()}
                ratio = f"  {times['before'] / times['now']:9.2f}x" if args.before else ""
                print(f"{name:14} {usage:8} {len(part):6d} {tokens:8d}  "
                      + "  ".join(f"{t * 1000:7.1f}ms" for t in times.values()) + ratio)
            column = solution.runtimes.tolist()
            naive = best_seconds(lambda: _naive_parse(column), args.repeats)
            ours = best_seconds(lambda: standalone_metric._integer_fields(column, "runtimes", solution.ID.tolist()),
                         args.repeats)
            print(f"{name:14} parse of every runtime: naive int() {naive * 1000:.1f} ms, numpy {ours * 1000:.1f} ms, "
                  f"{naive / ours:.1f}x")


if __name__ == "__main__":
    main()
