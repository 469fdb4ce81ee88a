"""Kaggle's `score` is called once per Usage subset: what it shows must tell nothing of the split (issue 15 item 3).

Every case runs two ways: the exported metric file in a subprocess where `tpugraphs_eval` cannot be imported
(as tests/hosting/test_export_kaggle_metric.py runs it) and the in-package `hosting.standalone_metric` (the file's
source, which `hosting.kaggle_metric` re-exports).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from metric_sandbox import LOAD_EXPORTED_METRIC

from tpugraphs_eval.commands import evaluate as cli
from tpugraphs_eval.hosting import standalone_metric
from tpugraphs_eval.hosting.kaggle_metric import solution_frame
from tpugraphs_eval.hosting.standalone_metric import LOCAL_CHECK
from tpugraphs_eval.rules.codes import PROBLEM_CODES

MEANING = {code: meaning for code, _, _, meaning in PROBLEM_CODES}
IMPLEMENTATIONS = ("exported", "standalone")

_DRIVER = LOAD_EXPORTED_METRIC + r"""
out = {}
for case in json.loads(open(sys.argv[2]).read()):
    read = lambda path: pd.read_csv(path, dtype=str, keep_default_na=False)
    try:
        value = metric.score(read(case["solution"]), read(case["submission"]), "ID")
        out[case["name"]] = {"kind": "score", "value": None if math.isnan(value) else value}
    except Exception as err:
        out[case["name"]] = {"kind": type(err).__name__, "message": str(err),
                             "problems": [list(p) for p in getattr(err, "problems", [])]}
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("kaggle-split-free") / "metric.py"
    assert cli.main(["export", "kaggle-metric", "-o", str(path)]) == 0
    return path


def _in_package(module, solution: pd.DataFrame, submission: pd.DataFrame) -> dict:
    try:
        value = module.score(solution, submission, "ID")
        return {"kind": "score", "value": None if np.isnan(value) else value}
    except Exception as err:  # noqa: BLE001 - the outcome is compared below
        if type(err).__name__ == "ParticipantVisibleError":  # no chained exception holds a line or an ID
            assert err.__context__ is None and err.__cause__ is None
        return {"kind": type(err).__name__, "message": str(err),
                "problems": [list(p) for p in getattr(err, "problems", [])]}


def _outcomes(implementation: str, cases: dict[str, tuple[pd.DataFrame, pd.DataFrame]], exported: Path,
              tmp_path: Path) -> dict[str, dict]:
    """name → {"kind": "score", "value"} or {"kind": exception class name, "message", "problems"}."""
    if implementation != "exported":
        return {name: _in_package(standalone_metric, solution, submission) for name, (solution, submission) in cases.items()}
    specs = []
    for k, (name, (solution, submission)) in enumerate(cases.items()):
        solution.to_csv(tmp_path / f"solution{k}.csv", index=False)
        submission.to_csv(tmp_path / f"submission{k}.csv", index=False)
        specs.append({"name": name, "solution": str(tmp_path / f"solution{k}.csv"),
                      "submission": str(tmp_path / f"submission{k}.csv")})
    (tmp_path / "cases.json").write_text(json.dumps(specs))
    done = subprocess.run([sys.executable, "-I", "-c", _DRIVER, str(exported), str(tmp_path / "cases.json")],
                          capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _subsets(solution: pd.DataFrame, submission: pd.DataFrame, prefix: str) -> dict:
    """The two calls Kaggle makes: each Usage's solution rows and the submission rows of the same IDs."""
    cases = {}
    for usage in ("Public", "Private"):
        part = solution[solution.Usage == usage]
        cases[f"{prefix}/{usage}"] = (part, submission[submission.ID.isin(part.ID)])
    return cases


def _expected(*codes: str) -> str:
    """The message by hand: each code with its meaning (docs/codes.md) in the table's order, then the advice."""
    return "invalid submission: " + " | ".join(f"{c} ({MEANING[c].rstrip('.')})" for c in codes) + f"; {LOCAL_CHECK}"


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_the_message_is_the_same_on_both_subsets_and_names_no_line_id_or_count(implementation, exported,
                                                                               demo_solution, tmp_path):
    """A file wrong on every tile row: the old message numbered lines within the subset and listed its IDs
    (`invalid submission (10 error(s)): line 2 tile:xla:… NON_INTEGER …`, a count of the public tile graphs).
    Now both calls show one text, made of the codes alone."""
    solution = solution_frame(demo_solution)
    order = {i: r.count(";") + 1 for i, r in zip(solution.ID, solution.runtimes)}
    every_tile_wrong = pd.DataFrame({"ID": solution.ID, "TopConfigs": [
        "abc" if i.startswith("tile:") else ";".join(map(str, range(c))) for i, c in order.items()]})
    mixed = every_tile_wrong.copy()
    mixed.loc[~mixed.ID.str.startswith("tile:"), "TopConfigs"] = "0;0"  # layout: DUPLICATE_INDEX, not all listed
    cases = {**_subsets(solution, every_tile_wrong, "tile"), **_subsets(solution, mixed, "mixed")}
    got = _outcomes(implementation, cases, exported, tmp_path)
    assert got["tile/Public"]["message"] == got["tile/Private"]["message"] == _expected("NON_INTEGER", "NO_USABLE_CONFIGS")
    assert got["mixed/Public"]["message"] == got["mixed/Private"]["message"] == _expected(
        "NON_INTEGER", "DUPLICATE_INDEX", "LAYOUT_NOT_PERMUTATION", "NO_USABLE_CONFIGS")
    for outcome in got.values():
        assert outcome["kind"] == "ParticipantVisibleError"
        message = outcome["message"]
        assert not re.search(r"\bline [0-9]|error\(s\)|[0-9]+ more", message), message
        assert not any(graph_id.rpartition(":")[2] in message for graph_id in solution.ID)
        # what the exception holds is the codes and meanings only
        assert all(line is None and graph_id is None for line, graph_id, _, _ in outcome["problems"])


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_never_nan_and_a_non_positive_runtime_is_the_organisers_error(implementation, exported, tmp_path):
    """Hand-made solutions: a layout graph of constant runtimes defines no value (the old `score` returned NaN);
    a runtime of 0 or below is refused naming the code, never a value (the old exported file scored it: a
    negative runtime made config 1 the best by far)."""
    layout = "layout:xla:default:h"
    valid = pd.DataFrame({"ID": ["tile:xla:g", layout], "TopConfigs": ["0;2;1", "0;2;1;3"]})

    def solution(tile_runtimes: str, layout_runtimes: str = "5;7;6;9") -> pd.DataFrame:
        return pd.DataFrame({"ID": ["tile:xla:g", layout], "runtimes": [tile_runtimes, layout_runtimes],
                             "normalizers": ["1;1;1", ""]})

    cases = {"constant": (solution("30;10;20", "5;5;5;5").iloc[1:], valid.iloc[1:]),
             "negative": (solution("3000;-1000;2000"), valid),
             "zero": (solution("3000;0;2000"), valid),
             "layout zero": (solution("3000;1000;2000", "5000;0;6000;9000"), valid),
             "too long": (solution("3000;99999999999999999999;2000"), valid),
             "fine": (solution("30;10;20"), valid)}
    got = _outcomes(implementation, cases, exported, tmp_path)
    assert got["fine"] == {"kind": "score", "value": 1.0}  # tile: best config listed; layout: tau-b 1 (by hand)
    assert got["constant"]["kind"] == "ValueError" and "no collection value" in got["constant"]["message"]
    for name in ("negative", "zero", "layout zero"):
        assert got[name]["kind"] == "ValueError", got[name]
        assert "RUNTIME_NOT_POSITIVE" in got[name]["message"]
        assert not re.search(r"-?1000|3000|2000|5000|6000|9000", got[name]["message"]), got[name]["message"]
    assert got["too long"]["kind"] == "ValueError" and "integers" in got["too long"]["message"]


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_a_ten_megabyte_id_is_cut(implementation, exported, tmp_path):
    """An unknown ID of 10^7 characters: the old message echoed it whole (10 MB)."""
    solution = pd.DataFrame({"ID": ["tile:xla:g"], "runtimes": ["30;10;20"], "normalizers": ["1;1;1"]})
    huge = "tile:xla:" + "x" * 10_000_000
    submission = pd.DataFrame({"ID": ["tile:xla:g", huge], "TopConfigs": ["0;1;2", "0;1;2"]})
    renamed = submission.rename(columns={"TopConfigs": "y" * 10_000_000})
    got = _outcomes(implementation, {"id": (solution, submission), "column": (solution, renamed)}, exported,
                    tmp_path)
    assert got["id"]["message"] == _expected("UNKNOWN_ID")
    assert got["column"]["kind"] == "ParticipantVisibleError" and len(got["column"]["message"]) < 1000
    assert "HEADER_RENAMED" in got["column"]["message"] and "exactly the columns" in got["column"]["message"]


def test_the_whole_file_check_cuts_ids_in_its_problems():
    """`collection_scores` (the Codabench program's call, over the whole file: lines and IDs are shown there)
    lists the problems with each ID cut to at most 200 characters and its length."""
    solution = pd.DataFrame({"ID": ["tile:xla:g"], "runtimes": ["30;10;20"], "normalizers": ["1;1;1"]})
    huge = "tile:xla:" + "x" * 10_000_000
    submission = pd.DataFrame({"ID": ["tile:xla:g", huge], "TopConfigs": ["0;1;2", "0;1;2"]})
    with pytest.raises(standalone_metric.ParticipantVisibleError) as err:
        standalone_metric.collection_scores(solution, submission, "ID")
    (line, graph_id, code, _), = err.value.problems
    assert (line, code) == (3, "UNKNOWN_ID")
    assert graph_id == huge[:100] + "…(10000009 characters)" and len(str(err.value)) < 1000


def test_export_writes_the_solution_table_to_upload(demo_solution, tmp_path, capsys):
    """`export kaggle-metric --solution S --solution-csv T`: T is `solution_frame(S)` as CSV (one row per graph,
    Usage Public/Private), read back as Kaggle reads it; either option alone is a usage error (exit 2)."""
    table = tmp_path / "solution.csv"
    assert cli.main(["export", "kaggle-metric", "-o", str(tmp_path / "metric.py"), "--solution", str(demo_solution),
                     "--solution-csv", str(table)]) == 0
    read = pd.read_csv(table, dtype=str, keep_default_na=False)
    pd.testing.assert_frame_equal(read, solution_frame(demo_solution).astype(str))
    assert list(read.columns) == ["ID", "runtimes", "normalizers", "Usage"] and set(read.Usage) == {"Public", "Private"}
    capsys.readouterr()
    assert cli.main(["export", "kaggle-metric", "-o", str(tmp_path / "m2.py"), "--solution-csv", str(table)]) == 2
    assert "go together" in capsys.readouterr().err and not (tmp_path / "m2.py").exists()


def test_a_solution_table_that_cannot_be_written_leaves_no_metric_file(demo_solution, tmp_path, capsys):
    """The table is written first: when it fails (here its folder is a file), exit 2 and no metric file either."""
    (tmp_path / "a-file").write_text("x")
    assert cli.main(["export", "kaggle-metric", "-o", str(tmp_path / "metric.py"), "--solution", str(demo_solution),
                     "--solution-csv", str(tmp_path / "a-file" / "solution.csv")]) == 2
    assert "[OUTPUT_" in capsys.readouterr().err and not (tmp_path / "metric.py").exists()
