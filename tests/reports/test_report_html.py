"""HTML reports: per-item extras for pytest-html, the standalone report.html, escaping of every text."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from pytest_memorybench.reports.html import item_fragment, page_script, report_page, summary_fragment
from pytest_memorybench.reports.report_items import ITEM_FIELDS
from pytest_memorybench.reports.transcript import EventIndex, Gap, TranscriptTurn
from tests.pytest_integration.test_plugin import colours_only  # noqa: F401  (autouse: a Colours-only ltm)
from tests.support.runs import report_items

ISOLATED = ("--memorybench", "--span=isolated", "-p", "no:cacheprovider")
HOSTILE = (
    "<script>document.documentElement.setAttribute('data-pwned','script')</script>"
    "<img src=x onerror=\"document.documentElement.setAttribute('data-pwned','img')\">"
)
HOSTILE_AGENT = f"""
import pytest

class Hostile:
    def reply(self, message):
        return {HOSTILE!r}

@pytest.fixture(scope="session")
def memorybench_agent():
    return Hostile()
"""


class Tags(HTMLParser):
    """Every element and attribute name in a piece of HTML, and its text."""

    def __init__(self, markup: str) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attributes: list[str] = []
        self.text: list[str] = []
        self.feed(markup)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes.extend(name for name, _ in attrs)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def assert_inert(markup: str) -> Tags:
    parsed = Tags(markup)
    assert "script" not in parsed.tags and "img" not in parsed.tags and "iframe" not in parsed.tags
    assert not [name for name in parsed.attributes if name.startswith("on")]
    return parsed


def hostile_record() -> dict:
    return {
        "nodeid": "ltm::colours[rep1]",
        "suite": "ltm",
        "scenario": "ltm.colours",
        "test_id": "colours[rep1]",
        "category": "<b>cat</b>",
        "score": 0.25,
        "threshold": 1.0,
        "passed": False,
        "reasons": [f"judge said {HOSTILE}"],
        "span_tokens": 1234,
        "span_target": 1000,
        "span_overrun": True,
        "conversation": "ltm",
        "skills": ["recall"],
        "questions": ["What <i>colour</i>?"],
        "expected": ["<u>Red</u>"],
        "responses": [HOSTILE],
        "error": None,
        "details": {"retrieved": [HOSTILE]},
        "usage": {"input_tokens": 10, "output_tokens": 5, "seconds": 0.1, "cost_usd": 0.0, "calls": 1},
    }


def test_an_item_fragment_shows_every_text_as_text() -> None:
    transcript = [
        TranscriptTurn("My favourite colour is Red.", HOSTILE, "2026-01-01T10:00:00+00:00"),
        Gap(exchanges=5, filler=3, other_tests=2, tokens=900),
        TranscriptTurn("What <i>colour</i>?", HOSTILE, "2026-01-01T13:05:00+00:00", is_question=True),
    ]
    fragment = item_fragment(hostile_record(), transcript)
    text = "".join(assert_inert(fragment).text)
    assert text.count(HOSTILE) == 5, "the answer, twice in the transcript, in the reason and the details"
    assert "retrieved" in text and "data-pwned" in text.split("retrieved")[1], (
        "the details, their texts as text"
    )
    assert '"retrieved"' not in text and "{" not in text.split("retrieved")[0], "words, not a record"
    assert "<u>Red</u>" in text and "What <i>colour</i>?" in text and "<b>cat</b>" in text
    assert "5 exchanges (3 filler, 2 of other tests), 900 tokens" in text
    assert "2026-01-01 10:00" in text and "+3 h 5 min" in text, "the first time, then time since"
    assert "score 0.25" in text and "threshold 1.00" in text and "over 1.0k" in text
    assert re.search(r'style="width: 25\.0%"', fragment), "the score bar"
    assert '<details class="mb-transcript-box" open>' in fragment, "a failed item opens its transcript"


def test_an_item_without_a_logged_transcript_says_so() -> None:
    text = "".join(assert_inert(item_fragment(hostile_record(), None)).text)
    assert "transcript of this test (not in the event log)" in text


def results_with_hostile_names() -> dict:
    record = hostile_record()
    return {
        "run": {
            "id": "r1",
            "agent": f"fixture:{HOSTILE}",
            "judge": "<judge>",
            "seed": 0,
            "profile": "paper",
            "span": {"ltm": "2k"},
        },
        "totals": {
            "mean": 0.25,
            "ci95": [0.1, 0.4],
            "score": 0.25,
            "max": 1,
            "passed": 0,
            "agent_tokens_in": 10,
            "agent_tokens_out": 5,
            "agent_calls": 1,
            "agent_seconds": 0.1,
            "cost_usd": 0.0,
            "judge_calls": 2,
            "judge_cache_hits": 1,
            "judge_cost_usd": 0.0,
        },
        "suites": {"ltm": {"mean": 0.25, "ci95": None, "n": 1}},
        "scenarios": {
            "ltm.colours": {
                "mean": 0.25,
                "ci95": None,
                "n": 1,
                "categories": {"<b>cat</b>": {"mean": 0.25, "ci95": None, "n": 1}},
                "metrics": {
                    "<script>m</script>": 0.5,
                    "curve<img>": {"curve": [[0, 0.1], [1, 0.9]], "x_label": HOSTILE},
                    "table": {"100K": {"<i>a</i>": 0.25, "b": None, "c": 1.0}},
                    "100K B": "[0.1, 0.4] n=1",  # the table's cell, as the terminal prints it
                },
            }
        },
        "items": [record],
    }


def without_own_scripts(page: str) -> str:
    """report.html without its two scripts, checked to be its own: the items' data, which holds no
    `<` that could end it, and report_items.js, whose hash is the only one its policy lets run."""
    script, script_hash = page_script("report_items.js")
    data = re.search(r'<script type="application/json" id="mb-i-data">(.*?)</script>', page, re.S)
    assert data is not None and "<" not in data.group(1), "the data block cannot end early"
    assert f"script-src 'sha256-{script_hash}'" in page
    page = page.replace(data.group(0), "", 1)
    assert page.count(f"<script>{script}</script>") == 1
    return page.replace(f"<script>{script}</script>", "", 1)


def test_the_standalone_page_runs_nothing_and_loads_nothing() -> None:
    gate = {
        "passed": False,
        "failures": [HOSTILE],
        "notes": [],
        "baseline": "<base>",
        "max_drop": 0.1,
        "rows": [],
    }
    page = report_page(results_with_hostile_names(), {"ltm::colours[rep1]": None}, gate)
    parsed = assert_inert(without_own_scripts(page))
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page), "no external resource"
    assert parsed.tags.count("svg") == 2, "the suite's chart and the metric's curve"
    text = "".join(parsed.text)
    assert "<script>m</script>: 0.500" in text and "curve<img>" in text and f"fixture:{HOSTILE}" in text


def test_a_table_metric_is_a_grid_with_its_long_side_down() -> None:
    fragment = summary_fragment(results_with_hostile_names(), None)
    grid = fragment.split('<table class="mb-grid">', 1)[1].split("</table>", 1)[0]
    cells = [re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<t[hd]>(.*?)</t[hd]>", grid)]
    assert cells == ["", "100K", "&lt;i&gt;a&lt;/i&gt;", "0.250", "b", "-", "c", "1.000"]
    assert "table:" not in fragment, "the table is captioned with its name, not named again in the text"
    assert "100K B" not in fragment, "a text metric the table restates is left to the table"


def test_a_table_of_one_row_per_category_joins_the_category_rows() -> None:
    results = results_with_hostile_names()
    metrics = results["scenarios"]["ltm.colours"]["metrics"]
    metrics["wilson table"] = {"<b>cat</b>": {"mean": 0.25, "n": 1, "wilson": [0.05, 0.7], "separable": 0.33}}
    metrics["<b>cat</b> wilson"] = "[0.05, 0.70] n=1"  # as the terminal prints it
    fragment = summary_fragment(results, None)
    table = fragment.split('<table class="mb-table">', 1)[1].split("intervals: 1,000 bootstrap", 1)[0]
    header = re.sub(r"<[^>]+>", "|", table.split("</tr>", 1)[0])
    assert "Wilson 95%" in header and "resolves ±" in header
    category = table.split('<tr class="mb-category">', 1)[1].split("</tr>", 1)[0]
    cells = [re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<td[^>]*>(.*?)</td>", category)]
    assert cells[0] == "&lt;b&gt;cat&lt;/b&gt;" and cells[-2:] == ["[0.05, 0.70]", "0.330"]
    assert "wilson table" not in fragment and "n=1" not in fragment, "each category once, in its own row"
    assert "the smallest difference between two runs this category can tell apart" in fragment


def test_items_come_in_natural_order_each_closed_row_saying_its_question_and_verdict() -> None:
    from pytest_memorybench.reports.report_items import items_view, natural_key

    names = ["locomo::c::multi_hop[39]", "locomo::c::multi_hop[3]", "locomo::c::multi_hop[100]"]
    assert sorted(names, key=natural_key) == [names[1], names[0], names[2]]
    records = [
        {
            **hostile_record(),
            "nodeid": name,
            "questions": [f"Question {at} " + "word " * 20],
            "reasons": ["r"],
        }
        for at, name in enumerate(names)
    ]
    view = items_view(records, {})
    order = [dict(zip(ITEM_FIELDS, item, strict=True)) for item in view["data"]["items"]]
    assert [item["nodeid"] for item in order] == sorted(names, key=natural_key)
    assert order[0]["preview"] == "Question 1 " + "word " * 10 + "… — r"
    assert order[0]["where"].count("<b>cat</b>") == 1


def test_the_meta_line_names_a_category_that_is_also_a_skill_once() -> None:
    from pytest_memorybench.reports.report_items import item_view

    record = {**hostile_record(), "category": "multi_hop", "skills": ["multi_hop"]}
    assert item_view(record, None)["where"] == "ltm.colours · multi_hop · span 1.2k tokens (over 1.0k)"


def test_the_pytest_html_summary_is_escaped_too() -> None:
    fragment = summary_fragment(results_with_hostile_names(), None)
    assert fragment.startswith("<style>") and ".mb " in fragment
    assert "<script>m</script>" in "".join(assert_inert(fragment.split("</style>", 1)[1]).text)


def write_events(path: Path, events: list[dict]) -> None:
    with path.open("a") as file:
        for event in events:
            file.write(json.dumps(event) + "\n")


def exchange(
    i: int, source: str, test: str | None, text: str, tokens: int, kind: str = "reply"
) -> list[dict]:
    return [
        {
            "kind": "message",
            "group": "g",
            "i": i,
            "source": source,
            "test": test,
            "text": text,
            "is_question": False,
            "time": f"2026-01-01T10:0{i}:00+00:00",
        },
        {
            "kind": kind,
            "group": "g",
            "i": i,
            "source": source,
            "test": test,
            "text": f"re {text}",
            "tokens": tokens,
        },
    ]


def test_a_transcript_keeps_the_tests_own_turns_and_collapses_the_rest(tmp_path: Path) -> None:
    log = tmp_path / "events.jsonl"
    write_events(
        log,
        [
            *exchange(0, "intro", None, "hello", 10),
            *exchange(1, "test", "t1", "My dog is Rex.", 20),
            *exchange(2, "filler", None, "Q: trivia", 120, kind="observed"),
            *exchange(3, "test", "t2", "Other test line.", 140),
            *exchange(4, "filler", None, "Q: more trivia", 300),
        ],
    )
    log.open("a").write(
        '{"kind": "message", "group": "g", "i": 5, "source": "test", "test": "t1", "text": "Wha'
    )
    index = EventIndex([tmp_path, None])
    index.refresh()
    assert index.transcript("g", "t1") == [
        TranscriptTurn("My dog is Rex.", "re My dog is Rex.", "2026-01-01T10:01:00+00:00")
    ]
    with log.open("a") as file:  # the torn line completes, then the reply arrives
        file.write('t is my dog called?", "is_question": true, "time": null}\n')
    write_events(log, [{"kind": "reply", "group": "g", "i": 5, "test": "t1", "text": "Rex", "tokens": 320}])
    index.refresh()
    turns = index.transcript("g", "t1")
    assert turns == [
        TranscriptTurn("My dog is Rex.", "re My dog is Rex.", "2026-01-01T10:01:00+00:00"),
        Gap(exchanges=3, filler=2, other_tests=1, tokens=280),
        TranscriptTurn("What is my dog called?", "Rex", None, is_question=True),
    ]
    assert index.transcript("g", "nobody") is None and index.transcript("other", "t1") is None


def pytest_html_extras(report: Path) -> list[dict]:
    """The tests' data pytest-html embeds in its page (its JavaScript renders the rows from it)."""
    blob = re.search(r'data-jsonblob="([^"]*)"', report.read_text()).group(1)  # type: ignore[union-attr]
    from html import unescape

    return list(json.loads(unescape(blob))["tests"].values())


def test_pytest_html_gets_a_score_column_a_summary_and_escaped_extras(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(HOSTILE_AGENT)
    result = pytester.runpytest(*ISOLATED, "--html=report/r.html", "--self-contained-html", "--mb-output=run")
    result.assert_outcomes(failed=3)
    page = (pytester.path / "report" / "r.html").read_text()
    assert '<th class="sortable" data-column-type="score">Score</th>' in page
    summary = page.split('<div class="additional-summary postfix">', 1)[1].split("</div>\n    </div>", 1)[0]
    assert 'class="mb-cards"' in summary and "Suite ltm" in summary and "<svg" in summary
    assert_inert(summary)
    for runs in pytest_html_extras(pytester.path / "report" / "r.html"):
        (call,) = [run for run in runs if "col-score" in "".join(run["resultsTableRow"])]
        assert '<td class="col-score">0.00</td>' in call["resultsTableRow"]
        (extra,) = call["extras"]
        assert extra["format_type"] == "html"
        text = "".join(assert_inert(extra["content"]).text)
        assert text.count(HOSTILE) == 5, "the answer, and the four replies of the transcript"
        assert "My favourite colour" in text or "favourite colour" in text
    standalone = report_items(pytester.path / "run")
    replies = [qa[2] for item in standalone for qa in item["qa"]]
    replies += [entry[1] for item in standalone for entry in item["transcript"] if not isinstance(entry, str)]
    assert replies.count(HOSTILE) == 5 * 3, "every reply of the 3 tests, as the data the page's script shows"


def test_a_curve_of_scores_keeps_the_whole_scale_and_short_tick_labels() -> None:
    from pytest_memorybench.reports.svg import line_chart

    labels = re.findall(r">([^<]+)</text>", line_chart([[10_100, 0.4], [52_000, 0.2]], title="capacity"))
    assert labels == ["capacity", "0", "1", "10k", "52k"], "y from 0 to 1, not to the curve's 0.4"
    labels = re.findall(r">([^<]+)</text>", line_chart([[0, 3.0], [5, 12.0]], title="counts"))
    assert labels == ["counts", "0", "12", "0", "5"], "other values keep their own range"


def test_the_pages_script_names_the_items_fields_as_the_data_packs_them() -> None:
    from pytest_memorybench.reports.html import TEMPLATES
    from pytest_memorybench.reports.report_items import ITEM_FIELDS

    script = (TEMPLATES / "report_items.js").read_text(encoding="utf-8")
    named = dict(re.findall(r"\b([A-Z_]+) = (\d+)\b", script))
    assert {name: int(at) for name, at in named.items()} == {
        field.upper(): at for at, field in enumerate(ITEM_FIELDS)
    }


def test_an_item_asked_after_the_conversation_says_so_and_its_details_are_words() -> None:
    record = {
        **hostile_record(),
        "details": {
            "context_tokens": 16130,
            "asks": [{"turns": 419, "tokens": 16130}],
            "evidence": {
                "k": 10,
                "returned": 2,
                "recall": 0.5,
                "memories": ["Rex is my dog.", "I live in Oslo."],
            },
        },
    }
    text = "".join(assert_inert(item_fragment(record, None)).text)
    assert "asked after 419 turns (16k tokens) of the conversation, on a copy of the memory" in text
    assert "context tokens16,130" in text and "asksturns 419, tokens 16,130" in text
    assert "evidencek 10, returned 2, recall 0.500" in text
    assert "evidence: memories returned, best firstRex is my dog.I live in Oslo." in text
