"""OPA (ordered pair accuracy) on one graph of 100,000 configurations, with each kernel, against references
measured in the same run: ``scipy.stats.kendalltau`` (the same O(n log n) pair counting, in scipy) and a
brute-force O(n^2) pair count (numpy, row by row) timed on a smaller graph and scaled by n^2.

    /path/to/venv/bin/python bench/bench_opa.py [--n 100000] [--repeats 7] [--brute-n 5000]

Prints the best-of-N time of ``ordered_pair_accuracy`` (predictions with ties, runtimes with ties) per kernel,
of the tau-b + OPA pair of one graph from a ranking (``scoring.layout.pair_metrics``), and the ratios.
"""

from __future__ import annotations

import argparse

import numpy as np
import scipy.stats
from timing import best_seconds

from tpugraphs_eval import kernels
from tpugraphs_eval.scoring.layout import pair_metrics
from tpugraphs_eval.scoring.metrics import ordered_pair_accuracy


def brute_force_opa(predictions: np.ndarray, runtimes: np.ndarray) -> float:
    """O(n^2): for each i, the pairs (i, j > i) compared with numpy."""
    correct = valid = 0
    for i in range(runtimes.size - 1):
        dy = np.sign(runtimes[i + 1:] - runtimes[i])
        dp = np.sign(predictions[i + 1:] - predictions[i])
        valid += np.count_nonzero(dy)
        correct += np.count_nonzero((dy != 0) & (dy == dp))
    return correct / valid


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--brute-n", type=int, default=5_000)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    runtimes = rng.integers(1, args.n // 2, args.n)               # about 1 in 2 runtimes tied with another
    predictions = np.round(runtimes * rng.lognormal(0, 0.3, args.n), -2)  # a noisy model whose outputs tie
    ranking_runtimes = runtimes[rng.permutation(args.n)]

    scipy_time = best_seconds(lambda: scipy.stats.kendalltau(predictions, runtimes), args.repeats)
    small = slice(0, args.brute_n)
    brute_small = best_seconds(lambda: brute_force_opa(predictions[small], runtimes[small]), 1)
    brute_scaled = brute_small * (args.n / args.brute_n) ** 2
    check = abs(brute_force_opa(predictions[small], runtimes[small])
                - ordered_pair_accuracy(predictions=predictions[small], runtimes=runtimes[small]))
    print(f"n = {args.n:,} configs; best of {args.repeats}")
    print(f"reference scipy.stats.kendalltau (tau-b only): {scipy_time * 1e3:8.1f} ms")
    print(f"reference brute force O(n^2), {args.brute_n:,} configs: {brute_small * 1e3:.0f} ms, scaled to n: "
          f"{brute_scaled:,.0f} s (|ours - brute force| on those = {check:.1e})")
    for choice in ("c", "numpy"):
        try:
            previous = kernels.use(choice)
        except Exception as err:  # the C extension was not built
            print(f"kernel {choice}: skipped ({err})")
            continue
        opa = best_seconds(lambda: ordered_pair_accuracy(predictions=predictions, runtimes=runtimes), args.repeats)
        both = best_seconds(lambda: pair_metrics(np.arange(args.n), ranking_runtimes), args.repeats)
        print(f"kernel {choice:5s}: ordered_pair_accuracy {opa * 1e3:7.1f} ms "
              f"({scipy_time / opa:4.1f}x scipy's tau-b, {brute_scaled / opa:,.0f}x brute force); "
              f"tau-b + OPA of a ranking {both * 1e3:6.1f} ms")
        kernels.use(previous)


if __name__ == "__main__":
    main()
