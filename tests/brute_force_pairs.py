"""Independent O(n^2) pair counts for the tests of OPA and of tau-b on predictions: a double loop over the pairs,
written without the evaluator's code."""

from __future__ import annotations

import itertools
import math


def brute_force_opa(predictions, runtimes) -> float:
    """Over all pairs with different runtimes: the share whose faster config is predicted strictly faster
    (TF-Ranking's OPAMetric: a pair counts when label_i > label_j and score_i > score_j, label = score =
    -runtime / -prediction). NaN when no pair has different runtimes."""
    valid = correct = 0
    for i, j in itertools.combinations(range(len(runtimes)), 2):
        if runtimes[i] == runtimes[j]:
            continue
        faster, slower = (i, j) if runtimes[i] < runtimes[j] else (j, i)
        valid += 1
        correct += predictions[faster] < predictions[slower]
    return correct / valid if valid else math.nan
