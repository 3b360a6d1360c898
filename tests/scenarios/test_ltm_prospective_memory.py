"""Prospective Memory (GoodAI App. A.5): generator, the reply counting, the scorer, and calibration."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path

import pytest

from pytest_memorybench.agents.reference.null import NullAgent
from pytest_memorybench.agents.reference.oracle import ACKNOWLEDGEMENT, OracleAgent
from pytest_memorybench.contract.program import Finish, Say, TestProgram, Wait
from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.conversation.scheduler import INTRO
from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.core.records import Message, Score, TestDefinition, TestOutcome
from pytest_memorybench.scenarios.ltm.prospective_memory import (
    INSTRUCTION,
    QUOTES,
    RESET,
    SCENARIO,
    cites_quote,
    ordinal,
    score_replies,
)
from tests.support.engine import converse_each
from tests.support.ltm import generator, goodai_definitions, goodai_results, needs_goodai

START = datetime(2026, 1, 1, 9, 0, tzinfo=timezone.utc)


generate = generator(SCENARIO)


# -- generator ------------------------------------------------------------------------------------


def test_our_quotes() -> None:
    assert len(QUOTES) >= 9 and len({author for _, author in QUOTES}) == len(QUOTES), "one quote per author"
    normalised = [cites_quote(a, b) for a, _ in QUOTES for b, _ in QUOTES if a != b]
    assert not any(normalised), "no quote contains another"


def test_shape_follows_the_paper() -> None:
    nths = set()
    for seed in range(60):
        definition = generate(seed=seed)
        statement, instruction = definition.script
        quote, author, nth = (definition.expected[key] for key in ("quote", "author", "nth"))
        nths.add(nth)
        assert (quote, author) in QUOTES
        assert quote in statement.text and author in statement.text and not statement.is_question
        assert instruction.is_question and instruction.text == INSTRUCTION.format(
            author=author, nth=ordinal(nth)
        )
        assert "first reply" in instruction.text and quote not in instruction.text
        assert [line.wait for line in definition.script] == [{"percentage_finished": 90.0}, {}]
        assert definition.reset_message == RESET and definition.skills == ("prospective",)
    assert nths == set(range(2, 9)), "n is drawn from 2..8"


def test_repetitions_of_a_seed_do_not_repeat_a_quote() -> None:
    quotes = [generate(seed=4, repetition=rep).expected["quote"] for rep in range(1, len(QUOTES) + 1)]
    assert sorted(quotes) == sorted(q for q, _ in QUOTES)


def test_parameters_and_ordinals() -> None:
    assert {generate(seed=s, min_reply=5, max_reply=5).expected["nth"] for s in range(5)} == {5}
    assert [ordinal(n) for n in (1, 2, 3, 4, 8, 11, 12, 13, 21, 22, 111)] == [
        "1st", "2nd", "3rd", "4th", "8th", "11th", "12th", "13th", "21st", "22nd", "111th",
    ]  # fmt: skip
    with pytest.raises(UsageError, match="min_reply and max_reply"):
        generate(min_reply=1)
    with pytest.raises(UsageError, match="unknown parameter 'n'"):
        SCENARIO.generate("ltm", {"n": 3}, 0, 1)


# -- scorer ---------------------------------------------------------------------------------------

QUOTE = "Hope is the thing with feathers that perches in the soul."
ACK = "Noted."


def replies_with(nth: int, at: Sequence[int], text: str = f'"{QUOTE}" - Emily Dickinson') -> list[str]:
    return [f"{ACK} {text}" if index in at else ACK for index in range(1, nth + 1)]


@pytest.mark.parametrize(
    ("nth", "at", "value", "why"),
    [
        (4, [4], 1, "exactly the nth reply"),
        (4, [3], 0, "off by one: one reply early"),
        (4, [5], 0, "off by one: one reply late (not yet said when the nth is judged)"),
        (4, [], 0, "never"),
        (4, [1, 4], 0, "also recited when acknowledging the instruction"),
        (4, [2, 4], 0, "also in an earlier reply"),
        (2, [2], 1, "the smallest n"),
        (8, [8], 1, "the largest n"),
        (2, [1], 0, "in the instruction's own reply, which counts as the first"),
    ],
)
def test_scorer_counts_from_the_reply_to_the_instruction(
    nth: int, at: list[int], value: int, why: str
) -> None:
    replies = replies_with(nth + 1, at)
    for profile in ("paper", "official"):
        assert score_replies(QUOTE, nth, replies, profile).value == value, why  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("reply", "paper", "official", "why"),
    [
        (f"Sure. {QUOTE}", 1, 1, "appended verbatim"),
        (
            "HOPE IS THE THING WITH FEATHERS THAT PERCHES IN THE SOUL",
            1,
            1,
            "case and final punctuation ignored",
        ),
        (
            "“Hope” is the thing with feathers — that perches in the soul.",
            1,
            0,
            "Unicode quotes and dash survive ASCII-only removal",
        ),
        (
            '"Hope" is the thing with feathers - that perches in the soul.',
            1,
            0,
            "an ASCII dash leaves two spaces in the reference",
        ),
        (
            "Hope is the thing with feathers,\nthat perches in the soul",
            1,
            0,
            "a line break instead of a space",
        ),
        ("Hope is the thing with feathers that perches in the soul", 1, 1, "no final full stop"),
        ("Hope is the thing with feathers.", 0, 0, "only half the quote"),
        ("Here is the quote by Emily Dickinson, as you asked.", 0, 0, "names the author without the quote"),
        ("I don't know.", 0, 0, "abstention"),
    ],
)
def test_quote_matching_under_both_profiles(reply: str, paper: int, official: int, why: str) -> None:
    assert cites_quote(QUOTE, reply, "paper") == bool(paper), why
    assert cites_quote(QUOTE, reply, "official") == bool(official), why


def test_curly_apostrophes_and_dashes() -> None:
    quote = "A house divided against itself cannot stand - it's a fact."  # made up, to test punctuation
    reply = "A house divided against itself cannot stand—it’s a fact."
    assert cites_quote(quote, reply, "paper")
    assert not cites_quote(quote, reply, "official"), "the reference deletes only ASCII punctuation"


def test_scorer_reasons() -> None:
    assert score_replies(QUOTE, 3, replies_with(3, [3])).reasons == (
        "the quote is in the 3rd reply and in no earlier one (paper profile)",
    )
    assert score_replies(QUOTE, 3, replies_with(3, [2])).reasons == (
        "the quote is not in the 3rd reply; it is in the 2nd reply instead (paper profile)",
    )
    assert score_replies(QUOTE, 3, replies_with(3, [1, 3])).reasons == (
        "the quote is in the 3rd reply but also in the 1st (paper profile)",
    )
    assert score_replies(QUOTE, 3, [ACK]).reasons == (
        "only 1 replies were seen after the instruction; the 3rd never came (paper profile)",
    )


def test_scenario_score_reads_the_replies_from_the_instruction_on() -> None:
    definition = generate(seed=2)
    quote, nth = definition.expected["quote"], definition.expected["nth"]
    assert SCENARIO.score(definition, replies_with(nth, [nth], quote), ScoringContext()).value == 1
    assert SCENARIO.score(definition, replies_with(nth, [nth - 1], quote), ScoringContext()).value == 0
    assert SCENARIO.score(definition, [ACK], ScoringContext()).value == 0


# -- through the engine ---------------------------------------------------------------------------


class Recording:
    """Wraps an agent, keeping every message it was sent and every reply it gave."""

    def __init__(self, agent: object) -> None:
        self.agent = agent
        self.received: list[str] = []
        self.replies: list[str] = []

    async def prime_answer(self, ideal: str) -> None:
        if hasattr(self.agent, "prime_answer"):
            await self.agent.prime_answer(ideal)  # type: ignore[attr-defined]

    async def reply(self, message: Message) -> str:
        self.received.append(message.text)
        self.replies.append(await self.agent.reply(message))  # type: ignore[attr-defined]
        return self.replies[-1]

    async def reset(self) -> None:
        if hasattr(self.agent, "reset"):
            await self.agent.reset()  # type: ignore[attr-defined]


class QuotesAt:
    """Acknowledges everything, and appends the quote to its kth reply counting the instruction's."""

    def __init__(self, k: int) -> None:
        self.k, self.count, self.quote = k, 0, ""

    async def reply(self, message: Message) -> str:
        match = re.search(r'"(.+)" \(', message.text)
        if match and message.text.startswith("Here is a quotation"):
            self.quote = match.group(1)
        if "counts as the first reply" in message.text:
            self.count = 1
        elif self.count:
            self.count += 1
        return f"{ACKNOWLEDGEMENT} {self.quote}" if self.count == self.k else ACKNOWLEDGEMENT


def run_engine(
    definitions: Sequence[TestDefinition],
    agent: object,
    *,
    span: int | None,
    tmp_path: Path,
    others: dict[str, object] | None = None,
) -> dict[str, TestOutcome]:
    return converse_each(definitions, agent, span=span, tmp_path=tmp_path, start=START, others=others)


REPETITIONS = [generate(seed=3, repetition=rep) for rep in (1, 2, 3)]  # n = 7, 8, 2


@pytest.mark.parametrize("span", [None, 2000], ids=["isolated", "span2000"])
def test_the_nth_reply_counts_the_instructions_own_reply_as_first(span: int | None, tmp_path: Path) -> None:
    """An agent quoting in its kth reply after the instruction scores 1 only for k = n."""
    definition = REPETITIONS[0]
    nth = definition.expected["nth"]
    for k in (nth - 1, nth, nth + 1):
        outcome = run_engine([definition], QuotesAt(k), span=span, tmp_path=tmp_path / str(k))[
            definition.test_id
        ]
        assert outcome.score.value == (1.0 if k == nth else 0.0), (k, outcome.score.reasons)


def test_isolated_mode_feeds_filler_until_the_nth_reply(tmp_path: Path) -> None:
    definition = REPETITIONS[0]
    nth = definition.expected["nth"]
    agent = Recording(OracleAgent())
    outcome = run_engine([definition], agent, span=None, tmp_path=tmp_path)[definition.test_id]
    assert agent.received[:2] == [line.text for line in definition.script]
    assert len(agent.received) == 2 + (nth - 1), "n − 1 filler messages after the instruction, no reset"
    assert all("\nQ: " in text for text in agent.received[2:])
    assert agent.replies[1 + nth - 1].endswith(
        f'"{definition.expected["quote"]}" - {definition.expected["author"]}'
    )
    assert sum(definition.expected["quote"] in reply for reply in agent.replies) == 1
    assert outcome.responses == ["Understood."]


def test_span_mode_counts_other_tests_turns_and_sends_the_reset_after_the_verdict(tmp_path: Path) -> None:
    definition = REPETITIONS[0]
    nth = definition.expected["nth"]

    async def chatter() -> TestProgram:
        for index in range(1, 9):
            yield Say(f"other line {index}")
            yield Wait(tokens=80)
        yield Finish(Score(1.0))

    agent = Recording(OracleAgent())
    outcomes = run_engine([definition], agent, span=400, tmp_path=tmp_path, others={"other": chatter})
    assert outcomes[definition.test_id].score.value == 1.0
    said = agent.received
    assert said[0] == INTRO
    instruction = said.index(definition.script[1].text)
    reset = said.index(RESET)
    assert reset == instruction + nth, "the reset right after the nth reply"
    assert any(text.startswith("other line") for text in said[instruction + 1 : reset]), (
        "other tests' turns count"
    )
    quoted = [index for index, reply in enumerate(agent.replies) if definition.expected["quote"] in reply]
    assert quoted == [instruction + nth - 1]


def test_null_never_quotes(tmp_path: Path) -> None:
    outcome = run_engine([REPETITIONS[1]], NullAgent(), span=None, tmp_path=tmp_path)[REPETITIONS[1].test_id]
    assert outcome.score.value == 0
    assert outcome.score.reasons[0].startswith("the quote is not in the")


# -- GoodAI definitions and stored verdicts --------------------------------------------------------


@needs_goodai
def test_from_goodai_runs_the_published_definitions(tmp_path: Path) -> None:
    for path in goodai_definitions("Prospective Memory"):
        raw = json.loads(path.read_text())
        definition = SCENARIO.from_goodai(raw, path.stem, "goodai", 1)
        assert [line.text for line in definition.script] == raw["script"]
        assert [line.is_question for line in definition.script] == raw["is_question"]
        quote, author, nth = raw["expected_responses"][0]
        assert definition.expected == {"quote": quote, "author": author, "nth": nth}
        for span in (None, 2000):
            outcome = run_engine(
                [definition], OracleAgent(), span=span, tmp_path=tmp_path / f"{path.stem}-{span}"
            )
            assert outcome[definition.test_id].score.value == 1.0


def _replies_after_instruction(log: list[str], instruction: str) -> list[str]:
    start = next(index for index, line in enumerate(log) if instruction in line)
    agent_lines = [line for line in log[start + 1 :] if line.startswith("Agent (")]
    return [line.split("): ", 1)[1] for line in agent_lines]


@needs_goodai
def test_parity_with_the_stored_verdicts() -> None:
    """The 9 stored Benchmark 3 verdicts (gpt-4o and Mixtral at 1k; gpt-4o at 32k isolated) against
    our scorer on the replies each run's `full_log` holds after the instruction (every agent reply,
    whichever test or filler it answered).  Both profiles agree 9/9: 8 zeros (ignored, recited when
    acknowledging, or recited in the 9th reply of a 6th-reply request) and one 1 (gpt-4o, isolated,
    quoting in the 5th filler reply = 6th reply)."""
    files = goodai_results("Prospective Memory")
    assert len(files) == 9
    agree = {"paper": 0, "official": 0}
    for path in files:
        result = json.loads(path.read_text())
        quote, _, nth = result["expected_responses"][0]
        instruction = next(line for line in result["task_log"] if "please append the quote" in line).split(
            "): ", 1
        )[1]
        replies = _replies_after_instruction(result["full_log"], instruction)
        for profile in agree:
            agree[profile] += score_replies(quote, nth, replies, profile).value == result["score"]  # type: ignore[arg-type]
    assert agree == {"paper": 9, "official": 9}
