"""Errors of the participant kit: each has a stable code and maps to the project's exit codes.

They subclass the evaluator's :class:`tpugraphs_eval.TpuGraphsEvalError`, so one ``except`` catches
both, and the CLIs map every one of them to an exit code (0 ok, 1 invalid submission or failed check,
2 usage or data problem) without a traceback.
"""

from __future__ import annotations

from tpugraphs_eval import TpuGraphsEvalError
from tpugraphs_eval.errors import EXIT_INVALID, EXIT_USAGE_OR_DATA


class KitError(TpuGraphsEvalError):
    """A usage or data problem met by the kit (exit code 2).

    Attributes:
        code: a stable upper-case code tools may match on (e.g. ``UNSAFE_ARCHIVE``).
        exit_code: the CLI exit status.
    """

    exit_code = EXIT_USAGE_OR_DATA

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code

    def __str__(self) -> str:
        return f"[{self.code}] {super().__str__()}"


class SubmissionError(KitError):
    """A submission the kit was asked to write or combine fails strict validation (exit code 1).

    Attributes:
        problems: the evaluator's :class:`tpugraphs_eval.Problem` list behind the refusal (may be empty).
    """

    exit_code = EXIT_INVALID

    def __init__(self, code: str, message: str, problems: list | None = None) -> None:
        super().__init__(code, message)
        self.problems = list(problems or [])


class DownloadError(KitError):
    """A download or extraction failed (exit code 2): network error, timeout, size mismatch, an unsafe, truncated
    or too large archive, a link in the data root."""
