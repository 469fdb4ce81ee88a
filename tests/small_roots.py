"""A small data root cut from the demo: the first ``n`` graphs (name order) of each collection and split, as
copies of the demo's files (for the few-graphs messages of the baselines, ``compare`` and ``folds``)."""

from __future__ import annotations

import shutil
from pathlib import Path


def demo_subset(demo_root, dest: Path, n: int, splits: tuple[str, ...] = ("train", "valid")) -> Path:
    """``dest``, a data root holding the first ``n`` ``.npz`` of every collection folder of ``splits``."""
    for folder in sorted((demo_root.path / "npz").glob("*/*/**/")):
        if folder.name in splits:
            target = dest / folder.relative_to(demo_root.path)
            target.mkdir(parents=True)
            for path in sorted(folder.glob("*.npz"))[:n]:
                shutil.copyfile(path, target / path.name)
    return dest
