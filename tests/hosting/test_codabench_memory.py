"""The Codabench scoring program's memory (issue 24 item 4): a subprocess's peak RSS (``VmHWM``) while it scores a
large valid submission (32 layout graphs of 100,000 configurations, full rankings: layout rows are what makes a real
file large), above the peak of an interpreter that only imports what the program imports, must be at most 3 times
the submission file's size. Here (18.8 MB of submission, 31.6 MB of solution): 4.96 times before (93 MB: the file's
bytes, its rows' text, a DataFrame of it and every row's parsed indices held at once), 2.54 times now (48 MB: the
solution's runtimes, 8 bytes per configuration, and one row at a time, streamed from the file and scored as it is
read). A memory assertion, never a timing one.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tpugraphs_eval import resolve_data_root
from tpugraphs_eval.hosting.codabench import write_bundle
from tpugraphs_eval.truth.solution import build_solution

GRAPHS, CONFIGS = 16, 100_000  # per collection
_PEAK = "print([int(line.split()[1]) * 1024 for line in open('/proc/self/status') if line.startswith('VmHWM')][0])"


def _peak(code: str) -> int:
    done = subprocess.run([sys.executable, "-c", code + "\n" + _PEAK], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return int(done.stdout.split()[-1])


@pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="reads VmHWM from /proc (Linux)")
def test_the_scoring_program_peaks_under_three_times_the_submission(tmp_path):
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
    size = submission.stat().st_size
    base = _peak(f"import sys; sys.path.insert(0, {str(program)!r}); import numpy, pandas, scipy.stats, "
                 "tpugraphs_metric, public_rule, csvshape, sniff")
    peak = _peak(f"import runpy, sys; sys.argv = ['score.py', {str(inputs)!r}, {str(tmp_path / 'out')!r}]\n"
                 f"try:\n    runpy.run_path({str(program / 'score.py')!r}, run_name='__main__')\n"
                 "except SystemExit as done:\n    assert done.code == 0, done.code")
    assert (tmp_path / "out/scores.json").is_file()
    assert peak - base <= 3 * size, (peak - base) / size


@pytest.mark.parametrize("data", [
    b"", b"\xef\xbb\xbf", b" \n\t", b" " * 9000, b"\n" * 9000 + b"ID,TopConfigs\n", b" " * (3 << 20) + b"x",
    b"\xef\xbb\xbf" + b"\n" * 9000, b"ID,TopConfigs\n" + b"\x00" * 10, b"\xff\xfe" + b"a\x00" * 5000,
    b"ID,TopConfigs\ntile:xla:a,0;1;2;3;4\n" * 500])
def test_the_streamed_file_is_refused_as_the_whole_file_is(data):
    """The program reads a submission's start (and, while it is blank, the rest) instead of the whole file: the
    refusal (EMPTY_FILE, NOT_TEXT with its line, or none) equals ``sniff.refusal`` of the whole file's bytes, on
    files shorter and longer than the sniffed start, blank past it or not."""
    from tpugraphs_eval.hosting.codabench_program import _refusal
    from tpugraphs_eval.rules.sniff import refusal

    assert _refusal(io.BytesIO(data)) == refusal(data)
