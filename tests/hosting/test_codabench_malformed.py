"""The Codabench scoring program on malformed submissions: the CLI's verdict and errors, line for line.

The program reads a submission's CSV with the validator's own rules (``read_rows`` of
:mod:`tpugraphs_eval.hosting.codabench_program` calls ``csvshape.py`` and ``sniff.py``, the bundle's copies of
``tpugraphs_eval/rules/``; its row rules are the metric file's, made of ``rules/``), so this test checks the
program as a whole against ``tpugraphs-eval``: every malformed submission of tests/submission/test_bad_submissions.py (strict and
lenient cases) is scored by the bundle's ``score.py`` in one subprocess, and its exit status and its errors
(line, code), in order, must equal what ``validate_submission`` (the CLI's validator) reports; an accepted
submission must get the package's public score.
"""

from __future__ import annotations

import json

import pytest
from bad_submission_cases import LENIENT_CASES, STRICT_CASES
from badinput import HEADER, ROW_A, ROW_B, ROW_L, csv
from codabench_batch import PROBLEM, run_private_cases

from tpugraphs_eval import score_submission, validate_submission
from tpugraphs_eval.options import Options
from tpugraphs_eval.submission.problems import Severity
from tpugraphs_eval.truth.solution import load_solution

EXTRA = {  # the row that pandas shifted (the reported defect), and shapes the bad-submission cases lack
    "one-extra-field": csv(f"{ROW_A},extra", ROW_B, ROW_L),
    "extra-fields-two-lines": csv(f"{ROW_A},x,y", f"{ROW_B},", ROW_L),
    "index-column": csv(ROW_A, ROW_B, ROW_L, header=f",{HEADER}"),
    "sep-line": b"sep=,\n" + csv(ROW_A, ROW_B, ROW_L),
    "list-field": csv(ROW_A, f"{ROW_B[:-10]},[0, 1, 2, 3, 4]", ROW_L),
}
CASES = ([("strict", p.id, p.values[0]) for p in STRICT_CASES] + [("lenient", p.id, p.values[0]) for p in LENIENT_CASES]
         + [(mode, name, data) for mode in ("strict", "lenient") for name, data in EXTRA.items()])


def _errors(stderr: str) -> list[tuple[int | None, str]]:
    """(line, code) of every problem the program listed on stderr."""
    found = []
    for text in stderr.splitlines()[1:]:
        match = PROBLEM.match(text)
        assert match, text
        found.append((int(match[1]) if match[1] else None, match[2]))
    return found


@pytest.fixture(scope="module")
def program_results(tiny_bundle, tmp_path_factory):
    """Every case scored by the bundle's score.py (Private task) in one subprocess: name → (exit, stdout, stderr).

    The Private phase: it holds 2 graphs (one tile, one layout), so its overall is shown; the Public phase holds one
    graph in all, whose overall the program leaves out (its value would be that graph's)."""
    return run_private_cases(tiny_bundle, tmp_path_factory.mktemp("malformed"),
                             {f"{mode}:{name}": (mode, data) for mode, name, data in CASES})


@pytest.mark.parametrize("mode, name, data", CASES, ids=[f"{mode}:{name}" for mode, name, _ in CASES])
def test_the_program_gives_the_clis_verdict_and_errors(mode, name, data, program_results, catalog, tiny_bundle):
    code, stdout, stderr, output = program_results[f"{mode}:{name}"]
    validation = validate_submission(data, catalog, mode=mode)
    expected = [(p.line, p.code) for p in validation.problems if p.severity == Severity.ERROR]
    assert "Traceback" not in stderr
    assert code == (0 if validation.valid else 1), (stderr, expected)
    if validation.valid:
        truth = load_solution(tiny_bundle.parent / "test.parquet")
        report = score_submission(data, truth, Options(mode=mode))
        assert json.loads((output / "scores.json").read_text())["overall"] == report.leaderboards["private"].overall
    else:
        assert stderr.startswith(f"invalid submission: {len(expected)} error(s)\n")
        assert _errors(stderr) == expected
