"""Time and peak RSS of ``tpugraphs-data noise`` on a layout graph whose ``node_config_feat`` is >= 1 GB.

    python bench/bench_noise.py              # 1000 x 15000 x 18 float32 = 1.08 GB (synth_data.write_big_layout_root)

The command runs as a fresh process (the venv's ``tpugraphs-data`` beside this interpreter); wall time and CPU
(user + sys, ``os.wait4``) and its peak RSS (``ru_maxrss``) are printed. Target: peak RSS under 200 MB. Needs about
1.1 GB of free disk in the temporary folder.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth_data import write_big_layout_root  # noqa: E402

TARGET_MB = 200


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="bench-noise-") as tmp:
        member = write_big_layout_root(Path(tmp) / "root")
        command = [str(Path(sys.executable).with_name("tpugraphs-data")), "noise", "--data-root",
                   str(Path(tmp) / "root"), "--splits", "valid", "-o", str(Path(tmp) / "noise")]
        start = time.perf_counter()
        proc = subprocess.Popen(command, stdout=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        peak = usage.ru_maxrss / 1024
        print(f"noise of {member.stat().st_size / 1e9:.2f} GB file: wall {wall:.1f} s, CPU "
              f"{usage.ru_utime + usage.ru_stime:.1f} s, peak RSS {peak:.0f} MB (target < {TARGET_MB} MB: "
              f"{'PASS' if peak < TARGET_MB and status == 0 else 'FAIL'})")
    return 0 if peak < TARGET_MB and status == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
