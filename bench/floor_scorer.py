"""The floor: the least a whole-process scorer of a TpuGraphs submission can do, for bench_process.py.

``python bench/floor_scorer.py ROOT SPLIT CSV`` prints the overall score. It imports numpy only, reads the same
``.npz`` members as the evaluator (``config_runtime``; tile: ``config_runtime_normalizers``) with ``zipfile`` and
the ``.npy`` header's ``descr`` cut out of its text (no ``np.load``, no ``ast.literal_eval``), splits the CSV with ``str.split`` and computes the Kaggle tile score and Kendall's tau-b (runtime ties, no
ties in a ranking) with numpy, pairwise (O(c^2) per graph: fine for the Kaggle test split's 1000-config layout
graphs, not for 100,000). It checks nothing: no header, duplicate, range or completeness check, no
provenance, no report. Not a product: the floor the evaluator's whole-process time is compared with.
"""

import sys
import zipfile
from pathlib import Path

import numpy as np

DIRS = {"tile:xla": "npz/tile/xla", "layout:xla:default": "npz/layout/xla/default",
        "layout:xla:random": "npz/layout/xla/random", "layout:nlp:default": "npz/layout/nlp/default",
        "layout:nlp:random": "npz/layout/nlp/random"}


def member(archive: zipfile.ZipFile, key: str) -> np.ndarray:
    data = archive.read(f"{key}.npy")
    size = 2 if data[6] == 1 else 4
    start = 8 + size + int.from_bytes(data[8:8 + size], "little")
    descr = data[8 + size:start].decode("latin1").split("'descr': '")[1].split("'")[0]
    return np.frombuffer(data, dtype=descr, offset=start)


def main(root: str, split: str, csv_path: str) -> float:
    truth = {}
    for collection, folder in DIRS.items():
        for path in sorted((Path(root) / folder / split).glob("*.npz")):
            with zipfile.ZipFile(path) as archive:
                y = member(archive, "config_runtime")
                if collection == "tile:xla":
                    y = y / member(archive, "config_runtime_normalizers")
                truth[f"{collection}:{path.stem}"] = y
    scores: dict[str, list[float]] = {}
    with open(csv_path, encoding="utf-8") as handle:
        next(handle)
        for line in handle:
            graph_id, field = line.rstrip("\n").split(",")
            y = truth[graph_id]
            ranking = np.array(field.split(";"), dtype=np.int64)
            collection = graph_id.rsplit(":", 1)[0]
            if collection == "tile:xla":
                value = 2.0 - y[ranking[:5]].min() / y.min()
            else:
                ordered = y[ranking]
                n0 = ordered.size * (ordered.size - 1) // 2
                _, ties = np.unique(ordered, return_counts=True)
                n2 = int((ties * (ties - 1) // 2).sum())
                discordant = int(np.count_nonzero(np.triu(ordered[:, None] > ordered[None, :], 1)))
                denominator = (n0 * (n0 - n2)) ** 0.5
                if denominator == 0:
                    continue
                value = (n0 - n2 - 2 * discordant) / denominator
            scores.setdefault(collection, []).append(float(value))
    return float(np.mean([np.mean(v) for v in scores.values()]))


if __name__ == "__main__":
    print(f"{main(*sys.argv[1:4]):.12f}")
