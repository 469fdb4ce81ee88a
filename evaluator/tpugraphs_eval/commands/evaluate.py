"""``tpugraphs-eval``: validate and score a submission from the command line (a thin layer over :mod:`api`).

Exit codes: 0 valid (and scored), 1 invalid submission, 2 usage or data problem, 3 internal error.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
from pathlib import Path

from .. import kernels
from .._version import __version__
from ..api import check_protocol, score_submission, validation_report
from ..atomicfile import write_atomically
from ..dataset import SPLITS
from ..display import safe
from ..errors import EXIT_INVALID, EXIT_OK, EXIT_USAGE_OR_DATA, UsageError
from ..options import CONFIG_PROTOCOLS, Options
from ..report.report import Report
from ..submission.problems import CODES, codes_markdown
from ..truth.dataroot import resolve_data_root
from ..truth.groundtruth import TILE_RUNTIMES
from ..truth.npzread import load_ground_truth, scan_catalog
from ..truth.solution import DEFAULT_PUBLIC_FRACTION, build_solution, load_solution
from .compare import add_parser as add_compare_parser
from .compare import run_compare
from .entrypoint import guarded_main, int_at_least

COMMANDS = ("score", "validate", "codes", "solution", "compare")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tpugraphs-eval",
        description="Validate and score a TpuGraphs submission (ID,TopConfigs CSV). "
                    "`tpugraphs-eval SUBMISSION ...` is short for `tpugraphs-eval score SUBMISSION ...`.",
        epilog="Exit codes: 0 valid (and scored), 1 invalid submission, 2 usage or data problem, 3 internal error.")
    parser.add_argument("--version", action="version",
                        version=f"tpugraphs-eval {__version__} (kernel: {kernels.active().description})")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, help_text in (("score", "validate, then score against the split's runtimes (default command)"),
                            ("validate", "validate only: needs config counts, not runtimes (works on public test files)")):
        sub = commands.add_parser(name, help=help_text, description=help_text)
        sub.add_argument("submissions", type=Path, nargs="+", metavar="SUBMISSION",
                         help="submission CSV file(s) (header ID,TopConfigs); the ground truth is read once")
        sub.add_argument("--split", choices=SPLITS, help="split the submission ranks (required, but with --solution)")
        source = sub.add_mutually_exclusive_group()
        source.add_argument("--data-root", metavar="DIR",
                            help="folder holding npz/ (official layout), or `demo` for the bundled synthetic data "
                                 "(default: $TPUGRAPHS_DATA, else ~/data/tpugraphs)")
        source.add_argument("--solution", metavar="FILE", type=Path,
                            help="a solution file (`tpugraphs-eval solution build`) instead of a data root: also "
                                 "scores the public and private leaderboards")
        sub.add_argument("--public-only", action="store_true",
                         help="with --solution: show only the public leaderboard's graphs and numbers (what a "
                              "participant may see)")
        sub.add_argument("--lenient", action="store_true",
                         help="Kaggle-compatible validation: duplicates, out-of-range indices, extra tile indices "
                              "and partial layout rows become warnings; what remains is scored")
        sub.add_argument("--json", metavar="PATH", help="write the JSON report to PATH (`-` for stdout; the "
                                                        "tables then go to stderr); a list of reports when "
                                                        "several submissions are given")
        sub.add_argument("--max-problems", type=int_at_least(0), default=5, metavar="N",
                         help="problems shown per code in the terminal (all are in the JSON report; default 5)")
        sub.add_argument("--no-progress", action="store_true", help="no progress bar while reading graph files")
        sub.add_argument("--quiet", "-q", action="store_true", help="print only the verdict line")
        if name == "score":
            sub.add_argument("--validate-only", action="store_true", help="same as the `validate` command")
            sub.add_argument("--tile-runtime", choices=TILE_RUNTIMES, default="normalized",
                             help="tile runtimes divided by config_runtime_normalizers (default) or raw")
            sub.add_argument("--configs", choices=CONFIG_PROTOCOLS, default="all",
                             help="layout configs scored: all (Kaggle, default) or the official 1000 sampled "
                                  "validation configs (paper protocol, --split valid)")
            sub.add_argument("--eval-indices", metavar="DIR",
                             help="folder of the official {xla,nlp}_{default,random}.json index lists "
                                  "(for --configs official; the demo brings its own)")
            sub.add_argument("--html", metavar="PATH", help="also write a self-contained HTML page of the report "
                                                            "(charts, worst graphs, tile programs); with several "
                                                            "submissions PATH is a folder of NAME.html pages")
            sub.add_argument("--per-graph", action="store_true",
                             help="also print every graph's metrics (and tile means per program)")
    add_compare_parser(commands)
    codes = commands.add_parser("codes", help="list the problem codes with their severity in strict and lenient mode")
    codes.add_argument("--markdown", action="store_true", help="print the Markdown table of docs/codes.md")
    solution = commands.add_parser("solution", help="organiser tools: build a solution file",
                                   description="organiser tools: build a solution file")
    solution_commands = solution.add_subparsers(dest="solution_command", metavar="ACTION", required=True)
    build = solution_commands.add_parser(
        "build", help="one Parquet file with every runtime of a split and a Public/Private Usage per graph",
        description="Write a solution file: one row per (collection, graph, config) with runtime and (tile) "
                    "normalizer, and a Usage per graph: a seeded random --public-fraction of each collection's "
                    "graphs is Public, or as a --usage-file says.")
    build.add_argument("--data-root", metavar="DIR", help="as for scoring (or `demo`)")
    build.add_argument("--split", required=True, choices=SPLITS)
    build.add_argument("-o", "--output", required=True, type=Path, metavar="FILE", help="the solution file to write")
    usage = build.add_mutually_exclusive_group()
    usage.add_argument("--public-fraction", type=float, default=DEFAULT_PUBLIC_FRACTION, metavar="F",
                       help=f"share of each collection's graphs on the public leaderboard (default {DEFAULT_PUBLIC_FRACTION})")
    usage.add_argument("--usage-file", type=Path, metavar="FILE", help="CSV `ID,Usage` (Public/Private per graph)")
    build.add_argument("--seed", type=int_at_least(0), default=0, help="seed of the Public/Private draw (default 0)")
    build.add_argument("--no-progress", action="store_true", help="no progress bar while reading graph files")
    return parser


def _argv(argv: list[str]) -> list[str]:
    """Insert the default ``score`` command before a bare submission path."""
    if argv and argv[0] not in COMMANDS and not argv[0].startswith("-"):
        return ["score", *argv]
    return argv


def _print_codes() -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="Problem codes", title_justify="left")
    for column in ("code", "strict", "lenient", "meaning"):
        table.add_column(column, overflow="fold")
    for code in CODES.values():
        table.add_row(code.name, str(code.strict), str(code.lenient), code.meaning)
    Console().print(table)


def _write_json(target: str, text: str) -> None:
    """Write the JSON report: ``-`` is stdout; a regular file (or a new path) is replaced atomically; any
    other existing target (a link, a pipe, a device) is written to in place, never replaced."""
    if target == "-":
        sys.stdout.write(text)
        return
    path = Path(target)
    try:
        if path.is_symlink() or (path.exists() and not path.is_file()):
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text)
            return
        write_atomically(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
    except OSError as err:
        raise UsageError(f"cannot write the JSON report to {path}: {err.strerror or err}") from None


def _check_options(args: argparse.Namespace) -> None:
    if args.split is None and args.solution is None:
        raise UsageError("--split is required (it is taken from the file with --solution)")
    if args.public_only and args.solution is None:
        raise UsageError("--public-only needs --solution (only a solution file says which graphs are public)")
    if getattr(args, "eval_indices", None) and getattr(args, "configs", "all") != "official":
        raise UsageError("--eval-indices is only used with --configs official")
    if args.split is not None:
        check_protocol(getattr(args, "configs", "all"), args.split)
    if getattr(args, "html", None):
        if getattr(args, "validate_only", False):
            raise UsageError("--html writes the page of a scored submission: not with --validate-only")
        from ..report.html import page_paths

        page_paths(args.html, args.submissions)  # refuses two submissions with the same file name now


def _build_solution(args: argparse.Namespace) -> int:
    from rich.console import Console

    console = Console(highlight=False)
    root = resolve_data_root(args.data_root)
    manifest = build_solution(root, args.split, args.output, public_fraction=args.public_fraction, seed=args.seed,
                              usage_file=args.usage_file, progress=not args.no_progress and console.is_terminal)
    console.print(f"wrote {safe(str(args.output))}: the {args.split} split of {safe(manifest['source'])}")
    for name, counts in manifest["counts"].items():
        console.print(f"  {name}: {counts['graphs']} graphs ({counts['public_graphs']} public), "
                      f"{counts['configs']} configs")
    console.print(f"  ground truth sha256 {manifest['ground_truth_sha256']}")
    return EXIT_OK


def run(argv: list[str]) -> int:
    """Run the CLI on ``argv`` (without the program name); returns the exit code."""
    args = _parser().parse_args(_argv(argv))
    if args.command is None:
        _parser().print_help()
        return EXIT_USAGE_OR_DATA
    if args.command == "codes":
        if args.markdown:
            print(codes_markdown(), end="")
        else:
            _print_codes()
        return EXIT_OK
    if args.command == "solution":
        return _build_solution(args)
    if args.command == "compare":
        return run_compare(args)
    _check_options(args)
    from rich.console import Console

    validate_only = args.command == "validate" or getattr(args, "validate_only", False)
    options = Options(mode="lenient" if args.lenient else "strict",
                      tile_runtime=getattr(args, "tile_runtime", "normalized"),
                      configs=getattr(args, "configs", "all"))
    console = Console(stderr=args.json == "-", highlight=False)
    progress = not (args.no_progress or args.quiet) and console.is_terminal
    if args.solution is not None:
        truth = load_solution(args.solution, tile_runtime=options.tile_runtime)
        if args.split not in (None, truth.catalog.split):
            raise UsageError(f"{args.solution} is a solution of the {truth.catalog.split} split, not {args.split}")
    elif validate_only:
        truth = None
        catalog = scan_catalog(resolve_data_root(args.data_root), args.split, progress=progress)
    else:
        truth = load_ground_truth(resolve_data_root(args.data_root), args.split, tile_runtime=options.tile_runtime,
                                  progress=progress)
    if validate_only:
        evaluate_one = functools.partial(validation_report, catalog=truth.catalog if truth else catalog,
                                         options=options)
    else:
        score_one = functools.partial(score_submission, truth=truth, options=options,
                                      eval_indices_dir=getattr(args, "eval_indices", None))
        evaluate_one = (lambda path: score_one(path).public_view()) if args.public_only else score_one
    reports: list[Report | None] = []
    failures: dict[int, str] = {}
    for i, path in enumerate(args.submissions):
        try:
            reports.append(evaluate_one(path))
        except UsageError as err:  # an unreadable submission: the others are still evaluated
            if len(args.submissions) == 1:
                raise
            reports.append(None)
            failures[i] = str(err)
    if args.json:
        dicts = [r.to_dict() if r else {"submission": str(p), "error": failures[i]}
                 for i, (p, r) in enumerate(zip(args.submissions, reports))]
        _write_json(args.json, json.dumps(dicts[0] if len(dicts) == 1 else dicts, indent=2) + "\n")
    if getattr(args, "html", None):
        from ..report.html import page_paths, write_html

        for page, report in zip(page_paths(args.html, args.submissions), reports):
            if report is not None:  # an unreadable file has no page (its error is shown)
                write_html(page, report, make_folder=len(reports) > 1)
    code = EXIT_USAGE_OR_DATA if failures else EXIT_OK if all(r.valid for r in reports) else EXIT_INVALID
    try:
        _show(console, args, reports, failures, validate_only)
    except BrokenPipeError:  # the reader went away (`| head`): stop writing; the exit code stands
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return code


def _show(console, args: argparse.Namespace, reports: list[Report | None], failures: dict[int, str],
          validate_only: bool) -> None:
    from ..report.terminal import render, render_comparison, verdict

    several = len(reports) > 1
    for i, (path, report) in enumerate(zip(args.submissions, reports)):
        if report is None:
            console.print(f"[bold red]{safe(str(path))}: error:[/] {safe(failures[i])}")
        elif args.quiet:
            verdict(console, report, validate_only, label=str(path) if several else None)
        else:
            if several:
                console.rule(safe(str(path)))
            render(report, console, per_graph=getattr(args, "per_graph", False), per_code=args.max_problems,
                   validate_only=validate_only)
    if several and not args.quiet:
        render_comparison(console, args.submissions, reports)


def main(argv: list[str] | None = None) -> int:
    """Console entry point: never shows a traceback for bad input; see the module docstring for exit codes."""
    return guarded_main("tpugraphs-eval", run, argv)
