"""``tpugraphs-eval export``: the competition for other engines (Codabench bundle, Kaggle metric file).

:func:`add_parser` adds the subcommand to ``tpugraphs-eval``'s parser and :func:`run` runs it; the work
is in :mod:`..hosting` (see docs/hosting.md).
"""

from __future__ import annotations

import argparse
import datetime as dt
from pathlib import Path

from ..dataset import SPLITS
from ..defaults import TILE_RUNTIMES
from ..display import safe
from ..errors import EXIT_OK, UsageError


def add_parser(commands) -> None:
    """Add ``export codabench`` and ``export kaggle-metric`` to the subparsers ``commands``."""
    export = commands.add_parser("export", help="organiser tools: host the competition on Codabench or Kaggle",
                                 description="organiser tools: host the competition on Codabench or Kaggle")
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
    codabench.add_argument("--split", choices=SPLITS, help="with --data-root: the split to host (required)")
    codabench.add_argument("--title", default="TpuGraphs: predict AI model runtime", help="the competition's title")
    codabench.add_argument("--lenient", action="store_true", help="the scoring program validates leniently (Kaggle)")
    codabench.add_argument("--tile-runtime", choices=TILE_RUNTIMES, default="normalized",
                           help="tile runtimes divided by the normalizers (default) or raw")
    codabench.add_argument("--start", type=dt.date.fromisoformat, metavar="YYYY-MM-DD",
                           help="first day of the Public phase (default today; Final opens 90 days later)")
    codabench.add_argument("--zip", type=Path, metavar="FILE", help="also write the bundle as a zip to upload")
    kaggle = targets.add_parser(
        "kaggle-metric", help="one self-contained Python file with Kaggle's score(solution, submission, row_id)",
        description="Write the metric as one Python file (numpy, pandas, scipy only) for Kaggle's metric "
                    "notebooks; upload the solution table of `tpugraphs_eval.hosting.kaggle_metric.solution_frame`.")
    kaggle.add_argument("-o", "--output", required=True, type=Path, metavar="FILE", help="the .py file to write")


def run(args: argparse.Namespace) -> int:
    """Run ``export`` (parsed ``args``); returns the exit code."""
    from ..hosting import codabench, metric_file

    if args.export_target == "kaggle-metric":
        metric_file.write_metric_file(args.output)
        print(f"wrote {safe(str(args.output))}: score(solution, submission, row_id_column_name)")
        return EXIT_OK
    from .outputs import graphs_root, refuse_output_is_input

    refuse_output_is_input([("-o", args.output), ("--zip", args.zip)], [args.solution], folders=["-o"],
                           data_root=graphs_root(args) if args.data_root is not None else None)
    options = {"title": args.title, "mode": "lenient" if args.lenient else "strict",
               "tile_runtime": args.tile_runtime, "start": args.start, "zip_path": args.zip}
    if args.solution is not None:
        if args.split is not None:
            raise UsageError("--split is taken from the solution file; give it only with --data-root")
        codabench.write_bundle(args.output, args.solution, **options)
    else:
        if args.split is None:
            raise UsageError("--split is required with --data-root")
        codabench.write_bundle_from_data_root(args.output, args.data_root, args.split, **options)
    print(f"wrote the Codabench bundle {safe(str(args.output))}"
          + (f" and {safe(str(args.zip))}" if args.zip else "") + " (see docs/hosting.md to upload it)")
    return EXIT_OK
