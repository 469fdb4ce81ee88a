"""The console scripts' entry points: one BLAS thread, then the command (docs/performance.md, "Threads").

numpy's bundled OpenBLAS starts one worker thread per core when numpy is imported, and the workers spin
while they wait: on the 2-core machine of bench/README.md that costs about 60-110 ms of CPU per process (numpy's
import: 184-235 ms CPU against 120-127 ms with one thread), more than validating and scoring a Kaggle-sized
submission. No command of this package multiplies matrices (scoring is sorting, counting and sums), so each
console script asks OpenBLAS for one thread before numpy is imported, unless the user has set
``OPENBLAS_NUM_THREADS`` (their value is kept). Importing the package as a library sets nothing.
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
