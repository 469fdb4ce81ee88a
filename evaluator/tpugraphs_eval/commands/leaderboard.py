"""``tpugraphs-leaderboard``: build leaderboards from a folder of submissions (a thin layer over :mod:`build`).

Exit codes: 0 the leaderboard was written (invalid submissions are recorded in it: they are normal in a
competition, not a failure of the build; a full standard output after the write is a warning), 1 written but some submission is invalid or unread and
``--fail-on-invalid`` was given, 2 usage or data problem (nothing written), 3 internal error (nothing
written), 130 interrupted (nothing written).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path

from .._version import __version__
from ..defaults import MAX_RESAMPLES
from ..display import safe
from ..entrypoint import ArgumentParser, guarded_main, int_at_least, os_error_message, stop_at_closed_pipe
from ..errors import EXIT_INVALID, EXIT_OK
from ..leaderboard.build import DEFAULT_CACHE, BuildResult, build_leaderboard
from ..leaderboard.codes import LEADERBOARD_CODES, leaderboard_codes_markdown
from ..leaderboard.output import OUTPUT_FILES
from ..leaderboard.reading import DEFAULT_MAX_BYTES
from ..leaderboard.scorer import ScoringFailed
from ..leaderboard.standings import DEFAULT_MAX_DAILY
from ..leaderboard.uncertainty import DEFAULT_RESAMPLES, DEFAULT_SEED
from ..options import Options
from ..progress import progress_bar, wanted


def _parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="tpugraphs-leaderboard", description="Build public/private leaderboards from a folder of submissions.",
        epilog="Exit codes: 0 written, 1 written but a submission is invalid (only with --fail-on-invalid), "
               "2 usage or data problem, 3 internal error.")
    parser.add_argument("--version", action="version", version=f"tpugraphs-leaderboard {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    _add_build(commands)
    _add_demo(commands)
    codes = commands.add_parser("codes", help="list the leaderboard's own problem codes")
    codes.add_argument("--markdown", action="store_true", help="print the Markdown table of docs/codes.md")
    return parser


def _add_build(commands) -> None:
    """The ``build`` command's options."""
    build = commands.add_parser(
        "build", help="score every submission of a folder and write leaderboard.{csv,md,json,html}",
        description="SUBMISSIONS_DIR holds one folder per team (its name is the team's), each holding submission "
                    "files (NAME.csv, or zipped or gzipped: NAME.zip, NAME.csv.gz, NAME.gz), each optionally with "
                    "metadata NAME.json: {\"submitted\": ISO-8601, "
                    "\"description\": str, \"selected\": bool}. See docs/leaderboard.md.")
    build.add_argument("submissions", type=Path, metavar="SUBMISSIONS_DIR")
    build.add_argument("--solution", required=True, type=Path, metavar="FILE",
                       help="the solution file (`tpugraphs-eval solution build`)")
    build.add_argument("-o", "--output", required=True, type=Path, metavar="DIR", help="the leaderboard folder")
    build.add_argument("--name", help="the leaderboard's title (default: the output folder's name)")
    build.add_argument("--public-only", action="store_true",
                       help="participant-facing: only what Kaggle's public leaderboard shows (per team: best public "
                            "overall, collections, entries, last submission); nothing private, no graph")
    build.add_argument("--lenient", action="store_true", help="Kaggle-compatible validation (as tpugraphs-eval)")
    build.add_argument("--workers", type=int_at_least(1), metavar="N", help="scoring processes (default: the CPUs available)")
    build.add_argument("--resamples", type=int_at_least(1, MAX_RESAMPLES), default=DEFAULT_RESAMPLES, metavar="N",
                       help=f"bootstrap resamples (default {DEFAULT_RESAMPLES}, at most {MAX_RESAMPLES:,})")
    build.add_argument("--seed", type=int_at_least(0), default=DEFAULT_SEED, help=f"bootstrap seed (default {DEFAULT_SEED})")
    build.add_argument("--noise", type=Path, metavar="FILE",
                       help="the solution's noise file (`tpugraphs-data noise`): note which top ranks differ by less "
                            "than the measurement noise (organiser view)")
    cache = build.add_mutually_exclusive_group()
    cache.add_argument("--cache-dir", type=Path, metavar="DIR",
                       help="the folder of the store, leaderboard.sqlite (default: OUTPUT/.cache)")
    cache.add_argument("--no-cache", action="store_true", help="score every submission again; keep no store")
    build.add_argument("--rehash", action="store_true",
                       help="read and hash every submission file, even one whose size, mtime and inode are those "
                            "the store recorded (a file rewritten in place with its mtime restored is otherwise "
                            "taken as unchanged; docs/leaderboard.md)")
    build.add_argument("--max-size", type=int_at_least(1), default=DEFAULT_MAX_BYTES >> 20, metavar="MIB",
                       help=f"larger submissions are recorded unread (default {DEFAULT_MAX_BYTES >> 20} MiB)")
    build.add_argument("--max-daily", type=int_at_least(0), default=DEFAULT_MAX_DAILY, metavar="N",
                       help="valid submissions of a team per UTC day scored on the public leaderboard (by the "
                            "metadata's submitted time, else the file's modification time); the others get an "
                            f"OVER_DAILY_LIMIT note (default {DEFAULT_MAX_DAILY}, Kaggle's; 0: no limit)")
    build.add_argument("--allow-empty", action="store_true",
                       help="write an empty leaderboard when SUBMISSIONS_DIR holds no team folder (else exit 2, "
                            "NO_TEAM_FOLDERS)")
    build.add_argument("--fail-on-invalid", action="store_true",
                       help="exit with 1 when some submission is invalid or unread (the leaderboard is still written)")
    build.add_argument("--no-progress", action="store_true", help="no progress bar")
    build.add_argument("--quiet", "-q", action="store_true", help="print nothing but errors")


def _add_demo(commands) -> None:
    """The ``demo`` command's options."""
    demo = commands.add_parser("demo", help="build the demo leaderboard (committed in leaderboards/demo/)",
                               description="Generate the demo submissions and solution (synthetic, deterministic) "
                                           "and build their leaderboard.")
    demo.add_argument("-o", "--output", type=Path, default=Path("leaderboards/demo"), metavar="DIR",
                      help="the leaderboard folder (default leaderboards/demo)")
    demo.add_argument("--submissions", type=Path, metavar="DIR",
                      help="also keep the generated submissions folder there (new or empty)")
    demo.add_argument("--samples", type=Path, metavar="DIR",
                      help="read the three sample submissions from DIR (default: generate them, the same bytes as "
                           "the repository's sample_submissions/)")
    demo.add_argument("--workers", type=int_at_least(1), metavar="N")
    demo.add_argument("--no-progress", action="store_true")
    demo.add_argument("--quiet", "-q", action="store_true")


def _print_summary(result: BuildResult, out: Path) -> None:
    """Print the build's summary line. The leaderboard is already written: a closed stdout (``| head``) is
    ignored, a full one (``> /dev/full``) is a warning on stderr, and neither changes the exit code."""
    counts, doc = result.counts, result.tally
    suffixes = ",".join(f.removeprefix("leaderboard.") for f in OUTPUT_FILES)
    summary = (f"wrote {safe(str(out))}/leaderboard.{{{suffixes}}}: {doc['teams']} teams ({doc['ranked_teams']} "
               f"ranked), {doc['submissions']} submissions: {doc['scored']} scored, {doc['invalid']} invalid, "
               f"{doc['error']} unread; {doc['ignored_entries']} ignored entries. Scored now {counts['scored']}, "
               f"from the store {counts['cached']}"
               + (f", {counts['corrupt']} damaged rows of the store not used" if counts.get("corrupt") else "")
               + (", the store not written" if counts.get("unwritable") else "") + ".")
    try:
        with stop_at_closed_pipe():
            print(summary)
    except OSError as err:  # the summary line is lost, the build stands
        print(f"tpugraphs-leaderboard: warning: {os_error_message(err)} (the summary line; the leaderboard was "
              f"written to {safe(str(out))})", file=sys.stderr)


def run(argv: list[str]) -> int:
    """Run the CLI on ``argv`` (without the program name); returns the exit code."""
    args = _parser().parse_args(argv)
    if args.command == "codes":
        if args.markdown:
            print(leaderboard_codes_markdown(), end="")
        else:
            for code, (severity, meaning) in LEADERBOARD_CODES.items():
                print(f"{code:24} {severity:8} {meaning}")
        return EXIT_OK
    with ExitStack() as bars:  # the progress bar on stderr, stopped however the build ends
        def start(total: int) -> Callable[[int], None]:
            bar = progress_bar("scoring submissions")
            task = bar.add_task("scoring", total=total)
            bars.enter_context(bar)  # started
            return lambda n: bar.advance(task, n)

        progress = start if not (args.no_progress or args.quiet) and wanted(None) else None
        if args.command == "demo":
            from ..leaderboard.demo import build_demo

            result = build_demo(args.output, submissions=args.submissions, samples=args.samples,
                                workers=args.workers, progress=progress)
        else:
            result = build_leaderboard(
                args.submissions, args.solution, args.output, name=args.name,
                options=Options(mode="lenient" if args.lenient else "strict"),
                view="public" if args.public_only else "organiser", workers=args.workers, resamples=args.resamples,
                seed=args.seed, cache_dir=None if args.no_cache else args.cache_dir or DEFAULT_CACHE,
                max_bytes=args.max_size << 20, max_daily=args.max_daily, progress=progress,
                allow_empty=args.allow_empty, rehash=args.rehash, noise=args.noise)
    for item in result.notes:
        print(f"tpugraphs-leaderboard: warning: [{item['code']}] {safe(item['message'])}", file=sys.stderr)
    if not args.quiet:
        _print_summary(result, args.output)
    bad = result.tally["invalid"] + result.tally["error"]
    return EXIT_INVALID if bad and getattr(args, "fail_on_invalid", False) else EXIT_OK


def main(argv: list[str] | None = None) -> int:
    """Console entry point: no traceback for bad input; exit codes in the module docstring."""
    return guarded_main("tpugraphs-leaderboard", run, argv,
                        interrupted="interrupted; the previous leaderboard is unchanged", bugs=(ScoringFailed,))
