"""The report's HTML page (``--html``) in a real headless Chromium, at 1400 and 800 px: every section renders
with its charts and tables inside the window (no horizontal scroll bar, no clipped column), no request
leaves the page, no console error, and hostile IDs stay text. The browser is driven as in
tests/leaderboard/test_leaderboard_browser.py (skipped, with the reason, when no Chromium binary is found)."""

from __future__ import annotations

from pathlib import Path

import pytest
from chromium import Browser
from test_report_html import HOSTILE, SAMPLES, hostile_submission

from tpugraphs_eval import evaluate
from tpugraphs_eval.report.html import write_html

SECTIONS = ("collections", "tau-histograms", "noise-and-curves", "worst-graphs", "tile-programs")


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("html-report")
    # the title holds the submission's path: a deep one (CI clones live anywhere) must wrap, not widen the page
    deep = folder.joinpath(*["a_rather_long_folder_name_without_spaces"] * 6)
    deep.mkdir(parents=True)
    scored = deep / "demo_random_test.csv"
    scored.write_bytes((SAMPLES / "demo_random_test.csv").read_bytes())
    out = {}
    for name, source in (("scored", scored), ("hostile", hostile_submission())):
        out[name] = folder / f"{name}.html"
        write_html(out[name], evaluate(source, split="test", data_root="demo"))
    return out


def _open(browser: Browser, page: Path, width: int) -> str:
    browser.set_width(width)
    url = page.resolve().as_uri()
    browser.open(url)
    assert browser.overflow() == 0
    assert [u for u in browser.requests() if u != url] == []
    assert browser.problems() == []
    return url


def _widest(browser: Browser, selector: str) -> float:
    """The right edge of the rightmost element matching ``selector`` (CSS px)."""
    return browser.js(f"Math.max.apply(null, Array.prototype.map.call(document.querySelectorAll('{selector}'), "
                      "function (x) { return x.getBoundingClientRect().right; }))")


@pytest.mark.parametrize("width", [1400, 800])
def test_every_section_renders_inside_the_window(browser, pages, width):
    try:
        _open(browser, pages["scored"], width)
        window = browser.js("document.documentElement.clientWidth")
        for section in SECTIONS:
            box = browser.js(f"(function () {{ var r = document.getElementById('{section}').getBoundingClientRect();"
                             " return [r.width, r.height]; })()")
            assert box[0] > 0 and box[1] > 50, section
        # 5 reference bars, 4 histograms and 5 search curves (the demo has no noise file), each at a readable size
        sizes = browser.js("Array.prototype.map.call(document.querySelectorAll('svg.chart'), "
                           "function (s) { var r = s.getBoundingClientRect(); return [r.width, r.height]; })")
        assert len(sizes) == 14 and all(w >= 300 and h >= 30 for w, h in sizes)
        assert browser.js("document.querySelectorAll('svg.chart rect.bar').length") == 5
        assert browser.js("document.querySelectorAll('#tau-histograms rect.bin').length") == 4 * 20
        assert _widest(browser, "svg, table, th, td") <= window  # no chart or column cut off
        report = evaluate(SAMPLES / "demo_random_test.csv", split="test", data_root="demo")
        programs = report.collections["tile:xla"].programs()
        assert browser.js("document.querySelectorAll('#tile-programs tbody tr').length") == len(programs)
    finally:
        browser.call("Emulation.clearDeviceMetricsOverride", session=True)


@pytest.mark.parametrize("width", [1400, 800])
def test_hostile_ids_stay_text_and_long_ids_wrap(browser, pages, width):
    try:
        _open(browser, pages["hostile"], width)
        assert browser.js("document.querySelectorAll('img, script, body svg').length") == 0
        text = browser.js("document.getElementById('problems').textContent")
        assert HOSTILE.partition("<img")[2][:20] in text and "UNKNOWN_ID" in text
        assert _widest(browser, "table, td") <= browser.js("document.documentElement.clientWidth")
    finally:
        browser.call("Emulation.clearDeviceMetricsOverride", session=True)
