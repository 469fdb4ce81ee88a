"""Tests every metric of the metric table gets (scikit-learn's ``sklearn/metrics/tests/test_common.py`` pattern):
driven by :data:`tpugraphs_eval.rules.metric_table.METRICS`, so a metric added to the table is tested here
without a new test.

- row order: shuffling the submission's rows changes no per-graph value (to the bit);
- config relabelling: renaming the configurations (y permuted, the ranking mapped through the same
  permutation) changes no per-graph value;
- ties: swapping two configurations with equal runtimes in a ranking changes no per-graph value;
- bounds: random rankings stay in the table's [low, high]; the oracle ranking (configs sorted by runtime)
  reaches the table's best value on graphs without tied runtimes.

Every graph lists min(10, c) tile indices (so each top-K error is defined) or the whole layout permutation.
"""

from __future__ import annotations

import numpy as np
import pytest
from csv_rows import csv_bytes, write_root

from tpugraphs_eval import load_ground_truth, resolve_data_root, score_submission
from tpugraphs_eval.rules.metric_table import BY_NAME, METRICS, metrics_of

RNG_SEED = 7
N_GRAPHS = 6
"""Graphs per kind: half with distinct runtimes, half with many tied ones."""


def _runtimes(rng: np.random.Generator, kind: str, g: int) -> np.ndarray:
    n = int(rng.integers(12, 40)) if kind == "tile" else int(rng.integers(20, 150))
    if g % 2 == 0:
        return rng.permutation(np.arange(1, n + 1) * 7 + 100)  # distinct
    return rng.integers(1, 6, size=n) * 1000  # few distinct values: many ties


def _graphs(seed: int = RNG_SEED) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    graphs = {}
    for g in range(N_GRAPHS):
        graphs[f"tile:xla:t{g}"] = _runtimes(rng, "tile", g)
        graphs[f"layout:xla:default:l{g}"] = _runtimes(rng, "layout", g)
    return graphs


GRAPHS = _graphs()


def _kind(graph_id: str) -> str:
    return graph_id.split(":", 1)[0]


def _listed(graph_id: str, order: np.ndarray) -> list[int]:
    return (order[:10] if _kind(graph_id) == "tile" else order).tolist()


def _rows(graphs: dict[str, np.ndarray], how: str, seed: int = 0) -> dict[str, list[int]]:
    rng = np.random.default_rng(seed)
    rows = {}
    for graph_id, y in graphs.items():
        order = np.argsort(y, kind="stable") if how == "oracle" else rng.permutation(y.size)
        rows[graph_id] = _listed(graph_id, order)
    return rows


@pytest.fixture(scope="module")
def truth(tmp_path_factory):
    return load_ground_truth(resolve_data_root(write_root(tmp_path_factory.mktemp("common"), GRAPHS)), "valid")


def _values(rows, truth) -> dict[str, dict[str, float | None]]:
    report = score_submission(csv_bytes(rows), truth)
    assert report.valid and not report.problems
    return report.graph_metrics()


def _column(values: dict[str, dict[str, float | None]], metric: str) -> dict[str, float | None]:
    kind = BY_NAME[metric].kind
    return {graph_id: v[metric] for graph_id, v in values.items() if _kind(graph_id) == kind}


@pytest.mark.parametrize("kind", ["tile", "layout"])
def test_scoring_computes_exactly_the_table_metrics_in_table_order(truth, kind):
    report = score_submission(csv_bytes(_rows(GRAPHS, "random")), truth)
    for result in report.collections.values():
        if result.collection.kind == kind:
            assert list(result.per_graph) == [m.name for m in metrics_of(kind)]
            assert result.metric == next(m.name for m in metrics_of(kind) if m.primary)


@pytest.mark.parametrize("metric", [m.name for m in METRICS])
def test_row_order_changes_no_value(truth, metric):
    rows = list(_rows(GRAPHS, "random", seed=1).items())
    shuffled = [rows[i] for i in np.random.default_rng(2).permutation(len(rows))]
    first, second = _column(_values(rows, truth), metric), _column(_values(shuffled, truth), metric)
    assert first == second
    assert sum(v is not None for v in first.values()) == N_GRAPHS  # defined on every graph of its kind


@pytest.mark.parametrize("metric", [m.name for m in METRICS])
def test_relabelling_configs_changes_no_value(tmp_path, truth, metric):
    rng = np.random.default_rng(3)
    perms = {graph_id: rng.permutation(y.size) for graph_id, y in GRAPHS.items()}
    # new config j is old config perms[j]: y'[j] = y[perm[j]]; old index i is new index inverse[i]
    relabelled = {graph_id: y[perms[graph_id]] for graph_id, y in GRAPHS.items()}
    rows = _rows(GRAPHS, "random", seed=4)
    mapped = {graph_id: np.argsort(perms[graph_id])[np.array(r)].tolist() for graph_id, r in rows.items()}
    other = load_ground_truth(resolve_data_root(write_root(tmp_path, relabelled)), "valid")
    before, after = _column(_values(rows, truth), metric), _column(_values(mapped, other), metric)
    assert before.keys() == after.keys()
    for graph_id in before:
        assert after[graph_id] == pytest.approx(before[graph_id], abs=1e-12), graph_id


@pytest.mark.parametrize("metric", [m.name for m in METRICS])
def test_swapping_tied_configs_changes_no_value(truth, metric):
    rows = _rows(GRAPHS, "random", seed=5)
    swapped, n_swaps = {}, 0
    for graph_id, row in rows.items():
        y, row = GRAPHS[graph_id], list(row)
        for a in range(len(row)):  # swap each listed config with a later-listed one of the same runtime
            for b in range(a + 1, len(row)):
                if y[row[a]] == y[row[b]] and row[a] != row[b]:
                    row[a], row[b] = row[b], row[a]
                    n_swaps += 1
                    break
        swapped[graph_id] = row
    assert n_swaps > 20  # the tied graphs give many swaps
    before, after = _column(_values(rows, truth), metric), _column(_values(swapped, truth), metric)
    for graph_id in before:
        assert after[graph_id] == pytest.approx(before[graph_id], abs=1e-12), graph_id


@pytest.mark.parametrize("metric", [m.name for m in METRICS])
def test_values_stay_in_the_table_bounds_and_the_oracle_reaches_the_best(truth, metric):
    spec = BY_NAME[metric]
    for seed in range(5):
        values = _column(_values(_rows(GRAPHS, "random", seed=seed), truth), metric)
        assert all(spec.low <= v <= spec.high for v in values.values()), values
    oracle = _column(_values(_rows(GRAPHS, "oracle"), truth), metric)
    for graph_id, value in oracle.items():
        distinct = np.unique(GRAPHS[graph_id]).size == GRAPHS[graph_id].size
        if distinct:
            assert value == pytest.approx(spec.best, abs=1e-12), graph_id
        else:
            assert spec.low <= value <= spec.high


def test_table_best_values_and_ks():
    """The table's facts the tests above rely on (Kaggle score and tau-b: 1 is perfect; errors and slowdowns: 0)."""
    expected = {"score": (1.0, 5), "top1_error": (0.0, 1), "top5_error": (0.0, 5), "top10_error": (0.0, 10),
                "kendall_tau": (1.0, None), "slowdown1": (0.0, 1), "slowdown10": (0.0, 10), "slowdown100": (0.0, 100)}
    assert {name: (BY_NAME[name].best, BY_NAME[name].k) for name in expected} == expected  # a new row adds, not breaks
    assert [m.name for m in METRICS if m.primary] == ["score", "kendall_tau"]
    assert [m.kind for m in METRICS] == sorted((m.kind for m in METRICS), key=["tile", "layout"].index)


def test_the_exported_kaggle_metric_uses_the_table_k():
    """The metric file runs without the package, with its own constant: it must be the table's tile score K."""
    from tpugraphs_eval.dataset import TILE_TOP_K
    from tpugraphs_eval.hosting import standalone_metric

    assert standalone_metric.TILE_TOP_K == TILE_TOP_K == BY_NAME["score"].k == 5
