"""The in-process timing loop of the bench scripts: the least wall time of a few calls."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable


def best_seconds(call: Callable[[], object], repeats: int) -> float:
    """The least ``time.perf_counter`` seconds of ``repeats`` calls of ``call``, each after a ``gc.collect()`` (so
    that a collection left over from the last call is not timed in the next)."""
    times = []
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times)
