"""The paper's layout validation protocol: a fixed list of 1000 config indices per valid graph, duplicates kept
(docs/metrics.md, layout). Source: ``tpu_graphs/evals/README.md`` and
``tpu_graphs/baselines/layout/eval_indices/*.json`` of google-research-datasets/tpu_graphs: one JSON file per layout
collection (``xla_default.json``, …), ``{graph name: [1000 indices]}``, shipped with the package (:data:`OFFICIAL`).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ..errors import DataError
from ..safeopen import InputRefused, read_regular_file
from .dataroot import DataRoot
from .groundtruth import SplitCatalog

MAX_EVAL_INDICES_BYTES = 64 << 20
"""Largest eval-indices JSON file read: 64 MiB (the official files are 40-140 KB)."""

OFFICIAL = Path(__file__).resolve().parent / "official_indices"
"""The official lists shipped with the package: byte-exact copies of the four files of
google-research-datasets/tpu_graphs (``official_indices/NOTICE.md``: source, commit, licence, sha256)."""

EvalIndices = dict[str, dict[int, np.ndarray]]
"""Collection name → {graph position → (m,) int64 sampled config indices, duplicates included}."""


def indices_folder(given: str | os.PathLike[str] | None, root: DataRoot) -> Path:
    """The folder ``--configs official`` reads: ``given`` (``--eval-indices``), else the demo's own lists (a
    synthetic data root's ``eval_indices/``), else the official lists the package ships (:data:`OFFICIAL`)."""
    if given is not None:
        return Path(given)
    return root.path / "eval_indices" if root.synthetic else OFFICIAL


class LoadedEvalIndices(NamedTuple):
    """The official index lists read from a folder.

    Attributes:
        indices: the lists (:data:`EvalIndices`).
        sha256: hex digest over the JSON files read (the report's provenance).
    """

    indices: EvalIndices
    sha256: str


def load_eval_indices(directory: Path, catalog: SplitCatalog) -> LoadedEvalIndices:
    """The official index lists of every present layout collection of ``catalog``, read from ``directory``, and a
    sha256 over the JSON files read.

    Raises:
        DataError: missing folder or file, a file that is not a regular file (``INPUT_NOT_A_FILE``: a FIFO or
            device, refused before any read) or over :data:`MAX_EVAL_INDICES_BYTES` (``INPUT_TOO_LARGE``),
            invalid JSON, a graph of the split without a list, an empty list, or an index that is not an
            integer in [0, c).
    """
    directory = Path(directory).expanduser()
    if not directory.is_dir():
        what = "is a file, not a folder" if directory.exists() else "does not exist"
        raise DataError(f"eval-indices folder {directory} {what} (pass the folder holding the official "
                        "xla_default.json, xla_random.json, nlp_default.json, nlp_random.json)")
    out: EvalIndices = {}
    faults: list[str] = []
    codes: set[str] = set()
    digest = hashlib.sha256()
    for name, graphs in catalog.collections.items():
        if (stem := graphs.collection.eval_indices_name) is None:
            continue
        path = directory / f"{stem}.json"
        try:
            raw = read_regular_file(path, MAX_EVAL_INDICES_BYTES)
        except InputRefused as refused:
            faults.append(f"{path}: missing (needed for {name})" if refused.kind == "missing" else
                          f"{path} {refused.reason}")
            if refused.kind in ("not_a_file", "too_large"):
                codes.add("INPUT_NOT_A_FILE" if refused.kind == "not_a_file" else "INPUT_TOO_LARGE")
            continue
        digest.update(raw)
        try:
            lists = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as err:
            faults.append(f"{path}: not readable JSON ({err})")
            continue
        if not isinstance(lists, dict):
            faults.append(f"{path}: expected an object {{graph name: [indices]}}")
            continue
        out[name] = _graph_lists(path, lists, graphs, catalog.split, faults)
    if faults:  # coded INPUT_NOT_A_FILE (or else INPUT_TOO_LARGE) when such a file is among them
        code = min(codes) if codes else None
        shipped = (" (the official lists shipped with the package, for the real dataset's valid graphs; pass "
                   "--eval-indices DIR for others)") if directory == OFFICIAL else ""
        raise DataError(f"cannot use the eval indices{shipped}:\n  " + "\n  ".join(faults), code=code)
    return LoadedEvalIndices(out, digest.hexdigest())


def _graph_lists(path: Path, lists: dict, graphs, split: str, faults: list[str]) -> dict[int, np.ndarray]:
    """Graph position → (m,) int64 indices of one collection's file ``lists`` ({graph name: [indices]}); a graph
    without a non-empty integer list in [0, c) is added to ``faults``."""
    out = {}
    for position, (graph, c) in enumerate(zip(graphs.names, graphs.n_configs.tolist(), strict=True)):
        indices = lists.get(graph)
        if not isinstance(indices, list) or not indices or not all(
                isinstance(i, int) and not isinstance(i, bool) for i in indices):
            faults.append(f"{path}: no non-empty integer list for {split} graph {graph!r}")
        elif min(indices) < 0 or max(indices) >= c:
            faults.append(f"{path}: list of {graph!r} has indices outside 0..{c - 1}")
        else:
            out[position] = np.array(indices, dtype=np.int64)
    return out
