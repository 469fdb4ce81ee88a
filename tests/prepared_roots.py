"""Shared by the prepare and folds tests: a data root made from ../shared/realdata's labelled graphs, and a
scan of a prepared folder's public side."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import numpy as np

REAL_TILE_MODELS = ("resnet50.4x4.fp16", "bert_pretraining.4x4.fp16", "mask_rcnn_resnet50.4x4.bf16",
                    "shapemask.4x4.fp32", "transformer_tf2_dynamic_shape", "retinanet.2x2.fp32")


def realdata_labelled_root(realdata: Path, dest: Path) -> Path:
    """A train-only data root whose files are the real labelled graphs of ``realdata/tpugraphs`` under new names:

    - tile:xla train: each real tile file (train 2 configs, valid 9) as two kernels of each of 6 models
      (12 graphs, ``<model>_<16 hex>``);
    - layout:xla:{default,random} train: 4 programs ``prog0..prog3`` in both collections, alternating the real
      train and valid file of the collection (default: 1159 and 1965 configs; random: 20 and 481).

    Only names change: every file is a byte-identical copy of a real one.
    """
    npz = realdata / "tpugraphs" / "npz"
    tiles = sorted((npz / "tile/xla/train").glob("*.npz")) + sorted((npz / "tile/xla/valid").glob("*.npz"))
    folder = dest / "npz/tile/xla/train"
    folder.mkdir(parents=True)
    for m, model in enumerate(REAL_TILE_MODELS):
        for k in range(2):
            shutil.copyfile(tiles[(m + k) % len(tiles)], folder / f"{model}_{m:08x}{k:08x}.npz")
    for search in ("default", "random"):
        real = [next((npz / f"layout/xla/{search}/{s}").glob("*.npz")) for s in ("train", "valid")]
        folder = dest / f"npz/layout/xla/{search}/train"
        folder.mkdir(parents=True)
        for p in range(4):
            shutil.copyfile(real[p % 2], folder / f"prog{p}.npz")
    return dest


def npz_members(path: Path) -> dict[str, np.ndarray]:
    """Every member of an ``.npz`` as an array (no pickles)."""
    with np.load(path, allow_pickle=False) as data:
        return {k: data[k] for k in data.files}


def public_files(public: Path) -> list[Path]:
    """Every file under a prepared folder's public side, sorted."""
    return sorted(p for p in public.rglob("*") if p.is_file())


def is_npz(path: Path) -> bool:
    return path.suffix == ".npz" and zipfile.is_zipfile(path)
