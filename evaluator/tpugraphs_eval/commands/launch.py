"""The console scripts' entry points: one BLAS thread (unless ``OPENBLAS_NUM_THREADS`` is set), then the command;
why: docs/performance.md, "Threads". Importing the package as a library sets nothing.
"""

from __future__ import annotations

import os

BLAS_THREADS_ENV = "OPENBLAS_NUM_THREADS"


def _one_blas_thread() -> None:
    """``OPENBLAS_NUM_THREADS=1`` unless it is set to something (empty counts as unset, as OpenBLAS reads it);
    only before numpy is imported does it take effect."""
    if not os.environ.get(BLAS_THREADS_ENV, "").strip():
        os.environ[BLAS_THREADS_ENV] = "1"


def evaluate() -> int:
    """``tpugraphs-eval`` (:func:`.evaluate.main`)."""
    _one_blas_thread()
    from .evaluate import main

    return main()


def leaderboard() -> int:
    """``tpugraphs-leaderboard`` (:func:`.leaderboard.main`)."""
    _one_blas_thread()
    from .leaderboard import main

    return main()
