"""The public entry points: validate or score a submission and get a :class:`Report`.

The pipeline: data root → ground truth → CSV → parsed submission + problems → per-graph metrics →
collection and overall values → report. The CLI is a thin layer over :class:`Evaluator` (as is
:func:`evaluate`): the ground truth and eval indices are read once, each submission's :class:`Report` is
made once, in :func:`_report`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .dataset import BY_NAME, COLLECTIONS
from .errors import UsageError
from .options import Options
from .report.report import LEADERBOARDS, Report, Scores, provenance
from .roots import resolve_data_root
from .submission.csvfile import SubmissionSource
from .submission.validation import Validation, validate_submission
from .truth.dataroot import DataRoot
from .truth.eval_indices import EvalIndices, LoadedEvalIndices, indices_folder, load_eval_indices
from .truth.groundtruth import GroundTruth, SplitCatalog
from .truth.npzread import load_ground_truth, scan_catalog

# The scoring modules are imported where a submission is scored, so that `validate` does not load them
# (docs/performance.md, "Imports").
if TYPE_CHECKING:
    from .report.public import PublicReport
    from .scoring.score import CollectionResult
    from .submission.predictions import PredictionsSource


def _report(source: SubmissionSource | PredictionsSource, validation: Validation, catalog: SplitCatalog, options: Options,
            provenance_block: dict[str, Any]) -> Report:
    """The one place a :class:`Report` is made (scores are added to it when the submission is scored)."""
    return Report(split=catalog.split, data_root=catalog.root.label, synthetic=catalog.root.synthetic,
                  options=options, validation=validation, missing_collections=catalog.missing_collections,
                  selected_collections=list(catalog.collections) if catalog.left_out else None,
                  provenance=provenance_block, ignored_files=catalog.root.ignored_files(catalog.split),
                  submission=str(source) if isinstance(source, (str, os.PathLike)) else None)


def validation_report(source: SubmissionSource, catalog: SplitCatalog, options: Options = Options()) -> Report:
    """Validate only (no runtimes needed): a report with every problem and no scores."""
    validation = validate_submission(source, catalog, mode=options.mode)
    return _report(source, validation, catalog, options, provenance(validation.sha256, None))


def score_submission(source: SubmissionSource, truth: GroundTruth, options: Options = Options(), *,
                     eval_indices_dir: str | os.PathLike[str] | None = None,
                     eval_indices: LoadedEvalIndices | None = None) -> Report:
    """Validate, then score when valid.

    Args:
        source: the CSV: a path, bytes or a binary file object, at most 256 MiB (see :meth:`Evaluator.evaluate`).
        truth: the split's ground truth (:func:`npzread.load_ground_truth`); its ``tile_runtime``
            must match ``options.tile_runtime``.
        options: mode, tile runtime, config protocol.
        eval_indices_dir: folder of ``{xla,nlp}_{default,random}.json`` lists for ``configs="official"``
            (default: the official lists the package ships; for the demo, its own).
        eval_indices: those lists already read (:func:`load_eval_indices`), instead of the folder.

    Returns:
        A :class:`Report`: scored when the submission is valid under ``options.mode``, else with
        problems only.

    Raises:
        UsageError: ``source`` cannot be read or holds more than 256 MiB (``SUBMISSION_TOO_LARGE``; see
            :func:`tpugraphs_eval.submission.csvfile.read_submission_bytes`); inconsistent options (official
            configs outside the valid split, no indices folder, tile runtime differing from the ground truth's).
        DataError: unusable eval-indices files.
    """
    catalog = truth.catalog
    if options.tile_runtime != truth.tile_runtime:
        raise UsageError(f"the ground truth was loaded with tile runtime {truth.tile_runtime!r}, "
                         f"the options ask for {options.tile_runtime!r}")
    indices = digest = None
    if options.configs == "official":
        indices, digest = eval_indices if eval_indices is not None else official_indices(eval_indices_dir, catalog)
    validation = validate_submission(source, catalog, mode=options.mode)
    report = _report(source, validation, catalog, options, provenance(validation.sha256, truth.sha256, digest))
    if validation.valid:
        from .scoring.score import score_parsed

        _add_scores(report, score_parsed(validation.submission, truth, indices), truth, indices)
    return report


def _add_scores(report: Report, results: dict[str, CollectionResult], truth: GroundTruth,
                indices: EvalIndices | None) -> None:
    """Put the scores of a valid submission or valid predictions into ``report``: every graph's, and with a
    solution file's truth the public and private leaderboards' too."""
    from .scoring.ceilings import collection_noise, random_curves
    from .scoring.references import collection_references

    report.noise_file = None if truth.noise is None else truth.noise["path"]
    report.scores = Scores(results, collection_references(truth, indices), collection_noise(truth, truth.noise, indices),
                           lambda: random_curves(truth, indices))
    if truth.has_usage:
        for board in LEADERBOARDS:
            keep = {name: t.public if board == "public" else ~t.public for name, t in truth.collections.items()}
            report.leaderboards[board] = Scores(
                {name: r.restrict(keep[name]) for name, r in results.items()}, collection_references(truth, indices, keep),
                collection_noise(truth, truth.noise, indices, keep),
                lambda keep=keep: {n: c[keep[n]] for n, c in random_curves(truth, indices).items()})


def check_protocol(configs: str, split: str) -> None:
    """Raise :class:`UsageError` unless the config protocol fits the split (official: valid only)."""
    if configs == "official" and split != "valid":
        raise UsageError(f"--configs official is the paper's protocol for the valid split; the {split} "
                         "split is scored on all configs (--configs all)")


def official_indices(given: str | os.PathLike[str] | None, catalog: SplitCatalog) -> LoadedEvalIndices:
    """The official index lists of ``catalog``'s layout graphs (``--configs official``) and their digest: from the
    folder ``given``, else the demo's own (for the demo data root, a copy of it, or a solution file of the demo),
    else the official ones the package ships (:mod:`.truth.eval_indices`).

    Raises:
        UsageError: the split is not valid (the protocol is the valid split's).
        DataError: unusable eval-indices files.
    """
    check_protocol("official", catalog.split)
    root = catalog.root
    if given is None and root.synthetic and root.noun == "solution":  # the file holds no lists: the demo's
        root = resolve_data_root("demo")
    return load_eval_indices(indices_folder(given, root), catalog)


def _refuse_public_selection(public_only: bool, collections: Sequence[str] | None, graphs: object = None) -> None:
    """Raise :class:`UsageError` for ``public_only`` with ``collections`` or ``graphs`` not None: the public values of
    a chosen selection could show what :mod:`.rules.public_rule` hides (docs/options.md, ``--collections``)."""
    if public_only and collections is not None:
        raise UsageError("--collections cannot be combined with --public-only: the public overall over a chosen "
                         "set of collections would show a collection's value, or one public graph's value, that "
                         "the public view hides (score the whole split, or drop --public-only)")
    if public_only and graphs is not None:
        raise UsageError("--graphs cannot be combined with --public-only: the public view of a chosen set "
                         "of graphs could show single graphs' values (drop --public-only)")


def select_collections(names: Sequence[str], catalog: SplitCatalog) -> list[str]:
    """Check a ``--collections`` selection against a split; returns the names in :data:`COLLECTIONS` order.
    ``names``: collection names (a single str is one name).

    Raises:
        UsageError: no name, a name that is not one of the five collections, or a collection the split has no
            graphs of.
    """
    chosen = {name.strip() for name in ([names] if isinstance(names, str) else names) if name.strip()}
    if not chosen:
        raise UsageError("--collections names no collection (give e.g. tile:xla,layout:xla:default)")
    unknown = sorted(chosen - set(BY_NAME))
    if unknown:
        raise UsageError(f"unknown collection(s) {', '.join(unknown)}; the collections are "
                         f"{', '.join(c.name for c in COLLECTIONS)}")
    absent = [c.name for c in COLLECTIONS if c.name in chosen and c.name not in catalog.collections]
    if absent:
        raise UsageError(f"the {catalog.split} split of {catalog.root.label} has no {', '.join(absent)} graphs")
    return [c.name for c in COLLECTIONS if c.name in chosen]


@dataclass(frozen=True)
class Evaluator:
    """One split's ground truth (or catalog), read once, and how to evaluate each submission against it.

    Build it with :meth:`load`; :meth:`evaluate` gives one :class:`Report` per submission. The CLI
    (``tpugraphs-eval score|validate``) and :func:`evaluate` both go this way.

    Attributes:
        catalog: the split's graphs (restricted to the selected collections, if any).
        truth: the runtimes, or None when only validating.
        options: mode, tile runtime, config protocol.
        eval_indices: the official index lists, read once (``--configs official`` when scoring), else None.
        public_only: :meth:`evaluate` gives the participant-facing :class:`PublicReport` (a solution file's
            truth, :func:`public_report`): the public leaderboard's collection-level values only, no graph ID, no per-graph value.
    """

    catalog: SplitCatalog
    truth: GroundTruth | None
    options: Options = Options()
    eval_indices: LoadedEvalIndices | None = None
    public_only: bool = False

    @classmethod
    def load(cls, *, split: str | None, data_root: str | os.PathLike[str] | DataRoot | None = None,
             solution: str | os.PathLike[str] | None = None, options: Options = Options(),
             eval_indices_dir: str | os.PathLike[str] | None = None, validate_only: bool = False,
             public_only: bool = False, collections: Sequence[str] | None = None,
             progress: bool = False, graphs: Mapping[str, int | None] | Iterable[str] | None = None,
             noise: str | os.PathLike[str] | None = None) -> Evaluator:
        """Read what evaluating a split needs: its catalog (``validate_only``) or its runtimes.

        Args:
            split: ``train``, ``valid`` or ``test``; may be None with ``solution`` (its split is used).
            data_root: a path, ``"demo"``, a :class:`DataRoot` or None (:func:`resolve_data_root`); not with solution.
            solution: a solution file (:mod:`.truth.solution`) instead of a data root; both leaderboards are scored.
            options, eval_indices_dir: see :func:`score_submission`.
            validate_only: check files against the config counts only; runtimes are not read.
            public_only: with ``solution``: only the public leaderboard's graphs and numbers.
            collections: score only these collections (:func:`select_collections`); the overall is
                the mean over them, rows of the others are counted, not scored. None: all.
            progress: draw a progress bar on stderr while reading many graph files.
            graphs: score only these graphs (submission IDs, or ID → line of the file that lists them,
                ``--graphs``): rows of the others are counted, not scored, and not missing. None: all.
            noise: the noise file (``--noise``); None: the data root's if any (:func:`.scoring.noisefile.attach_noise`).

        Raises:
            UsageError: inconsistent options (no split, ``public_only`` without ``solution``,
                ``eval_indices_dir`` without official configs, a solution of another split, a bad selection).
            DataError: data root, solution file, ground truth or eval-indices files unusable.
        """
        if split is None and solution is None:
            raise UsageError("--split is required (it is taken from the file with --solution)")
        if solution is not None and data_root is not None:
            raise UsageError("give a data root or a solution file, not both")
        if public_only and solution is None:
            raise UsageError("--public-only needs --solution (only a solution file says which graphs are public)")
        _refuse_public_selection(public_only, collections, graphs)  # before the ground truth is read
        if eval_indices_dir is not None and options.configs != "official":
            raise UsageError("--eval-indices is only used with --configs official")
        if split is not None:
            check_protocol(options.configs, split)
        if solution is None:
            root = resolve_data_root(data_root)
            if validate_only:
                return cls.over(scan_catalog(root, split, progress=progress), None, options, collections=collections,
                                graphs=graphs)
            truth = load_ground_truth(root, split, tile_runtime=options.tile_runtime, progress=progress)
        else:
            from .truth.solution import load_solution  # polars: only for runs that read a solution file

            truth = load_solution(Path(solution), tile_runtime=options.tile_runtime)
            if split not in (None, truth.catalog.split):
                raise UsageError(f"{solution} is a solution of the {truth.catalog.split} split, not {split}")
            check_protocol(options.configs, truth.catalog.split)
        if validate_only:
            return cls.over(truth.catalog, None, options, collections=collections, graphs=graphs)
        from .scoring.noisefile import attach_noise

        attach_noise(truth, noise)
        return cls.over(truth.catalog, truth, options, eval_indices_dir=eval_indices_dir, public_only=public_only,
                        collections=collections, graphs=graphs)

    @classmethod
    def over(cls, catalog: SplitCatalog, truth: GroundTruth | None, options: Options = Options(), *,
             eval_indices_dir: str | os.PathLike[str] | None = None, public_only: bool = False,
             collections: Sequence[str] | None = None,
             graphs: Mapping[str, int | None] | Iterable[str] | None = None) -> Evaluator:
        """An evaluator over a catalog (validation only, ``truth`` None) or a ground truth already read
        (``catalog`` is then ``truth.catalog``); the official index lists are read here, once.

        Raises:
            UsageError: a bad selection (:func:`select_collections`; ``GRAPHS_FILE_UNKNOWN_ID``: a graph of
                ``graphs`` not in the split); as :func:`score_submission` for the official configs.
            DataError: unusable eval-indices files.
        """
        _refuse_public_selection(public_only, collections, graphs)
        if graphs is not None:
            from .truth.graph_lists import check_graph_ids

            ids = graphs if isinstance(graphs, Mapping) else dict.fromkeys(graphs)
            check_graph_ids(ids, catalog)
            catalog = catalog.restrict_graphs(frozenset(ids))
            truth = truth.restrict_graphs(catalog) if truth is not None else None
        if collections is not None:
            names = select_collections(collections, catalog)
            catalog = catalog.restrict(names)
            truth = truth.restrict(names) if truth is not None else None
        official = truth is not None and options.configs == "official"
        indices = official_indices(eval_indices_dir, catalog) if official else None
        return cls(catalog, truth, options, indices, public_only)

    def evaluate(self, source: SubmissionSource) -> Report | PublicReport:
        """Validate ``source`` (and score it when there is ground truth and it is valid): its one report
        (with :attr:`public_only`, the participant's :class:`.report.public.PublicReport` of it).

        Args:
            source: the submission: a path, bytes or a binary file object, at most 256 MiB whatever the source
                (:func:`.submission.csvfile.read_submission_bytes`).

        Raises:
            UsageError: ``source`` cannot be read (``SUBMISSION_NOT_FOUND``, ``SUBMISSION_NOT_A_FILE``,
                ``SUBMISSION_UNREADABLE``, a text-mode file object) or holds more than 256 MiB
                (``SUBMISSION_TOO_LARGE``, for a path, bytes and a file object alike).
        """
        return self._shown(self.score(source))

    def score(self, source: SubmissionSource) -> Report:
        """The organiser's report of ``source`` (every graph, both leaderboards), whatever :attr:`public_only`
        says: for a caller that computes over the public graphs' per-graph values and shows only what
        :mod:`.rules.public_rule` allows (``compare --public-only``). Never show it to a participant.

        Raises:
            UsageError: as :meth:`evaluate`.
        """
        if self.truth is None:
            return validation_report(source, self.catalog, self.options)
        return score_submission(source, self.truth, self.options, eval_indices=self.eval_indices)

    def evaluate_predictions(self, predictions: PredictionsSource) -> Report | PublicReport:
        """Validate predicted runtimes (and score them when there is ground truth and they are valid): the same
        :class:`Report` as :meth:`evaluate` gives a ranking (with :attr:`public_only`, its :class:`PublicReport`).

        Args:
            predictions: ``{ID: (c,) array}`` or the path of a Parquet/CSV table ``ID, config, prediction`` or of
                an npz archive of arrays named by ID (:func:`.submission.predictions.validate_predictions`).

        Raises:
            UsageError: the path does not exist, is not a file or cannot be read (``SUBMISSION_NOT_FOUND``,
                ``SUBMISSION_NOT_A_FILE``, ``SUBMISSION_UNREADABLE``), or ``predictions`` is of another type.
        """
        return self._shown(self.score_predictions(predictions))

    def _shown(self, report: Report) -> Report | PublicReport:
        """``report``, or with :attr:`public_only` the participant's :class:`PublicReport` of it."""
        if not self.public_only:
            return report
        from .report.public import public_report

        return public_report(report)

    def score_predictions(self, predictions: PredictionsSource) -> Report:
        """The organiser's report of ``predictions`` (every graph, both leaderboards), whatever
        :attr:`public_only` says (as :meth:`score`). Raises: as :meth:`evaluate_predictions`."""
        from .scoring.predictions import score_predictions_parsed
        from .submission.predictions import validate_predictions

        indices, digest = self.eval_indices if self.eval_indices is not None else (None, None)
        validation, parsed = validate_predictions(predictions, self.catalog, sampled=indices, mode=self.options.mode)
        truth_digest = self.truth.sha256 if self.truth is not None else None
        block = {**provenance(validation.sha256, truth_digest, digest), "scored_from": "predictions"}
        report = _report(predictions, validation, self.catalog, self.options, block)
        if self.truth is not None and validation.valid:
            _add_scores(report, score_predictions_parsed(parsed, self.truth, indices), self.truth, indices)
        return report


def evaluate(source: SubmissionSource, *, split: str, data_root: str | os.PathLike[str] | DataRoot | None = None,
             options: Options = Options(), eval_indices_dir: str | os.PathLike[str] | None = None,
             validate_only: bool = False, collections: Sequence[str] | None = None,
             progress: bool = False) -> Report:
    """The whole pipeline from a data root for one submission: ``Evaluator.load(...).score(source)``, the full
    :class:`Report` (for a participant's view, ``Evaluator.load(..., public_only=True).evaluate(source)``).

    Args:
        source: the submission: a path, bytes or a binary file object, at most 256 MiB (see
            :meth:`Evaluator.evaluate`).
        split: ``train``, ``valid`` or ``test``; the other arguments are :meth:`Evaluator.load`'s.

    Raises:
        DataError: data root or ground truth unusable (including public test files when scoring).
        UsageError: bad options, or a submission that cannot be read or holds more than 256 MiB
            (``SUBMISSION_TOO_LARGE``; see :meth:`Evaluator.evaluate`).
    """
    return Evaluator.load(split=split, data_root=data_root, options=options, eval_indices_dir=eval_indices_dir,
                          validate_only=validate_only, collections=collections, progress=progress).score(source)


def score_predictions(predictions: PredictionsSource,
                      truth_or_data_root: GroundTruth | str | os.PathLike[str] | DataRoot | None = None,
                      split: str | None = None, configs: str | None = None, *, options: Options | None = None,
                      eval_indices_dir: str | os.PathLike[str] | None = None,
                      collections: Sequence[str] | None = None) -> Report:
    """Score a model's predicted runtimes of every configuration (lower = faster) instead of a ranking.

    Validated like a submission (``PREDICTION_*`` codes), scored as the official code scores model outputs (tied
    predictions are ties): docs/metrics.md, "Predictions instead of a ranking".

    Args:
        predictions: ``{ID: array}`` with one prediction per configuration ((c,), ``array[i]`` for config i;
            with ``configs="official"`` a layout graph's may be (m,), aligned with its official list), or the path
            of a Parquet/CSV table ``ID, config, prediction`` or of an npz archive of such arrays named by ID.
        truth_or_data_root: a :class:`GroundTruth` already read; a data root (path, ``"demo"``, :class:`DataRoot`,
            None for ``$TPUGRAPHS_DATA``); or the path of a solution file (public and private leaderboards too).
        split: the split of a data root (required there; checked against a ground truth or solution).
        configs: ``"all"`` (default) or ``"official"`` (the paper's 1000 sampled configs, valid split);
            the same as ``options.configs``.
        options: mode, tile runtime, configs (default :class:`Options` with ``configs``).
        eval_indices_dir: the folder of the official lists, for ``configs="official"`` (the demo brings its own).
        collections: score only these collections (as ``--collections``).

    Returns:
        The :class:`Report`: scored when the predictions are valid, else with their problems only.

    Raises:
        UsageError: no split for a data root, a split or options that contradict the ground truth, ``configs``
            differing from ``options.configs``; a predictions path that cannot be read (``SUBMISSION_*``).
        DataError: data root, solution file or eval-indices files unusable.
    """
    if options is None:
        options = Options(configs=configs or "all")
    elif configs is not None and configs != options.configs:
        raise UsageError(f"configs={configs!r} contradicts options.configs={options.configs!r}")
    if isinstance(truth_or_data_root, GroundTruth):
        truth = truth_or_data_root
        if split not in (None, truth.catalog.split):
            raise UsageError(f"the ground truth given is of the {truth.catalog.split} split, not {split}")
        check_protocol(options.configs, truth.catalog.split)
        if options.tile_runtime != truth.tile_runtime:
            raise UsageError(f"the ground truth was loaded with tile runtime {truth.tile_runtime!r}, "
                             f"the options ask for {options.tile_runtime!r}")
        evaluator = Evaluator.over(truth.catalog, truth, options, eval_indices_dir=eval_indices_dir,
                                   collections=collections)
    else:
        solution = isinstance(truth_or_data_root, (str, os.PathLike)) and Path(truth_or_data_root).is_file()
        where = {"solution" if solution else "data_root": truth_or_data_root}
        evaluator = Evaluator.load(split=split, options=options, eval_indices_dir=eval_indices_dir,
                                   collections=collections, **where)
    return evaluator.score_predictions(predictions)
