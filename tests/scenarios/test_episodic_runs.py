"""The episodic scenario end to end: calibration (oracle 1 everywhere; null 1 on empty-answer
questions and 0 on the rest), delivery by chapters or as one document, item ids and markers, and
the plugin run with selection and summary metrics."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from pytest_memorybench.agents.agent_protocol import AgentAdapter
from pytest_memorybench.agents.reference.extractive import ExtractiveAgent
from pytest_memorybench.agents.reference.null import NullAgent
from pytest_memorybench.agents.reference.oracle import OracleAgent
from pytest_memorybench.contract.clock import SimulatedClock
from pytest_memorybench.contract.probes import ProbeContext
from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.conversation.channel import AgentChannel
from pytest_memorybench.conversation.events import EventLog
from pytest_memorybench.conversation.probing import ProbeSession
from pytest_memorybench.conversation.stats import ScheduledTest
from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.core.records import TestOutcome
from pytest_memorybench.judges.local import LocalJudge
from pytest_memorybench.scenarios import SCENARIOS, get_scenario
from pytest_memorybench.scenarios.episodic.book import BookPlan, generated_book
from pytest_memorybench.scenarios.episodic.scenario import SCENARIO
from pytest_memorybench.scenarios.episodic.scoring import summarize
from pytest_memorybench.suite import load_suite
from tests.support.engine import WordCounter
from tests.support.runs import results_in


def run(context: ProbeContext, agent: Any, tmp_path: Path) -> dict[str, TestOutcome]:
    log = EventLog(tmp_path / f"{type(agent).__name__}-{context.id}.jsonl")
    channel = AgentChannel(
        AgentAdapter(agent, type(agent).__name__),
        group=f"episodic::{context.id}",
        counter=WordCounter(),
        clock=SimulatedClock(datetime(2025, 1, 6, 9, 0)),
        log=log,
    )
    tests = [ScheduledTest(f"episodic::{d.test_id}", d) for d in context.probes]
    try:
        return asyncio.run(
            ProbeSession(
                context, tests, channel, scoring=ScoringContext(judge=LocalJudge()), scenario_of=get_scenario
            ).run()
        )
    finally:
        log.close()


def records(outcomes: dict[str, TestOutcome]) -> list[dict[str, Any]]:
    return [
        {
            "category": o.definition.category,
            "score": o.score.value,
            "reasons": list(o.score.reasons),
            "test_id": o.definition.test_id,
        }
        for o in outcomes.values()
    ]


@pytest.fixture(scope="module")
def short_book() -> ProbeContext:
    return SCENARIO.contexts("episodic", {"chapters": 20}, 0)[0]


def test_the_scenario_is_registered_and_the_suite_file_loads() -> None:
    assert SCENARIOS["episodic.book"] is SCENARIO
    suite = load_suite("episodic")
    generated = suite.generate(0)
    assert list(generated.contexts) == ["book20"] and len(generated.definitions) > 400


def test_the_oracle_scores_one_on_every_question(short_book: ProbeContext, tmp_path: Path) -> None:
    outcomes = run(short_book, OracleAgent(), tmp_path)
    assert len(outcomes) == len(short_book.probes)
    low = {key: (o.score.value, o.score.reasons) for key, o in outcomes.items() if o.score.value != 1.0}
    assert low == {}
    metrics = summarize(records(outcomes))
    assert metrics["simple_recall"] == metrics["chronological_awareness"] == 1.0


def test_the_null_agent_scores_one_on_empty_answer_questions_and_zero_on_the_rest(
    short_book: ProbeContext, tmp_path: Path
) -> None:
    outcomes = run(short_book, NullAgent(), tmp_path)
    empty = {o.definition.expected["n_chapters"] == 0 for o in outcomes.values()}
    assert empty == {True, False}
    for outcome in outcomes.values():
        wanted = 1.0 if outcome.definition.expected["n_chapters"] == 0 else 0.0
        assert outcome.score.value == wanted, outcome.definition.test_id
    metrics = summarize(records(outcomes))
    assert (metrics["empty_answer_mean"], metrics["non_empty_mean"]) == (1.0, 0.0)
    assert metrics["simple_recall"] == 0.25  # bins 0, 1, 2, 3-5: 1, 0, 0, 0
    assert metrics["chronological_awareness"] == 0.0


def test_recall_reads_the_book_chapter_by_chapter_and_answers_from_it(tmp_path: Path) -> None:
    agent = ExtractiveAgent()
    outcomes = run(SCENARIO.contexts("episodic", {"chapters": 20, "per_bin": 2}, 0)[0], agent, tmp_path)
    assert len(agent._store.texts) == 20 and agent._store.texts[0].startswith(
        "Chapter 1\n\n"
    )  # one memory per chapter
    metrics = summarize(records(outcomes))
    assert 0.3 < metrics["non_empty_mean"] < 0.95  # between null and oracle
    assert metrics["chronological_exact"] == 0.0  # one chapter never lists every date of an entity
    single = [
        o.score.value
        for o in outcomes.values()
        if o.definition.expected["n_chapters"] == 1 and o.definition.expected["get"] == "all"
    ]
    assert sum(single) / len(single) > 0.6


def test_document_delivery_gives_the_whole_book_in_one_message(tmp_path: Path) -> None:
    context = SCENARIO.contexts("episodic", {"chapters": 6, "per_bin": 1, "delivery": "document"}, 0)[0]
    turns = list(context.turns())
    book = generated_book(BookPlan(0, 6))
    assert len(turns) == 1 and turns[0].text == book.document()
    agent = ExtractiveAgent()
    outcomes = run(context, agent, tmp_path)
    assert len(agent._store.texts) == 1
    oracle = run(context, OracleAgent(), tmp_path)
    assert {o.score.value for o in oracle.values()} == {1.0} and len(outcomes) == len(oracle)


def test_item_ids_markers_and_categories(short_book: ProbeContext) -> None:
    ids = [d.test_id for d in short_book.probes]
    assert len(set(ids)) == len(ids)
    assert ids[0] == "q0000[t00-(t,*,*,*)-spaces]"
    pattern = re.compile(
        r"q\d{4}\[t\d\d-\((t|\*),(s|\*),(ent|\*),(c|\*)\)-[a-z_]+(-latest|-chronological)?\]"
    )
    assert all(pattern.fullmatch(test_id) for test_id in ids)
    for definition in short_book.probes:
        expected = definition.expected
        assert all(marker.isidentifier() for marker in definition.markers)
        assert definition.category == f"{expected['get']}/{expected['bin']}"
        assert expected["get"] in definition.markers and ("empty" in definition.markers) == (
            expected["n_chapters"] == 0
        )
        assert definition.context == short_book.id and definition.skills == ("episodic",)
    chronological = [d for d in short_book.probes if "chronological" in d.markers]
    assert chronological and all(d.test_id.endswith("-chronological]") for d in chronological)
    full = [d for d in short_book.probes if "full_details" in d.markers and "empty" not in d.markers]
    assert full and all(d.expected["judge_answer"][0] in d.ideal_answers[0] for d in full)


def test_contexts_are_deterministic_and_stream_their_turns(short_book: ProbeContext) -> None:
    again = SCENARIO.contexts("episodic", {"chapters": 20}, 0)[0]
    assert again.probes == short_book.probes
    turns: Iterator[Any] = iter(short_book.turns())
    assert next(turns).text.startswith("Chapter 1\n\n")
    assert SCENARIO.contexts("episodic", {"chapters": 20}, 1)[0].probes != short_book.probes


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"delivery": "scroll"}, "delivery must be one of chapters, document"),
        ({"chapters": 0}, "chapters must be at least 1"),
        ({"start_date": "March 2024"}, "start_date must be an ISO date"),
        (
            {"start_date": "2026-01-01", "end_date": "2024-01-01"},
            "start_date 2026-01-01 is after end_date 2024-01-01",
        ),
        ({"p": 1.5}, "p must be strictly between 0 and 1, got 1.5"),
        ({"chapters": 5_000, "universe_size": 2}, "5000 events cannot have distinct (date, location) pairs"),
        ({"chapters": 20_000}, "chapters must be at most 10,000, got 20,000"),
        ({"pages": 3}, "unknown parameter 'pages'"),
        ({"data_path": "/no/such/book"}, "no such file or folder"),
    ],
)
def test_bad_parameters_are_one_line_usage_errors(params: dict[str, Any], message: str) -> None:
    with pytest.raises(UsageError, match=re.escape(message)):
        SCENARIO.contexts("episodic", params, 0)


SUITE = """
name: episodic
span: isolated
scenarios:
  - scenario: episodic.book
    params: {chapters: 6, per_bin: 1}
"""


def test_a_plugin_run_selects_by_marker_and_reports_the_papers_metrics(pytester: pytest.Pytester) -> None:
    pytester.makefile(".yaml", mini=SUITE)
    run_dir = pytester.path / "run"
    args = ["--memorybench", "--mb-suite=mini.yaml", "-p", "no:cacheprovider", "--strict-markers"]
    result = pytester.runpytest(*args, "--agent=null", f"--mb-output={run_dir}")
    outcomes = result.parseoutcomes()
    assert outcomes["passed"] > 10 and outcomes["failed"] > 10
    result.stdout.fnmatch_lines(
        ["*simple_recall * 0.333*", "*non_empty_mean * 0.000*"]
    )  # printed in the summary
    results = results_in(run_dir)
    metrics = results["scenarios"]["episodic.book"]["metrics"]
    assert (metrics["empty_answer_mean"], metrics["non_empty_mean"]) == (1.0, 0.0)
    assert all(item["test_id"].startswith("q") for item in results["items"])

    chronological = pytester.runpytest(
        *args, "--agent=oracle", f"--mb-output={pytester.path / 'chrono'}", "-m", "chronological"
    )
    counts = chronological.parseoutcomes()
    assert counts["passed"] >= 3 and counts["deselected"] > 30 and "failed" not in counts
    empty = pytester.runpytest(*args, "--agent=null", f"--mb-output={pytester.path / 'empty'}", "-k", "bin0")
    counts = empty.parseoutcomes()
    assert counts["passed"] == 36 and "failed" not in counts  # one empty-answer question per template
