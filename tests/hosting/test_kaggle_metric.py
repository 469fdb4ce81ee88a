"""The Kaggle-convention metric (tpugraphs_eval.hosting.kaggle_metric, the standalone one re-exported): same numbers as
the CLI, participant-safe errors."""

from __future__ import annotations

import doctest

import pandas as pd
import pytest
from csv_rows import csv_bytes, demo_rows

from tpugraphs_eval import score_submission
from tpugraphs_eval.hosting import standalone_metric
from tpugraphs_eval.hosting.kaggle_metric import ParticipantVisibleError, score, solution_frame
from tpugraphs_eval.truth.solution import load_solution


def test_docstring_examples():
    result = doctest.testmod(standalone_metric, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 4 and result.failed == 0


def test_same_numbers_as_the_cli_on_all_public_and_private_rows(demo_solution):
    truth = load_solution(demo_solution)
    rows = demo_rows(truth, "random", seed=8)
    report = score_submission(csv_bytes(rows), truth)
    solution = solution_frame(demo_solution)
    submission = pd.DataFrame({"ID": list(rows), "TopConfigs": [";".join(map(str, r)) for r in rows.values()]})
    assert score(solution.drop(columns="Usage"), submission, "ID") == report.overall
    for usage, board in (("Public", "public"), ("Private", "private")):  # as the platform filters them
        part = solution[solution.Usage == usage]
        mine = submission[submission.ID.isin(part.ID)]
        assert score(part, mine, "ID") == report.leaderboards[board].overall


def test_participant_mistakes_are_participant_visible_and_leak_no_runtime(demo_solution):
    solution = solution_frame(demo_solution)
    first = solution.iloc[:3]
    submission = pd.DataFrame({"ID": first.ID, "TopConfigs": ["0;0;1", "abc", ""]})
    with pytest.raises(ParticipantVisibleError) as err:
        score(first, submission, "ID")
    message = str(err.value)
    assert "DUPLICATE_INDEX" in message and "NON_INTEGER" in message and "EMPTY_CONFIGS" in message
    for runtimes in first.runtimes:
        for value in runtimes.split(";")[:20]:
            if len(value) > 3:
                assert value not in message
    with pytest.raises(ParticipantVisibleError, match="exactly the columns"):
        score(first, submission.rename(columns={"TopConfigs": "configs"}), "ID")


def test_lenient_mode_and_renamed_id_column(demo_solution):
    solution = solution_frame(demo_solution, row_id_column_name="row_id")
    tile = solution[solution.row_id.str.startswith("tile:")].iloc[:4]
    submission = pd.DataFrame({"row_id": tile.row_id, "TopConfigs": [";".join(map(str, range(11)))] * 4})  # > 10
    with pytest.raises(ParticipantVisibleError, match="TILE_TOO_MANY"):
        score(tile, submission, "row_id")
    assert 0 < score(tile, submission, "row_id", mode="lenient") <= 1


def test_a_malformed_solution_is_the_organisers_error(demo_solution):
    solution = solution_frame(demo_solution).iloc[:2]
    submission = pd.DataFrame({"ID": solution.ID, "TopConfigs": ["0", "0"]})
    with pytest.raises(ValueError, match="lacks the columns"):
        score(solution.drop(columns="runtimes"), submission, "ID")
    broken = solution.assign(runtimes=["1;x", "2"])
    with pytest.raises(ValueError, match="must be integers"):
        score(broken, submission, "ID")
