"""The generator behind :mod:`tpugraphs_eval.demo.dataset`: synthetic graphs shaped like TpuGraphs files.

Everything is drawn from ``np.random.default_rng`` seeded by CRC-32 of stable strings (never ``hash()``),
and every step that decides a runtime is integer arithmetic: log-runtimes are integers in units of
2**-20 nats and ``exp`` is a fixed-point product of correctly rounded constants (``decimal``). Floats
enter only through random draws, elementwise IEEE arithmetic and rounding; no BLAS, no libm ``exp``/``log``.
So the runtimes (and the fingerprint ``tests/truth/test_demo.py`` pins) do not depend on the CPU or the C
library.

Runtime model (nanoseconds, all > 0, also in test: the demo is the organiser's view):
- tile: ``log runtime = graph base + w_g . config_feat + noise``, ``w_g`` a per-graph jitter of one
  weight vector shared by the whole collection;
- layout: ``log runtime = graph base + scale_g * sum_nodes imp_n * (v . node_config_feat[config, node])
  + noise``, ``v`` shared by the graphs of one source (xla or nlp).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from decimal import Decimal, localcontext

import numpy as np

from ..dataset import COLLECTIONS, SPLITS, Collection

UNIT_BITS = 20  # log-runtimes are int64 in units of 2**-20 nats
FIX_BITS = 24  # exp results are fixed point with 24 fractional bits
MAX_LOG_BITS = 22  # log-runtime offsets stay below 2**22 units = 4 nats


def _exp_table() -> np.ndarray:
    with localcontext() as ctx:
        ctx.prec = 50
        vals = [(Decimal(2) ** (k - UNIT_BITS)).exp() * (1 << FIX_BITS) for k in range(MAX_LOG_BITS)]
        return np.array([int(v + Decimal("0.5")) for v in vals], dtype=np.int64)


_EXP = _exp_table()


def _runtimes(base: int, x: np.ndarray) -> np.ndarray:
    """``base * exp(x / 2**20)`` as int64 ns, integer arithmetic only (x >= 0, < 4 nats)."""
    x = np.asarray(x, dtype=np.int64)
    assert x.min() >= 0 and x.max() < (1 << MAX_LOG_BITS)
    acc = np.full(x.shape, 1 << FIX_BITS, dtype=np.int64)
    for k in range(MAX_LOG_BITS - 1, -1, -1):
        acc = np.where((x >> k) & 1 == 1, (acc * _EXP[k]) >> FIX_BITS, acc)
    assert int(base) * int(acc.max()) < 2**62
    return np.maximum((np.int64(base) * acc) >> FIX_BITS, 1)


def _rng(*parts: object) -> np.random.Generator:
    return np.random.default_rng([20230830, zlib.crc32("/".join(map(str, parts)).encode())])


def _units(rng: np.random.Generator, sd_nats: float, size: int) -> np.ndarray:
    """Gaussian noise in log-runtime units (int64)."""
    return np.rint(rng.normal(0.0, sd_nats, size) * (1 << UNIT_BITS)).astype(np.int64)


def _hex(rng: np.random.Generator, digits: int) -> str:
    words = rng.integers(0, 2**32, size=digits // 8, dtype=np.uint64)
    return "".join(f"{int(w):08x}" for w in words)

_OPCODES = np.array([2, 13, 24, 26, 27, 34, 41, 52, 57, 59, 75, 95, 97, 99, 111], dtype=np.uint8)
_DIM_SIZES = np.array([1, 2, 4, 8, 16, 32, 64, 128, 256, 320, 512, 1024, 1280])


def _structure(rng: np.random.Generator, n: int) -> dict[str, np.ndarray]:
    """node_feat (n,140) float32, node_opcode (n,) uint8, edge_index (m,2) int64 of a random DAG.

    Edges are ``[consumer, producer]`` with producer < consumer, as in the real files; the first
    nodes are parameters (opcode 63) and the last node is the root (node_feat[:, 0] = 1).
    """
    n_params = int(min(n - 1, rng.integers(1, 4)))
    idx = np.arange(n)
    opcode = rng.choice(_OPCODES, n)
    opcode[:n_params] = 63
    # every non-parameter node reads 1..3 of the (up to) 8 nodes before it
    consumers = np.arange(n_params, n)
    reach = np.minimum(consumers, 8)[:, None]
    offsets = 1 + (rng.random((consumers.size, 3)) * reach).astype(np.int64)
    used = np.arange(3)[None, :] < rng.integers(1, 4, consumers.size)[:, None]
    edges = np.stack([np.broadcast_to(consumers[:, None], offsets.shape), consumers[:, None] - offsets], -1)
    edge_index = np.unique(edges[used].reshape(-1, 2), axis=0).astype(np.int64)

    feat = np.zeros((n, 140), np.float32)
    feat[n - 1, 0] = 1
    feat[idx, rng.integers(12, 20, n)] = 1  # element type one-hot
    rank = rng.integers(1, 5, n)
    dims = rng.choice(_DIM_SIZES, (n, 6)) * (np.arange(6)[None, :] < rank[:, None])
    feat[:, 21:27] = dims
    feat[:, 27] = dims.sum(1)
    feat[:, 28] = np.where(dims > 0, dims, 1).astype(np.float64).prod(1)
    feat[idx[:, None], rng.integers(37, 140, (n, 2))] = 1  # a couple of sparse flags
    return {"node_feat": feat, "node_opcode": opcode.astype(np.uint8), "edge_index": edge_index}


def _duplicate_rows(rng: np.random.Generator, arr: np.ndarray, k: int) -> list[tuple[int, int]]:
    """Copy k config rows of ``arr`` onto other rows (in place); return (copy, source) pairs."""
    picks = rng.choice(arr.shape[0], 2 * k, replace=False)
    pairs = [(int(dst), int(src)) for dst, src in zip(picks[:k], picks[k:])]
    for dst, src in pairs:
        arr[dst] = arr[src]
    return pairs

TILE_TRAIN_PROGRAMS = (
    "retinanet.2x2.fp32", "resnet50.4x4.fp16", "bert_pretraining.4x4.fp16",
    "mask_rcnn_resnet50.4x4.bf16", "transformer_tf2_dynamic_shape", "efficientnet_b4_batch_64_train",
    "shapemask.4x4.fp32", "mlperf_ssd_1_shard_batch_8_fast_epoch",
)
TILE_VALID_PROGRAMS = (
    "inception_v3_batch_128_train", "unet_3d.4x4.bf16",
    "resnet_v1_50_official_batch_128_bf16", "mlperf_bert_batch_24_2x2",
)
TILE_COUNTS = {"train": 80, "valid": 24, "test": 40}
#: config counts forced onto the first graphs of each split (the real test split has 16 such graphs)
TILE_FEW_CONFIGS = {"train": (2, 3, 4, 2), "valid": (2, 3, 4), "test": (2, 3, 4, 2, 3)}
_TILE_SIZES = np.array([1, 2, 3, 4, 5, 6, 8, 10, 12, 14, 16, 20, 24, 32])
#: nats per feature unit, shared by all tile graphs; index = config_feat column
_TILE_W = np.zeros(24)
_TILE_W[[6, 7, 14, 15, 22, 23]] = [0.02, -0.001, -0.04, 0.0015, -0.01, 0.0005]
_TILE_W[8:14] = [0.004, -0.006, 0.008, -0.005, 0.003, 0.0]


def tile_names(split: str) -> list[str]:
    """Graph names of tile:xla ``split``: ``<program>_<16 hex>`` (train/valid), 32 hex (test)."""
    rng = _rng("tile:xla", split, "names")
    if split == "test":
        return [_hex(rng, 32) for _ in range(TILE_COUNTS[split])]
    programs = TILE_TRAIN_PROGRAMS if split == "train" else TILE_VALID_PROGRAMS
    names = [f"{programs[i % len(programs)]}_{_hex(rng, 16)}" for i in range(TILE_COUNTS[split])]
    if split == "train":  # like the real retinanet.2x2.fp32_-342c949e14733d96
        names[0] = f"{programs[0]}_-{_hex(rng, 16)}"
    return names


def _tile_group(feat: np.ndarray, start: int, rank: int, a: np.ndarray, b: np.ndarray) -> None:
    """Write one 8-column tile group: 6 dims (rank-2 leading ones, a, b, zero padding), sum, product."""
    feat[:, start:start + rank - 2] = 1
    feat[:, start + rank - 2] = a
    feat[:, start + rank - 1] = b
    feat[:, start + 6] = a + b + rank - 2
    feat[:, start + 7] = a * b


def tile_graph(split: str, index: int, name: str) -> dict[str, np.ndarray]:
    """One tile:xla graph: config_feat (c,24) float32, runtimes and normalizers (c,) int64 ns."""
    rng = _rng("tile:xla", split, name)
    few = TILE_FEW_CONFIGS[split]
    c = few[index] if index < len(few) else int(rng.integers(5, 81))
    n = 2 if index % 7 == 0 else int(rng.integers(2, 41))
    arrays = _structure(rng, n)
    s = _TILE_SIZES.size
    pick = rng.choice(s * s, c, replace=False)  # distinct output tiles
    feat = np.zeros((c, 24), np.int64)
    _tile_group(feat, 8, int(rng.integers(2, 5)), _TILE_SIZES[pick // s], _TILE_SIZES[pick % s])
    if rng.random() < 0.4:  # kernel tile
        _tile_group(feat, 0, 2, np.ones(c, np.int64), rng.choice(_TILE_SIZES, c))
    if rng.random() < 0.3:  # input tile
        _tile_group(feat, 16, 2, rng.choice(_TILE_SIZES, c), rng.choice(_TILE_SIZES, c))
    if c >= 5 and index % 4 == 1:  # duplicated configs (real: inception_v3 valid rows 0 and 8)
        _duplicate_rows(rng, feat, int(rng.integers(1, 3)))
    w = np.rint(_TILE_W * (1 + rng.normal(0, 0.2, 24)) * (1 << UNIT_BITS)).astype(np.int64)
    x = feat @ w + _units(rng, 0.03, c)
    x -= x.min()
    limit = (1 << MAX_LOG_BITS) - 1
    if x.max() > limit:
        x = x * limit // x.max()
    runtime = _runtimes(int(rng.integers(2000, 200_000)), x)
    if index % 5 == 2:  # coarse timer: ties
        runtime = np.maximum((runtime + 50) // 100 * 100, 100)
    arrays["config_feat"] = feat.astype(np.float32)
    arrays["config_runtime"] = runtime
    arrays["config_runtime_normalizers"] = np.full(c, runtime[0], np.int64)  # as in the real files
    return arrays

#: per source and split: (name, nodes, configurable nodes, configs in default, configs in random)
LAYOUT_GRAPHS: dict[str, dict[str, list[tuple[str, int, int, int, int]]]] = {
    "xla": {
        "train": [
            ("bert_classifier.2x2.fp32", 180, 10, 612, 340),
            ("efficientnet_b7_eval_batch_1", 260, 12, 480, 750),
            ("mlperf_nasnet_batch_32", 320, 10, 710, 300),
            ("magenta_dynamic", 90, 6, 240, 96),
            ("openai_v0_rnn_optimized", 150, 10, 512, 57),
            ("resnet_v2_101_batch_128", 400, 8, 380, 900),
        ],
        "valid": [
            ("unet_3d.4x4.bf16", 360, 14, 1965, 481),
            ("resnet50.4x4.fp16", 220, 12, 640, 1210),
            ("inception_v3_batch_128_train", 280, 10, 1020, 760),
        ],
        "test": [("", 240, 12, 1000, 1000), ("", 130, 8, 1000, 1000), ("", 310, 10, 600, 1000)],
    },
    "nlp": {
        "train": [
            ("albert_en_base_batch_size_16_train", 240, 10, 650, 450),
            ("bert_en_uncased_L-12_H-768_A-12_batch_size_32_train", 380, 12, 350, 875),
            ("electra_small_batch_size_32_train", 120, 8, 420, 260),
            ("experts_pubmed_batch_size_64_train", 300, 10, 925, 550),
            ("small_bert_bert_en_uncased_L-4_H-128_A-2_batch_size_16_test", 70, 4, 150, 50),
            ("talking-heads_base_batch_size_32_test", 200, 10, 490, 310),
        ],
        "valid": [
            ("small_bert_bert_en_uncased_L-10_H-768_A-12_batch_size_32_test", 260, 12, 1400, 700),
            ("talking-heads_large_batch_size_16_train", 340, 14, 481, 1030),
            ("bert_multi_cased_L-12_H-768_A-12_batch_size_16_train", 180, 10, 900, 1965),
        ],
        "test": [("", 280, 12, 1001, 1000), ("", 160, 8, 1000, 1000), ("", 90, 6, 1000, 1000)],
    },
}
#: valid graphs whose runtimes get ties (equal values on different configs), per collection
LAYOUT_TIED = {
    "layout:xla:default": "unet_3d.4x4.bf16",  # as in the real file (1965 configs, 1924 runtimes)
    "layout:xla:random": "inception_v3_batch_128_train",
    "layout:nlp:default": "talking-heads_large_batch_size_16_train",
    "layout:nlp:random": "small_bert_bert_en_uncased_L-10_H-768_A-12_batch_size_32_test",
}
#: log-runtime spread (nats) and noise sd: default search stays near the default layout
_LAYOUT_SPREAD = {"default": (0.06, 0.002), "random": (0.8, 0.02)}
_RANK_P = np.array([0.1, 0.25, 0.2, 0.35, 0.1])  # tensor rank 1..5 of a configurable node


def layout_graphs(collection: Collection, split: str) -> list[tuple[str, int, int, int]]:
    """(name, nodes, configurable nodes, configs) of ``collection``'s ``split``.

    Test names are 32 hex digits, drawn per source: default and random share them (real data too).
    """
    _, source, search = collection.name.split(":")
    rng = _rng("layout", source, split, "names")
    return [(name or _hex(rng, 32), n, nc, c_default if search == "default" else c_random)
            for name, n, nc, c_default, c_random in LAYOUT_GRAPHS[source][split]]


def _layout_feat(rng: np.random.Generator, c: int, ranks: np.ndarray, present: np.ndarray) -> np.ndarray:
    """(c, nc, 3, 6) int64: per group a random permutation of 0..rank-1, then -1 padding."""
    nc = ranks.size
    valid = np.arange(6)[None, :] < ranks[:, None]  # (nc, 6)
    keys = np.where(valid[None, :, None, :], rng.random((c, nc, 3, 6)), 2.0)
    perm = np.argsort(keys, axis=-1, kind="stable")
    mask = valid[None, :, None, :] & present[None, :, :, None]
    return np.where(mask, perm, -1).astype(np.int64)


def layout_graph(collection: Collection, split: str, name: str, n: int, nc: int, c: int) -> dict[str, np.ndarray]:
    """One layout graph: node_config_feat (c,nc,18) float32, node_config_ids (nc,), node_splits (1,k),
    config_runtime (c,) int64 ns. Graph structure and base runtime are shared by default and random."""
    _, source, search = collection.name.split(":")
    srng = _rng("layout", source, split, name, "structure")
    arrays = _structure(srng, n)
    ids = np.sort(srng.choice(np.arange(3, n), nc, replace=False)).astype(np.int64)
    k = int(srng.integers(2, 7))
    splits = np.concatenate([[0], np.sort(srng.choice(np.arange(1, n), k - 2, replace=False)), [n]])
    ranks = srng.choice(np.arange(1, 6), nc, p=_RANK_P)
    ranks[0] = max(int(ranks[0]), 3)  # at least one node with a real choice of layouts
    present = np.stack([np.ones(nc, bool), srng.random(nc) < 0.7, srng.random(nc) < 0.3], 1)
    importance = srng.integers(1, 6, nc)
    base = int(srng.integers(50_000_000, 20_000_000_000 if source == "xla" else 5_000_000_000))
    v = np.rint(_rng("layout", source, "weights").normal(0, 1, (3, 6)) * 1000).astype(np.int64)

    rng = _rng(collection.name, split, name, "configs")
    feat = _layout_feat(rng, c, ranks, present)
    if search == "default":  # the default layout with a node or two redrawn (config 0: untouched)
        default = np.where(feat[:1] >= 0, np.maximum(ranks[None, :, None, None] - 1 - np.arange(6), -1), -1)
        changed = rng.random((c, nc)) < 1.5 / nc
        changed[np.arange(c), rng.choice(np.flatnonzero(ranks > 2), c)] = True
        changed[0] = False
        feat = np.where(changed[:, :, None, None], feat, default)
    feat = feat.reshape(c, nc, 18)
    pairs = _duplicate_rows(rng, feat, max(1, c // 100)) if c >= 200 else []

    signal = (feat @ v.reshape(18)) @ importance
    spread, noise = _LAYOUT_SPREAD[search]
    width = int(spread * (1 << UNIT_BITS))
    x = (signal - signal.min()) * width // max(int(np.ptp(signal)), 1) + _units(rng, noise, c)
    offset = int(rng.integers(0, 1 << (UNIT_BITS - 4)))  # up to 0.06 nats above the graph's base
    runtime = _runtimes(base, x - x.min() + offset)
    runtime += rng.integers(0, max(2, base >> UNIT_BITS), c)  # below the log-grid step: no chance ties
    if LAYOUT_TIED.get(collection.name) == name:
        for dst, src in pairs:  # duplicated configs measured equal
            runtime[dst] = runtime[src]
        for dst, src in rng.choice(c, (max(2, c // 50), 2), replace=False).reshape(-1, 2):
            runtime[dst] = runtime[src]

    arrays["node_config_feat"] = feat.astype(np.float32)
    arrays["node_config_ids"] = ids
    arrays["config_runtime"] = runtime
    arrays["node_splits"] = splits.astype(np.int64).reshape(1, k)
    return arrays


def eval_indices(collection: Collection, name: str, c: int) -> list[int]:
    """1000 config indices for a valid layout graph, like the official lists: without replacement
    when c >= 1000, with replacement (so with duplicates) otherwise; not sorted."""
    rng = _rng(collection.name, "valid", name, "eval_indices")
    return [int(i) for i in rng.choice(c, 1000, replace=c < 1000)]


def iter_graphs() -> Iterator[tuple[Collection, str, str, dict[str, np.ndarray]]]:
    """Yield (collection, split, graph name, arrays) for every demo graph, in a fixed order."""
    for collection in COLLECTIONS:
        for split in SPLITS:
            if collection.kind == "tile":
                for i, name in enumerate(tile_names(split)):
                    yield collection, split, name, tile_graph(split, i, name)
            else:
                for name, n, nc, c in layout_graphs(collection, split):
                    yield collection, split, name, layout_graph(collection, split, name, n, nc, c)
