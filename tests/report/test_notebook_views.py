"""Objects that behave in a notebook: Report, PublicReport and Validation print a short summary (``repr``) and a
table (``_repr_html_``), whatever the size of the submission. Before, a real 894-row report printed as up to 956 KB
(the dataclass repr of every parsed ranking and problem)."""

from __future__ import annotations

from pathlib import Path

import tpugraphs_eval as te

REPO = Path(__file__).resolve().parents[2]
MAX_REPR = 2000


def test_a_real_894_row_report_prints_short(realdata):
    """participant_a_full_test.csv (894 rows) against the one real graph per test folder: 889 rows name graphs the
    folder lacks (UNKNOWN_ID) and 5 graphs are missing; the summary counts them, it does not list them."""
    report = te.evaluate(realdata / "submissions/participant_a_full_test.csv", split="test",
                         data_root=realdata / "tpugraphs", validate_only=True)
    text = repr(report)
    assert len(text) < MAX_REPR and text.startswith("Report(split='test', valid=False, n_rows=894, ")
    assert f"'UNKNOWN_ID': {report.validation.counts['UNKNOWN_ID']}" in text
    assert len(repr(report.validation)) < MAX_REPR and repr(report.validation).startswith("Validation(mode='strict'")
    html = report._repr_html_()
    assert len(html) < MAX_REPR and "<table>" in html and "<code>UNKNOWN_ID</code>" in html


def test_a_scored_report_shows_its_overall_and_collection_values(demo_root):
    report = te.evaluate(b"", split="test", data_root="demo", validate_only=True)  # an empty file
    assert repr(report) == "Report(split='test', valid=False, n_rows=0, problems={'EMPTY_FILE': 1}, overall=None, collections={})"
    sample = REPO / "sample_submissions/demo_identity_test.csv"
    scored = te.evaluate(sample, split="test", data_root="demo")
    values = {name: float(f"{v:.6g}") for name, v in scored.collection_values().items()}
    assert repr(scored) == (f"Report(split='test', valid=True, n_rows=52, problems={{}}, "
                            f"overall={float(f'{scored.overall:.6g}')}, collections={values})")
    html = scored._repr_html_()
    assert html.count("<tr>") == 1 + 1 + len(values)  # header, overall, one row per collection


def test_many_problem_codes_are_summed_beyond_eight():
    """A Validation names its 8 most frequent codes and sums the rest under '...' (exact counts stay in .counts)."""
    from collections import Counter

    from tpugraphs_eval.submission.validation import ParsedSubmission, Validation

    counts = Counter({f"CODE_{i}": 10 - i for i in range(10)})
    validation = Validation("strict", [], counts, ParsedSubmission(), {}, "0" * 64, 3)
    assert validation.code_counts() == {**{f"CODE_{i}": 10 - i for i in range(8)}, "...": 2 + 1}


def test_the_public_report_prints_only_what_it_holds(demo_solution):
    sample = REPO / "sample_submissions/demo_identity_test.csv"
    view = te.Evaluator.load(split=None, solution=demo_solution, public_only=True).evaluate(sample)
    assert isinstance(view, te.PublicReport) and view.overall is not None
    assert repr(view) == (f"PublicReport(split='test', valid=True, n_rows=52, problems={{}}, "
                          f"overall={float(f'{view.overall:.6g}')}, collections="
                          f"{ {n: float(f'{v:.6g}') for n, v in view.collection_values().items()} })")
    assert "<b>PublicReport</b>" in view._repr_html_()
