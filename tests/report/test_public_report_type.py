"""A :class:`PublicReport` cannot hold what a participant may not see (docs/public-view.md): no field for per-graph
values, graph IDs beyond the submission's problems, private values or the ground truth's digest; numbers are single
floats; the classes are frozen with ``__slots__``; :func:`public_report` is the one place one is made."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from csv_rows import csv_bytes, demo_rows

from tpugraphs_eval import Options, score_submission
from tpugraphs_eval.report import html, public, terminal
from tpugraphs_eval.report.public import (
    PUBLIC_PROVENANCE_KEYS,
    PublicCollection,
    PublicReport,
    PublicScores,
    public_report,
)
from tpugraphs_eval.scoring.references import References
from tpugraphs_eval.submission.validation import ParsedSubmission, Validation
from tpugraphs_eval.truth.solution import load_solution


@pytest.fixture(scope="module")
def reports(demo_solution):
    truth = load_solution(demo_solution)
    organiser = score_submission(csv_bytes(demo_rows(truth, "random", seed=3)), truth)
    return organiser, public_report(organiser)


def test_the_fields_are_exactly_the_public_ones(reports):
    assert [f.name for f in dataclasses.fields(PublicReport)] == [
        "split", "synthetic", "options", "validation", "scores", "missing_collections", "selected_collections",
        "provenance_items", "submission"]
    assert [f.name for f in dataclasses.fields(PublicScores)] == ["overall", "collections", "not_shown", "n_counted"]
    assert [f.name for f in dataclasses.fields(PublicCollection)] == ["metric", "n_graphs", "value", "references"]
    organiser, view = reports
    assert set(view.provenance) == {"submission_sha256", "evaluator_version", "evaluator_source_sha256"} < set(PUBLIC_PROVENANCE_KEYS)
    assert "ground_truth_sha256" in organiser.provenance
    assert view.validation.submission == ParsedSubmission()  # the parsed rankings are dropped
    assert view.overall == organiser.leaderboards["public"].overall


@pytest.mark.parametrize("value", [np.arange(3.0), [0.5, 0.6], {"tile:xla:g": 0.5}, "0.5", True])
def test_a_collection_refuses_anything_but_one_number(value):
    with pytest.raises(TypeError, match="one number"):
        PublicCollection("score", 10, value, None)
    with pytest.raises(TypeError, match="one number"):
        PublicCollection("score", 10, 0.5, References(value, 1.0))
    with pytest.raises(TypeError, match="one number"):
        PublicScores(value, {}, (), 0)


def test_a_collection_needs_two_graphs_and_its_primary_metric():
    with pytest.raises(ValueError, match="at least 2"):
        PublicCollection("score", 1, 0.5, None)
    with pytest.raises(ValueError, match="primary"):
        PublicCollection("top10_error", 10, 0.5, None)
    assert PublicCollection("kendall_tau", 2, np.float64(0.25), None).value == 0.25


def test_scores_hold_collections_by_name_only():
    shown = PublicCollection("score", 10, 0.5, None)
    with pytest.raises(ValueError, match="not a collection"):
        PublicScores(0.5, {"tile:xla:some_graph": shown}, (), 1)
    with pytest.raises(TypeError, match="PublicCollection"):
        PublicScores(0.5, {"tile:xla": {"tile:xla:some_graph": 0.5}}, (), 1)
    scores = PublicScores(0.5, {"tile:xla": shown}, ["layout:xla:default"], 2)
    with pytest.raises(TypeError):
        scores.collections["layout:xla:random"] = shown  # read-only mapping


def test_nothing_can_be_added_or_changed(reports):
    _, view = reports
    with pytest.raises((AttributeError, TypeError)):
        view.graphs = {"tile:xla:g": 0.5}
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.scores = None
    with pytest.raises((AttributeError, TypeError)):
        view.scores.per_graph = {}


def test_the_report_refuses_a_private_digest_parsed_rankings_and_full_scores(reports):
    organiser, view = reports
    with pytest.raises(ValueError, match="ground_truth_sha256"):
        dataclasses.replace(view, provenance_items=(("ground_truth_sha256", "ab" * 32),))
    with pytest.raises(ValueError, match="rankings"):
        dataclasses.replace(view, validation=organiser.validation)
    with pytest.raises(TypeError, match="PublicScores"):
        dataclasses.replace(view, scores=organiser.scores)
    with pytest.raises(TypeError, match="Validation"):
        dataclasses.replace(view, validation={"problems": []})
    assert isinstance(organiser.validation, Validation)


def test_an_unscored_report_has_no_scores(demo_solution):
    truth = load_solution(demo_solution)
    invalid = score_submission(b"ID,TopConfigs\ntile:xla:nope,0\n", truth, Options())
    view = public_report(invalid)
    assert not view.valid and view.scores is None and view.overall is None and view.collection_values() == {}
    assert view.to_dict()["collections"] == {} and view.to_dict()["graphs_scored"] == "public leaderboard only"


def test_the_renderers_take_the_public_report_and_public_report_is_its_one_maker():
    """Only report/public.py makes a PublicReport; the renderers name the type (no `public_only` flag)."""
    import inspect

    import tpugraphs_eval

    root = inspect.getfile(tpugraphs_eval).rsplit("/", 1)[0]
    from pathlib import Path

    makers = [p for p in Path(root).rglob("*.py") if "PublicReport(" in p.read_text(encoding="utf-8")]
    assert [p.name for p in makers] == ["public.py"]
    assert makers[0] == Path(inspect.getfile(public))
    for module in (terminal, html):
        text = inspect.getsource(module)
        assert "PublicReport" in text and "public_only" not in text
