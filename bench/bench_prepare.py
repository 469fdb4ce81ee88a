"""Time and peak RSS of ``prepare`` on a layout graph with a >= 1 GB ``node_config_feat``, against a naive
reference measured in the same run (``np.load`` the whole file, index the sampled rows, ``np.savez_compressed``).

    python bench/bench_prepare.py            # 2000 x 7500 x 18 float32 = 1.08 GB, sampled to 1000 configs
    python bench/bench_prepare.py --demo     # also: prepare on the demo data root
    python bench/bench_prepare.py --real ../shared/realdata   # also: on a root made from its labelled graphs

Each measurement runs in a fresh interpreter (``rss_probe.measure``: VmHWM reset before the call). Prints one
line per measurement and the ratios ours / naive. Needs about 3 GB of free disk in the temporary folder.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent

_PROBE = r"""
import json, sys
sys.path.insert(0, {bench!r})
from rss_probe import measure
mode, root, out, seed = sys.argv[1:5]
if mode == "ours":
    from tpugraphs_eval.prepare import prepare_dir
    result = measure(lambda: len(prepare_dir(root, out, seed=seed, collections=["layout:xla:default"]
                                             if root.endswith("big") else None)["names"]))
else:
    import numpy as np
    from pathlib import Path
    def naive():
        src = next(Path(root).rglob("big.npz"))
        with np.load(src) as data:
            arrays = {{k: data[k] for k in data.files}}
        c = arrays["config_runtime"].size
        keep = np.sort(np.random.default_rng(0).choice(c, min(c, 1000), replace=False))
        arrays["node_config_feat"] = arrays["node_config_feat"][keep]
        arrays["config_runtime"] = np.zeros(keep.size, dtype=np.int64)
        Path(out).mkdir()
        np.savez_compressed(Path(out) / "big.npz", **arrays)
        return 1
    result = measure(naive)
result.pop("result")
print(json.dumps(result))
"""


def write_big_root(root: Path, shape: tuple[int, int, int]) -> Path:
    """layout:xla:default train: ``big`` (node_config_feat of ``shape``, float32 ones, stored uncompressed) and
    two small graphs; returns the root."""
    rng = np.random.default_rng(5)
    folder = root / "npz/layout/xla/default/train"
    folder.mkdir(parents=True)
    for name, (c, nc, _) in (("big", shape), ("small0", (300, 20, 18)), ("small1", (200, 10, 18))):
        n = 2 * nc
        np.savez(folder / f"{name}.npz", node_feat=np.zeros((n, 140), dtype=np.float32),
                 node_opcode=rng.integers(0, 120, n, dtype=np.uint8),
                 edge_index=rng.integers(0, n, (n, 2), dtype=np.int64),
                 node_config_feat=np.broadcast_to(np.float32(1), (c, nc, 18)),
                 node_config_ids=np.arange(nc, dtype=np.int64), node_splits=np.array([[0, nc]], dtype=np.int64),
                 config_runtime=rng.integers(1_000_000, 9_000_000, c, dtype=np.int64))
    return root


def seed_holding_out_big(root: Path) -> str:
    """A seed whose draw holds out ``big`` (2 of the 3 graphs are held out)."""
    from tpugraphs_eval.dataset import BY_NAME
    from tpugraphs_eval.prepare import select_held_out

    c = BY_NAME["layout:xla:default"]
    graphs = [(c, "train", p.stem) for p in sorted((root / c.split_dir("train")).glob("*.npz"))]
    return next(f"bench-seed-{i:010d}" for i in range(100)
                if (c, "train", "big") in select_held_out(graphs, 0.1, f"bench-seed-{i:010d}").graphs)


def probe(mode: str, root: Path, out: Path, seed: str) -> dict:
    done = subprocess.run([sys.executable, "-c", _PROBE.format(bench=str(HERE)), mode, str(root), str(out), seed],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def show(label: str, m: dict) -> None:
    print(f"{label:32s} {m['seconds']:8.2f} s  peak RSS {m['peak_kb'] / 1024:8.1f} MiB  "
          f"(rise {m['rise_kb'] / 1024:.1f} MiB, {m['method']})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shape", default="2000,7500,18", help="node_config_feat shape of the big graph")
    parser.add_argument("--demo", action="store_true", help="also measure prepare on the demo data root")
    parser.add_argument("--real", type=Path, metavar="REALDATA", help="also measure on a root made from it")
    parser.add_argument("--no-naive", action="store_true", help="skip the naive reference (about 2 GB of RSS)")
    args = parser.parse_args()
    shape = tuple(int(x) for x in args.shape.split(","))
    work = Path(tempfile.mkdtemp(prefix="bench-prepare-"))
    try:
        if args.demo:
            show("prepare, demo", probe("ours", Path("demo"), work / "demo-out", "bench"))
        if args.real:
            sys.path.insert(0, str(HERE.parent / "tests"))
            from prepared_roots import realdata_labelled_root

            real = realdata_labelled_root(args.real, work / "real")
            show("prepare, realdata-derived root", probe("ours", real, work / "real-out", "bench"))
        root = write_big_root(work / "big", shape)
        size = np.prod(shape) * 4
        print(f"big graph: node_config_feat {shape} float32 = {size / 1e9:.2f} GB "
              f"({(root / 'npz/layout/xla/default/train/big.npz').stat().st_size / 1e9:.2f} GB file)")
        ours = probe("ours", root, work / "big-out", seed_holding_out_big(root))
        show("prepare (streamed)", ours)
        if not args.no_naive:
            naive = probe("naive", root, work / "naive-out", "")
            show("naive (np.load, savez_compressed)", naive)
            print(f"ours / naive: time {ours['seconds'] / naive['seconds']:.2f}, "
                  f"peak RSS {ours['peak_kb'] / naive['peak_kb']:.3f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
