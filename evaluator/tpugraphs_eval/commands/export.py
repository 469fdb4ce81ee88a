"""``tpugraphs-eval export``: the competition for other engines (Codabench bundle, Kaggle metric file).

:func:`add_parser` adds the subcommand to ``tpugraphs-eval``'s parser and :func:`run` runs it; the work
is in :mod:`..hosting` (see docs/hosting.md).
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from pathlib import Path

from ..dataset import SPLITS
from ..defaults import TILE_RUNTIMES
from ..display import safe
from ..errors import EXIT_OK, UsageError


def add_parser(commands) -> None:
    """Add ``export codabench``, ``export mlebench`` and ``export kaggle-metric`` to the subparsers ``commands``."""
    export = commands.add_parser("export", help="organiser tools: host the competition on Codabench, Kaggle or MLE-bench",
                                 description="organiser tools: host the competition on Codabench, Kaggle or MLE-bench")
    targets = export.add_subparsers(dest="export_target", metavar="TARGET", required=True)
    codabench = targets.add_parser(
        "codabench", help="a Codabench competition bundle (folder) from a solution file",
        description="Write a Codabench bundle: competition.yaml, pages, a scoring program (numpy/pandas/scipy "
                    "only), reference data from the solution (Public phase, then Final on the Private graphs).")
    codabench.add_argument("-o", "--output", required=True, type=Path, metavar="DIR",
                           help="the bundle folder to write (new or empty)")
    source = codabench.add_mutually_exclusive_group(required=True)
    source.add_argument("--solution", type=Path, metavar="FILE",
                        help="the solution file (`tpugraphs-eval solution build`): runtimes and Usage")
    source.add_argument("--data-root", metavar="DIR",
                        help="build the solution from this data root (or `demo`) with the default Usage draw")
    source.add_argument("--prepared", type=Path, metavar="DIR",
                        help="a folder of `tpugraphs-eval prepare`: its solution, and its public tree and a starting "
                             "kit carried in the bundle")
    codabench.add_argument("--split", choices=SPLITS, help="with --data-root: the split to host (required)")
    codabench.add_argument("--title", default="TpuGraphs: predict AI model runtime", help="the competition's title")
    codabench.add_argument("--lenient", action="store_true", help="the scoring program validates leniently (Kaggle)")
    codabench.add_argument("--tile-runtime", choices=TILE_RUNTIMES, default="normalized",
                           help="tile runtimes divided by the normalizers (default) or raw")
    codabench.add_argument("--start", type=dt.date.fromisoformat, metavar="YYYY-MM-DD",
                           help="first day of the Public phase (default today; it lasts 90 days, Final opens the day after)")
    codabench.add_argument("--zip", type=Path, metavar="FILE", help="also write the bundle as a zip to upload")
    mlebench = targets.add_parser(
        "mlebench", help="one MLE-bench competition folder (config, prepare, grade, reference leaderboard)",
        description="Write one competition folder in MLE-bench's layout (its name is the competition id): "
                    "config.yaml, description.md, prepare.py (tpugraphs-eval prepare with the seed), grade.py "
                    "(the standalone metric), leaderboard.csv (reference scores on the prepared split), "
                    "and with --dataset-zip checksums.yaml.")
    mlebench.add_argument("-o", "--output", required=True, type=Path, metavar="DIR/ID",
                          help="the competition folder to write (new or empty; its name is the id, e.g. "
                               "predict-ai-model-runtime)")
    mlebench.add_argument("--data-root", metavar="DIR",
                          help="the labelled data root to prepare from, or `demo` (default: $TPUGRAPHS_DATA, else "
                               "~/data/tpugraphs)")
    mlebench.add_argument("--seed", metavar="S", help="the organiser's secret seed of prepare (default: a fresh "
                                                      "random one, printed)")
    mlebench.add_argument("--insecure-seed", action="store_true", help="accept a seed under 16 characters (throwaway)")
    mlebench.add_argument("--title", default="TpuGraphs: predict AI model runtime", help="the competition's name")
    mlebench.add_argument("--dataset-zip", type=Path, metavar="FILE",
                          help="the zip MLE-bench downloads for the id (Kaggle's competition zip): writes "
                               "checksums.yaml with its MD5 and the prepared files' (without it, MLE-bench writes "
                               "its own checksums at the first prepare)")
    mlebench.add_argument("--kaggle-leaderboard", type=Path, metavar="FILE",
                          help="the real competition's final private leaderboard (CSV, a score column): leaderboard.csv, "
                               "MLE-bench's medal thresholds (without it, the reference scores, with a warning)")
    kaggle = targets.add_parser(
        "kaggle-metric", help="one self-contained Python file with Kaggle's score(solution, submission, row_id)",
        description="Write the metric as one Python file (numpy, pandas, scipy only) for Kaggle's metric "
                    "notebooks; with --solution and --solution-csv, also the solution table to upload (with Usage).")
    kaggle.add_argument("-o", "--output", required=True, type=Path, metavar="FILE", help="the .py file to write")
    kaggle.add_argument("--solution", type=Path, metavar="FILE",
                        help="the solution file (`tpugraphs-eval solution build`) whose table --solution-csv writes")
    kaggle.add_argument("--solution-csv", type=Path, metavar="FILE",
                        help="write the solution table (ID, runtimes, normalizers, Usage) to upload to Kaggle")


def run(args: argparse.Namespace) -> int:
    """Run ``export`` (parsed ``args``); returns the exit code."""
    from ..hosting import codabench, metric_file
    from ..outputs import graphs_root, refuse_output_is_input

    if args.export_target == "mlebench":
        return _run_mlebench(args)
    if args.export_target == "kaggle-metric":
        if (args.solution is None) != (args.solution_csv is None):
            raise UsageError("--solution and --solution-csv go together: the solution file and the table to write")
        refuse_output_is_input([("-o", args.output), ("--solution-csv", args.solution_csv)], [args.solution])
        if args.solution is not None:  # first: a solution file or a table that cannot be written leaves no metric file
            metric_file.write_solution_table(args.solution, args.solution_csv)
        metric_file.write_metric_file(args.output)
        print(f"wrote {safe(str(args.output))}: score(solution, submission, row_id_column_name)")
        if args.solution is not None:
            print(f"wrote {safe(str(args.solution_csv))}: the solution table to upload (Usage: Public/Private)")
        return EXIT_OK

    refuse_output_is_input([("-o", args.output), ("--zip", args.zip)],
                           [p for p in (args.solution, args.prepared) if p is not None], folders=["-o"],
                           data_root=graphs_root(args) if args.data_root is not None else None)
    options = {"title": args.title, "mode": "lenient" if args.lenient else "strict",
               "tile_runtime": args.tile_runtime, "start": args.start, "zip_path": args.zip}
    if args.solution is not None or args.prepared is not None:
        if args.split is not None:
            raise UsageError("--split is taken from the solution file; give it only with --data-root")
        if args.prepared is not None:
            codabench.write_bundle_from_prepared(args.output, args.prepared, notebooks=_kit_notebooks(), **options)
        else:
            codabench.write_bundle(args.output, args.solution, **options)
    else:
        if args.split is None:
            raise UsageError("--split is required with --data-root")
        codabench.write_bundle_from_data_root(args.output, args.data_root, args.split, **options)
    print(f"wrote the Codabench bundle {safe(str(args.output))}"
          + (f" and {safe(str(args.zip))}" if args.zip else "") + " (see docs/hosting.md to upload it)")
    return EXIT_OK


def _run_mlebench(args: argparse.Namespace) -> int:
    """``export mlebench``: prepare the split once, write the competition folder, print its leaderboard."""
    from ..hosting import mlebench
    from ..outputs import graphs_root, refuse_output_is_input
    from ..prepare import new_seed
    from ..roots import resolve_data_root
    from .prepare import warn_insecure_seed

    refuse_output_is_input([("-o", args.output)], [], folders=["-o"], data_root=graphs_root(args))
    seed = args.seed if args.seed is not None else new_seed()
    warn_insecure_seed(seed, args.insecure_seed)
    root = resolve_data_root(args.data_root).path  # a path, as MLE-bench's raw folder is
    rows = mlebench.write_competition(args.output, root, seed=seed, learned_baseline=_learned_baseline,
                                      title=args.title, dataset_zip=args.dataset_zip,
                                      options={"insecure_seed": True} if args.insecure_seed else None,
                                      kaggle_leaderboard=args.kaggle_leaderboard)
    if args.kaggle_leaderboard is None:
        print("tpugraphs-eval: WARNING: no --kaggle-leaderboard: leaderboard.csv holds the reference scores only, so "
              "MLE-bench's medal thresholds and median are meaningless (gold = the oracle); give the competition's "
              "final private leaderboard (docs/hosting.md)", file=sys.stderr)
    print(f"wrote the MLE-bench competition {safe(str(args.output))} (id {safe(args.output.name)}"
          + ("" if args.seed is not None else f", seed {seed}") + "); reference scores (reference_scores.csv):")
    for name, value in rows:
        print(f"  {value:.5f}  {name}")
    return EXIT_OK


def _kit_notebooks() -> list[Path]:
    """The kit's starter notebooks for a bundle's ``starting_kit/`` (package data of ``tpugraphs_kit.notebooks``: a
    checkout's ``kit/notebooks``). The command, not hosting/, reaches up to the kit."""
    import importlib.resources

    return sorted(Path(str(importlib.resources.files("tpugraphs_kit.notebooks"))).glob("*.ipynb"))


def _learned_baseline(root, catalog, path: Path) -> None:
    """:data:`..hosting.mlebench.LearnedBaseline` of the kit (``tpugraphs-baseline learned``, the distributed one)."""
    from tpugraphs_kit.learned import train, write_learned_submission

    write_learned_submission(train(root, "train", progress=False), catalog, path, fill_seed=0, progress=False)
