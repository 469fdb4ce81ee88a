"""The synthetic demo dataset: a small data root in the official TpuGraphs layout, made by code
(:mod:`tpugraphs_eval.demo.generate`), so that every command runs without the real dataset. It is SYNTHETIC (no TPU
measurements) but mirrors the real files' keys, dtypes and quirks; unlike the public test files, its test runtimes
are filled in (the organiser's view). Generated deterministically at first use and cached (:func:`demo_data_root`).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np

from ..dataset import COLLECTIONS
from ..demo import generate as demo_generate
from ..errors import DataError
from ..truth.dataroot import SYNTHETIC_MARKER

#: Bump whenever the generator's output changes: the cache folder is ``demo-v{DEMO_VERSION}``.
DEMO_VERSION = 1

_COMPLETE = ".complete"


def build_demo(dest: Path) -> None:
    """Write the complete demo data root at ``dest`` (created if missing).

    Produces ``npz/tile/xla/{train,valid,test}/*.npz`` (80/24/40 graphs) and
    ``npz/layout/{xla,nlp}/{default,random}/{train,valid,test}/*.npz`` (6/3/3 graphs each) with the
    real files' keys and dtypes: ``node_feat`` float32 (n,140), ``node_opcode`` uint8 (n,),
    ``edge_index`` int64 (m,2), ``config_runtime`` int64 (c,) in nanoseconds (all > 0, test included);
    tile adds ``config_feat`` float32 (c,24) and ``config_runtime_normalizers`` int64 (c,);
    layout adds ``node_config_feat`` float32 (c,nc,18), ``node_config_ids`` int64 (nc,) and
    ``node_splits`` int64 (1,k). Also ``eval_indices/{xla,nlp}_{default,random}.json``
    (``{valid graph: [1000 config indices]}``) and ``SYNTHETIC.txt``. Takes 1-2 s; about 3 MB.
    """
    dest = Path(dest)
    indices: dict[str, dict[str, list[int]]] = {c.eval_indices_name: {} for c in COLLECTIONS if c.eval_indices_name}
    for collection, split, name, arrays in demo_generate.iter_graphs():
        folder = dest / collection.split_dir(split)
        folder.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(folder / f"{name}.npz", **arrays)
        if collection.kind == "layout" and split == "valid":
            c = arrays["config_runtime"].shape[0]
            indices[collection.eval_indices_name][name] = demo_generate.eval_indices(collection, name, c)
    (dest / "eval_indices").mkdir(parents=True, exist_ok=True)
    for stem, lists in indices.items():
        (dest / "eval_indices" / f"{stem}.json").write_text(json.dumps(lists), encoding="utf-8")
    (dest / SYNTHETIC_MARKER).write_text(
        "SYNTHETIC demo data - NOT real TpuGraphs measurements.\n\n"
        f"Made by tpugraphs_eval.demo version {DEMO_VERSION}: graphs, configurations and runtimes are\n"
        "random draws shaped like the TpuGraphs dataset (arXiv 2308.13490) files. Scores computed on it\n"
        "say nothing about a model's quality on real TPU programs. Test runtimes are filled in (unlike\n"
        "the public test files) so that test submissions can be scored in demos.\n",
        encoding="utf-8",
    )


def _manifest(root: Path) -> str:
    """One line per file under ``root`` (but the marker): relative path and size, sorted."""
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.name != _COMPLETE)
    return "".join(f"{p.relative_to(root).as_posix()} {p.stat().st_size}\n" for p in files)


def _intact(target: Path) -> bool:
    """The root has its ``.complete`` marker and every file it lists, with the same sizes, and no other."""
    try:
        return (target / _COMPLETE).read_text(encoding="utf-8") == _manifest(target)
    except OSError:
        return False


def demo_data_root() -> Path:
    """Return the cached demo data root, building it at first use (prints nothing): ``demo-v{DEMO_VERSION}`` under
    ``$TPUGRAPHS_DEMO_CACHE``, else ``$XDG_CACHE_HOME/tpugraphs-eval``, else ``~/.cache/tpugraphs-eval``. It is built
    in a temporary sibling, marked ``.complete`` (every file and its size) and renamed into place: concurrent callers
    never see a half-written root; one whose files differ from its marker is rebuilt.

    Raises:
        DataError: the cache folder cannot be created or written (set ``$TPUGRAPHS_DEMO_CACHE``).
    """
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(os.environ.get("TPUGRAPHS_DEMO_CACHE") or (Path(xdg) if xdg else Path.home() / ".cache") / "tpugraphs-eval")
    target = base / f"demo-v{DEMO_VERSION}"
    if _intact(target):
        return target
    try:
        return _build_into(base, target)
    except OSError as err:
        raise DataError(f"cannot create the synthetic demo data under {base}: {err.strerror or err}. Set "
                        "TPUGRAPHS_DEMO_CACHE to a writable folder.") from None


def _build_into(base: Path, target: Path) -> Path:
    base.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=base))
    try:
        os.chmod(tmp, 0o755)  # mkdtemp makes it private; the cache may be shared
        build_demo(tmp)
        (tmp / _COMPLETE).write_text(_manifest(tmp), encoding="utf-8")
        for _ in range(3):
            if _intact(target):  # another process finished first
                break
            if target.exists():  # damaged or stale: set it aside, then remove it
                stale = Path(tempfile.mkdtemp(prefix=f".{target.name}-stale-", dir=base))
                with contextlib.suppress(OSError):
                    os.rename(target, stale / "root")
                shutil.rmtree(stale, ignore_errors=True)
            try:
                os.rename(tmp, target)
                return target
            except OSError:
                if not _intact(target) and not target.exists():
                    raise
        if not _intact(target):
            raise OSError(f"could not install the demo data root at {target}")
        return target
    finally:
        shutil.rmtree(tmp, ignore_errors=True)  # gone already when it was renamed into place
