"""``tpugraphs-eval``: validate and score a submission from the command line (a thin layer over :mod:`api`).

Exit codes: 0 valid (and scored), 1 invalid submission, 2 usage or data problem, 3 internal error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from .. import display
from .._version import __version__
from ..dataset import SPLITS
from ..defaults import DEFAULT_PUBLIC_FRACTION
from ..display import safe
from ..entrypoint import ArgumentParser, error_code, guarded_main, int_at_least, stop_at_closed_pipe
from ..errors import EXIT_INVALID, EXIT_OK, EXIT_USAGE_OR_DATA, NoGroundTruthError, UsageError
from . import compare as compare_command
from . import cv as cv_command
from . import export
from . import prepare as prepare_command
from .scoring_options import add_scoring_options, load_evaluator

if TYPE_CHECKING:
    from ..report.report import Report

# Each command imports what it runs with when it runs (docs/performance.md, "Imports"): `--help`, `--version`
# and a scoring run load no hosting, compare, solution-file, polars, pandas or scipy module.


class _Version(argparse.Action):
    """``--version``: the version, the digest of the package's source (reports' ``evaluator_source_sha256``) and the
    kernel in use (C extension or numpy), looked up only when asked: the kernels' module imports numpy, which
    ``--help`` and a misspelt option need not wait for."""

    def __call__(self, parser, namespace, values, option_string=None):
        from .. import kernels
        from ..source_digest import source_digest

        print(f"tpugraphs-eval {__version__} (source sha256 {source_digest()}; kernel: {kernels.active().description})")
        parser.exit()


def _add_solution_parser(commands) -> None:
    """Add ``solution build`` (the organiser's solution file) to the subparsers ``commands``."""
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
    build.add_argument("--noise", type=Path, metavar="FILE", help="also write the split's noise file (as "
                       "`tpugraphs-data noise`; reads every feature row once), for --noise when scoring")


def _parser() -> argparse.ArgumentParser:
    """The parser of ``tpugraphs-eval`` and its commands."""
    parser = ArgumentParser(
        prog="tpugraphs-eval",
        description="Validate and score a TpuGraphs submission (ID,TopConfigs CSV). "
                    "`tpugraphs-eval SUBMISSION ...` is short for `tpugraphs-eval score SUBMISSION ...`.",
        epilog="Exit codes: 0 valid (and scored), 1 invalid submission, 2 usage or data problem, 3 internal error.")
    parser.add_argument("--version", action=_Version, nargs=0, default=argparse.SUPPRESS,
                        help="show the version and the kernel in use, and exit")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, help_text in (("score", "validate, then score against the split's runtimes (default command)"),
                            ("validate", "validate only: needs config counts, not runtimes (works on public test files)")):
        sub = commands.add_parser(name, help=help_text, description=help_text)
        # nargs "*": a forgotten path gets the message of _refuse_missing_submissions, not argparse's
        sub.add_argument("submissions", type=Path, nargs="*", metavar="SUBMISSION",
                         help="submission CSV file(s) (header ID,TopConfigs); the ground truth is read once; "
                              "standard input (`-`) is not read")
        sub.add_argument("--predictions", type=Path, metavar="FILE",
                         help="predicted runtimes instead of a submission: a Parquet or CSV table `ID,config,prediction` "
                              "or an npz of one array per graph ID (lower = faster; docs/metrics.md, Predictions)")
        add_scoring_options(sub, scored=name == "score")
        sub.add_argument("--json", metavar="PATH", help="write the JSON report to PATH (`-` for stdout; the tables "
                         "then go to stderr); a list of reports when several submissions are given")
        sub.add_argument("--max-problems", type=int_at_least(0), default=5, metavar="N",
                         help="problems shown per code in the terminal (default 5; JSON: every one counted, 1,000 listed)")
        sub.add_argument("--quiet", "-q", action="store_true", help="print only the verdict line")
        sub.add_argument("--html", metavar="PATH", help="also write a self-contained HTML page of the report (verdict "
                         "and problems; scored: charts, worst graphs, tile programs); with several submissions PATH "
                         "is a folder of NAME.html pages")
        if name == "score":
            sub.add_argument("--validate-only", action="store_true", help="same as the `validate` command")
            sub.add_argument("--per-graph", action="store_true",
                             help="also print every graph's metrics (and tile means per program)")
    compare_command.add_parser(commands)
    codes = commands.add_parser("codes", help="list the problem codes with their severity in strict and lenient mode")
    codes.add_argument("--markdown", action="store_true", help="print the Markdown table of docs/codes.md")
    codes.add_argument("--errors", action="store_true", help="the codes of data and usage errors (exit 2) instead")
    _add_solution_parser(commands)
    export.add_parser(commands)
    prepare_command.add_parser(commands)
    cv_command.add_parser(commands)
    return parser


TOP_LEVEL_OPTIONS = ("-h", "--help", "--version")
"""The options of ``tpugraphs-eval`` itself; any other first word starts the default ``score`` command."""


def _argv(argv: list[str]) -> list[str]:
    """Insert the default ``score`` command before anything that is not a command or a top-level option: a
    submission path, or an option (``tpugraphs-eval --split test x.csv``; with no path at all,
    :func:`_refuse_missing_submissions` says that the submission is missing, not that ``test`` is no command).

    Raises:
        UsageError: the first word is no file but looks like a command (``valdate``): the user meant the command.
    """
    if not argv or argv[0] in COMMANDS or argv[0] in TOP_LEVEL_OPTIONS:
        return argv
    word = argv[0]
    if not word.startswith("-") and not os.path.lexists(word):
        import difflib

        close = difflib.get_close_matches(word, COMMANDS, n=1, cutoff=0.75)
        if close:
            raise UsageError(f"`{safe(word)}` is neither a command nor a file: did you mean the command "
                             f"`{close[0]}`? (commands: {', '.join(COMMANDS)})")
    return ["score", *argv]


def _refuse_missing_submissions(args: argparse.Namespace) -> None:
    """Check that ``score`` / ``validate`` were given submission paths, or ``--predictions`` alone.

    Raises:
        UsageError: none given, both given, or ``-`` (standard input is not read: a submission is a file).
    """
    example = f"tpugraphs-eval {args.command} submission.csv --split test --data-root DIR"
    if args.predictions is not None and args.submissions:
        raise UsageError("give submission CSV file(s) or --predictions FILE, not both (score them one after the other)")
    if args.predictions is not None:
        return
    if not args.submissions:
        raise UsageError(f"no submission given: name the submission file(s) first, e.g. `{example}`")
    if Path("-") in args.submissions:
        raise UsageError("`-`: a submission is read from a file, not from standard input; save it to a file "
                         f"first (`... > submission.csv`) and give its path, e.g. `{example}`")


def _codes_table(title: str, columns: tuple[str, ...], rows):
    """A rich table of ``rows`` (tuples of text) under ``columns``, for ``codes``."""
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    for column in columns:
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(*row)
    return table


def _build_solution(args: argparse.Namespace) -> int:
    from ..outputs import refuse_output_is_input
    from ..roots import resolve_data_root
    from ..truth.solution import build_solution

    console = display.console()
    root = resolve_data_root(args.data_root)
    refuse_output_is_input([("-o", args.output), ("--noise", args.noise)], [args.usage_file], data_root=root.path)
    manifest = build_solution(root, args.split, args.output, public_fraction=args.public_fraction, seed=args.seed,
                              usage_file=args.usage_file, progress=not args.no_progress and console.is_terminal)
    console.print(f"wrote {safe(str(args.output))}: the {args.split} split of {safe(manifest['source'])}")
    for name, counts in manifest["counts"].items():
        console.print(f"  {name}: {counts['graphs']} graphs ({counts['public_graphs']} public), "
                      f"{counts['configs']} configs")
    console.print(f"  ground truth sha256 {manifest['ground_truth_sha256']}")
    if args.noise is not None:
        from ..outputs import write_stream
        from ..scoring.noisefile import build_noise
        from ..truth.npzread import load_ground_truth

        write_stream(str(args.noise), json.dumps(build_noise(root, load_ground_truth(root, args.split)), indent=1)
                     + "\n", "the noise file")
        console.print(f"wrote {safe(str(args.noise))}: its noise file")
    for warning in manifest["warnings"]:
        print(f"tpugraphs-eval: warning: [{warning['code']}] {safe(warning['message'])}", file=sys.stderr)
    return EXIT_OK


def _evaluate(args: argparse.Namespace) -> int:
    """``score`` / ``validate``: options → :class:`Evaluator` (ground truth read once) → one report per file →
    JSON and terminal views."""
    validate_only = args.command == "validate" or getattr(args, "validate_only", False)
    if validate_only and args.public_only:  # validation shows no score: nothing public to restrict it to
        raise UsageError("--public-only is not used with validate (validation shows no score, and its problems are "
                         "found over every graph alike); drop it, or score with --public-only")
    if args.public_only and getattr(args, "per_graph", False):  # the public view holds no per-graph value
        print("tpugraphs-eval: note: --per-graph shows nothing with --public-only (the public view holds collection "
              "values only: docs/public-view.md)", file=sys.stderr)
    _refuse_missing_submissions(args)
    inputs: list[Path] = args.submissions if args.predictions is None else [args.predictions]
    from ..outputs import graphs_root, refuse_output_is_input, write_stream

    outputs, folders, pages = [("--json", args.json)], [], []
    if args.html:
        from ..report.html import is_page_folder, page_paths

        pages = page_paths(args.html, inputs)  # refuses two submissions with the same file name now
        outputs += [("--html", page) for page in pages]
        if is_page_folder(args.html, len(inputs)):  # the folder of pages, checked itself
            outputs, folders = [("--html", args.html), *outputs], ["--html"]
    refuse_output_is_input(outputs, [*inputs, args.solution], folders=folders, data_root=graphs_root(args))
    console = (display.quiet_console if args.quiet else display.console)(stderr=args.json == "-")
    evaluator = load_evaluator(args, validate_only=validate_only,
                               progress=not (args.no_progress or args.quiet) and console.is_terminal)
    reports: list[Report | None] = []
    failures: dict[int, str] = {}
    for i, path in enumerate(inputs):
        try:
            reports.append(evaluator.evaluate(path) if args.predictions is None else evaluator.evaluate_predictions(path))
        except UsageError as err:  # an unreadable submission: the others are still evaluated
            if len(inputs) == 1:
                raise
            reports.append(None)
            failures[i] = f"[{error_code(err)}] {err}"
    if args.json:
        dicts = [r.to_dict() if r else {"submission": str(p), "error": failures[i]}
                 for i, (p, r) in enumerate(zip(inputs, reports))]
        write_stream(args.json, json.dumps(dicts[0] if len(dicts) == 1 else dicts, indent=2) + "\n", "the JSON report")
    if args.html:
        from ..report.html import write_html

        for page, report in zip(pages, reports):
            if report is not None:  # an unreadable file has no page (its error is shown)
                write_html(page, report, make_folder=bool(folders))
    code = EXIT_USAGE_OR_DATA if failures else EXIT_OK if all(r.valid for r in reports) else EXIT_INVALID
    with stop_at_closed_pipe():  # the reader went away (`| head`): the exit code stands
        _show(console, args, inputs, reports, failures, validate_only)
    return code


def _codes(args: argparse.Namespace) -> int:
    from ..errors import ERROR_CODES, error_codes_markdown
    from ..submission.problems import CODES, codes_markdown

    if args.markdown:
        print(error_codes_markdown() if args.errors else codes_markdown(), end="")
    elif args.errors:
        from ..truth.solution import USAGE_WARNINGS

        display.console().print(
            _codes_table("Data and usage error codes (exit 2; INVALID_SUBMISSION: exit 1)", ("code", "meaning"),
                         ERROR_CODES.items()),
            _codes_table("`solution build` warnings (the file is written, exit 0)", ("code", "meaning"),
                         USAGE_WARNINGS.items()))
    else:
        display.console().print(_codes_table("Problem codes", ("code", "strict", "lenient", "meaning"), (
            (code.name, str(code.strict), str(code.lenient), code.meaning) for code in CODES.values())))
    return EXIT_OK


HANDLERS: dict[str, Callable[[argparse.Namespace], int]] = {
    "score": _evaluate, "validate": _evaluate, "codes": _codes, "solution": _build_solution,
    "compare": compare_command.run_compare, "export": export.run,
    "prepare": prepare_command.run, "cv": cv_command.run}
"""Command → its handler (a new subcommand: add its parser in :func:`_parser` and its handler here)."""
COMMANDS = tuple(HANDLERS)


def run(argv: list[str]) -> int:
    """Run the CLI on ``argv`` (without the program name); returns the exit code."""
    parser = _parser()
    args = parser.parse_args(_argv(argv))
    if args.command is None:  # as the other entry points say it: usage, then a coded error (exit 2)
        parser.error("the following arguments are required: COMMAND, or the submission file(s) to score "
                     "(`tpugraphs-eval --help` lists the commands)")
    try:
        return HANDLERS[args.command](args)
    except NoGroundTruthError as err:  # the public test files: say what this command can do instead
        from .no_truth_hint import no_truth_hint

        raise NoGroundTruthError(f"{err} {no_truth_hint(args)}") from None


def _show(console, args: argparse.Namespace, inputs: list[Path], reports: list[Report | None],
          failures: dict[int, str], validate_only: bool) -> None:
    if args.quiet:  # one line per file, no table, no --lenient hint: rich is not needed (display.quiet_console)
        from ..report.verdict import verdict
    else:
        from ..report.terminal import render, render_comparison
    several = len(reports) > 1
    for i, (path, report) in enumerate(zip(inputs, reports)):
        if report is None:
            console.print(f"[bold red]{safe(str(path))}: error:[/] {safe(failures[i])}")
        elif args.quiet:
            verdict(console, report, validate_only, label=str(path) if several else None, hint=False)
        else:
            if several and console.is_terminal:
                console.rule(safe(str(path)))
            elif several:  # a rule would span the whole (wide) pipe width
                console.print(f"== {safe(str(path))} ==")
            render(report, console, per_graph=getattr(args, "per_graph", False), per_code=args.max_problems,
                   validate_only=validate_only)
    if several and not args.quiet:
        render_comparison(console, inputs, reports)


def main(argv: list[str] | None = None) -> int:
    """Console entry point: never shows a traceback for bad input; see the module docstring for exit codes."""
    return guarded_main("tpugraphs-eval", run, argv)
