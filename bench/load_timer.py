"""In-process time of reading a split, run by bench_speed.py (measurement 7) in a fresh interpreter, so that
two source trees of tpugraphs_eval (``PYTHONPATH``) are timed by the same bench: prints one JSON object.

    python load_timer.py ROOT SPLIT REPEATS   # best of REPEATS: read_split alone, and load_ground_truth

Times are the least of REPEATS calls, wall (``perf_counter``) and CPU (``process_time``), ``gc.collect()``
before each.
"""

from __future__ import annotations

import gc
import json
import sys
import time


def best(fn, repeats: int) -> tuple[float, float]:
    walls, cpus = [], []
    for _ in range(repeats):
        gc.collect()
        w, c = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return min(walls), min(cpus)


def main(argv: list[str]) -> int:
    root, split, repeats = argv[0], argv[1], int(argv[2])
    import tpugraphs_eval
    from tpugraphs_eval import load_ground_truth, resolve_data_root
    from tpugraphs_eval.truth.npzread import read_split

    data_root = resolve_data_root(root)
    read_wall, read_cpu = best(lambda: read_split(data_root, split, True, False), repeats)
    load_wall, load_cpu = best(lambda: load_ground_truth(data_root, split), repeats)
    print(json.dumps({"source": tpugraphs_eval.__file__, "read_wall": read_wall, "read_cpu": read_cpu,
                      "load_wall": load_wall, "load_cpu": load_cpu}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
