"""Many submissions scored by a Codabench bundle's score.py in one subprocess (tests/hosting/test_codabench_malformed.py,
tests/hosting/test_one_hint_everywhere.py): each case gets its own input/ref (the Private task's solution, the
settings with the case's mode) and input/res folder, as a compute worker lays them out."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

# Runs score.main on every prepared input folder; prints {name: [exit, stdout, stderr]} as JSON.
_DRIVER = r"""
import contextlib, importlib.util, io, json, sys
spec = importlib.util.spec_from_file_location("score", sys.argv[1])
score = importlib.util.module_from_spec(spec)
spec.loader.exec_module(score)
out = {}
for name, (input_dir, output_dir) in json.loads(open(sys.argv[2]).read()).items():
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = score.main([input_dir, output_dir])
    out[name] = [code, stdout.getvalue(), stderr.getvalue()]
print(json.dumps(out))
"""

PROBLEM = re.compile(r"  (?:line (\d+)\b.*?: )?([A-Z][A-Z0-9_]+): ")
"""One problem line the program lists on stderr: group 1 the line (or None), group 2 the code."""


def run_private_cases(bundle: Path, work: Path, cases: dict[str, tuple[str, bytes]]
                      ) -> dict[str, tuple[int, str, str, Path]]:
    """``cases``: key → (mode, submission bytes). Returns key → (exit status, stdout, stderr, output folder)."""
    settings = json.loads((bundle / "reference_data_private/settings.json").read_text())
    solution = (bundle / "reference_data_private/solution.csv").read_bytes()
    folders = {}
    for number, (key, (mode, data)) in enumerate(cases.items()):
        case = work / f"c{number}"
        (case / "input/ref").mkdir(parents=True)
        (case / "input/res").mkdir()
        (case / "input/ref/solution.csv").write_bytes(solution)
        (case / "input/ref/settings.json").write_text(json.dumps({**settings, "mode": mode}))
        (case / "input/res/submission.csv").write_bytes(data)
        folders[key] = [str(case / "input"), str(case / "output")]
    (work / "cases.json").write_text(json.dumps(folders))
    done = subprocess.run([sys.executable, "-I", "-c", _DRIVER, str(bundle / "scoring_program/score.py"),
                           str(work / "cases.json")], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return {key: (code, out, err, Path(folders[key][1])) for key, (code, out, err) in json.loads(done.stdout).items()}
