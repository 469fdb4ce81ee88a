"""Random and oracle references and the normalised figure (tpugraphs_eval.scoring.references)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from csv_rows import csv_bytes, demo_rows, write_root

from tpugraphs_eval import Options, load_ground_truth, resolve_data_root, score_submission
from tpugraphs_eval.scoring.references import References, collection_references, expected_random_tile_scores


def test_expected_random_tile_score_by_hand_and_by_enumeration(tmp_path):
    graphs = {"tile:xla:a": [1, 2, 3, 4, 5, 6], "tile:xla:b": [3, 1, 2], "tile:xla:c": [5, 5, 1, 9, 2, 7, 7, 3]}
    truth = load_ground_truth(resolve_data_root(write_root(tmp_path, graphs)), "valid")
    got = dict(zip(truth.collections["tile:xla"].graphs.names, expected_random_tile_scores(truth.collections["tile:xla"])))
    # by hand, graph a: c=6, k=5; the 5-subset lacks config 0 with probability 1/6: E[min] = 1*5/6 + 2*1/6 = 7/6
    assert got["a"] == pytest.approx(2 - 7 / 6, abs=1e-15)
    assert got["b"] == 1.0  # c=3 < 5: every config is listed, the best always among them
    # by enumeration of every 5-subset (normalizers are constant, so raw values give the same ratios)
    y = np.array(graphs["tile:xla:c"], dtype=float)
    subsets = list(itertools.combinations(range(y.size), 5))
    assert got["c"] == pytest.approx(2 - np.mean([y[list(s)].min() for s in subsets]) / y.min(), abs=1e-14)


@pytest.mark.parametrize("block", [1, 3, 7, 8, 100])
def test_expected_random_tile_score_is_the_same_in_blocks_of_any_size(tmp_path, monkeypatch, block):
    """The graphs are taken a block of about ``BLOCK`` configs at a time (bounded memory); the values are the
    enumeration's whatever the block, a block boundary inside a graph (block 3, 7) included."""
    from tpugraphs_eval.scoring import references

    graphs = {"tile:xla:a": [4, 2, 9, 1, 7, 3, 8], "tile:xla:b": [3, 1, 2], "tile:xla:c": [5, 5, 1, 9, 2, 7, 7, 3]}
    truth = load_ground_truth(resolve_data_root(write_root(tmp_path, graphs)), "valid").collections["tile:xla"]
    monkeypatch.setattr(references, "BLOCK", block)
    got = expected_random_tile_scores(truth)
    for value, runtimes in zip(got, graphs.values(), strict=True):  # enumeration of every min(5, c)-subset
        y = np.array(runtimes, dtype=float)
        subsets = list(itertools.combinations(range(y.size), min(5, y.size)))
        assert value == pytest.approx(2 - np.mean([y[list(s)].min() for s in subsets]) / y.min(), abs=1e-14)


def test_random_submissions_average_to_the_expected_tile_score(demo_root):
    """Monte Carlo on the demo test split: 250 seeded random submissions, mean within 4 standard errors."""
    truth = load_ground_truth(demo_root, "test")
    expected = collection_references(truth)["tile:xla"].random
    scores = [score_submission(csv_bytes(demo_rows(truth, "random", seed)), truth) for seed in range(250)]
    values = np.array([s.collections["tile:xla"].value for s in scores])
    assert abs(values.mean() - expected) < 4 * values.std(ddof=1) / math.sqrt(values.size)


def test_oracle_reference_is_the_oracle_submissions_score(demo_root):
    truth = load_ground_truth(demo_root, "valid")  # valid has tied runtimes: oracle tau < 1 somewhere
    report = score_submission(csv_bytes(demo_rows(truth, "oracle")), truth)
    for name, result in report.collections.items():
        assert report.references[name].oracle == pytest.approx(result.value, abs=1e-12)
        assert report.normalised()[name] == pytest.approx(1.0, abs=1e-12)
    assert min(r.oracle for r in report.references.values()) < 1.0
    official = score_submission(csv_bytes(demo_rows(truth, "oracle")), truth, Options(configs="official"))
    for name, result in official.collections.items():
        assert official.references[name].oracle == pytest.approx(result.value, abs=1e-12)
    data = report.to_dict()
    assert data["normalised"] == {name: pytest.approx(1.0, abs=1e-12) for name in report.collections}
    assert data["collection_details"]["tile:xla"]["random"] == report.references["tile:xla"].random


def test_normalise_by_hand():
    ref = References(random=0.5, oracle=1.0)
    assert ref.normalise(0.75) == 0.5
    assert ref.normalise(0.5) == 0.0
    assert ref.normalise(None) is None
    assert References(random=1.0, oracle=1.0).normalise(1.0) is None
