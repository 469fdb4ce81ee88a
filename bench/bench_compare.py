"""Speed of the `compare` bootstrap (scoring/compare.py) against a naive per-resample Python loop, same run.

Kaggle-sized test split shapes (tile 844 graphs; layout xla 8 + 8, nlp 50 + 50), random per-graph values
with a few undefined taus. Both sides get the same draws; the naive side is the plain loop of
tests/scoring/test_compare.py (each resample, each collection: mean of the defined drawn values). Prints the
best of N times, the ratio, and the time of the default 10,000 resamples (draws included).

    python bench/bench_compare.py [--resamples 1000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import math

import numpy as np
from timing import best_seconds

from tpugraphs_eval.scoring.bootstrap import draw_positions
from tpugraphs_eval.scoring.compare import DEFAULT_RESAMPLES, paired_bootstrap

SHAPES = {"tile:xla": 844, "layout:xla:default": 8, "layout:xla:random": 8, "layout:nlp:default": 50,
          "layout:nlp:random": 50}


def naive(a: dict, b: dict, positions: dict, resamples: int) -> list[float]:
    out = []
    for r in range(resamples):
        means_a, means_b = [], []
        for name in a:
            drawn = positions[name][r].tolist()
            va = [a[name][g] for g in drawn if not math.isnan(a[name][g])]
            vb = [b[name][g] for g in drawn if not math.isnan(b[name][g])]
            if va:
                means_a.append(sum(va) / len(va))
            if vb:
                means_b.append(sum(vb) / len(vb))
        out.append(sum(means_b) / len(means_b) - sum(means_a) / len(means_a))
    return out




def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resamples", type=int, default=1000, help="resamples of the compared runs (default 1000)")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    a = {n: rng.uniform(-1, 1, g) for n, g in SHAPES.items()}
    b = {n: v + rng.normal(0, 0.05, v.size) for n, v in a.items()}
    a["layout:nlp:default"][:2] = np.nan
    positions = draw_positions(SHAPES, args.resamples, 0)
    ours = best_seconds(lambda: paired_bootstrap(a, b, positions), args.repeats)
    reference = best_seconds(lambda: naive(a, b, positions, args.resamples), args.repeats)
    _, overall = paired_bootstrap(a, b, positions)
    check = np.percentile(naive(a, b, positions, args.resamples), 2.5)
    assert abs(check - overall.low) <= 1e-12, (check, overall.low)
    full = best_seconds(lambda: paired_bootstrap(a, b, draw_positions(SHAPES, DEFAULT_RESAMPLES, 0)), args.repeats)
    print(f"{args.resamples} resamples: vectorised {ours * 1e3:.1f} ms, naive loop {reference * 1e3:.1f} ms, "
          f"{reference / ours:.0f}x faster")
    print(f"{DEFAULT_RESAMPLES} resamples with the draws (the command's default): {full * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
