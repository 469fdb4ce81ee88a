"""The ``compare`` command's options, apart from its run (:mod:`.compare`), so that building ``tpugraphs-eval``'s
parser imports no bootstrap or comparison module."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..defaults import COMPARE_RESAMPLES as DEFAULT_RESAMPLES
from ..defaults import COMPARE_SEED as DEFAULT_SEED
from ..defaults import MAX_RESAMPLES
from .entrypoint import int_at_least
from .scoring_options import add_scoring_options


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Add the ``compare`` command to the ``tpugraphs-eval`` sub-commands."""
    text = "paired bootstrap over graphs: is submission B better than A? (difference B - A, 95% interval)"
    # argparse %-formats help texts (a bare % crashed `tpugraphs-eval --help`), not descriptions
    sub = commands.add_parser("compare", help=text.replace("%", "%%"),
                              description=text + ". Positive differences mean B is better.")
    sub.add_argument("a", type=Path, metavar="A", help="the reference submission CSV")
    sub.add_argument("b", type=Path, metavar="B", help="the submission compared with A")
    add_scoring_options(sub)
    sub.add_argument("--resamples", type=int_at_least(1, MAX_RESAMPLES), default=DEFAULT_RESAMPLES, metavar="N",
                     help=f"bootstrap resamples (default {DEFAULT_RESAMPLES}, at most {MAX_RESAMPLES:,})")
    sub.add_argument("--seed", type=int_at_least(0), default=DEFAULT_SEED,
                     help=f"seed of the resampling (default {DEFAULT_SEED})")
    sub.add_argument("--json", metavar="PATH", help="write the comparison as JSON to PATH (`-`: stdout, the "
                                                    "table then goes to stderr)")
