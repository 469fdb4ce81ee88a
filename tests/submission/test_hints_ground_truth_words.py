"""Hints and notes name the ground truth as what it is: a data root, or a solution file; the partial-copy
hint (a data root holding fewer graphs than the real dataset) is never given for the synthetic demo, which
is small by design (a fresh user read "is it a partial copy?" on the demo)."""

from __future__ import annotations

from tpugraphs_eval import Evaluator, evaluate
from tpugraphs_eval.dataset import REAL_GRAPH_COUNTS
from tpugraphs_eval.roots import resolve_data_root
from tpugraphs_eval.truth.solution import build_solution

UNKNOWN = b"ID,TopConfigs\ntile:xla:0123456789abcdef,0;1;2;3;4\n"


def _hint(report) -> str:
    (problem,) = [p for p in report.problems if p.code == "UNKNOWN_ID"]
    return problem.message


def test_the_demo_is_not_called_a_partial_copy():
    message = _hint(evaluate(UNKNOWN, split="test", data_root="demo"))
    assert message == "`tile:xla:0123456789abcdef` is not a graph of tile:xla in the test split."


def test_a_solution_built_from_the_demo_is_not_called_a_partial_copy(tmp_path):
    build_solution(resolve_data_root("demo"), "test", tmp_path / "sol.parquet", progress=False)
    report = Evaluator.load(split="test", solution=tmp_path / "sol.parquet").evaluate(UNKNOWN)
    assert _hint(report) == "`tile:xla:0123456789abcdef` is not a graph of tile:xla in the test split."


def test_a_partial_real_data_root_and_a_solution_built_from_it(realdata, tmp_path):
    """The real-data sample holds one tile valid graph of the real 676 (dataset.REAL_GRAPH_COUNTS) and no nlp
    valid graphs: the hint asks about a partial copy, naming a data root or a solution."""
    root = realdata / "tpugraphs"
    real = REAL_GRAPH_COUNTS["tile:xla"]["valid"]
    report = evaluate(UNKNOWN, split="valid", data_root=root, validate_only=True)
    assert _hint(report).endswith(f" This data root holds 1 of the {real} tile:xla valid graphs of the real "
                                  "dataset: is it a partial copy?")
    build_solution(resolve_data_root(root), "valid", tmp_path / "sol.parquet", progress=False)
    nlp = b"layout:nlp:default:0123456789abcdef,0;1\n"
    report = Evaluator.load(split="valid", solution=tmp_path / "sol.parquet").evaluate(UNKNOWN + nlp)
    assert _hint(report).endswith(f" This solution holds 1 of the {real} tile:xla valid graphs of the real "
                                  "dataset: was it built from a partial copy?")
    (absent,) = [p for p in report.problems if p.code == "COLLECTION_ABSENT"]
    assert absent.message.endswith("the solution has no layout:nlp:default valid graphs.")
