"""The Codabench scoring program's memory (issue 24 item 4): a subprocess's peak RSS (``VmHWM``) while it scores a
large-ish valid submission (16 layout graphs of 100,000 configurations, full rankings), above the peak of an
interpreter that only imports what the program imports. Before, the program read solution.csv whole with
pandas and parsed it twice, its runtimes text in one piece: 4.3 times the two files' size here (on 75 MB of
submission and 119 MB of solution, 729 MB above the imports); now the solution is read row by row and parsed
once, in batches: 2.2 times here (313 MB there). A memory assertion, loose on purpose (3 times the submission
and solution files), never a timing one."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tpugraphs_eval import resolve_data_root
from tpugraphs_eval.hosting.codabench import write_bundle
from tpugraphs_eval.truth.solution import build_solution

GRAPHS, CONFIGS = 8, 100_000
_PEAK = "print([int(line.split()[1]) * 1024 for line in open('/proc/self/status') if line.startswith('VmHWM')][0])"


def _peak(code: str) -> int:
    done = subprocess.run([sys.executable, "-c", code + "\n" + _PEAK], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return int(done.stdout.split()[-1])


@pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="reads VmHWM from /proc (Linux)")
def test_the_scoring_program_peaks_under_three_times_its_input_files(tmp_path):
    rng = np.random.default_rng(0)
    rows = ["ID,TopConfigs"]
    for collection, folder in (("layout:xla:default", "xla/default"), ("layout:nlp:random", "nlp/random")):
        out = tmp_path / "root/npz/layout" / folder / "test"
        out.mkdir(parents=True)
        for g in range(GRAPHS):
            np.savez(out / f"{g:032x}.npz", config_runtime=rng.integers(1, 10**9, CONFIGS))
            rows.append(f"{collection}:{g:032x}," + ";".join(map(str, rng.permutation(CONFIGS))))
    build_solution(resolve_data_root(tmp_path / "root"), "test", tmp_path / "test.parquet", public_fraction=0.5)
    write_bundle(tmp_path / "bundle", tmp_path / "test.parquet")
    program = tmp_path / "bundle/scoring_program"
    inputs = tmp_path / "input"
    shutil.copytree(tmp_path / "bundle/reference_data_public", inputs / "ref")
    (inputs / "res").mkdir()
    submission = inputs / "res/submission.csv"
    submission.write_text("\n".join(rows) + "\n")
    files = submission.stat().st_size + (inputs / "ref/solution.csv").stat().st_size
    base = _peak(f"import sys; sys.path.insert(0, {str(program)!r}); import numpy, pandas, scipy.stats, "
                 "tpugraphs_metric, public_rule, csvshape, sniff")
    peak = _peak(f"import runpy, sys; sys.argv = ['score.py', {str(inputs)!r}, {str(tmp_path / 'out')!r}]\n"
                 f"try:\n    runpy.run_path({str(program / 'score.py')!r}, run_name='__main__')\n"
                 "except SystemExit as done:\n    assert done.code == 0, done.code")
    assert (tmp_path / "out/scores.json").is_file()
    assert peak - base <= 3 * files, (peak - base) / files
