"""leaderboard.html in a real headless Chromium: every team is shown, clicking a header sorts, no console error,
no request leaves the page, and hostile team names stay text.

How: Debian's ``chromium`` (``/usr/bin/chromium``; ``.ci/run`` installs it where missing; elsewhere set
``$CHROMIUM``) is driven over the Chrome DevTools Protocol on a pipe (``--remote-debugging-pipe``: fd 3
carries our commands, fd 4 its replies, each a JSON message ending in a NUL byte), so no websocket
library or browser download is needed. Clicks are real mouse events (``Input.dispatchMouseEvent``) at
the header button's position. Expected values come from ``leaderboard.json`` (the document the page is
rendered from) and Python's own sort of it. Skipped, with the reason, when no Chromium binary is found.

Run locally: ``apt-get install chromium`` (Debian/Ubuntu), then
``python -m pytest tests/test_leaderboard_browser.py -v``.
"""

from __future__ import annotations

import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
from leaderboard_helpers import REPO, build_folder

from tpugraphs_eval.leaderboard import build_leaderboard

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-extensions", "--remote-debugging-pipe"]
TIMEOUT = 30.0


def chromium_binary() -> str | None:
    """``$CHROMIUM``, else ``/usr/bin/chromium``, else a ``chromium``/``chromium-browser`` on PATH."""
    for candidate in (os.environ.get("CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium"),
                      shutil.which("chromium-browser")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


class Browser:
    """A headless Chromium and one page, over the DevTools protocol on a pipe."""

    def __init__(self, binary: str) -> None:
        self.profile = tempfile.mkdtemp(prefix="tpugraphs-chromium-")
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()
        # above fd 10 so that the dup2 onto 3 and 4 in the child never meets these numbers
        child_in = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD_CLOEXEC, 10)
        child_out = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(to_browser_r)
        os.close(from_browser_w)

        def wire() -> None:  # in the child: the protocol's fds 3 (commands) and 4 (replies)
            os.dup2(child_in, 3)
            os.dup2(child_out, 4)

        self.process = subprocess.Popen([binary, *FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
                                        preexec_fn=wire, close_fds=False, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(child_in)
        os.close(child_out)
        self.buffer = b""
        self.next_id = 0
        self.events: list[dict] = []
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable", session=True)

    def _message(self, deadline: float) -> dict:
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.from_browser], [], [], left)[0]:
                raise TimeoutError("Chromium did not answer in time")
            chunk = os.read(self.from_browser, 1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed the DevTools pipe")
            self.buffer += chunk
        raw, _, self.buffer = self.buffer.partition(b"\0")
        return json.loads(raw)

    def call(self, method: str, session: bool = False, **params) -> dict:
        """Send a command and return its result (events received meanwhile are kept in :attr:`events`)."""
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT
        while True:
            reply = self._message(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method: str) -> dict:
        """The first event ``method`` (already received or the next one)."""
        deadline = time.monotonic() + TIMEOUT
        while True:
            for event in self.events:
                if event.get("method") == method:
                    return event
            self.events.append(self._message(deadline))

    def open(self, url: str) -> None:
        self.events.clear()
        self.call("Page.navigate", session=True, url=url)
        self.wait_for("Page.loadEventFired")

    def set_width(self, width: int, height: int = 900) -> None:
        """Lay the page out as in a window ``width`` CSS pixels wide (a desktop, not a phone)."""
        self.call("Emulation.setDeviceMetricsOverride", session=True, width=width, height=height,
                  deviceScaleFactor=1, mobile=False)

    def overflow(self) -> int:
        """CSS pixels the page is wider than its window (0: no horizontal scroll bar)."""
        return self.js("document.documentElement.scrollWidth - document.documentElement.clientWidth")

    def js(self, expression: str):
        result = self.call("Runtime.evaluate", session=True, expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def click(self, selector: str) -> None:
        """A real mouse click at the centre of the first element matching ``selector``."""
        self.js(f"document.querySelector({json.dumps(selector)}).scrollIntoView()")
        box = self.js(f"(function () {{ var r = document.querySelector({json.dumps(selector)})"
                      ".getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()")
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", session=True, type=kind, x=box[0], y=box[1], button="left",
                      clickCount=1)

    def problems(self) -> list[str]:
        """Console errors and warnings, uncaught exceptions and log errors seen since the page was opened."""
        out = []
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "warning", "assert"):
                out.append(f"console.{params['type']}: {params.get('args')}")
            elif method == "Runtime.exceptionThrown":
                out.append(f"exception: {params.get('exceptionDetails')}")
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") in ("error", "warning"):
                out.append(f"log: {params['entry'].get('text')}")
        return out

    def requests(self) -> list[str]:
        """URLs the page asked for since it was opened."""
        return [e["params"]["request"]["url"] for e in self.events if e.get("method") == "Network.requestWillBeSent"]

    def close(self) -> None:
        try:
            self.call("Browser.close")
        except Exception:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for fd in (self.to_browser, self.from_browser):
            os.close(fd)
        shutil.rmtree(self.profile, ignore_errors=True)


@pytest.fixture(scope="module")
def browser():
    binary = chromium_binary()
    if binary is None:
        pytest.skip("no Chromium binary (/usr/bin/chromium, chromium on PATH or $CHROMIUM): `apt-get install "
                    "chromium` to run the browser test (.ci/run installs it)")
    instance = Browser(binary)
    yield instance
    instance.close()


def _column(browser: Browser, table: str, index: int) -> list[str]:
    return browser.js(f"Array.prototype.map.call(document.querySelectorAll('#{table} tbody tr'), "
                      f"function (r) {{ return r.cells[{index}].getAttribute('data-sort'); }})")


def _header_index(browser: Browser, table: str, label: str) -> int:
    labels = browser.js(f"Array.prototype.map.call(document.querySelectorAll('#{table} thead th'), "
                        "function (h) { return h.textContent; })")
    return labels.index(label)


def _click_header(browser: Browser, table: str, label: str) -> None:
    index = _header_index(browser, table, label)
    browser.click(f"#{table} thead th:nth-child({index + 1}) button")


def _check_page(browser: Browser, folder: Path) -> dict:
    """Open ``folder/leaderboard.html``; check teams, sorting, console and requests; return its document."""
    document = json.loads((folder / "leaderboard.json").read_text(encoding="utf-8"))
    url = (folder / "leaderboard.html").resolve().as_uri()
    browser.open(url)
    teams = [t["team"] for t in document["teams"]]
    team_col = _header_index(browser, "teams", "Team")
    assert _column(browser, "teams", team_col) == teams  # every team, in leaderboard order
    shown = browser.js("Array.prototype.map.call(document.querySelectorAll('#teams tbody tr'), "
                       f"function (r) {{ return r.cells[{team_col}].textContent; }})")
    assert shown == teams  # shown as text, exactly (escaping is undone by the browser, nothing executed)

    _click_header(browser, "teams", "Overall")  # ascending by overall; unranked teams stay last
    ranked = sorted((t for t in document["teams"] if t["overall"] is not None),
                    key=lambda t: (t["overall"], document["teams"].index(t)))
    unranked = [t["team"] for t in document["teams"] if t["overall"] is None]
    assert _column(browser, "teams", team_col) == [t["team"] for t in ranked] + unranked
    assert browser.js("document.querySelector('#teams thead th[aria-sort]').textContent") == "Overall"
    _click_header(browser, "teams", "Overall")  # descending
    descending = sorted((t for t in document["teams"] if t["overall"] is not None),
                        key=lambda t: (-t["overall"], document["teams"].index(t)))
    assert _column(browser, "teams", team_col) == [t["team"] for t in descending] + unranked
    _click_header(browser, "teams", "Team")  # by name (the page uses localeCompare; these names are ASCII-sortable)
    names = _column(browser, "teams", team_col)
    assert sorted(names, key=str.casefold) == sorted(teams, key=str.casefold) and len(names) == len(teams)
    assert names != [t["team"] for t in descending] or len(teams) < 2

    subs = _column(browser, "submissions", 0)
    assert subs == [s["id"] for s in document["submissions"]]
    assert browser.problems() == []
    assert [u for u in browser.requests() if u != url] == []
    return document


def test_demo_page_in_chromium(browser):
    document = _check_page(browser, REPO / "leaderboards" / "demo")
    assert len(document["teams"]) >= 10


def test_hostile_names_stay_text_in_chromium(browser, demo_solution, tmp_path):
    hostile = ['"><img src=x onerror="console.error(1)">', "<script>console.error(2)<script>",
               "x' onmouseover='console.error(3)", "\u202eevil", "=cmd|' -C calc'!A0"]
    subs = build_folder(tmp_path / "subs", demo_solution, {name: [("s", 0.3 + 0.2 * i, True)]
                                                           for i, name in enumerate(hostile)})
    build_leaderboard(subs, demo_solution, tmp_path / "out", workers=1, resamples=50)
    document = _check_page(browser, tmp_path / "out")
    assert browser.js("document.querySelectorAll('img, #teams script').length") == 0
    assert len(document["teams"]) == len(hostile)


@pytest.mark.parametrize("width", [1400, 800])
def test_demo_page_fits_the_window(browser, width):
    """At 1400 px every column of the teams table is in view (the last three were cut off: the table was
    1692 px wide); at 800 px the page still has no horizontal scroll bar (the table scrolls in its box)."""
    browser.set_width(width)
    try:
        browser.open((REPO / "leaderboards" / "demo" / "leaderboard.html").resolve().as_uri())
        assert browser.overflow() == 0
        if width == 1400:
            rights = browser.js("Array.prototype.map.call(document.querySelectorAll('#teams thead th'), "
                                "function (h) { return h.getBoundingClientRect().right; })")
            assert len(rights) == 15 and max(rights) <= browser.js("document.documentElement.clientWidth")
    finally:
        browser.call("Emulation.clearDeviceMetricsOverride", session=True)
