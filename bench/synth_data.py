"""Synthetic data roots and submissions for bench_speed.py (official layout, random numbers).

Everything written here is a stand-in shaped like the real TpuGraphs files (SPEC §1): only the keys
the evaluator reads are stored (``config_runtime`` int64, plus ``config_runtime_normalizers`` int64
for tile), except for :func:`write_big_layout_root`, which adds a >= 1 GB ``node_config_feat`` to check
that loading the ground truth never materialises it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

TILE_DIR = "npz/tile/xla"
LAYOUT_DIRS = {
    "layout:xla:default": "npz/layout/xla/default",
    "layout:xla:random": "npz/layout/xla/random",
    "layout:nlp:default": "npz/layout/nlp/default",
    "layout:nlp:random": "npz/layout/nlp/random",
}


def _hex_names(rng: np.random.Generator, n: int) -> list[str]:
    """n distinct 32-hex-digit graph names, like the real test files."""
    names: set[str] = set()
    while len(names) < n:
        names.add(rng.bytes(16).hex())
    return sorted(names)


def _runtimes(rng: np.random.Generator, c: int, tie_fraction: float = 0.02) -> np.ndarray:
    """c positive int64 runtimes (ns) with some exact ties."""
    y = rng.integers(1_000_000, 20_000_000, size=c, dtype=np.int64)
    n_ties = int(c * tie_fraction)
    if c >= 4 and n_ties:
        src = rng.integers(0, c, size=n_ties)
        dst = rng.integers(0, c, size=n_ties)
        y[dst] = y[src]
    return y


def tile_config_counts(rng: np.random.Generator, n: int = 844) -> np.ndarray:
    """Config counts shaped like the real tile test split: mostly tens to hundreds, 16 graphs of 2-4,
    a few near 1000."""
    counts = np.exp(rng.normal(np.log(80.0), 1.0, size=n)).astype(np.int64)
    counts = np.clip(counts, 5, 700)
    counts[:16] = rng.integers(2, 5, size=16)          # the 2-4 config graphs
    counts[16:24] = rng.integers(800, 1001, size=8)    # a few large ones
    rng.shuffle(counts)
    return counts


def _save(folder: Path, name: str, **arrays: np.ndarray) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    np.savez(folder / f"{name}.npz", **arrays)


def _write_csv(path: Path, rows: list[tuple[str, str]], rng: np.random.Generator) -> None:
    order = rng.permutation(len(rows))
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.write("ID,TopConfigs\n")
        for i in order:
            handle.write(f"{rows[i][0]},{rows[i][1]}\n")


def _join(indices: np.ndarray) -> str:
    return ";".join(map(str, indices.tolist()))


def write_test_root(root: Path, csv_path: Path, seed: int = 1) -> dict[str, int]:
    """A Kaggle-shaped test split: 844 tile graphs and 8+8+17+17 layout graphs of 1000 configs, plus a
    valid strict submission (tile: min(5, c) random distinct configs; layout: a random permutation).

    Test names are shared by ``default`` and ``random`` of one source, as in the real test split.
    Returns the number of graphs per collection.
    """
    rng = np.random.default_rng(seed)
    rows: list[tuple[str, str]] = []
    counts = tile_config_counts(rng)
    for name, c in zip(_hex_names(rng, len(counts)), counts.tolist()):
        normalizer = np.full(c, int(rng.integers(1_000, 100_000)), dtype=np.int64)
        _save(root / TILE_DIR / "test", name, config_runtime=_runtimes(rng, c), config_runtime_normalizers=normalizer)
        rows.append((f"tile:xla:{name}", _join(rng.choice(c, size=min(5, c), replace=False))))
    sizes = {"tile:xla": len(counts)}
    for source, n in (("xla", 8), ("nlp", 17)):
        names = _hex_names(rng, n)
        for variant in ("default", "random"):
            collection = f"layout:{source}:{variant}"
            for name in names:
                _save(root / LAYOUT_DIRS[collection] / "test", name, config_runtime=_runtimes(rng, 1000))
                rows.append((f"{collection}:{name}", _join(rng.permutation(1000))))
            sizes[collection] = n
    _write_csv(csv_path, rows, rng)
    return sizes


def write_large_valid_root(root: Path, csv_path: Path, *, per_collection: int = 5, n_configs: int = 100_000,
                           seed: int = 2) -> None:
    """A valid split of layout graphs only (per_collection per layout collection, n_configs each, runtimes
    with ties) and a strict submission ranking each graph by a random permutation."""
    rng = np.random.default_rng(seed)
    rows: list[tuple[str, str]] = []
    for collection, folder in LAYOUT_DIRS.items():
        for k in range(per_collection):
            name = f"bench_{collection.split(':', 1)[1].replace(':', '_')}_{k}"
            _save(root / folder / "valid", name, config_runtime=_runtimes(rng, n_configs))
            rows.append((f"{collection}:{name}", _join(rng.permutation(n_configs))))
    _write_csv(csv_path, rows, rng)


def write_big_layout_root(root: Path, *, shape: tuple[int, int, int] = (1000, 15000, 18), seed: int = 3) -> Path:
    """One layout:xla:default valid graph whose ``node_config_feat`` (float32, zeros) is ``prod(shape) * 4``
    bytes, stored uncompressed by ``np.savez``, plus the other real keys. Returns the file's path.

    The big array is a zero-stride broadcast view, so ``np.savez`` streams it in 16 MiB chunks: the
    writer never holds the array itself in memory.
    """
    rng = np.random.default_rng(seed)
    c, nc, _ = shape
    n_nodes = 2 * nc
    path = root / LAYOUT_DIRS["layout:xla:default"] / "valid" / "bench_big_graph.npz"
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(
        path,
        node_feat=np.zeros((n_nodes, 140), dtype=np.float32),
        node_opcode=rng.integers(0, 120, size=n_nodes, dtype=np.uint8),
        edge_index=rng.integers(0, n_nodes, size=(n_nodes, 2), dtype=np.int64),
        node_config_feat=np.broadcast_to(np.float32(0), shape),
        node_config_ids=np.arange(nc, dtype=np.int64),
        node_splits=np.array([[0, nc // 2, nc]], dtype=np.int64),
        config_runtime=_runtimes(rng, c),
    )
    return path
