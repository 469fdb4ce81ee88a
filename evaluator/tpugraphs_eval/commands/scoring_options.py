"""The scoring options, defined once: what submissions are checked against and how (``score``, ``validate``,
``compare``).

Every command that scores submissions adds these options with :func:`add_scoring_options` and turns them
into an :class:`api.Evaluator` with :func:`load_evaluator`, so their help texts, choices and defaults
cannot drift apart (``tests/cli/test_cli.py`` compares the parsers).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from ..dataset import SPLITS
from ..defaults import CONFIG_PROTOCOLS, TILE_RUNTIMES
from ..errors import UsageError

if TYPE_CHECKING:
    from ..api import Evaluator


def comma_list(text: str) -> list[str]:
    """Comma-separated names (``--collections``, checked against the split by :class:`Evaluator`; ``prepare
    --from``)."""
    return [name.strip() for name in text.split(",") if name.strip()]


def add_scoring_options(parser: argparse.ArgumentParser, *, scored: bool = True) -> None:
    """Add the scoring options to a command's parser (``scored`` False, for ``validate``: without ``--tile-runtime``,
    ``--configs``, ``--eval-indices`` and ``--noise``, which only change scores)."""
    parser.add_argument("--split", choices=SPLITS,
                        help="split the submissions rank (required, but with --solution)")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--data-root", metavar="DIR",
                        help="folder holding npz/ (official layout), or `demo` for the bundled synthetic data "
                             "(default: $TPUGRAPHS_DATA, else ~/data/tpugraphs)")
    source.add_argument("--solution", metavar="FILE", type=Path,
                        help="a solution file (`tpugraphs-eval solution build`) instead of a data root: also "
                             "scores the public and private leaderboards")
    parser.add_argument("--public-only", action="store_true",
                        help="with --solution: only the public leaderboard's graphs count and nothing private is "
                             "shown (what a participant may see)")
    parser.add_argument("--collections", type=comma_list, metavar="C1,C2",
                        help="validate and score only these collections (e.g. tile:xla or a per-collection file's); "
                             "rows of the others are counted, not scored; overall = mean over these")
    parser.add_argument("--graphs", type=Path, metavar="FILE",
                        help="validate and score only these graphs: a plain list of IDs (one per line), or a fold "
                             "file (`tpugraphs-data folds`) with --fold K; rows of the others are counted, not scored")
    parser.add_argument("--fold", type=int, metavar="K", help="with a fold file as --graphs: the fold to score")
    parser.add_argument("--lenient", action="store_true",
                        help="Kaggle-compatible validation: duplicates, out-of-range indices, extra tile indices "
                             "and partial layout rows become warnings; what remains is scored")
    if scored:
        parser.add_argument("--tile-runtime", choices=TILE_RUNTIMES, default="normalized",
                            help="tile runtimes divided by config_runtime_normalizers (default) or raw")
        parser.add_argument("--configs", choices=CONFIG_PROTOCOLS, default="all",
                            help="layout configs scored: all (Kaggle, default) or the official 1000 sampled "
                                 "validation configs (paper protocol, --split valid)")
        parser.add_argument("--eval-indices", metavar="DIR",
                            help="folder of the official {xla,nlp}_{default,random}.json index lists "
                                 "(for --configs official; the demo brings its own)")
        parser.add_argument("--noise", metavar="FILE", type=Path,
                            help="the split's noise file (`tpugraphs-data noise`): noise ceilings beside the scores "
                                 "(default: <data root>/noise/<split>.json when present)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar while reading graph files")


def load_evaluator(args: argparse.Namespace, *, progress: bool, validate_only: bool = False) -> Evaluator:
    """The :class:`Evaluator` the scoring options of ``args`` ask for (the ground truth read once).

    Raises:
        UsageError, DataError: as :meth:`Evaluator.load`.
    """
    from ..api import Evaluator
    from ..options import Options

    graphs = None
    if getattr(args, "graphs", None) is not None:
        from ..truth.graph_lists import read_graphs

        graphs = read_graphs(args.graphs, args.fold)
    elif getattr(args, "fold", None) is not None:
        raise UsageError("--fold needs --graphs FILE (a fold file)", code="GRAPHS_FILE_INVALID")
    options = Options(mode="lenient" if args.lenient else "strict",
                      tile_runtime=getattr(args, "tile_runtime", "normalized"), configs=getattr(args, "configs", "all"))
    root = getattr(args, "resolved_root", None) or args.data_root  # resolved once (.outputs.graphs_root)
    return Evaluator.load(split=args.split, data_root=root, solution=args.solution, options=options,
                          eval_indices_dir=getattr(args, "eval_indices", None), validate_only=validate_only,
                          public_only=args.public_only, collections=args.collections, progress=progress,
                          graphs=graphs, noise=getattr(args, "noise", None))
