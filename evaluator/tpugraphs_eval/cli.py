"""``tpugraphs-eval``: validate and score a submission from the command line (a thin layer over :mod:`api`).

Exit codes: 0 valid (and scored), 1 invalid submission, 2 usage or data problem, 3 internal error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from . import __version__
from .api import score_submission, validation_report
from .catalog import SPLITS
from .dataroot import resolve_data_root
from .errors import EXIT_INTERNAL, EXIT_INVALID, EXIT_OK, EXIT_USAGE_OR_DATA, TpuGraphsEvalError, UsageError
from .groundtruth import TILE_RUNTIMES, load_ground_truth, scan_catalog
from .options import CONFIG_PROTOCOLS, Options
from .problems import CODES

COMMANDS = ("score", "validate", "codes")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tpugraphs-eval",
        description="Validate and score a TpuGraphs submission (ID,TopConfigs CSV). "
                    "`tpugraphs-eval SUBMISSION ...` is short for `tpugraphs-eval score SUBMISSION ...`.",
        epilog="Exit codes: 0 valid (and scored), 1 invalid submission, 2 usage or data problem, 3 internal error.")
    parser.add_argument("--version", action="version", version=f"tpugraphs-eval {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, help_text in (("score", "validate, then score against the split's runtimes (default command)"),
                            ("validate", "validate only: needs config counts, not runtimes (works on public test files)")):
        sub = commands.add_parser(name, help=help_text, description=help_text)
        sub.add_argument("submissions", type=Path, nargs="+", metavar="SUBMISSION",
                         help="submission CSV file(s) (header ID,TopConfigs); the ground truth is read once")
        sub.add_argument("--split", required=True, choices=SPLITS, help="split the submission ranks")
        sub.add_argument("--data-root", metavar="DIR",
                         help="folder holding npz/ (official layout), or `demo` for the bundled synthetic data "
                              "(default: $TPUGRAPHS_DATA, else ~/data/tpugraphs)")
        sub.add_argument("--lenient", action="store_true",
                         help="Kaggle-compatible validation: duplicates, out-of-range indices, extra tile indices "
                              "and partial layout rows become warnings; what remains is scored")
        sub.add_argument("--json", metavar="PATH", help="write the JSON report to PATH (`-` for stdout; the "
                                                        "tables then go to stderr); a list of reports when "
                                                        "several submissions are given")
        sub.add_argument("--max-problems", type=int, default=5, metavar="N",
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
            sub.add_argument("--per-graph", action="store_true",
                             help="also print every graph's metrics (and tile means per program)")
    commands.add_parser("codes", help="list the problem codes with their severity in strict and lenient mode")
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
    if target == "-":
        sys.stdout.write(text)
        return
    path = Path(target)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as err:
        tmp.unlink(missing_ok=True)
        raise UsageError(f"cannot write the JSON report to {path}: {err.strerror}") from None


def run(argv: list[str]) -> int:
    """Run the CLI on ``argv`` (without the program name); returns the exit code."""
    args = _parser().parse_args(_argv(argv))
    if args.command is None:
        _parser().print_help()
        return EXIT_USAGE_OR_DATA
    if args.command == "codes":
        _print_codes()
        return EXIT_OK
    from rich.console import Console

    from .render import render, render_comparison, verdict

    validate_only = args.command == "validate" or getattr(args, "validate_only", False)
    options = Options(mode="lenient" if args.lenient else "strict",
                      tile_runtime=getattr(args, "tile_runtime", "normalized"),
                      configs=getattr(args, "configs", "all"))
    console = Console(stderr=args.json == "-", highlight=False)
    progress = not args.no_progress and console.is_terminal
    root = resolve_data_root(args.data_root)
    if validate_only:
        catalog = scan_catalog(root, args.split, progress=progress)
        reports = [validation_report(path, catalog, options) for path in args.submissions]
    else:
        truth = load_ground_truth(root, args.split, tile_runtime=options.tile_runtime, progress=progress)
        reports = [score_submission(path, truth, options, eval_indices_dir=getattr(args, "eval_indices", None))
                   for path in args.submissions]
    if args.json:
        if len(reports) == 1:
            _write_json(args.json, reports[0].to_json())
        else:
            _write_json(args.json, json.dumps([r.to_dict() for r in reports], indent=2) + "\n")
    for path, report in zip(args.submissions, reports):
        if len(reports) > 1:
            console.rule(str(path))
        if args.quiet:
            verdict(console, report, validate_only)
        else:
            render(report, console, per_graph=getattr(args, "per_graph", False),
                   per_code=max(args.max_problems, 0), validate_only=validate_only)
    if len(reports) > 1:
        render_comparison(console, args.submissions, reports)
    return EXIT_OK if all(r.valid for r in reports) else EXIT_INVALID


def main(argv: list[str] | None = None) -> int:
    """Console entry point: never shows a traceback for bad input; see the module docstring for exit codes."""
    try:
        code = run(sys.argv[1:] if argv is None else argv)
    except SystemExit as exit_:  # argparse: usage errors (2), --help and --version (0)
        code = exit_.code if isinstance(exit_.code, int) else EXIT_USAGE_OR_DATA
    except TpuGraphsEvalError as err:
        print(f"tpugraphs-eval: error: {err}", file=sys.stderr)
        code = err.exit_code
    except KeyboardInterrupt:
        print("tpugraphs-eval: interrupted", file=sys.stderr)
        code = 130
    except Exception as err:  # a bug: say so briefly; TPUGRAPHS_EVAL_DEBUG=1 shows the traceback
        if os.environ.get("TPUGRAPHS_EVAL_DEBUG"):
            raise
        print(f"tpugraphs-eval: internal error ({type(err).__name__}: {err}). This is a bug; please report it "
              "with the command and input. Set TPUGRAPHS_EVAL_DEBUG=1 for the traceback.", file=sys.stderr)
        code = EXIT_INTERNAL
    if argv is None:
        sys.exit(code)
    return code
