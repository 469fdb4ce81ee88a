"""``tpugraphs-eval prepare``: a competition from released data (a thin layer over :func:`..prepare.prepare_dir`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .. import display
from ..dataset import COLLECTIONS
from ..defaults import DEFAULT_MAX_CONFIGS, DEFAULT_PUBLIC_FRACTION, DEFAULT_TEST_FRACTION
from ..display import safe
from ..entrypoint import int_at_least
from ..errors import EXIT_OK
from .scoring_options import comma_list


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Add ``prepare`` to ``tpugraphs-eval``'s commands."""
    text = ("Hold out whole programs of the labelled splits as a test split written like the official public "
            "test files: DIR/public is a data root for participants (with sample_submission.csv), "
            "DIR/private holds solution.parquet and the name map (docs/prepare.md).")
    sub = commands.add_parser("prepare", help="organiser tools: a competition with a labelled test split, from "
                                              "the released train/valid files", description=text)
    sub.add_argument("--data-root", metavar="R", help="the source data root (or `demo`)")
    sub.add_argument("-o", "--output", required=True, type=Path, metavar="DIR", help="a new or empty folder")
    sub.add_argument("--from", dest="from_splits", type=comma_list, default=["train"], metavar="SPLITS",
                     help="labelled split(s) the test graphs are drawn from, comma-separated (default train); "
                          "the other labelled split is copied unchanged")
    sub.add_argument("--test-fraction", type=float, default=DEFAULT_TEST_FRACTION, metavar="F",
                     help=f"share of each collection's source graphs held out, at least 2 (default "
                          f"{DEFAULT_TEST_FRACTION})")
    sub.add_argument("--public-fraction", type=float, default=DEFAULT_PUBLIC_FRACTION, metavar="P",
                     help=f"share of each collection's test graphs on the public leaderboard (default "
                          f"{DEFAULT_PUBLIC_FRACTION})")
    sub.add_argument("--max-configs", type=int_at_least(2), default=DEFAULT_MAX_CONFIGS, metavar="N",
                     help=f"layout test graphs keep a seeded sample of at most N configs (default "
                          f"{DEFAULT_MAX_CONFIGS}, as the real public test files)")
    sub.add_argument("--seed", metavar="S", help="the organiser's secret: opaque names and every draw derive from "
                                                 "it (default: a fresh random one, printed and kept in "
                                                 "DIR/private/prepare.json)")
    sub.add_argument("--insecure-seed", action="store_true",
                     help="accept a seed shorter than 16 characters (a throwaway run: its names can be guessed)")
    sub.add_argument("--collections", type=comma_list, metavar="C1,C2",
                     help=f"prepare only these ({', '.join(c.name for c in COLLECTIONS)}; default all present)")
    sub.add_argument("--no-progress", action="store_true", help="no progress bar")


def warn_insecure_seed(seed: str, insecure: bool) -> None:
    """Refuse a short seed (``PREPARE_WEAK_SEED``) or, with ``--insecure-seed``, warn on stderr."""
    from ..prepare.naming import MIN_SEED_CHARS, check_seed

    check_seed(seed, insecure)
    if len(seed) < MIN_SEED_CHARS:
        print(f"tpugraphs-eval: warning: --insecure-seed: a {len(seed)}-character seed; anyone can map the opaque "
              "test names back to the original graphs: a throwaway run only", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    """Prepare ``args.output`` from ``args.data_root``; print what was written."""
    from ..outputs import refuse_output_is_input
    from ..prepare.naming import new_seed
    from ..prepare.run import prepare_dir, remove_stale_work
    from ..roots import resolve_data_root

    console = display.console()
    root = resolve_data_root(args.data_root)
    refuse_output_is_input([("-o", args.output)], [], data_root=root.path)
    seed = args.seed if args.seed is not None else new_seed()
    warn_insecure_seed(seed, args.insecure_seed)
    for stale in remove_stale_work(Path(args.output)):
        print(f"tpugraphs-eval: removed {safe(str(stale))}, the work folder of an earlier prepare into "
              f"{safe(str(args.output))} that did not finish (it may have held the held-out runtimes)", file=sys.stderr)
    result = prepare_dir(root, args.output, seed=seed, insecure_seed=args.insecure_seed, from_splits=args.from_splits,
                         test_fraction=args.test_fraction, public_fraction=args.public_fraction,
                         max_configs=args.max_configs, collections=args.collections,
                         progress=not args.no_progress and display.is_terminal(sys.stderr))
    console.print(f"wrote {safe(str(args.output))}/public (for participants) and /private (solution, name map) "
                  f"from {safe(result['source'])}")
    for name, counts in result["collections"].items():
        console.print(f"  {name}: test {counts['test']} ({result['test_public_graphs'][name]} public), "
                      f"train {counts['train']}, valid {counts['valid']}")
    for name, why in result["left_out"].items():
        console.print(f"  {name}: left out ({safe(why)})")
    if args.seed is None:
        print(f"tpugraphs-eval: the seed (keep it secret): {seed}", file=sys.stderr)
    return EXIT_OK
