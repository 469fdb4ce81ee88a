"""Tile rows of up to 10 indices; the top-K error of a row shorter than min(K, c) is undefined (SPEC §2, §3.1).

Expected values are worked by hand in the comments from the runtimes below (normalizers 1, so y is the
runtime): score = 2 - min(first 5) / min(all); top-K error = min(first K) / min(all) - 1.
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from rich.console import Console

from tpugraphs_eval import Options, load_ground_truth, resolve_data_root, score_submission
from tpugraphs_eval.report.terminal import render

pytestmark = pytest.mark.usefixtures("kernel")  # every test with each kernel (conftest.py)

RUNTIMES = {
    # c = 12; best 5 (config 9); config 4 has 10
    "twelve": [50, 40, 30, 20, 10, 60, 70, 80, 90, 5, 100, 110],
    # c = 3: min(10, c) = 3, so a full row of 3 has a top-10 error
    "three": [30, 10, 20],
    # c = 12 again, best 2 (config 11)
    "other": [12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 13, 2],
}


@pytest.fixture
def truth(tmp_path):
    folder = tmp_path / "npz/tile/xla/valid"
    folder.mkdir(parents=True)
    for name, y in RUNTIMES.items():
        np.savez(folder / f"{name}.npz", config_runtime=np.array(y, dtype=np.int64),
                 config_runtime_normalizers=np.ones(len(y), dtype=np.int64))
    return load_ground_truth(resolve_data_root(tmp_path), "valid")


def submission(rows: dict[str, list[int]]) -> bytes:
    return ("ID,TopConfigs\n" + "".join(f"tile:xla:{g},{';'.join(map(str, r))}\n" for g, r in rows.items())).encode()


ROWS = {
    "twelve": [0, 1, 2, 3, 5, 6, 7, 8, 9, 4],  # 10 indices
    "three": [2, 0, 1],  # all 3
    "other": [0, 1, 2, 3, 4],  # 5 of 12: no top-10 error
}


def test_ten_indices_are_strict_and_scored_from_their_first_five_and_ten(truth):
    report = score_submission(submission(ROWS), truth)
    assert report.valid and report.problems == []
    graphs = report.graph_metrics()
    twelve = graphs["tile:xla:twelve"]
    # first 5 = configs 0,1,2,3,5: runtimes 50,40,30,20,60 -> min 20; best 5: score 2 - 4 = -2, top-5 error 3
    assert twelve["score"] == -2.0 and twelve["top5_error"] == 3.0
    assert twelve["top1_error"] == 9.0  # config 0 alone: 50 / 5 - 1
    assert twelve["top10_error"] == 0.0  # config 9 (the best) is 9th of the 10
    # three: first = config 2 (20), best 10: top-1 error 1; all 3 listed: score 1, top-5 and top-10 error 0
    three = graphs["tile:xla:three"]
    assert three.pop("search_curve")["curve"] == [2.0, 2.0] + [1.0] * 8  # best of the first 1, 2: 20; the best (10) is third
    assert three == {"score": 1.0, "top1_error": 1.0, "top5_error": 0.0, "top10_error": 0.0, "n_configs_scored": 3}
    # other: 5 of 12 listed, min of first 5 = 8 (config 4), best 2: score 2 - 4 = -2, top-5 error 3;
    # top-10 error undefined: the row lists 5 < min(10, 12) indices (not the top-5 value 3)
    assert graphs["tile:xla:other"]["top10_error"] is None
    assert graphs["tile:xla:other"]["top5_error"] == 3.0 and graphs["tile:xla:other"]["score"] == -2.0


def test_the_mean_says_over_how_many_graphs(truth):
    report = score_submission(submission(ROWS), truth)
    details = report.to_dict()["collection_details"]["tile:xla"]
    assert details["means_over"] == {"score": 3, "top1_error": 3, "top5_error": 3, "top10_error": 2}
    # top-10 mean over twelve and three only: (0 + 0) / 2; top-5 mean over all three: (3 + 0 + 3) / 3
    assert details["means"]["top10_error"] == 0.0 and details["means"]["top5_error"] == 2.0
    # top-1: (9 + 1 + 12 / 2 - 1) / 3 = 15 / 3
    assert details["means"]["top1_error"] == 5.0
    console = Console(file=io.StringIO(), width=120, color_system=None)
    render(report, console)
    text = console.file.getvalue()
    assert "0.000[2]" in text and "err@10 over 2 of 3 graphs" in text


def test_per_program_means_skip_undefined_graphs(truth):
    """One program per graph name here: the undefined top-10 error is None, not NaN, in the JSON."""
    programs = score_submission(submission(ROWS), truth).to_dict()["collection_details"]["tile:xla"]["programs"]
    assert programs["other"]["top10_error"] is None and programs["twelve"]["top10_error"] == 0.0


def test_more_than_ten_is_too_many_and_lenient_uses_the_first_ten(truth):
    rows = dict(ROWS, other=[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11])  # 11 indices; config 11 (the best) is 11th
    strict = score_submission(submission(rows), truth)
    assert [(p.code, p.line) for p in strict.problems] == [("TILE_TOO_MANY", 4)] and not strict.valid
    assert "11 entries" in strict.problems[0].message
    lenient = score_submission(submission(rows), truth, Options(mode="lenient"))
    assert lenient.valid
    other = lenient.graph_metrics()["tile:xla:other"]
    # first 10 = configs 0..9, min 3 (config 9), best 2: top-10 error 3/2 - 1 = 0.5 (config 11 not reached)
    assert other["top10_error"] == 0.5 and other["score"] == 2 - 8 / 2


def test_a_short_lenient_row_has_no_top5_error_either(truth):
    """Lenient reads a row of 3 of 12 configs (TILE_TOO_FEW): the score uses what is there (Kaggle did), the
    top-5 and top-10 errors are undefined (fewer than min(K, c) entries)."""
    rows = dict(ROWS, other=[9, 11, 0])
    report = score_submission(submission(rows), truth, Options(mode="lenient"))
    assert [p.code for p in report.problems] == ["TILE_TOO_FEW"]
    other = report.graph_metrics()["tile:xla:other"]
    assert other["score"] == 1.0 and other["top1_error"] == 0.5  # config 9: 3 / 2 - 1
    assert other["top5_error"] is None and other["top10_error"] is None
