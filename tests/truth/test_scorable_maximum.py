"""The scorable maximum (docs/metrics.md, limits): the ground-truth reader and the TopConfigs field limit agree.

Before, a runtimes member could hold 8M configurations (64 MiB) while a TopConfigs field could hold a full
ranking of about 1.19M only (8 MiB): a graph between the two was read and could never be ranked validly. Now
a graph of more than MAX_CONFIGS_PER_GRAPH (1,048,576) configurations is refused when read, and the full
ranking of one that size passes the field limit. Expected values: character counts computed here by Python's
str.join; tau-b of the identity ranking is 1 (distinct runtimes, worked by hand).
"""

from __future__ import annotations

import numpy as np
import pytest

from tpugraphs_eval import DataError, load_ground_truth, resolve_data_root, score_submission
from tpugraphs_eval.dataset import MAX_CONFIGS_PER_GRAPH
from tpugraphs_eval.submission.validation import MAX_FIELD_BYTES
from tpugraphs_eval.truth.npzread import MAX_MEMBER_BYTES


def full_ranking(c: int) -> str:
    return ";".join(map(str, range(c)))


def test_the_limits_agree():
    assert MAX_CONFIGS_PER_GRAPH == 1_048_576
    assert len(full_ranking(MAX_CONFIGS_PER_GRAPH)) == 7_277_497 <= MAX_FIELD_BYTES == 8 << 20
    assert 8 * MAX_CONFIGS_PER_GRAPH < MAX_MEMBER_BYTES < 8 * (MAX_CONFIGS_PER_GRAPH + 1) + 4096 + 1
    longest_field_ranking = 1_187_464  # the largest c whose full ranking fits 8 MiB (the old reader allowed 8M)
    assert len(full_ranking(longest_field_ranking)) <= MAX_FIELD_BYTES < len(full_ranking(longest_field_ranking + 1))


def _root(tmp_path, runtimes: np.ndarray):
    folder = tmp_path / "npz" / "layout" / "xla" / "default" / "valid"
    folder.mkdir(parents=True)
    np.savez(folder / "big.npz", config_runtime=runtimes)
    return resolve_data_root(tmp_path)


@pytest.mark.parametrize("dtype", ["<i8", "<i4"])
def test_a_graph_beyond_the_scorable_maximum_is_refused_coded(tmp_path, dtype):
    # 1,048,577 runtimes are 8 MiB + 8 bytes (int64) or 4 MiB (int32): under the byte limit, refused by their count
    root = _root(tmp_path, np.arange(1, MAX_CONFIGS_PER_GRAPH + 2, dtype=dtype))
    with pytest.raises(DataError) as err:
        load_ground_truth(root, "valid")
    message = str(err.value)
    assert "[NPZ_MEMBER_TOO_LARGE]" in message and "big.npz" in message
    assert "config_runtime holds 1,048,577 configurations, more than the scorable maximum of 1,048,576" in message

def test_a_graph_at_the_scorable_maximum_is_read_and_its_full_ranking_scored(tmp_path):
    root = _root(tmp_path, np.arange(1, MAX_CONFIGS_PER_GRAPH + 1, dtype="<i8"))
    truth = load_ground_truth(root, "valid")
    submission = tmp_path / "s.csv"
    submission.write_text(f"ID,TopConfigs\nlayout:xla:default:big,{full_ranking(MAX_CONFIGS_PER_GRAPH)}\n")
    report = score_submission(submission, truth)
    assert report.valid and report.collections["layout:xla:default"].value == pytest.approx(1.0, abs=1e-12)  # tau-b 1 (scipy's formula gives 1 - 1 ulp here)
