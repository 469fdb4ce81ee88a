"""The five TpuGraphs collections, the three splits, and how submission IDs name graphs.

Source: the TpuGraphs paper (arXiv 2308.13490, section 3) and the official dataset layout
(google-research-datasets/tpu_graphs README): ``npz/tile/xla/{split}/`` and
``npz/layout/{xla,nlp}/{default,random}/{split}/``. A submission ID is
``<collection>:<graph id>``, the graph ID being the ``.npz`` file name without its suffix
(Kaggle competition "Google - Fast or Slow? Predict AI Model Runtime", 2023).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Literal

from .rules.metric_table import BY_NAME as _METRICS

Kind = Literal["tile", "layout"]

SPLITS: tuple[str, ...] = ("train", "valid", "test")

#: Kaggle's K for the tile score: a tile row lists the top min(K, c) configurations.
TILE_TOP_K: int = _METRICS["score"].k

MAX_CONFIGS_PER_GRAPH = 1 << 20
"""The scorable maximum: 1,048,576 configurations per graph; a graph with more is refused when its runtimes are
read (``NPZ_MEMBER_TOO_LARGE``). **Decision** and its reasons: docs/metrics.md, "Limits: the scorable maximum"."""


@dataclass(frozen=True)
class Collection:
    """One of the five collections.

    Attributes:
        name: the ID prefix, e.g. ``"layout:xla:default"``.
        kind: ``"tile"`` (Kaggle score, top-K error) or ``"layout"`` (Kendall's tau, slowdown).
        directory: the folder under the data root, without the split, e.g. ``npz/layout/xla/default``.
    """

    name: str
    kind: Kind
    directory: PurePosixPath

    def split_dir(self, split: str) -> PurePosixPath:
        """The folder holding this collection's ``.npz`` files for ``split``."""
        return self.directory / split

    @property
    def eval_indices_name(self) -> str | None:
        """File stem of the official 1000-config validation indices (``xla_default``), or None for tile."""
        return self.name.partition(":")[2].replace(":", "_") if self.kind == "layout" else None


COLLECTIONS: tuple[Collection, ...] = (
    Collection("tile:xla", "tile", PurePosixPath("npz/tile/xla")),
    Collection("layout:xla:default", "layout", PurePosixPath("npz/layout/xla/default")),
    Collection("layout:xla:random", "layout", PurePosixPath("npz/layout/xla/random")),
    Collection("layout:nlp:default", "layout", PurePosixPath("npz/layout/nlp/default")),
    Collection("layout:nlp:random", "layout", PurePosixPath("npz/layout/nlp/random")),
)

BY_NAME: dict[str, Collection] = {c.name: c for c in COLLECTIONS}

REAL_GRAPH_COUNTS: dict[str, dict[str, int]] = {
    "tile:xla": {"train": 5709, "valid": 676, "test": 844},
    "layout:xla:default": {"train": 61, "valid": 7, "test": 8},
    "layout:xla:random": {"train": 69, "valid": 7, "test": 8},
    "layout:nlp:default": {"train": 198, "valid": 20, "test": 17},
    "layout:nlp:random": {"train": 207, "valid": 20, "test": 17},
}
"""Graphs per collection and split in the real dataset (docs/data.md), to tell when a data root is partial."""


def split_submission_id(submission_id: str) -> tuple[Collection, str] | None:
    """Split ``"layout:xla:default:abc"`` into (collection, ``"abc"``); None if no collection prefix matches.

    Graph IDs never contain ``:``, so the collection is everything before the last colon.
    """
    prefix, _, graph = submission_id.rpartition(":")
    collection = BY_NAME.get(prefix)
    return None if collection is None else (collection, graph)


def submission_id(collection: Collection, graph: str) -> str:
    """The submission ID of ``graph`` in ``collection``: ``"<collection>:<graph>"``."""
    return f"{collection.name}:{graph}"


def tile_program(name: str) -> str:
    """The program (model) of a tile graph named ``name``: the name without its last ``_`` and what follows
    (``resnet_128`` → ``resnet``, ``my_model_v2`` → ``my_model``, ``retinanet.2x2.fp32_-342c949e14733d96`` →
    ``retinanet.2x2.fp32``); a name without ``_`` is its own program. Source: ``tile_id.rsplit('_', 1)[0]`` of the
    official ``tiles_evaluate.py`` (google-research-datasets/tpu_graphs), which groups its per-benchmark errors so.
    """
    return name.rsplit("_", 1)[0]


def graph_names_digest(names: dict[str, tuple[str, ...]] | dict[str, list[str]]) -> str:
    """The sha256 (hex) of a split's graph names: one ``collection<TAB>name`` line per graph, sorted, UTF-8.
    ``names``: collection name → its graph names (any order)."""
    import hashlib

    lines = sorted(f"{collection}\t{name}\n" for collection, graph_names in names.items() for name in graph_names)
    return hashlib.sha256("".join(lines).encode("utf-8")).hexdigest()


DEMO_GRAPH_NAMES_SHA256 = {
    "train": "334b680f3acaa7701fed16861be5c4ac3df5e663a8ac5d6c11e89c0dd883a50d",
    "valid": "58fe2635ea3a095f0c2ab18288c6d3be5e010d2e52e5e61e072e6996fffcdf96",
    "test": "748982d29e327153155eefb30039e712a274c69056926f2c0e6a636a8c3eda3b",
}
"""Split → :func:`graph_names_digest` of the bundled synthetic demo's graphs of that split
(:mod:`tpugraphs_eval.demo.generate` makes them; tests/truth/test_solution_manifest.py checks these digests
against it). The ground truth tells a copy of the demo's files by them without importing the demo."""
