"""The public entry points: validate or score a submission and get a :class:`Report`.

The pipeline (STYLE.md): data root → ground truth → CSV → parsed submission + problems → per-graph
metrics → collection and overall values → report. The CLI is a thin layer over :func:`evaluate`.
"""

from __future__ import annotations

import os
from pathlib import Path

from .errors import UsageError
from .options import Options
from .report.report import LEADERBOARDS, Report, Scores, provenance
from .scoring.references import collection_references
from .scoring.score import score_parsed
from .submission.csvfile import SubmissionSource
from .submission.validation import Validation, validate_submission
from .truth.dataroot import DataRoot, resolve_data_root
from .truth.eval_indices import load_eval_indices
from .truth.groundtruth import GroundTruth, SplitCatalog
from .truth.npzread import load_ground_truth, scan_catalog


def _report(source: SubmissionSource, validation: Validation, catalog: SplitCatalog, options: Options) -> Report:
    return Report(split=catalog.split, data_root=catalog.root.label, synthetic=catalog.root.synthetic,
                  options=options, validation=validation, missing_collections=catalog.missing_collections,
                  provenance=provenance(validation.sha256, None),
                  ignored_files=catalog.root.ignored_files(catalog.split),
                  submission=str(source) if isinstance(source, (str, os.PathLike)) else None)


def validation_report(source: SubmissionSource, catalog: SplitCatalog, options: Options = Options()) -> Report:
    """Validate only (no runtimes needed): a report with every problem and no scores."""
    return _report(source, validate_submission(source, catalog, mode=options.mode), catalog, options)


def score_submission(source: SubmissionSource, truth: GroundTruth, options: Options = Options(), *,
                     eval_indices_dir: str | os.PathLike[str] | None = None) -> Report:
    """Validate, then score when valid.

    Args:
        source: path, bytes or binary file object of the CSV.
        truth: the split's ground truth (:func:`npzread.load_ground_truth`); its ``tile_runtime``
            must match ``options.tile_runtime``.
        options: mode, tile runtime, config protocol.
        eval_indices_dir: folder of the official ``{xla,nlp}_{default,random}.json`` lists; needed for
            ``configs="official"`` (default for the demo: its own lists).

    Returns:
        A :class:`Report`: scored when the submission is valid under ``options.mode``, else with
        problems only.

    Raises:
        UsageError: inconsistent options (official configs outside the valid split, no indices folder,
            tile runtime differing from the ground truth's).
        DataError: unusable eval-indices files.
    """
    catalog = truth.catalog
    if options.tile_runtime != truth.tile_runtime:
        raise UsageError(f"the ground truth was loaded with tile runtime {truth.tile_runtime!r}, "
                         f"the options ask for {options.tile_runtime!r}")
    indices = digest = None
    if options.configs == "official":
        indices, digest = load_eval_indices(_eval_indices_dir(eval_indices_dir, catalog), catalog)
    validation = validate_submission(source, catalog, mode=options.mode)
    report = _report(source, validation, catalog, options)
    report.provenance = provenance(validation.sha256, truth.sha256, digest)
    if validation.valid:
        results = score_parsed(validation.submission, truth, indices)
        report.scores = Scores(results, collection_references(truth, indices))
        if truth.has_usage:  # a solution file: the public and private leaderboards too
            for board in LEADERBOARDS:
                keep = {name: t.public if board == "public" else ~t.public for name, t in truth.collections.items()}
                report.leaderboards[board] = Scores({name: r.restrict(keep[name]) for name, r in results.items()},
                                                    collection_references(truth, indices, keep))
    return report


def check_protocol(configs: str, split: str) -> None:
    """Raise :class:`UsageError` unless the config protocol fits the split (official: valid only)."""
    if configs == "official" and split != "valid":
        raise UsageError(f"--configs official is the paper's protocol for the valid split; the {split} "
                         "split is scored on all configs (--configs all)")


def _eval_indices_dir(given: str | os.PathLike[str] | None, catalog: SplitCatalog) -> Path:
    check_protocol("official", catalog.split)
    if given is not None:
        return Path(given)
    if catalog.root.synthetic:
        return catalog.root.path / "eval_indices"
    raise UsageError("--configs official needs --eval-indices DIR: the folder of the official xla_default.json, "
                     "xla_random.json, nlp_default.json, nlp_random.json (tpu_graphs/baselines/layout/eval_indices)")


def evaluate(source: SubmissionSource, *, split: str, data_root: str | os.PathLike[str] | DataRoot | None = None,
             options: Options = Options(), eval_indices_dir: str | os.PathLike[str] | None = None,
             validate_only: bool = False, progress: bool = False) -> Report:
    """The whole pipeline from a data root: what ``tpugraphs-eval`` runs.

    Args:
        source: the submission (path, bytes or binary file object).
        split: ``train``, ``valid`` or ``test``.
        data_root: a path, ``"demo"``, a :class:`DataRoot`, or None for ``$TPUGRAPHS_DATA`` /
            ``~/data/tpugraphs``.
        options: see :class:`Options`.
        eval_indices_dir: see :func:`score_submission`.
        validate_only: check the file against the split's config counts; runtimes are not read.
        progress: draw a progress bar on stderr while reading many graph files.

    Raises:
        DataError: data root or ground truth unusable (including public test files when scoring).
        UsageError: bad options or unreadable submission path.
    """
    root = data_root if isinstance(data_root, DataRoot) else resolve_data_root(data_root)
    if validate_only:
        return validation_report(source, scan_catalog(root, split, progress=progress), options)
    truth = load_ground_truth(root, split, tile_runtime=options.tile_runtime, progress=progress)
    return score_submission(source, truth, options, eval_indices_dir=eval_indices_dir)
