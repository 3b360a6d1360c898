"""The reports in a real browser: a hostile agent reply renders as text and runs nothing.

Parsing our own HTML in Python (test_report_html.py) cannot catch what a browser does with it:
pytest-html builds its rows with JavaScript from a JSON blob and inserts our extras with
`insertAdjacentHTML`.  Headless Chromium loads both reports; a script that ran would leave a
`data-pwned` attribute on the page.  Screenshots are kept for a human to look at (set
MEMORYBENCH_SCREENSHOTS=DIR to keep them outside pytest's temporary folder).

Skipped without a Chromium binary (Debian: `apt-get install chromium`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.pytest_integration.test_plugin import colours_only  # noqa: F401  (autouse: a Colours-only ltm)
from tests.reports.test_report_html import HOSTILE, HOSTILE_AGENT
from tests.support.cdp import FLAGS, Browser

CHROMIUM = next(
    (path for name in ("chromium", "chromium-browser", "google-chrome") if (path := shutil.which(name))), None
)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="no Chromium binary (Debian: apt-get install chromium)"),
]


class Dom(HTMLParser):
    """Elements, attributes, script bodies and visible text of a dumped DOM."""

    def __init__(self, markup: str) -> None:
        super().__init__()
        self.attributes: list[tuple[str, str, str | None]] = []
        self.scripts: list[tuple[str | None, str]] = []  # each script's id and body
        self.text: list[str] = []
        self._script: str | None | bool = False  # the open script's id (None: no id), False outside one
        self.feed(markup)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.attributes.extend((tag, name, value) for name, value in attrs)
        if tag == "script":
            self._script = dict(attrs).get("id")
            self.scripts.append((self._script, ""))

    def handle_endtag(self, tag: str) -> None:
        self._script = False

    def handle_data(self, data: str) -> None:
        if self._script is False:
            self.text.append(data)
        else:
            name, body = self.scripts[-1]
            self.scripts[-1] = (name, body + data)


def chromium(profile: Path, *arguments: str) -> str:
    command = [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *arguments]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)  # type: ignore[arg-type]
    return done.stdout


@pytest.fixture
def hostile_run(pytester: pytest.Pytester) -> Path:
    pytester.makeconftest(HOSTILE_AGENT)
    result = pytester.runpytest(
        "--memorybench",
        "--span=isolated",
        "-p",
        "no:cacheprovider",
        "--mb-output=run",
        "--html=report/r.html",
        "--self-contained-html",
    )
    result.assert_outcomes(failed=3)
    return pytester.path


@pytest.mark.parametrize("page", ["run/report.html", "report/r.html"], ids=["standalone", "pytest-html"])
def test_a_hostile_reply_is_shown_as_text_and_runs_nothing(
    hostile_run: Path, tmp_path: Path, page: str
) -> None:
    url = (hostile_run / page).as_uri()
    dom = Dom(chromium(tmp_path / "profile", "--virtual-time-budget=5000", "--dump-dom", url))
    assert not [a for a in dom.attributes if a[1] == "data-pwned"], "an injected script ran"
    assert not [a for a in dom.attributes if a[1] == "onerror"], "an injected element exists"
    injected = [body for name, body in dom.scripts if name != "mb-i-data" and "data-pwned" in body]
    assert not injected, "an injected script element exists (the items' data holds the reply as data)"
    text = "".join(dom.text)
    assert HOSTILE in text, "the reply is on the page, as the characters the agent sent"
    assert "ltm::colours[rep1]" in text and "transcript of this test" in text

    screenshots = Path(os.environ.get("MEMORYBENCH_SCREENSHOTS", tmp_path))
    screenshots.mkdir(parents=True, exist_ok=True)
    shot = screenshots / f"{page.replace('/', '-')}.png"
    chromium(
        tmp_path / "profile",
        "--virtual-time-budget=5000",
        f"--screenshot={shot}",
        "--window-size=1280,2000",
        url,
    )
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000, (
        "a rendered page, not a blank one"
    )


def test_the_check_sees_a_script_that_runs(tmp_path: Path) -> None:
    """The control: the same reply pasted raw into a page is caught, so a pass above means something."""
    page = tmp_path / "raw.html"
    page.write_text(f"<!doctype html><html><body><p>{HOSTILE}</p></body></html>", encoding="utf-8")
    dom = Dom(chromium(tmp_path / "profile", "--virtual-time-budget=5000", "--dump-dom", page.as_uri()))
    assert [a for a in dom.attributes if a[1] == "data-pwned"], "the detector missed a script that ran"


def test_a_comparison_page_and_its_figures_render_and_run_nothing(hostile_run: Path, tmp_path: Path) -> None:
    """compare.html of two runs of the hostile agent and its SVG figures, in Chromium: every question
    opened, the replies are text and nothing they hold runs."""
    shutil.copytree(hostile_run / "run", hostile_run / "run-again")
    command = [
        sys.executable,
        "-m",
        "pytest",
        "--mb-compare",
        "run",
        "run-again",
        "--mb-label=<script>x</script>",
        "--mb-label=b",
        "--mb-output=cmp",
    ]
    subprocess.run(command, cwd=hostile_run, check=True, capture_output=True)
    browser = Browser(CHROMIUM, tmp_path / "cdp-profile")  # type: ignore[arg-type]
    try:
        browser.open((hostile_run / "cmp" / "compare.html").as_uri())
        browser.wait_for("document.body && document.body.dataset.questionsMs")
        browser.evaluate("document.querySelectorAll('.mb-q-item').forEach((item) => { item.open = true; })")
        browser.wait_for("document.querySelectorAll('.mb-q-run').length === 6")  # 3 items × 2 runs, each open
        pwned = browser.evaluate("document.documentElement.getAttribute('data-pwned')")
        scripts = browser.evaluate("Array.from(document.scripts, (script) => script.type || 'script')")
        text = browser.evaluate("document.body.innerText")
    finally:
        browser.close()
    assert pwned is None, "an injected script ran"
    assert scripts == ["application/json", "script"], "the page's data and its own script, no other"
    assert text.count(HOSTILE) >= 6, "each run's reply shown as the characters the agent sent"
    assert (
        "<script>x</script>" in text
        and "Is one better than another?" in text
        and "no significant difference" in text
    )
    for figure in ("bars.svg",):
        shot = tmp_path / f"{figure}.png"
        chromium(
            tmp_path / "profile",
            f"--screenshot={shot}",
            "--window-size=900,500",
            (hostile_run / "cmp" / figure).as_uri(),
        )
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 5_000, (
            "a drawn figure, not a blank one"
        )
