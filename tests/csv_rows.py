"""Small data roots and submission rows built in tests: a data root from {ID: runtimes}, CSV bytes
from rows, random or oracle rows of a ground truth."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def write_root(tmp_path: Path, graphs: dict[str, np.ndarray], split: str = "valid") -> Path:
    """A data root with the given graphs: {submission ID: runtimes}; tile normalizers are 2."""
    for graph_id, y in graphs.items():
        prefix, _, name = graph_id.rpartition(":")
        parts = prefix.split(":")
        folder = tmp_path / ("npz/tile/xla" if parts[0] == "tile" else Path("npz", *parts)) / split
        folder.mkdir(parents=True, exist_ok=True)
        arrays = {"config_runtime": np.asarray(y, dtype=np.int64)}
        if parts[0] == "tile":
            arrays["config_runtime_normalizers"] = np.full(len(y), 2, dtype=np.int64)
        np.savez(folder / f"{name}.npz", **arrays)
    return tmp_path


def csv_bytes(rows: dict[str, list[int]] | list[tuple[str, list[int]]]) -> bytes:
    items = rows.items() if isinstance(rows, dict) else rows
    return ("ID,TopConfigs\n" + "".join(f"{i},{';'.join(map(str, r))}\n" for i, r in items)).encode()


def demo_rows(truth, kind: str, seed: int = 0) -> dict[str, list[int]]:
    rng = np.random.default_rng(seed)
    rows = {}
    for name, ct in truth.collections.items():
        for graph, y in zip(ct.graphs.names, ct.runtimes):
            order = np.argsort(y, kind="stable") if kind == "oracle" else rng.permutation(y.size)
            rows[f"{name}:{graph}"] = (order[:5] if name == "tile:xla" else order).tolist()
    return rows
