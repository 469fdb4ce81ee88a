"""Peak-RSS probe, run by bench_speed.py in a fresh interpreter: prints one JSON object on stdout.

    python rss_probe.py score-ours  ROOT SPLIT CSV   # ground truth loaded first, then score_submission
    python rss_probe.py score-naive ROOT SPLIT CSV   # naive_scorer.load_runtimes, then naive_scorer.score
    python rss_probe.py load-ours   ROOT SPLIT       # imports done, then load_ground_truth

The peak is reset just before the measured call by writing ``5`` to ``/proc/self/clear_refs`` (Linux),
which sets VmHWM to the current RSS; the reported rise is VmHWM after the call minus VmRSS before it.
Where that is not possible, ``ru_maxrss`` stands in for VmHWM (then the rise is an upper bound: the
peak may predate the call) and ``method`` says so.
"""

from __future__ import annotations

import gc
import json
import resource
import sys
import time
from pathlib import Path


def _status_kb(key: str) -> int | None:
    try:
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def _maxrss_kb() -> int:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak // 1024 if sys.platform == "darwin" else peak


def _reset_peak() -> str:
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as handle:
            handle.write("5")
        return "clear_refs+VmHWM"
    except OSError:
        return "ru_maxrss (upper bound)"


def measure(call) -> dict[str, object]:
    gc.collect()
    method = _reset_peak()
    before = _status_kb("VmRSS") or _maxrss_kb()
    t0 = time.perf_counter()
    result = call()
    seconds = time.perf_counter() - t0
    peak = _status_kb("VmHWM") if method.startswith("clear_refs") else None
    if peak is None:
        peak = _maxrss_kb()
    return {"method": method, "rss_before_kb": before, "peak_kb": peak, "rise_kb": max(0, peak - before),
            "seconds": seconds, "result": result}


def main(argv: list[str]) -> int:
    mode, root, split = argv[0], argv[1], argv[2]
    if mode == "score-ours":
        from tpugraphs_eval import load_ground_truth, resolve_data_root, score_submission

        truth = load_ground_truth(resolve_data_root(root), split)
        out = measure(lambda: score_submission(argv[3], truth).overall)
    elif mode == "score-naive":
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
        import naive_scorer

        truth = naive_scorer.load_runtimes(Path(root), split)
        out = measure(lambda: naive_scorer.score(Path(argv[3]), truth)["overall"])
    elif mode == "load-ours":
        from tpugraphs_eval import load_ground_truth, resolve_data_root

        data_root = resolve_data_root(root)
        out = measure(lambda: load_ground_truth(data_root, split).sha256)
    else:
        print(f"unknown mode {mode!r}", file=sys.stderr)
        return 2
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
