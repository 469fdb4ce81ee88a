"""Exceptions of tpugraphs_eval and the CLI exit codes they map to.

Problems in a *submission* are never raised: they are collected as
:class:`tpugraphs_eval.submission.problems.Problem` values, all in one pass. Exceptions are for what stops the
evaluator from working at all: a bad data root, a bad option.
"""

from __future__ import annotations

EXIT_OK = 0
"""The submission is valid (and was scored, unless only validation was asked for)."""
EXIT_INVALID = 1
"""The submission has at least one error-severity problem."""
EXIT_USAGE_OR_DATA = 2
"""Bad command line, or a data root / ground truth / eval-indices problem: nothing was scored."""
EXIT_INTERNAL = 3
"""A bug in tpugraphs-eval (please report it with the input that caused it)."""


class TpuGraphsEvalError(Exception):
    """Base class of every error tpugraphs_eval raises on purpose.

    Attributes:
        exit_code: the CLI exit status for this error.
    """

    exit_code = EXIT_USAGE_OR_DATA


class DataError(TpuGraphsEvalError):
    """The data root, a ``.npz`` file, or an eval-indices file cannot be used (exit code 2).

    The message names the file(s) and never contains ground-truth runtimes.
    """


class NoGroundTruthError(DataError):
    """The split's runtimes are all 0: the public test files, which hold no ground truth (exit code 2).

    Validation needs config counts only and still works; each command says how to ask for it.
    """

    code = "NO_GROUND_TRUTH"


class UsageError(TpuGraphsEvalError):
    """Options that do not fit together, or a submission path that cannot be read (exit code 2)."""


class InvalidSubmissionError(TpuGraphsEvalError):
    """A submission that a command must score has error-severity problems (exit code 1, code
    ``INVALID_SUBMISSION``); the message names the file(s) and how to list the problems."""

    exit_code = EXIT_INVALID
    code = "INVALID_SUBMISSION"
