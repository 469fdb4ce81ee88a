"""Combine per-collection submission files into one, safely: the official ``combine_csvs.py``
(google-research-datasets/tpu_graphs) concatenates their rows and stops on a duplicate ID; here every input and
the result are validated by the evaluator (:func:`combine_submissions`; docs/kit.md, "Combining per-collection
files").
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tpugraphs_eval import Severity, SplitCatalog, Validation, validate_submission
from tpugraphs_eval.outputs import refuse_output_is_input
from tpugraphs_eval.submission.problems import Mode

from .errors import KitError, SubmissionError
from .random_baseline import random_rankings
from .submission import write_submission

_EXPECTED_IN_PARTS = {"MISSING_IDS"}
"""Problems a per-collection file has by nature (rows of the other collections are missing)."""


@dataclass
class Combined:
    """What :func:`combine_submissions` wrote.

    Attributes:
        path: the combined CSV.
        n_rows: its data rows.
        sources: collection → the input files that gave rows of it.
        missing_collections: collections of the split that no input covered.
        filled: IDs filled with random rankings (when ``fill_seed`` was given).
        ignored_rows: per input, rows of collections the data root lacks for this split (not copied).
        validation: the evaluator's validation of the combined bytes (in the mode combined under).
    """

    path: Path
    n_rows: int
    sources: dict[str, list[str]]
    missing_collections: list[str]
    filled: list[str] = field(default_factory=list)
    ignored_rows: dict[str, int] = field(default_factory=dict)
    validation: Validation | None = None


def _read_part(path: Path, catalog: SplitCatalog, mode: Mode) -> Validation:
    validation = validate_submission(path, catalog, mode=mode)
    bad = [p for p in validation.problems if p.severity == Severity.ERROR and p.code not in _EXPECTED_IN_PARTS]
    if bad:
        first = bad[0]
        n_bad = sum(validation.counts[code] for code in {p.code for p in bad})
        check = ["tpugraphs-eval", "validate", str(path), "--split", catalog.split, "--data-root",
                 catalog.root.option] + (["--lenient"] if mode == "lenient" else [])
        raise SubmissionError(first.code, f"{path}: {n_bad} problem(s) besides rows of other collections; first: "
                                          f"{first.describe()} (check it with `{shlex.join(check)}`)",
                              validation.problems)
    return validation


def _same_file_twice(paths: list[Path]) -> list[str]:
    """Inputs that name a file an earlier input names too (the same path, another spelling, a link):
    ``"B is A"`` per repeat. Files that cannot be looked at are left to the reading to report."""
    seen: dict[tuple[int, int], Path] = {}
    repeats = []
    for path in paths:
        try:
            status = path.stat()
        except OSError:
            continue
        first = seen.setdefault((status.st_dev, status.st_ino), path)
        if first is not path:
            repeats.append(f"{path}" + ("" if str(path) == str(first) else f" (the same file as {first})"))
    return repeats


def combine_submissions(inputs: list[str | os.PathLike[str]], output: str | os.PathLike[str], catalog: SplitCatalog,
                        *, fill_seed: int | None = None, mode: Mode = "strict") -> Combined:
    """Merge the rows of ``inputs`` (each a submission for part of the split) into one submission.

    Args:
        inputs: CSV files, e.g. one per collection; each must be valid under ``mode`` apart from its
            missing rows.
        output: the combined CSV (written atomically, only when the result is valid).
        catalog: the split's graphs (:func:`tpugraphs_eval.scan_catalog`).
        fill_seed: when given, graphs no input covers get the random baseline's rows (seeded as
            :func:`tpugraphs_kit.random_baseline.random_rankings`); when None they are an error.
        mode: ``strict`` (default), or ``lenient``: inputs are read as Kaggle read them and each row is written as
            lenient mode scores it (its distinct valid indices in order; docs/kit.md, "Combining per-collection
            files").

    Raises:
        SubmissionError: ``DUPLICATE_ID`` (an ID in two inputs, or twice in one), an input with other
            problems (its first problem's code), ``MISSING_COLLECTIONS`` / ``MISSING_IDS`` (graphs no
            input covers, without ``fill_seed``).
        KitError: ``SAME_INPUT_TWICE`` (an input file given twice, under any name: exit 2), ``OUTPUT_WRITE_FAILED``.
        UsageError: an input cannot be read; ``OUTPUT_IS_INPUT`` (``output`` is one of the inputs, under any name:
            exit 2; nothing is read).
    """
    refuse_output_is_input([("output", output)], inputs)
    if repeats := _same_file_twice([Path(raw) for raw in inputs]):
        raise KitError("SAME_INPUT_TWICE", f"input file(s) given more than once: {'; '.join(repeats)}; give each "
                                           "per-collection file once")
    rankings: dict[str, np.ndarray] = {}
    origin: dict[str, tuple[Path, int]] = {}
    sources: dict[str, list[str]] = {}
    ignored: dict[str, int] = {}
    for raw in inputs:
        path = Path(raw)
        validation = _read_part(path, catalog, mode)
        if validation.counts.get("COLLECTION_ABSENT", 0):  # rows of collections the data root lacks
            ignored[str(path)] = validation.n_rows - len(validation.submission.lines)
        _merge(path, validation, catalog, rankings, origin, sources)
    missing_collections = [name for name in catalog.collections if name not in sources]
    missing_ids = [graph_id for graph_id in catalog.index if graph_id not in rankings]
    if missing_ids and fill_seed is None:
        code = "MISSING_COLLECTIONS" if missing_collections else "MISSING_IDS"
        what = (f"no input has rows of {', '.join(missing_collections)}" if missing_collections
                else f"{len(missing_ids)} graph(s) have no row in any input, e.g. {missing_ids[0]}")
        raise SubmissionError(code, f"{what}; give their files, or fill them with random rankings "
                                    "(--fill-random SEED)")
    if missing_ids:
        rankings.update(random_rankings(catalog, fill_seed, ids=missing_ids))
    validation = write_submission(rankings, output, catalog, mode=mode)
    return Combined(Path(output), validation.n_rows, sources, missing_collections, missing_ids, ignored, validation)


def _merge(path: Path, validation: Validation, catalog: SplitCatalog, rankings: dict[str, np.ndarray],
           origin: dict[str, tuple[Path, int]], sources: dict[str, list[str]]) -> None:
    """Add the rows of one input (``path``, validated) to ``rankings`` (ID → config indices), noting each ID's
    ``origin`` (file, line) and the files that gave each collection (``sources``).

    Raises:
        SubmissionError: ``DUPLICATE_ID``: an ID already given by an earlier input.
    """
    for name, parsed in validation.submission.rankings.items():
        graphs = catalog.collections[name]
        for position in parsed:
            graph_id = graphs.ids[position]
            line = validation.submission.lines[graph_id]
            if graph_id in origin:
                first_path, first_line = origin[graph_id]
                raise SubmissionError("DUPLICATE_ID", f"{graph_id} has a row in {first_path} (line {first_line}) "
                                                      f"and in {path} (line {line})")
            origin[graph_id] = (path, line)
            rankings[graph_id] = parsed.indices(position)
            if str(path) not in sources.setdefault(name, []):
                sources[name].append(str(path))

