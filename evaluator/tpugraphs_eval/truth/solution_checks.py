"""The integrity checks of a solution file (:mod:`solution`; docs/leaderboard.md, "Solution files"), each failed check
a :class:`DataError` with a ``SOLUTION_*`` code of :data:`errors.ERROR_CODES`."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from ..dataset import BY_NAME, DEMO_GRAPH_NAMES_SHA256, REAL_GRAPH_COUNTS, SPLITS, graph_names_digest
from ..errors import DataError
from .groundtruth import GraphsRead, runtimes_sha256

MANIFEST_KEY = "tpugraphs_eval_solution"
MAX_SOLUTION_BYTES = 4 << 30
"""Largest solution file read (4 GiB; the test split's is about 1 MB, the full train split's some hundred MB)."""
PARQUET_MAGIC = b"PAR1"


def parquet_manifest(path: Path, handle: BinaryIO) -> Any:
    """The JSON value stored under :data:`MANIFEST_KEY` in the key-value metadata of the Parquet file open as
    ``handle`` (seekable; only its first 4 bytes and its footer are read). Parquet layout (Apache Parquet
    format spec, "File format"): ``PAR1``, column chunks, the footer, its 4-byte little-endian length, ``PAR1``.

    Raises:
        DataError: ``SOLUTION_UNREADABLE``, saying which: too short to be Parquet, no ``PAR1`` at the start (not
            Parquet) or at the end (cut off), a footer length past the file's start or a footer that does not
            decode (damaged), no manifest key, a manifest that is not JSON.
    """
    import polars as pl

    def refuse(reason: str) -> DataError:
        return DataError(f"{path} {reason}", code="SOLUTION_UNREADABLE")

    size = handle.seek(0, 2)
    if size < 12:
        raise refuse(f"is too short to be a Parquet file ({size} bytes; a Parquet file starts and ends with the magic "
                     "bytes PAR1 around its footer): not a solution file")
    handle.seek(0)
    head = handle.read(4)
    handle.seek(size - 8)
    tail = handle.read(8)
    if head != PARQUET_MAGIC:
        raise refuse(f"is not a Parquet file (it starts with {head!r}, not the magic bytes PAR1): not a solution file")
    if tail[4:] != PARQUET_MAGIC:
        raise refuse("is cut off: it starts as a Parquet file but does not end with the magic bytes PAR1 (a partial "
                     "copy or download?)")
    footer = int.from_bytes(tail[:4], "little")
    if footer > size - 12:
        raise refuse(f"has a damaged footer: its length field says {footer:,} bytes, more than the file's {size:,}")
    handle.seek(0)
    try:
        metadata = pl.read_parquet_metadata(handle)
    except (OSError, ValueError, pl.exceptions.PolarsError, pl.exceptions.PanicException) as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else ""
        raise refuse(f"has a damaged Parquet footer that cannot be decoded ({type(err).__name__}: "
                     f"{first:.120})") from None
    if MANIFEST_KEY not in metadata:
        raise refuse(f"is a Parquet file without a tpugraphs-eval manifest (metadata key {MANIFEST_KEY}): not a "
                     "solution file written by `tpugraphs-eval solution build`")
    try:
        return json.loads(metadata[MANIFEST_KEY])
    except (ValueError, RecursionError) as err:
        raise refuse(f"holds a manifest that is not valid JSON ({err})") from None


def column_data_sha256(data: bytes) -> str | None:
    """Hex sha256 of a Parquet file's bytes before its footer (magic and column chunks), or None if ``data``
    does not end like a Parquet file (footer length, ``PAR1``). Parquet layout: the file ends with the footer,
    its 4-byte little-endian length, and ``PAR1``."""
    if len(data) < 12 or data[-4:] != b"PAR1":
        return None
    footer = int.from_bytes(data[-8:-4], "little")
    if footer > len(data) - 12:
        return None
    return hashlib.sha256(memoryview(data)[:len(data) - 8 - footer]).hexdigest()


def manifest_faults(manifest: dict[str, Any]) -> list[str]:
    """What is wrong with a manifest's fields (empty when nothing is)."""
    faults = []
    for key in ("source", "evaluator_version"):
        if not isinstance(manifest.get(key), str):
            faults.append(f"has {key} {manifest.get(key)!r}, not text")
    if manifest.get("split") not in SPLITS:
        faults.append(f"has split {manifest.get('split')!r}, not one of {', '.join(SPLITS)}")
    for key, what in (("ground_truth_sha256", "the runtimes' sha256"), ("data_sha256", "the column data's sha256")):
        if not (isinstance(sha := manifest.get(key), str) and re.fullmatch("[0-9a-f]{64}", sha)):
            faults.append(f"lacks {what} ({key}: 64 hex digits)")
    counts = manifest.get("counts")
    fields = ("graphs", "configs", "public_graphs")
    if not (isinstance(counts, dict) and counts and all(
            name in BY_NAME and isinstance(c, dict) and all(type(c.get(f)) is int for f in fields)
            for name, c in counts.items())):
        faults.append("lacks the counts ({collection: {graphs, configs, public_graphs}} with integers)")
    if "synthetic" not in manifest:
        faults.append("lacks its synthetic flag (synthetic: true for the bundled demo data, else false)")
    elif not isinstance(manifest["synthetic"], bool):
        faults.append("has a synthetic flag that is not true or false")
    return faults


_COLUMN_KINDS = {"collection": "text", "graph": "text", "usage": "text", "config": "integer", "runtime": "integer",
                 "normalizer": "integer or null"}


def check_schema(path: Path, schema) -> None:
    """Raise ``SOLUTION_SCHEMA_INVALID`` unless every column exists with its type (:data:`_COLUMN_KINDS`)."""
    import polars as pl

    def fits(kind: str, dtype) -> bool:
        if kind == "text":
            return dtype == pl.String or isinstance(dtype, (pl.Categorical, pl.Enum))
        return dtype.is_integer() or (kind == "integer or null" and dtype == pl.Null)

    if missing := sorted(set(_COLUMN_KINDS) - set(schema)):
        raise DataError(f"{path}: the solution file lacks the columns {', '.join(missing)}",
                        code="SOLUTION_SCHEMA_INVALID")
    if wrong := [f"{name} is {schema[name]}, not {kind}" for name, kind in _COLUMN_KINDS.items()
                 if not fits(kind, schema[name])]:
        raise DataError(f"{path}: wrong column types: {'; '.join(wrong)}", code="SOLUTION_SCHEMA_INVALID")


def usage_counts(read: GraphsRead, masks: dict[str, np.ndarray]) -> dict[str, dict[str, int]]:
    """The manifest's ``counts``: collection → ``graphs``, ``configs``, ``public_graphs`` (``masks``: collection →
    (G,) bool, True for Public)."""
    return {c.name: {"graphs": len(graphs), "configs": int(sum(a.runtime.size for _, a in graphs)),
                     "public_graphs": int(masks[c.name].sum())} for c, graphs in read.items()}


RUNTIMES_DIFFER = ("{path}: the rows' runtimes do not match the manifest's sha256 (a corrupted or edited "
                    "solution file)")


def verify_rows(path: Path, manifest: dict[str, Any], read: GraphsRead, masks: dict[str, np.ndarray],
            check_runtimes: bool) -> None:
    """Raise ``SOLUTION_CHECKSUM_MISMATCH`` unless the rows give the manifest's counts (and runtimes sha256), and
    ``SOLUTION_MANIFEST_MISMATCH`` where its ``split`` and ``synthetic`` contradict the rows (:func:`rows_split`)."""
    if (counts := usage_counts(read, masks)) != manifest["counts"]:
        differ = sorted(n for n in set(counts) | set(manifest["counts"]) if counts.get(n) != manifest["counts"].get(n))
        raise DataError(f"{path}: the rows' graph, config or public-graph counts differ from the manifest's for "
                        f"{', '.join(differ)} (a corrupted or edited solution file)", code="SOLUTION_CHECKSUM_MISMATCH")
    if check_runtimes and runtimes_sha256(read) != manifest["ground_truth_sha256"]:
        raise DataError(RUNTIMES_DIFFER.format(path=path), code="SOLUTION_CHECKSUM_MISMATCH")
    split, demo, what = rows_split(read) or (manifest["split"], False, "")  # where the rows show no split: no fault
    faults = [f"names the {manifest['split']} split, but its rows are {what}"] if manifest["split"] != split else []
    if demo and manifest["synthetic"] is not True:
        faults.append(f"says synthetic: false, but its rows are {what}")
    if faults:
        raise DataError(f"{path}: the solution manifest {'; '.join(faults)} (an edited manifest: demo data must "
                        "not be reported as real, nor one split as another)", code="SOLUTION_MANIFEST_MISMATCH")


_TEST_NAME = re.compile("[0-9a-f]{32}")
"""A test graph's name: 32 hex digits (the official public test files, and ``prepare``'s opaque names)."""


def rows_split(read: GraphsRead) -> tuple[str, bool, str] | None:
    """The split the rows' graphs show, when they show one, as ``(split, demo, what the rows are)``, else None (the
    rule: docs/leaderboard.md, "Solution files"; the demo's names: :data:`..dataset.DEMO_GRAPH_NAMES_SHA256`, the
    real counts: :data:`..dataset.REAL_GRAPH_COUNTS`; SPEC: only test graphs are named by 32 hex digits)."""
    names = {c.name: tuple(sorted(name for name, _ in graphs)) for c, graphs in read.items()}
    digest = graph_names_digest(names)
    for split, demo in DEMO_GRAPH_NAMES_SHA256.items():
        if digest == demo:
            return split, True, f"the synthetic demo's {split} split"
    counts = {name: len(graphs) for name, graphs in names.items()}
    for split in SPLITS:
        if counts == {name: per_split[split] for name, per_split in REAL_GRAPH_COUNTS.items()}:
            return split, False, f"as many graphs as the real {split} split"
    if counts and all(_TEST_NAME.fullmatch(name) for graphs in names.values() for name in graphs):
        return "test", False, "test graphs (every name is 32 hex digits)"
    return None
