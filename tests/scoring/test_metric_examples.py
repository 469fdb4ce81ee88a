"""The five public metric functions: their docstrings' Examples run as doctests (scikit-learn's way; each value is
worked by hand in the docstring), and their arrays cannot be swapped by accident: the four whose two arrays are not
interchangeable take them by keyword only; Kendall's tau-b is symmetric. Before, ``tile_score(p, y)`` gave 1.0
and ``tile_score(y, p)`` 0.66 without a word."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

import tpugraphs_eval as te
from tpugraphs_eval.scoring import metrics

PUBLIC = ("kendall_tau_b", "ordered_pair_accuracy", "slowdown", "top_k_error", "tile_score")


@pytest.mark.parametrize("name", PUBLIC)
def test_each_public_metric_has_an_example_that_runs(name):
    function = getattr(te, name)
    tests = doctest.DocTestFinder().find(function, name, globs={})
    examples = sum(len(t.examples) for t in tests)
    assert examples >= 2, f"{name} has no doctested example"
    runner = doctest.DocTestRunner()
    for test in tests:
        runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


@pytest.mark.parametrize("name", ["ordered_pair_accuracy", "slowdown", "top_k_error", "tile_score"])
def test_the_arrays_are_keyword_only(name):
    predictions, runtimes = np.array([0.1, 0.3, 0.2]), np.array([30.0, 10.0, 20.0])
    kwargs = {} if name == "ordered_pair_accuracy" else {"k": 1}
    with pytest.raises(TypeError, match="positional"):
        getattr(metrics, name)(predictions, runtimes, **kwargs)


def test_the_issues_swapped_call_now_gives_one_value():
    """The issue's example: by keyword the two arrays name what they hold; the value is the hand-worked one."""
    p, y = np.array([0.1, 0.3, 0.2, 0.4, 0.5, 0.6]), np.array([3.0, 1.0, 2.0, 4.0, 5.0, 6.0])
    # the 5 predicted fastest: configs 0, 2, 1, 3, 4; config 1 (1.0) is the fastest of all: 2 - 1/1
    assert te.tile_score(predictions=p, runtimes=y) == te.tile_score(runtimes=y, predictions=p) == 1.0


def test_kendall_tau_b_is_symmetric():
    rng = np.random.default_rng(0)
    x, y = rng.integers(0, 5, 40).astype(float), rng.integers(0, 7, 40).astype(float)
    assert te.kendall_tau_b(x, y) == te.kendall_tau_b(y, x)


@pytest.mark.parametrize("name", PUBLIC)
def test_a_batch_of_graphs_is_refused_not_scored_as_one_graph(name):
    """A (2, 2) array is two graphs of two configs: a ValueError naming the shape, never the value of the four
    configs as one graph (tile_score gave 0.0, slowdown 3.0); so is a k that is not a whole number."""
    batch, runtimes = np.array([[0.1, 0.2], [0.2, 0.1]]), np.array([[10.0, 20.0], [40.0, 30.0]])
    args = (batch, runtimes) if name == "kendall_tau_b" else ()
    kwargs = {} if args else {"predictions": batch, "runtimes": runtimes} | ({} if name == "ordered_pair_accuracy"
                                                                             else {"k": 1})
    with pytest.raises(ValueError, match=r"1-D array of its configs, got shape \(2, 2\)"):
        getattr(te, name)(*args, **kwargs)
    if "k" in kwargs:
        with pytest.raises(ValueError, match="k must be a whole number"):
            getattr(te, name)(predictions=[0.1, 0.2], runtimes=[10.0, 20.0], k=1.5)
