"""A notebook-style scorer, as a participant writes one in a Kaggle notebook, for bench_process.py.

``python bench/pandas_scorer.py ROOT SPLIT CSV`` prints the overall score: ``pandas.read_csv`` of the
submission, every ``.npz`` loaded with ``np.load``, the Kaggle tile score per row and
``scipy.stats.kendalltau`` (tau-b) per layout row, means with pandas ``groupby``. No validation.
"""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.stats

DIRS = {"tile:xla": "npz/tile/xla", "layout:xla:default": "npz/layout/xla/default",
        "layout:xla:random": "npz/layout/xla/random", "layout:nlp:default": "npz/layout/nlp/default",
        "layout:nlp:random": "npz/layout/nlp/random"}


def main(root: str, split: str, csv_path: str) -> float:
    truth = {}
    for collection, folder in DIRS.items():
        for path in sorted((Path(root) / folder / split).glob("*.npz")):
            npz = np.load(path)
            y = npz["config_runtime"]
            if collection == "tile:xla":
                y = y / npz["config_runtime_normalizers"]
            truth[f"{collection}:{path.stem}"] = y
    sub = pd.read_csv(csv_path)
    sub["collection"] = sub["ID"].str.rsplit(":", n=1).str[0]

    def row_score(row) -> float:
        y = truth[row["ID"]]
        ranking = np.array([int(t) for t in row["TopConfigs"].split(";")])
        if row["collection"] == "tile:xla":
            return 2.0 - y[ranking[:5]].min() / y.min()
        predicted = np.empty(len(ranking), dtype=np.int64)
        predicted[ranking] = np.arange(len(ranking))
        return scipy.stats.kendalltau(predicted, y).statistic

    sub["score"] = sub.apply(row_score, axis=1)
    return float(sub.groupby("collection")["score"].mean().mean())


if __name__ == "__main__":
    print(f"{main(*sys.argv[1:4]):.12f}")
