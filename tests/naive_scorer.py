"""An independent, deliberately plain scorer: the reference the tests and the bench compare against.

It shares no code with tpugraphs_eval: Python's csv module, per-row ``int()`` parsing, Python sets for
the strict checks, the SPEC §3 formulas written out per graph, and ``scipy.stats.kendalltau`` for tau-b.
It reads the same ``.npz`` keys itself. Strict mode and ``--configs all`` only.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np
import scipy.stats

COLLECTION_DIRS = {
    "tile:xla": "npz/tile/xla",
    "layout:xla:default": "npz/layout/xla/default",
    "layout:xla:random": "npz/layout/xla/random",
    "layout:nlp:default": "npz/layout/nlp/default",
    "layout:nlp:random": "npz/layout/nlp/random",
}


def load_runtimes(root: Path, split: str, tile_runtime: str = "normalized") -> dict[str, np.ndarray]:
    """Submission ID → runtimes (tile: float64, normalised unless raw; layout: as stored)."""
    truth = {}
    for collection, folder in COLLECTION_DIRS.items():
        directory = Path(root) / folder / split
        if not directory.is_dir():
            continue
        for path in sorted(directory.glob("*.npz")):
            with np.load(path, allow_pickle=False) as npz:
                y = npz["config_runtime"]
                if collection == "tile:xla":
                    y = y.astype(np.float64)
                    if tile_runtime == "normalized":
                        y = y / npz["config_runtime_normalizers"]
            truth[f"{collection}:{path.stem}"] = y
    return truth


def score(csv_path: Path, truth: dict[str, np.ndarray]) -> dict[str, object]:
    """Strict validation and scoring; returns {valid, errors, graphs: {ID: {metric: value}}, collections, overall}."""
    csv.field_size_limit(1 << 30)
    errors: list[str] = []
    graphs: dict[str, dict[str, float]] = {}
    with open(csv_path, newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        if next(reader, None) != ["ID", "TopConfigs"]:
            errors.append("header")
        for row in reader:
            if len(row) != 2:
                errors.append(f"line {reader.line_num}: columns")
                continue
            graph_id, field = row
            if graph_id not in truth:
                errors.append(f"line {reader.line_num}: unknown ID")
                continue
            if graph_id in graphs:
                errors.append(f"line {reader.line_num}: duplicate ID")
                continue
            try:
                ranking = [int(token) for token in field.split(";")]
            except ValueError:
                errors.append(f"line {reader.line_num}: token")
                continue
            y = truth[graph_id]
            c = len(y)
            if len(set(ranking)) != len(ranking) or min(ranking) < 0 or max(ranking) >= c:
                errors.append(f"line {reader.line_num}: indices")
                continue
            best = float(min(y))
            if graph_id.startswith("tile:"):
                if not min(5, c) <= len(ranking) <= 10:  # SPEC §2 amended: strict accepts up to 10
                    errors.append(f"line {reader.line_num}: tile length")
                    continue
                ratio = {k: float(min(y[i] for i in ranking[:k])) / best for k in (1, 5, 10)}
                # top-K error undefined (None) when the row lists fewer than min(K, c) indices (SPEC §3.1 amended)
                graphs[graph_id] = {"score": 2 - ratio[5], **{f"top{k}_error": ratio[k] - 1 if len(ranking) >= min(k, c)
                                                              else None for k in (1, 5, 10)}}
            else:
                if len(ranking) != c:
                    errors.append(f"line {reader.line_num}: not a permutation")
                    continue
                ordered = y[ranking]
                tau = scipy.stats.kendalltau(np.arange(c), ordered).statistic
                slow = {f"slowdown{k}": float(min(ordered[:k])) / best - 1 for k in (1, 10, 100)}
                graphs[graph_id] = {"kendall_tau": float(tau), **slow}
    missing = [i for i in truth if i not in graphs]
    if missing and not errors:
        errors.append(f"{len(missing)} missing IDs")
    if errors:
        return {"valid": False, "errors": errors, "graphs": graphs, "collections": {}, "overall": None}
    collections = {}
    for collection in COLLECTION_DIRS:
        key = "score" if collection == "tile:xla" else "kendall_tau"
        values = [m[key] for i, m in graphs.items() if i.rpartition(":")[0] == collection and not math.isnan(m[key])]
        if values:
            collections[collection] = sum(values) / len(values)
    overall = sum(collections.values()) / len(collections)
    return {"valid": True, "errors": [], "graphs": graphs, "collections": collections, "overall": overall}
