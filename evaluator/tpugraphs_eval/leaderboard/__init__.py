"""Leaderboards regenerated from a folder of submissions: public and private ranks, uncertainty, shake-up.

Quick use::

    from tpugraphs_eval.leaderboard import build_leaderboard
    result = build_leaderboard("submissions/", "solution.parquet", "leaderboards/NAME")
    result.document["teams"][0]   # the leader: rank, team, overall, collections, intervals, ...

Command line: ``tpugraphs-leaderboard build SUBMISSIONS_DIR --solution FILE -o DIR`` (see
docs/leaderboard.md for the folder layout, the rules and the outputs).
"""

from .build import BuildResult, build_leaderboard
from .codes import LEADERBOARD_CODES
from .folder import read_folder

__all__ = ["LEADERBOARD_CODES", "BuildResult", "build_leaderboard", "read_folder"]
