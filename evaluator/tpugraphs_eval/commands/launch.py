"""The console scripts' entry points: set the process up, then run the command (docs/performance.md, "Threads"
and "Start-up").

numpy's bundled OpenBLAS starts one worker thread per core when numpy is imported, and the workers spin
while they wait: on the 2-core machine of bench/README.md that costs about 60-110 ms of CPU per process (numpy's
import: 184-235 ms CPU against 120-127 ms with one thread), more than validating and scoring a Kaggle-sized
submission. No command of this package multiplies matrices (scoring is sorting, counting and sums), so each
console script asks OpenBLAS for one thread before numpy is imported, unless the user has set
``OPENBLAS_NUM_THREADS`` (their value is kept).

The command's modules (numpy's among them: tens of thousands of objects that live as long as the process)
are imported with the cyclic garbage collector paused and then frozen (:func:`gc.freeze`): the collector no
longer walks them again and again while the command runs and once more at exit (about 20 ms of a 190 ms
``validate``). Importing the package as a library changes neither.
"""

from __future__ import annotations

import gc
import importlib
import os
from collections.abc import Callable

BLAS_THREADS_ENV = "OPENBLAS_NUM_THREADS"


def _one_blas_thread() -> None:
    """``OPENBLAS_NUM_THREADS=1`` unless it is set to something (empty counts as unset, as OpenBLAS reads it);
    only before numpy is imported does it take effect."""
    if not os.environ.get(BLAS_THREADS_ENV, "").strip():
        os.environ[BLAS_THREADS_ENV] = "1"


def _main_of(command: str) -> Callable[[], int]:
    """The ``main`` of the module ``commands/<command>.py``, imported with the collector paused, then every object
    made so far frozen out of later collections."""
    _one_blas_thread()
    gc.disable()
    try:
        return importlib.import_module(f"{__package__}.{command}").main
    finally:
        gc.freeze()
        gc.enable()


def evaluate() -> int:
    """``tpugraphs-eval`` (:func:`.evaluate.main`)."""
    return _main_of("evaluate")()


def leaderboard() -> int:
    """``tpugraphs-leaderboard`` (:func:`.leaderboard.main`)."""
    return _main_of("leaderboard")()
