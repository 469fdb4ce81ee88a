"""One hint, not a cascade, from all three consumers of the rules (issue 13 item 2): the CLI, the Codabench scoring
program (the bundle's score.py) and the exported Kaggle metric (fed the file as Kaggle's pandas reader reads it).

On the tiny data root (tile graphs of 3 and 25 configurations, a layout graph of 6). Before the rules were shared,
Excel's ``sep=";"`` with QUOTE_ALL gave MALFORMED_QUOTES on every line and MISSING_IDS; a ``;`` file with an index
column HEADER_RENAMED and MALFORMED_QUOTES on every row; indices joined by commas inside a quoted field NON_INTEGER
on every row; 1-based indices INDEX_OUT_OF_RANGE and LAYOUT_NOT_PERMUTATION per row, with the advice to use
``--lenient`` (which then scored the shifted indices).
"""

from __future__ import annotations

import csv
import io
import types

import pandas as pd
import pytest
from badinput import A, B, L, run_cli
from codabench_batch import PROBLEM, run_private_cases

from tpugraphs_eval import validate_submission
from tpugraphs_eval.hosting.metric_file import metric_source
from tpugraphs_eval.submission.problems import Severity


def written(rows: list[tuple[str, str]], **to_csv) -> bytes:
    buffer = io.BytesIO()
    pd.DataFrame(rows, columns=["ID", "TopConfigs"]).to_csv(buffer, **to_csv)
    return buffer.getvalue()


ZERO_BASED = [(A, "0;1;2"), (B, "0;1;2;3;4"), (L, "0;1;2;3;4;5")]
ONE_BASED = [(A, "1;2;3"), (B, "1;2;3;4;5"), (L, "1;2;3;4;5;6")]
CASES = {  # name → (file, the CLI's errors (code, line) in both modes)
    "semicolon-quote-all": (written(ZERO_BASED, sep=";", quoting=csv.QUOTE_ALL, index=False),
                            [("WRONG_DELIMITER", 1)]),
    "semicolon-index-column": (written(ZERO_BASED, sep=";"), [("WRONG_DELIMITER", 1), ("INDEX_COLUMN", 1)]),
    "semicolon-index-column-quote-all": (written(ZERO_BASED, sep=";", quoting=csv.QUOTE_ALL),
                                         [("WRONG_DELIMITER", 1), ("INDEX_COLUMN", 1)]),
    "tab-quote-all": (written(ZERO_BASED, sep="\t", quoting=csv.QUOTE_ALL, index=False), [("WRONG_DELIMITER", 1)]),
    "commas-in-quoted-field": (written([(i, c.replace(";", ",")) for i, c in ZERO_BASED], index=False),
                               [("INDICES_COMMA_SEPARATED", 2)]),
    "one-based": (written(ONE_BASED, index=False), [("INDICES_ONE_BASED", 2)]),
    # the header alone written with `;` (rows with commas): before, one UNKNOWN_ID per row (`A,0` is no graph)
    "semicolon-header-comma-rows": (b"ID;TopConfigs\n" + written(ZERO_BASED, index=False).split(b"\n", 1)[1],
                                    [("WRONG_DELIMITER", 1)]),
}
METRIC_CODES = {"semicolon-quote-all": ["WRONG_DELIMITER"], "semicolon-index-column": ["WRONG_DELIMITER"],
                "semicolon-index-column-quote-all": ["WRONG_DELIMITER"], "tab-quote-all": ["WRONG_DELIMITER"],
                "commas-in-quoted-field": ["INDICES_COMMA_SEPARATED"], "one-based": ["INDICES_ONE_BASED"],
                "semicolon-header-comma-rows": ["WRONG_DELIMITER"]}
"""The metric gets the table pandas reads (one column ``ID;TopConfigs`` for a ``;`` file): one problem as well."""
MODES = ("strict", "lenient")


def cli_errors(data: bytes, catalog, mode: str) -> list[tuple[str, int | None]]:
    validation = validate_submission(data, catalog, mode=mode)
    return [(p.code, p.line) for p in validation.problems if p.severity == Severity.ERROR]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", list(CASES))
def test_the_cli_gives_one_hint(name, mode, catalog):
    data, expected = CASES[name]
    assert cli_errors(data, catalog, mode) == expected


def test_the_cli_says_indices_are_0_based_and_does_not_advise_lenient(tmp_path, tiny_root, capsys):
    path = tmp_path / "one_based.csv"
    path.write_bytes(CASES["one-based"][0])
    for extra in ([], ["--lenient"]):
        code, text = run_cli(capsys, "validate", path, "--split", "test", "--data-root", tiny_root, *extra)
        assert code == 1 and "INDICES_ONE_BASED" in text and "0-based" in text, text
        assert "--lenient" not in text and "INDEX_OUT_OF_RANGE" not in text, text


def test_a_row_listing_c_in_a_0_based_file_keeps_its_own_problems(catalog):
    data = written([(A, "0;1;3"), (B, "0;1;2;3;25"), (L, "0;1;2;3;4;5")], index=False)
    assert cli_errors(data, catalog, "strict") == [("INDEX_OUT_OF_RANGE", 2), ("TILE_TOO_FEW", 2),
                                                   ("INDEX_OUT_OF_RANGE", 3), ("TILE_TOO_FEW", 3)]
    assert cli_errors(data, catalog, "lenient") == []  # configuration 0 is listed: the rows are 0-based
    one_row = written([(A, "1;2;3"), (B, "0;1;2;3;4"), (L, "0;1;2;3;4;5")], index=False)  # one row alone is a slip
    assert cli_errors(one_row, catalog, "strict") == [("INDEX_OUT_OF_RANGE", 2), ("TILE_TOO_FEW", 2)]




@pytest.fixture(scope="module")
def program_errors(tiny_bundle, tmp_path_factory) -> dict[str, tuple[int, list[tuple[str, int | None]]]]:
    """Every case in both modes scored by the bundle's score.py (Private task), in one subprocess:
    ``mode:name`` → (exit status, the listed errors as (code, line))."""
    results = run_private_cases(tiny_bundle, tmp_path_factory.mktemp("one_hint"),
                                {f"{mode}:{name}": (mode, data) for mode in MODES for name, (data, _) in CASES.items()})
    found = {}
    for key, (code, _, stderr, _) in results.items():
        matches = [PROBLEM.match(line) for line in stderr.splitlines()[1:]]
        assert all(matches), stderr
        found[key] = code, [(m[2], int(m[1]) if m[1] else None) for m in matches]
    return found


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", list(CASES))
def test_the_codabench_program_gives_the_same_one_hint(name, mode, program_errors):
    assert program_errors[f"{mode}:{name}"] == (1, CASES[name][1])


@pytest.fixture(scope="module")
def metric() -> types.ModuleType:
    """The exported Kaggle metric file, run from its text."""
    module = types.ModuleType("exported_metric")
    exec(compile(metric_source(), "metric.py", "exec"), module.__dict__)
    return module


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", list(CASES))
def test_the_kaggle_metric_gives_one_hint(name, mode, metric, tiny_bundle):
    solution = pd.read_csv(tiny_bundle / "reference_data_private/solution.csv", dtype=str, keep_default_na=False)
    submission = pd.read_csv(io.BytesIO(CASES[name][0]), dtype=str, keep_default_na=False)  # as Kaggle reads it
    with pytest.raises(metric.ParticipantVisibleError) as raised:
        metric.collection_scores(solution.drop(columns="Usage"), submission, "ID", mode=mode)
    assert [p[2] for p in raised.value.problems] == METRIC_CODES[name]
    assert "0-based" in str(raised.value) if name == "one-based" else True
