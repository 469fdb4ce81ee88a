"""Default values and choices that the commands' parsers show, each defined once here.

Building ``tpugraphs-eval``'s parser (every ``--help``, ``--version`` and each command's start) must not import
the modules that use these values (the solution-file writer, the prepare pipeline, the bootstrap): they
import their defaults from here instead, and a command imports its own modules when it runs
(docs/performance.md, "Imports"). Standard library only.
"""

from __future__ import annotations

from typing import Literal

TileRuntime = Literal["normalized", "raw"]
TILE_RUNTIMES: tuple[TileRuntime, ...] = ("normalized", "raw")
"""Tile runtimes scored: divided by ``config_runtime_normalizers`` (default, Kaggle) or raw (docs/metrics.md)."""
ConfigProtocol = Literal["all", "official"]
CONFIG_PROTOCOLS: tuple[ConfigProtocol, ...] = ("all", "official")
"""Layout configs scored: all (Kaggle) or the official 1000 sampled validation configs (paper protocol)."""

DEFAULT_PUBLIC_FRACTION = 0.25
"""Share of each collection's graphs on the public leaderboard by default (Kaggle-like: 20-30 %)."""
DEFAULT_TEST_FRACTION = 0.1
"""Share of each collection's source graphs held out by ``prepare`` by default: the real test split is about 12 %
of tile graphs and 8-11 % of each layout collection's."""
DEFAULT_MAX_CONFIGS = 1000
"""Configs kept per held-out layout graph by default (the real public test graphs hold 1000 or 1001)."""

COMPARE_RESAMPLES = 10_000
"""Paired-bootstrap resamples of ``compare`` by default."""
COMPARE_SEED = 0
"""Seed of ``compare``'s resampling by default."""
MAX_RESAMPLES = 100_000
"""Most bootstrap resamples ``compare`` and the leaderboard take: the draws are (resamples x graphs) int64, 0.8 GB at
100,000 resamples of the Kaggle test split's 960 graphs, and each compared submission's drawn values as much
again."""
