"""Solution files: the organiser's ground truth of one split in a single Parquet file, with Usage. The manifest, the
integrity checks (:mod:`.solution_checks`) and the **Decision**s on Usage and on int64 runtimes (``RUNTIME_NOT_INT64``):
docs/leaderboard.md, "Solution files".

One row per (collection, graph, config): ``collection`` (str), ``graph`` (str), ``config`` (int32),
``runtime`` (int64 ns), ``normalizer`` (int64 ns for tile, null for layout) and ``usage`` (``Public``
or ``Private``, the same for every row of a graph).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from .._version import __version__
from ..atomicfile import write_atomically
from ..dataset import BY_NAME, COLLECTIONS
from ..defaults import DEFAULT_PUBLIC_FRACTION
from ..display import shorten
from ..errors import DataError, UsageError
from ..safeopen import open_input, read_input
from .dataroot import DataRoot
from .faults import Fault, raise_faults
from .groundtruth import GraphRuntimes, GraphsRead, GroundTruth, TileRuntime, as_int64_exact, build_ground_truth
from .npzread import read_split
from .solution_checks import (
    MANIFEST_KEY,
    MAX_SOLUTION_BYTES,
    RUNTIMES_DIFFER,
    check_schema,
    column_data_sha256,
    manifest_faults,
    parquet_manifest,
    rows_split,
    usage_counts,
    verify_rows,
)

SOLUTION_FORMAT = 1
MAX_USAGE_FILE_BYTES = 16 << 20
"""Largest usage file read: 16 MiB (one short line per graph; the full test split's is about 30 KB)."""
USAGES = ("Public", "Private")
_ORDER = {c.name: i for i, c in enumerate(COLLECTIONS)}

USAGE_WARNINGS = {
    "NO_PUBLIC_GRAPHS": "a collection has no Public graph: the public leaderboard has no score for it (—, NaN)",
    "NO_PRIVATE_GRAPHS": "a collection has no Private graph: the private leaderboard has no score for it (—, NaN)",
}
"""Codes of ``solution build``'s warnings (printed on stderr and kept in the manifest's ``warnings``)."""


def assign_usage(read: GraphsRead, public_fraction: float, seed: int) -> dict[str, np.ndarray]:
    """Collection → (G,) bool Public mask: a seeded random ``public_fraction`` of each collection's graphs (the
    rule: docs/leaderboard.md, "Solution files"); a collection's draw depends only on (seed, its name).

    Raises:
        UsageError: ``public_fraction`` is not in [0, 1].
    """
    if not 0.0 <= public_fraction <= 1.0:
        raise UsageError(f"the public fraction must be between 0 and 1, not {public_fraction}")
    masks = {}
    for collection, graphs in read.items():
        n = len(graphs)
        n_public = int(round(public_fraction * n))
        if n >= 2:
            n_public = min(max(n_public, 1), n - 1)
        rng = np.random.default_rng([seed, zlib.crc32(collection.name.encode())])
        mask = np.zeros(n, dtype=bool)
        mask[rng.permutation(n)[:n_public]] = True
        masks[collection.name] = mask
    return masks


def usage_from_file(path: Path, read: GraphsRead) -> tuple[dict[str, np.ndarray], str]:
    """Collection → Public mask from a CSV ``ID,Usage`` naming every graph once; also the file's sha256.

    Raises:
        DataError: ``INPUT_NOT_A_FILE`` (a folder, FIFO or device: refused before any read), ``INPUT_TOO_LARGE``
            (over :data:`MAX_USAGE_FILE_BYTES`); unreadable file, wrong header, unknown or repeated ID, a value
            other than Public or Private, or graphs without a row (named).
    """
    data = read_input(path, MAX_USAGE_FILE_BYTES, "usage file")
    try:
        rows = list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))
    except (UnicodeDecodeError, csv.Error) as err:
        raise DataError(f"cannot read the usage file {path}: {err}") from None
    if not rows or [c.strip() for c in rows[0]] != ["ID", "Usage"]:
        raise DataError(f"the usage file {path} must start with the header `ID,Usage`")
    ids = {f"{c.name}:{name}": (c.name, i) for c, graphs in read.items() for i, (name, _) in enumerate(graphs)}
    masks = {c.name: np.zeros(len(graphs), dtype=bool) for c, graphs in read.items()}
    seen: dict[str, int] = {}
    faults = []
    for line, row in enumerate(rows[1:], start=2):
        shown = shorten(row[0]) if row else ""
        if len(row) != 2:
            faults.append(f"line {line}: {len(row)} field(s), expected 2 (`ID,Usage`)")
        elif row[0] in seen:
            faults.append(f"line {line}: `{shown}` again (first on line {seen[row[0]]})")
        elif row[0] not in ids:
            faults.append(f"line {line}: `{shown}` is not a graph of the split")
        elif row[1] not in USAGES:
            faults.append(f"line {line}: `{shown}`: usage `{shorten(row[1])}` is neither Public nor Private")
        else:
            seen[row[0]] = line
            collection, position = ids[row[0]]
            masks[collection][position] = row[1] == "Public"
    if missing := [i for i in ids if i not in seen]:
        faults.append(f"{len(missing)} graph(s) have no Usage row, e.g. {', '.join(missing[:3])}")
    if faults:
        more = f"\n  … and {len(faults) - 10} more" if len(faults) > 10 else ""
        raise DataError(f"the usage file {path} cannot be used (each graph of the split once, as "
                        "`<ID>,Public` or `<ID>,Private`):\n  " + "\n  ".join(faults[:10]) + more)
    return masks, hashlib.sha256(data).hexdigest()


def usage_warnings(counts: dict[str, dict[str, int]]) -> list[dict[str, str]]:
    """``{code, collection, message}`` per collection with no Public or no Private graph (``counts`` as in
    the manifest: collection → ``graphs``, ``public_graphs``), each message saying how to fix it.

    A seeded draw leaves a side empty only for a collection of one graph (see :func:`assign_usage`); a
    usage file may leave any collection's side empty."""
    warnings = []
    for name, count in counts.items():  # (a collection read has one graph or more)
        graphs, public = count["graphs"], count["public_graphs"]
        for code, side, other, fraction, empty in (("NO_PUBLIC_GRAPHS", "Public", "Private", "above 0.5", public == 0),
                                                   ("NO_PRIVATE_GRAPHS", "Private", "Public", "of 0.5 or less",
                                                    public == graphs)):
            if not empty:
                continue
            fix = (f"its single graph is {other}: a collection needs two or more graphs to be on both leaderboards "
                   f"(--public-fraction {fraction}, or a --usage-file, makes it {side})" if graphs == 1 else
                   f"the usage file marks all {graphs} of its graphs {other}: mark some of them {side} there")
            warnings.append({"code": code, "collection": name,
                             "message": f"{name}: no {side} graph, so the {side.lower()} leaderboard has no score "
                                        f"for it (shown as —, NaN in the Kaggle metric); {fix}"})
    return warnings


def build_solution(root: DataRoot, split: str, out: Path, *, public_fraction: float = DEFAULT_PUBLIC_FRACTION,
                   seed: int = 0, usage_file: Path | None = None, progress: bool = False,
                   source: str | None = None) -> dict[str, Any]:
    """Write the solution file of ``split`` from a data root's ``.npz`` files, atomically; returns its manifest.

    The ground truth is checked as for scoring and must be whole numbers of ns that int64 holds exactly. The
    manifest says ``synthetic: true`` for the demo and for a copy of its graphs (:func:`solution_checks.rows_split`),
    and holds :func:`usage_warnings`. ``source``: what the manifest names as the source (default: the data root's
    label).

    Raises:
        DataError: unusable data root or usage file; a runtime or normalizer that int64 cannot hold exactly
            (``RUNTIME_NOT_INT64``, files named). UsageError: a bad fraction; ``out`` cannot be written
            (``OUTPUT_WRITE_FAILED``: an unwritable folder, a full disk).
    """
    import polars as pl

    read = _exact_int64(root, split, read_split(root, split, with_runtimes=True, progress=progress))
    truth = build_ground_truth(root, split, read)  # the checks, and the runtimes' sha256
    if usage_file is not None:
        masks, usage_sha = usage_from_file(usage_file, read)
        usage = {"source": str(usage_file), "sha256": usage_sha}
    else:
        masks = assign_usage(read, public_fraction, seed)
        usage = {"source": "seeded", "public_fraction": public_fraction, "seed": seed}
    frame, counts = _solution_rows(read, masks), usage_counts(read, masks)
    synthetic = root.synthetic or (rows_split(read) or ("", False))[1]  # a copy of the demo's files is synthetic too
    manifest = {"format": SOLUTION_FORMAT, "evaluator_version": __version__, "split": split,
                "source": source or root.label, "synthetic": synthetic, "ground_truth_sha256": truth.sha256,
                "counts": counts, "usage": usage, "warnings": usage_warnings(counts)}
    draft = io.BytesIO()  # the column data does not depend on the footer's metadata: hash it first
    frame.write_parquet(draft, metadata={MANIFEST_KEY: "{}"})
    manifest["data_sha256"] = column_data_sha256(draft.getvalue())

    def write(tmp: str) -> None:
        frame.write_parquet(tmp, metadata={MANIFEST_KEY: json.dumps(manifest, sort_keys=True)})
        if column_data_sha256(Path(tmp).read_bytes()) != manifest["data_sha256"]:  # a non-deterministic writer
            raise OSError(f"the column data changed between two writes (polars {pl.__version__})")

    out = Path(out)
    try:
        write_atomically(out, write)
    except (OSError, pl.exceptions.PolarsError) as err:
        reason = getattr(err, "strerror", None) or err
        raise UsageError(f"cannot write the solution file {out}: {reason}", code="OUTPUT_WRITE_FAILED") from None
    return manifest


def _solution_rows(read: GraphsRead, masks: dict[str, np.ndarray]) -> Any:
    """The solution's rows: a polars frame, one row per configuration, graphs in ``read``'s order, ``usage`` from
    ``masks`` (collection → (G,) bool, True for Public)."""
    import polars as pl

    rows = []  # per graph, its columns
    for collection, graphs in read.items():
        for (name, arrays), public in zip(graphs, masks[collection.name].tolist(), strict=True):
            c = arrays.runtime.size
            rows.append((np.full(c, collection.name, dtype=object), np.full(c, name, dtype=object),
                         np.arange(c, dtype=np.int32), arrays.runtime,
                         arrays.normalizer if arrays.normalizer is not None else np.zeros(c, dtype=np.int64),
                         np.full(c, "Public" if public else "Private", dtype=object)))  # normalizer 0: null
    names = ("collection", "graph", "config", "runtime", "normalizer", "usage")
    return pl.DataFrame({name: np.concatenate(parts) for name, parts in zip(names, zip(*rows))}).with_columns(
        pl.when(pl.col("normalizer") != 0).then(pl.col("normalizer")).alias("normalizer"))


def _exact_int64(root: DataRoot, split: str, read: GraphsRead) -> GraphsRead:
    """``read`` with every runtime and normalizer as int64, converted without loss.

    Raises:
        DataError: ``RUNTIME_NOT_INT64``, listing the files with a float that is not a whole number or an
            integer of 2^63 or more.
    """
    faults: list[Fault] = []
    out: GraphsRead = {}
    for collection, graphs in read.items():
        out[collection] = []
        for name, arrays in graphs:
            runtime = as_int64_exact(arrays.runtime)
            normalizer = None if arrays.normalizer is None else as_int64_exact(arrays.normalizer)
            bad = [k for k, a, v in (("config_runtime", arrays.runtime, runtime),
                                     ("config_runtime_normalizers", arrays.normalizer, normalizer))
                   if a is not None and v is None]
            if bad:
                faults.append(("RUNTIME_NOT_INT64", f"{root.path / collection.split_dir(split) / name}.npz: "
                               f"{' and '.join(bad)} ({arrays.runtime.dtype}) hold values that are not whole "
                               "numbers of ns below 2^63"))
            out[collection].append((name, GraphRuntimes(runtime, normalizer)))
    raise_faults(f"the {split} split of {root.label} cannot be stored in a solution file", faults)
    return out


def read_manifest(path: Path, data: bytes | None = None) -> dict[str, Any]:
    """The manifest of a solution file, its fields checked (format, split, runtimes sha256, counts).

    Args:
        path: the solution file (named in errors).
        data: its bytes when already read; else only its footer is read from ``path``.

    Raises:
        DataError: ``INPUT_NOT_A_FILE`` / ``INPUT_TOO_LARGE`` (:func:`tpugraphs_eval.safeopen.read_input`);
            ``SOLUTION_UNREADABLE`` (no such file, or, said in words: too short to be Parquet, not Parquet,
            cut off, a damaged footer, no manifest) or ``SOLUTION_MANIFEST_INVALID`` (another format; a
            missing or mistyped field).
    """
    with (io.BytesIO(data) if data is not None
          else open_input(path, MAX_SOLUTION_BYTES, "solution file", missing_code="SOLUTION_UNREADABLE")) as handle:
        manifest = parquet_manifest(path, handle)
    # true and 1.0 equal 1 in Python: the type is checked too
    if not isinstance(manifest, dict) or type(manifest.get("format")) is not int or manifest["format"] != SOLUTION_FORMAT:
        found = manifest.get("format") if isinstance(manifest, dict) else type(manifest).__name__
        raise DataError(f"{path}: solution format {found!r}, this evaluator reads {SOLUTION_FORMAT}",
                        code="SOLUTION_MANIFEST_INVALID")
    if faults := manifest_faults(manifest):
        raise DataError(f"{path}: the solution manifest {'; '.join(faults)}", code="SOLUTION_MANIFEST_INVALID")
    return manifest


def load_solution(path: Path, *, tile_runtime: TileRuntime = "normalized") -> GroundTruth:
    """The ground truth (with Usage) stored in a solution file: the same numbers as from the ``.npz`` tree.

    Raises:
        DataError: not a solution file, or its content is inconsistent or does not match its manifest
            (``SOLUTION_*`` codes, see :func:`read_solution`); non-positive runtimes.
    """
    manifest, read, public = read_solution(path, check_runtimes=False)
    root = DataRoot(Path(path), synthetic=bool(manifest.get("synthetic")), noun="solution")
    truth = build_ground_truth(root, manifest["split"], read, tile_runtime=tile_runtime, public=public)
    if truth.sha256 != manifest["ground_truth_sha256"]:  # (the digest build_ground_truth computed anyway)
        raise DataError(RUNTIMES_DIFFER.format(path=path), code="SOLUTION_CHECKSUM_MISMATCH")
    return truth


def read_solution(path: Path, *,
                  check_runtimes: bool = True) -> tuple[dict[str, Any], GraphsRead, dict[str, np.ndarray]]:
    """A solution file's manifest, its graphs' stored arrays, and each collection's (G,) Public mask, verified
    against the manifest (column data sha256, counts, and with ``check_runtimes`` the runtimes' sha256, which
    :func:`load_solution` checks on the digest it computes anyway).

    Raises:
        DataError: ``INPUT_NOT_A_FILE`` / ``INPUT_TOO_LARGE`` / ``SOLUTION_UNREADABLE`` /
            ``SOLUTION_MANIFEST_INVALID`` (:func:`read_manifest`);
            ``SOLUTION_SCHEMA_INVALID`` (a missing column, or one of the wrong type: e.g. a boolean or float
            runtime); ``SOLUTION_ROWS_INVALID`` (no rows, a null, an unknown collection, a usage other than
            Public/Private, a graph with missing or repeated configs or two usages);
            ``SOLUTION_CHECKSUM_MISMATCH`` (the column data's sha256, checked before decoding, or the rows'
            runtimes sha256 or counts differ from the manifest's).
    """
    import polars as pl

    path = Path(path)
    data = read_input(path, MAX_SOLUTION_BYTES, "solution file", missing_code="SOLUTION_UNREADABLE")
    manifest = read_manifest(path, data)
    if column_data_sha256(data) != manifest["data_sha256"]:
        raise DataError(f"{path}: the column data does not match the manifest's data_sha256 (a corrupted or "
                        "edited solution file); it is not decoded", code="SOLUTION_CHECKSUM_MISMATCH")
    try:
        frame = pl.read_parquet(io.BytesIO(data))
    except (OSError, pl.exceptions.PolarsError, pl.exceptions.PanicException) as err:
        raise DataError(f"cannot read the solution file {path} ({type(err).__name__})",
                        code="SOLUTION_UNREADABLE") from None
    check_schema(path, frame.schema)
    if frame.height == 0 or frame.select(pl.exclude("normalizer")).null_count().sum_horizontal().item():
        raise DataError(f"{path}: no rows" if frame.height == 0 else f"{path}: a column other than normalizer "
                        "holds nulls", code="SOLUTION_ROWS_INVALID")
    frame = frame.with_columns(pl.col("collection", "graph", "usage").cast(pl.String))
    if usages := set(frame["usage"].unique().to_list()) - set(USAGES):
        raise DataError(f"{path}: usage must be Public or Private, found {sorted(map(str, usages))[:3]}",
                        code="SOLUTION_ROWS_INVALID")
    if unknown := set(frame["collection"].unique().to_list()) - set(BY_NAME):
        raise DataError(f"{path}: unknown collections {sorted(unknown)[:5]}", code="SOLUTION_ROWS_INVALID")
    if (graphs := _graphs_of(frame)) is None:  # not in build_solution's order: sort (slower), then it must be
        frame = frame.with_columns(pl.col("collection").replace_strict(_ORDER, return_dtype=pl.Int32).alias(
            "_order")).sort(["_order", "graph", "config"]).drop("_order")
        if (graphs := _graphs_of(frame)) is None:
            raise DataError(f"{path}: a graph has missing or repeated configs, or two usages",
                            code="SOLUTION_ROWS_INVALID")
    read, masks = graphs
    verify_rows(path, manifest, read, masks, check_runtimes)
    return manifest, read, masks


def _graphs_of(frame) -> tuple[GraphsRead, dict[str, np.ndarray]] | None:
    """The graphs' arrays of the solution rows ``frame``, in collection order, and each collection's (G,) Public
    mask; None unless the rows are in build order: collections in catalog order, graphs sorted by name, configs
    0..c-1, one usage per graph."""
    import polars as pl

    changed = (pl.col("collection") != pl.col("collection").shift(1)) | (pl.col("graph") != pl.col("graph").shift(1))
    flags = frame.select(changed.fill_null(True).alias("start"),
                         (pl.col("usage") != pl.col("usage").shift(1)).fill_null(True).alias("usage"))
    start = flags["start"].to_numpy()
    starts = np.flatnonzero(start)
    sizes = np.diff(np.r_[starts, frame.height])
    heads = frame[starts.tolist()].select("collection", "graph", "usage").rows()  # one row per graph
    keys = [(_ORDER[collection], name) for collection, name, _ in heads]
    if not ((frame["config"].to_numpy() == np.arange(frame.height) - np.repeat(starts, sizes)).all()
            and not (flags["usage"].to_numpy() & ~start).any() and all(a < b for a, b in zip(keys, keys[1:]))):
        return None
    runtime = frame["runtime"].to_numpy()
    normalizer = frame["normalizer"].fill_null(0).to_numpy()
    read: GraphsRead = {}  # in catalog order, as the rows are
    public: dict[str, list[bool]] = {}
    for (collection, name, usage), a, n in zip(heads, starts.tolist(), sizes.tolist(), strict=True):
        c = BY_NAME[collection]
        read.setdefault(c, []).append((name, GraphRuntimes(runtime[a:a + n],
                                                           normalizer[a:a + n] if c.kind == "tile" else None)))
        public.setdefault(collection, []).append(usage == "Public")
    return read, {n: np.array(m, dtype=bool) for n, m in public.items()}
