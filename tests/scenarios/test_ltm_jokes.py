"""Jokes (GoodAI App. A.2): generator, the ask-time question, the scorer, and engine calibration."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from pytest_memorybench.agents.reference.oracle import OracleAgent
from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.core.records import Message, TestDefinition, TestOutcome
from pytest_memorybench.judges.base import JudgeStats, JudgeTask, JudgeVerdict
from pytest_memorybench.scenarios.ltm.jokes import (
    JOKES,
    QUESTION_TEMPLATE,
    SCENARIO,
    elapsed_phrase,
    score_joke,
)
from tests.support.engine import converse_each
from tests.support.ltm import GOODAI_TESTS, generator, goodai_results, needs_goodai

DEFINITIONS = GOODAI_TESTS / "Benchmark 3 - 32k/definitions/Jokes"
START = datetime(2026, 1, 1, 9, 0, tzinfo=timezone.utc)


generate = generator(SCENARIO)


# -- generator ------------------------------------------------------------------------------------


def test_our_jokes_are_nine_or_more_distinct_one_liners() -> None:
    assert len(JOKES) >= 9 and len(set(JOKES)) == len(JOKES)
    assert not any(a != b and a in b for a in JOKES for b in JOKES), "no joke contains another verbatim"
    assert all(joke.isascii() and "\n" not in joke for joke in JOKES)


def test_shape_follows_the_paper() -> None:
    for seed in range(40):
        definition = generate(seed=seed)
        jokes = [line for line in definition.script if not line.is_question]
        assert len(jokes) == 4 and len({line.text for line in jokes}) == 4, "drawn without replacement"
        assert all(line.text in JOKES for line in jokes)
        assert definition.script[-1].is_question and definition.script[-1].text == QUESTION_TEMPLATE
        assert definition.script[-1].wait == {}
        assert definition.expected in [line.text for line in jokes] and definition.ideal_answers == (
            definition.expected,
        )
        assert [line.wait["percentage_finished"] for line in jokes] == [22.5, 45.0, 67.5, 90.0]
        assert all(30 * 60 <= line.wait["time"] <= 240 * 60 and line.wait["time"] % 60 == 0 for line in jokes)
        assert definition.skills == ("episodic",) and definition.reset_message is None
    assert {generate(seed=s).expected for s in range(40)} - set(JOKES) == set()
    targets = {
        [line.text for line in generate(seed=s).script].index(generate(seed=s).expected) for s in range(40)
    }
    assert targets == {0, 1, 2, 3}, "any told joke can be the target"


def test_parameters() -> None:
    assert len(generate(jokes_told=6).script) == 7
    assert all(line.wait["time"] == 600 for line in generate(minutes_low=10, minutes_high=10).script[:-1])
    with pytest.raises(UsageError, match="jokes_told must be between 1 and"):
        generate(jokes_told=len(JOKES) + 1)
    with pytest.raises(UsageError, match="minutes_low and minutes_high"):
        generate(minutes_low=50, minutes_high=40)
    with pytest.raises(UsageError, match="unknown parameter 'jokes'"):
        SCENARIO.generate("ltm", {"jokes": 3}, 0, 1)


# -- the ask-time question -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("minutes", "paper", "official"),
    [
        (4 * 60 + 36, "4 hours 36 minutes", "4 hours 36 minutes"),
        (45, "45 minutes", "45 minutes"),
        (60 + 1, "1 hour 1 minute", "1 hours 1 minutes"),
        (3 * 60, "3 hours", "3 hours 0 minutes"),  # the reference says "0 minutes" on the hour
        (27 * 60 + 5, "27 hours 5 minutes", "3 hours 5 minutes"),  # the reference drops whole days
        (24 * 60, "24 hours", "less than a minute"),
        (0, "less than a minute", "less than a minute"),
    ],
)
def test_elapsed_phrase_under_both_profiles(minutes: int, paper: str, official: str) -> None:
    assert elapsed_phrase(timedelta(minutes=minutes, seconds=59), "paper") == paper
    assert elapsed_phrase(timedelta(minutes=minutes, seconds=59), "official") == official


# -- scorer ---------------------------------------------------------------------------------------


class AlwaysRefers:
    """An over-generous judge, as in App. B.2: it says every answer refers to the expected joke."""

    name = "generous"

    def __init__(self) -> None:
        self.stats = JudgeStats()
        self.tasks: list[JudgeTask] = []

    async def judge(self, task: JudgeTask) -> JudgeVerdict:
        self.tasks.append(task)
        return JudgeVerdict(task.kind, {"refers": True, "expected_is_number": False, "numbers_match": None})


DEFINITION = generate(seed=0)
TARGET = DEFINITION.expected  # "My toaster wrote a memoir, ..."
OTHER_JOKE = DEFINITION.script[0].text if DEFINITION.script[0].text != TARGET else DEFINITION.script[1].text
OTHER = next(line.text for line in DEFINITION.script if not line.is_question and line.text != TARGET)
QUESTION = "Which joke did I tell you about 4 hours 36 minutes ago?"


def verdict(reply: str, profile: str = "paper", judge: object = None) -> float:
    context = ScoringContext(profile=profile, judge=judge)  # type: ignore[arg-type]
    return asyncio.run(score_joke(DEFINITION, QUESTION, reply, context)).value


@pytest.mark.parametrize(
    ("reply", "value", "why"),
    [
        (TARGET, 1, "the joke itself"),
        (f'Sure! You told me: "{TARGET}" Still makes me laugh.', 1, "verbose, but verbatim inside"),
        (
            " ".join(line.text for line in DEFINITION.script[:-1]),
            0,
            "listing every joke names none (published verdicts)",
        ),
        (
            (f"{OTHER_JOKE} No wait, it was: {TARGET}"),
            1,
            "one other joke mentioned, then the target: an answer",
        ),
        (
            "The one about the toaster that wrote a memoir full of crumbs and warm feelings.",
            1,
            "paraphrase: the judge decides",
        ),
        (TARGET.lower(), 1, "verbatim is case-sensitive; the judge still recognises it"),
        ("I don't know.", 0, "abstention"),
        (OTHER, 0, "another joke of the same test"),
        ('You told me the joke: "I had to put my foot down."', 0, "a fragment of an unrelated joke"),
        ("Something about a toaster?", 0, "too vague to refer to the joke"),
        ("", 0, "empty reply"),
    ],
)
def test_scorer_on_concrete_replies(reply: str, value: int, why: str) -> None:
    assert verdict(reply, "paper") == value, why
    assert verdict(reply, "official") == value, why


def test_verbatim_match_skips_the_judge_and_says_so() -> None:
    judge = AlwaysRefers()
    score = asyncio.run(score_joke(DEFINITION, QUESTION, f"It was: {TARGET}", ScoringContext(judge=judge)))
    assert score.value == 1 and judge.tasks == []
    assert score.reasons == ("the reply quotes the target joke verbatim (paper profile)",)


def test_the_judge_gets_the_question_actually_asked() -> None:
    judge = AlwaysRefers()
    asyncio.run(score_joke(DEFINITION, QUESTION, "the toaster one", ScoringContext(judge=judge)))
    assert judge.tasks[0].kind == "reference"
    assert judge.tasks[0].payload == {"question": QUESTION, "expected": TARGET, "answer": "the toaster one"}


def test_another_joke_of_the_test_scores_zero_under_paper_even_if_the_judge_says_yes() -> None:
    """App. B.2: the LLM judge credited replies that named a different joke; the authors zeroed
    them by hand.  `paper` does this itself; `official` follows the judge, as the reference code."""
    reply = f"You told me this one: {OTHER}"
    assert verdict(reply, "paper", AlwaysRefers()) == 0
    assert verdict(reply, "official", AlwaysRefers()) == 1


def test_scenario_score_without_the_asked_question() -> None:
    right = asyncio.run(SCENARIO.score(DEFINITION, [TARGET], ScoringContext()))
    wrong = asyncio.run(SCENARIO.score(DEFINITION, ["I don't know."], ScoringContext()))
    missing = asyncio.run(SCENARIO.score(DEFINITION, [], ScoringContext()))
    assert (right.value, wrong.value, missing.value) == (1, 0, 0)


# -- through the engine ---------------------------------------------------------------------------


class Recording:
    """Wraps an agent, keeping every message it was sent."""

    def __init__(self, agent: object) -> None:
        self.agent = agent
        self.received: list[Message] = []

    async def prime_answer(self, ideal: str) -> None:
        if hasattr(self.agent, "prime_answer"):
            await self.agent.prime_answer(ideal)  # type: ignore[attr-defined]

    async def reply(self, message: Message) -> str:
        self.received.append(message)
        return await self.agent.reply(message)  # type: ignore[attr-defined]

    async def reset(self) -> None:
        if hasattr(self.agent, "reset"):
            await self.agent.reset()  # type: ignore[attr-defined]


def run_engine(
    definitions: Sequence[TestDefinition],
    agent: Recording,
    *,
    span: int | None,
    tmp_path: Path,
    profile: str = "paper",
) -> dict[str, TestOutcome]:
    return converse_each(definitions, agent, span=span, tmp_path=tmp_path, profile=profile, start=START)


REPETITIONS = [generate(seed=0, repetition=rep) for rep in (1, 2, 3)]


@pytest.mark.parametrize("span", [None, 2000], ids=["isolated", "span2000"])
def test_the_question_states_the_simulated_time_since_the_target_joke(
    span: int | None, tmp_path: Path
) -> None:
    definition = REPETITIONS[0]
    agent = Recording(OracleAgent())
    run_engine([definition], agent, span=span, tmp_path=tmp_path)
    said = {m.text: m.timestamp for m in agent.received}
    question = next(text for text in said if text.startswith("Which joke"))
    jokes = [line for line in definition.script if not line.is_question]
    target = [line.text for line in jokes].index(definition.expected)
    elapsed = timedelta(seconds=sum(line.wait["time"] for line in jokes[target:]))
    assert said[question] - said[definition.expected] == elapsed
    assert question == QUESTION_TEMPLATE.format(elapsed=elapsed_phrase(elapsed))
    assert "{" not in question


def test_results_and_failures_show_the_question_as_asked(tmp_path: Path) -> None:
    from pytest_memorybench.agents.reference.null import NullAgent
    from pytest_memorybench.core.spans import parse_span
    from pytest_memorybench.pytest_integration.items import failure_text
    from pytest_memorybench.results.build import item_record
    from pytest_memorybench.runner.plan import PlannedTest

    definition = REPETITIONS[0]
    outcome = next(
        iter(run_engine([definition], Recording(NullAgent()), span=None, tmp_path=tmp_path).values())
    )
    assert definition.questions == [QUESTION_TEMPLATE]
    assert (
        outcome.questions[0].startswith("Which joke did I tell you about ")
        and "{" not in outcome.questions[0]
    )
    record = item_record("ltm::jokes[rep1]", outcome, threshold=1.0, conversation="c", passed=False)
    assert record["questions"] == outcome.questions
    test = PlannedTest("ltm::jokes[rep1]", "c", definition, 1.0, parse_span("isolated"))
    assert f"question: {outcome.questions[0]}" in failure_text(test, outcome)


def test_the_question_follows_the_profile_through_the_engine(tmp_path: Path) -> None:
    """Eight waits of 240 minutes: the target (the 2nd joke) was told 28 hours before the question.
    `paper` says so; `official` drops the day and says "0 minutes" on the hour, like the reference."""
    definition = generate(seed=1, jokes_told=8, minutes_low=240, minutes_high=240)
    assert [line.text for line in definition.script].index(definition.expected) == 1
    questions = {}
    for profile in ("paper", "official"):
        agent = Recording(OracleAgent())
        outcomes = run_engine([definition], agent, span=None, tmp_path=tmp_path / profile, profile=profile)
        assert next(iter(outcomes.values())).score.value == 1.0
        questions[profile] = next(m.text for m in agent.received if m.text.startswith("Which joke"))
    assert questions == {
        "paper": "Which joke did I tell you about 28 hours ago?",
        "official": "Which joke did I tell you about 4 hours 0 minutes ago?",
    }


# -- GoodAI definitions ---------------------------------------------------------------------------


@needs_goodai
def test_from_goodai_runs_the_published_definitions(tmp_path: Path) -> None:
    raw = json.loads((DEFINITIONS / "0.def.json").read_text())
    definition = SCENARIO.from_goodai(raw, "0", "goodai", 1)
    assert [line.text for line in definition.script[:-1]] == raw["script"]
    assert definition.script[-1].is_question and definition.script[-1].text == QUESTION_TEMPLATE
    assert [line.wait for line in definition.script] == raw["waits"]
    assert definition.expected == raw["expected_responses"][0] == definition.ideal_answers[0]
    agent = Recording(OracleAgent())
    outcome = next(iter(run_engine([definition], agent, span=None, tmp_path=tmp_path).values()))
    assert outcome.score.value == 1.0
    # The target is the last joke, then 8460 s pass: 2 hours 21 minutes.
    assert agent.received[-1].text == "Which joke did I tell you about 2 hours 21 minutes ago?"


@needs_goodai
def test_parity_with_the_stored_verdicts() -> None:
    """All 10 stored Benchmark 3 Jokes verdicts (gpt-4o, Mixtral; 1k, 32k, 32k isolated) are 0,
    decided by GPT-4-turbo after the verbatim phase failed.  Our verbatim phase agrees on all 10
    (no reply quotes its target), and with the offline `local` judge both profiles agree 10/10,
    including gpt-4o quoting a *different* joke of the test ("It takes a lot of balls ...")."""
    files = goodai_results("Jokes")
    assert len(files) == 10
    agree = {"paper": 0, "official": 0}
    for path in files:
        result = json.loads(path.read_text())
        expected = result["expected_responses"][0]
        definition = TestDefinition("goodai", "ltm.jokes", 1, 0, (), (expected,), expected)
        reply = result["actual_responses"][0]
        assert expected not in reply
        for profile in agree:
            score = asyncio.run(
                score_joke(
                    definition,
                    "Which joke did I tell you about some time ago?",
                    reply,
                    ScoringContext(profile=profile),
                )
            )  # type: ignore[arg-type]
            agree[profile] += score.value == result["score"]
    assert agree == {"paper": 10, "official": 10}
