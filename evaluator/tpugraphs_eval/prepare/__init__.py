"""Prepare a competition from released data: hold out whole programs of the labelled splits as a test split
written like the official public test files (docs/prepare.md). :func:`prepare` has MLE-bench's shape;
:func:`prepare_dir` writes ``DIR/public`` and ``DIR/private`` (``tpugraphs-eval prepare``).
"""

from .grouping import program_of
from .naming import new_seed
from .run import DEFAULT_MAX_CONFIGS, DEFAULT_TEST_FRACTION, PrepareOptions, check_public, prepare, prepare_dir
from .selection import assign_folds, select_held_out

__all__ = ["DEFAULT_MAX_CONFIGS", "DEFAULT_TEST_FRACTION", "PrepareOptions", "assign_folds", "check_public",
           "new_seed", "prepare", "prepare_dir", "program_of", "select_held_out"]
