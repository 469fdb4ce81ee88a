"""The HTML page of a report (report/html.py, report/charts.py): its numbers are the report's, every text is
escaped, nothing in it reaches outside the page; `--html` on the command line. The page in a real browser:
tests/report/test_report_html_browser.py."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from tpugraphs_eval import Evaluator, evaluate
from tpugraphs_eval.commands import evaluate as cli
from tpugraphs_eval.report.html import WORST_SHOWN, render_html

SAMPLES = Path(__file__).resolve().parents[2] / "sample_submissions"
HOSTILE = "layout:xla:default:<img src=x onerror=console.error(1)><script>console.error(2)</script>"


@pytest.fixture(scope="module")
def scored():
    return evaluate(SAMPLES / "demo_random_test.csv", split="test", data_root="demo")


@pytest.fixture(scope="module")
def page(scored) -> str:
    return render_html(scored)


def hostile_submission() -> bytes:
    """A valid-looking header, then an ID that is markup and one of 300 characters without a space."""
    return f"ID,TopConfigs\n{HOSTILE},0;1\ntile:xla:{'a' * 300},0\n".encode()


def _section(page: str, name: str) -> str:
    match = re.search(rf'<section id="{name}">(.*?)</section>', page, flags=re.DOTALL)
    assert match, name
    return match.group(1)


def test_collection_table_holds_the_report_values(scored, page):
    table = _section(page, "collections")
    for name, result in scored.collections.items():
        refs = scored.references[name]
        row = re.search(rf"<tr><td class=\"id\">{re.escape(name)}</td>(.*?)</tr>", table).group(1)
        cells = re.findall(r'<td class="num">([^<]*)</td>', row)
        beside = [f"{result.means()['opa']:.3f}"] if result.collection.kind == "layout" else []  # OPA, beside the value
        assert cells == [str(len(result.ids)), f"{result.value:.6f}", *beside, f"{refs.random:.4f}",
                         f"{refs.oracle:.4f}", f"{scored.normalised()[name]:.3f}"]
    assert f"{scored.overall:.6f}" in table
    assert table.count('<svg xmlns="http://www.w3.org/2000/svg" class="chart"') == len(scored.collections)


def test_tau_histograms_count_every_defined_graph(scored, page):
    section = _section(page, "tau-histograms")
    layouts = [n for n in scored.collections if n.startswith("layout:")]
    svgs = re.findall(r"<svg .*?</svg>", section, flags=re.DOTALL)
    assert len(svgs) == len(layouts) == 4
    for name, svg in zip(layouts, svgs):
        counts = [int(c) for c in re.findall(r"\): (\d+) graph\(s\)</title>", svg)]
        assert len(counts) == 20
        taus = scored.collections[name].per_graph["kendall_tau"]
        expected, _ = np.histogram(taus[~np.isnan(taus)], bins=20, range=(-1, 1))  # numpy's own binning
        assert counts == expected.tolist()


def test_worst_graphs_are_the_lowest_in_order(scored, page):
    section = _section(page, "worst-graphs")
    tile = scored.collections["tile:xla"]
    shown = re.search(r"tile:xla: lowest score</h3><table>.*?<tbody>(.*?)</tbody>", section, flags=re.DOTALL).group(1)
    names = re.findall(r'<tr><td class="id">([^<]*)</td>', shown)
    order = np.argsort(tile.per_graph["score"], kind="stable")[:WORST_SHOWN]
    assert names == [tile.ids[i].rpartition(":")[2] for i in order]
    scores = [float(v) for v in re.findall(r'<tr><td class="id">[^<]*</td><td class="num">([^<]*)</td>', shown)]
    assert scores == sorted(scores) and scores[0] == pytest.approx(tile.per_graph["score"].min(), abs=5e-5)


def test_tile_programs_table_has_every_program(scored, page):
    section = _section(page, "tile-programs")
    programs = scored.collections["tile:xla"].programs()
    assert len(re.findall(r"<tr><td class=\"id\">", section)) == len(programs)
    first, means = next(iter(programs.items()))
    assert (f'<tr><td class="id">{first}</td><td class="num">{means["n_graphs"]}</td>'
            f'<td class="num">{means["score"]:.4f}</td>') in section


def test_page_is_self_contained():
    page = render_html(evaluate(SAMPLES / "demo_identity_test.csv", split="test", data_root="demo"))
    assert "<script" not in page and "<link rel=\"stylesheet\"" not in page and "@import" not in page
    urls = set(re.findall(r"https?://[^\s\"'<>]+", page))
    assert urls == {"http://www.w3.org/2000/svg"}  # the SVG namespace, not a request
    assert "Content-Security-Policy" in page and "default-src &#x27;none&#x27;" in page


def test_every_text_from_the_submission_is_escaped():
    report = evaluate(hostile_submission(), split="test", data_root="demo")
    assert not report.valid
    page = render_html(report)
    assert "<img" not in page and "<script" not in page
    assert "&lt;img src=x onerror=console.error(1)&gt;&lt;script&gt;" in page
    assert 'id="problems"' in page and 'id="collections"' not in page  # nothing scored, nothing charted
    assert "UNKNOWN_ID" in page and "INVALID" in page


def test_html_option_writes_the_page(tmp_path, capsys):
    target = tmp_path / "report.html"
    code = cli.main([str(SAMPLES / "demo_random_test.csv"), "--data-root", "demo", "--split", "test", "-q",
                     "--html", str(target)])
    assert code == 0
    assert target.read_text(encoding="utf-8") == render_html(
        evaluate(SAMPLES / "demo_random_test.csv", split="test", data_root="demo"))
    invalid = tmp_path / "invalid.html"
    code = cli.main([str(SAMPLES / "demo_kaggle_sample_test.csv"), "--data-root", "demo", "--split", "test", "-q",
                     "--html", str(invalid)])
    assert code == 1 and "INDEX_OUT_OF_RANGE" in invalid.read_text(encoding="utf-8")
    capsys.readouterr()


def test_html_with_several_submissions_writes_a_folder_of_pages(tmp_path, capsys):
    files = [str(SAMPLES / n) for n in ("demo_random_test.csv", "demo_identity_test.csv")]
    code = cli.main([*files, "--data-root", "demo", "--split", "test", "-q", "--html", str(tmp_path / "pages")])
    assert code == 0
    for name in files:
        page = (tmp_path / "pages" / f"{Path(name).stem}.html").read_text(encoding="utf-8")
        assert page == render_html(evaluate(name, split="test", data_root="demo"))
    capsys.readouterr()


@pytest.mark.parametrize("extra, fragment", [
    ([str(SAMPLES / ".." / "sample_submissions" / "demo_random_test.csv"), "--html", "x"], "would write "
                                                                                           "demo_random_test.html"),
    (["--html", str(SAMPLES / "demo_random_test.csv" / "x.html")], "demo_random_test.csv is a file, not a folder"),
])
def test_html_usage_errors_exit_2(capsys, extra, fragment):
    code = cli.main([str(SAMPLES / "demo_random_test.csv"), *extra, "--data-root", "demo", "--split", "test", "-q"])
    assert code == 2 and fragment in capsys.readouterr().err


def test_problem_counts_are_exact_beyond_the_listed_problems():
    """3,000 rows with an unknown ID: the JSON lists the first MAX_LISTED_PER_CODE (1,000) of the code, the page
    counts all 3,000 (the verdict's count; it said ×1001, the listed ones plus the summary), and one
    MISSING_IDS error for each of the 5 collections without a row makes 3,005 errors in all."""
    rows = "".join(f"tile:xla:{i:032x},0;1;2;3;4\n" for i in range(3000))
    report = evaluate(f"ID,TopConfigs\n{rows}".encode(), split="test", data_root="demo")
    assert report.validation.counts["UNKNOWN_ID"] == 3000 and report.n_errors == 3000 + report.validation.counts[
        "MISSING_IDS"]
    section = _section(render_html(report), "problems")
    assert f"<p>{report.n_errors} error(s) · 0 warning(s) · 0 note(s);" in section
    assert "<h3>UNKNOWN_ID ×3000 error</h3>" in section
    assert "… and 2995 more." in section and "lists the first 1,000 of each code" in section


def test_the_page_shows_no_absolute_path(tmp_path, capsys, monkeypatch):
    """A page to share names the submission by its file name (absolute path given) or as given (relative), and
    the data root by its folder name: nothing of the home folder or of the machine's layout."""
    absolute = SAMPLES.resolve() / "demo_random_test.csv"
    page = tmp_path / "abs.html"
    assert cli.main([str(absolute), "--data-root", "demo", "--split", "test", "-q", "--html", str(page)]) == 0
    text = page.read_text(encoding="utf-8")
    assert "<h1>TpuGraphs evaluation: demo_random_test.csv</h1>" in text
    assert "data demo (SYNTHETIC data) at demo-v1</p>" in text  # the demo cache's folder name, not its path
    for private in (str(Path.home()), str(SAMPLES.resolve().parent), str(tmp_path)):
        assert private not in text, private
    monkeypatch.chdir(SAMPLES.parent)
    relative = tmp_path / "rel.html"
    assert cli.main(["sample_submissions/demo_random_test.csv", "--data-root", "demo", "--split", "test", "-q",
                     "--html", str(relative)]) == 0
    assert "<h1>TpuGraphs evaluation: sample_submissions/demo_random_test.csv</h1>" in relative.read_text("utf-8")
    capsys.readouterr()


def test_a_solution_report_shows_the_public_and_private_rows(demo_solution, page):
    """With a solution file (a Usage split) the page has the terminal's Leaderboards table: public, private and
    all rows of the report's own values (before, the page had none of them); without one, no such section."""
    report = Evaluator.load(split=None, solution=demo_solution).evaluate(SAMPLES / "demo_random_test.csv")
    table = _section(render_html(report), "leaderboards")
    names = list(report.collections)
    for label, scores in (*report.leaderboards.items(), ("all", report.scores)):
        row = re.search(rf"<tr><td>{label}</td>(.*?)</tr>", table).group(1)
        assert re.findall(r'<td class="num">([^<]*)</td>', row) == [
            f"{scores.overall:.4f}", *(f"{scores.collections[n].value:.4f}" for n in names)]
    assert list(report.leaderboards) == ["public", "private"]
    assert 'id="leaderboards"' not in page
