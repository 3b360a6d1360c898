"""Reference memory agents and the extractive answerer behind them: windows, retrieval, options."""

from __future__ import annotations

from datetime import datetime

import pytest

from pytest_memorybench.agents.agent_build import build_agent
from pytest_memorybench.agents.reference.extractive import (
    ExtractiveAgent,
    Statements,
    answer,
    pick_option,
    split_choices,
)
from pytest_memorybench.agents.reference.memories import (
    FullMemory,
    FullMemoryAgent,
    MemoryAgent,
    RecentMemory,
    RetrievalMemory,
)
from pytest_memorybench.agents.reference.null import ABSTENTION
from pytest_memorybench.agents.reference.oracle import ACKNOWLEDGEMENT
from pytest_memorybench.agents.registry import REFERENCE_AGENTS
from pytest_memorybench.agents.spec import parse_agent_spec
from pytest_memorybench.core.records import Message

WHEN = datetime(2024, 5, 1, 9, 0)
QUESTION = (
    "How long does the Silver Wave Conference last?\nA. four days\nB. one day\nC. two days\nD. six"
    " days\nAnswer with a letter."
)


def msg(text: str) -> Message:
    return Message(text, WHEN)


def test_options_are_split_from_the_question() -> None:
    stem, options = split_choices(QUESTION)
    assert stem == "How long does the Silver Wave Conference last?"
    assert options == {"A": "four days", "B": "one day", "C": "two days", "D": "six days"}
    assert split_choices("(A) red\n(B) blue") == ("", {"A": "red", "B": "blue"})
    assert split_choices("What is my favourite colour?") == ("What is my favourite colour?", {})
    assert split_choices("Plan:\nA. only one option") == ("Plan:\nA. only one option", {}), (
        "two options at least"
    )
    assert split_choices("B. starts at B\nC. then C")[1] == {}, "options start at A"


def test_the_answerer_picks_the_option_that_was_said_and_the_newest_on_a_tie() -> None:
    memory = Statements([
        "The Silver Wave Conference lasts four days.",
        "My aunt is 52 years old.",
        "Small update to what I said before. The Silver Wave Conference lasts one day.",
    ])  # fmt: skip
    assert answer(QUESTION, memory) == "B", "the correction beats what it corrects"
    ages = Statements(
        ["My brother is 28 years old.", "My aunt is 35 years old.", "My brother works in Denver, CO."]
    )
    options = {"A": "35 years old", "B": "28 years old", "C": "41 years old", "D": "19 years old"}
    assert pick_option("How old is my brother?", options, ages) == "B", (
        "a value said beats one sharing 'years old'"
    )
    assert pick_option("How many people are there?", {"A": "2 people", "B": "3 people"}, ages) is None
    assert answer("Which one?\nA. alpha\nB. beta", Statements()) == ABSTENTION


def test_titles_are_found_through_the_options_when_the_question_matches_nothing() -> None:
    memory = Statements(
        ["You could go for Kimchi Stew. It rarely disappoints.", "Try Miso Soup. I think it will suit you."]
    )
    options = {
        "A": "Kimchi Stew, Tiramisu",
        "B": "Kimchi Stew, Miso Soup",
        "C": "Ceviche, Miso Soup",
        "D": "Tiramisu, Ceviche",
    }
    assert pick_option("Which dishes have you recommended to me?", options, memory) == "B"


@pytest.mark.asyncio
async def test_the_recall_agent_answers_multiple_choice_with_a_letter() -> None:
    agent = ExtractiveAgent()
    await agent.observe([msg("The Silver Wave Conference lasts four days."), msg(QUESTION)])
    assert len(agent._store.texts) == 1, "a multiple-choice question is not stored"
    assert await agent.reply(msg(QUESTION)) == "A"


def test_full_memory_keeps_the_newest_messages_that_fit_its_window() -> None:
    memory = FullMemory(context_words=6)
    for text in ("one two three", "four five", "six seven", "eight"):
        memory.store(text)
    assert memory.read("anything") == ["four five", "six seven", "eight"]


def test_recent_memory_keeps_the_last_turns() -> None:
    memory = RecentMemory(turns=2)
    for text in ("a fact", "b fact", "c fact"):
        memory.store(text)
    assert memory.read("fact") == ["b fact", "c fact"]
    with pytest.raises(ValueError, match="turns >= 1"):
        RecentMemory(turns=0)


def test_retrieval_memory_returns_the_top_k_within_its_word_budget() -> None:
    memory = RetrievalMemory(k=2, max_words=12)
    for text in (
        "Anna lives in Lisbon.",
        "Tom lives in Oslo and likes the cold winters a lot.",
        "Anna plays cello.",
        "The sky is blue.",
    ):
        memory.store(text)
    assert memory.read("Where Anna lives") == ["Anna lives in Lisbon.", "Anna plays cello."]
    assert RetrievalMemory(k=3, max_words=5).read("x") == []
    small = RetrievalMemory(k=3, max_words=6)
    for text in ("Anna plays the cello in Lisbon.", "Anna lives in Lisbon."):
        small.store(text)
    assert small.read("Anna Lisbon") == ["Anna lives in Lisbon."], "stops before the budget overflows"


@pytest.mark.asyncio
async def test_a_memory_agent_answers_only_from_what_its_memory_recalls() -> None:
    recent = MemoryAgent(RecentMemory(turns=2))
    await recent.observe(
        [msg("My sister Anna lives in Lisbon."), msg("Nice weather today."), msg("The bus was late.")]
    )
    assert await recent.reply(msg("Where does my sister Anna live?")) == ABSTENTION, (
        "the fact left the window"
    )
    assert await recent.context() == ["Nice weather today.", "The bus was late."]  # what it read
    full = FullMemoryAgent()
    assert await full.reply(msg("My sister Anna lives in Lisbon.")) == ACKNOWLEDGEMENT
    await full.observe([msg("Nice weather today."), msg("The bus was late.")])
    assert await full.reply(msg("Where does my sister Anna live?")) == "My sister Anna lives in Lisbon."
    assert await full.retrieve("sister Anna", 5) == ["My sister Anna lives in Lisbon."]


@pytest.mark.asyncio
async def test_memory_agents_fork_and_reset() -> None:
    agent = MemoryAgent(RetrievalMemory())
    await agent.observe([msg("My cat is called Tom.")])
    fork = await agent.fork()
    await fork.observe([msg("My dog is called Rex.")])
    assert await agent.retrieve("dog called", 3) == ["My cat is called Tom."]
    assert "My dog is called Rex." in await fork.retrieve("dog called", 3)
    await agent.reset()
    assert await agent.retrieve("cat called", 3) == []


def test_the_memory_agents_are_built_in_agent_names() -> None:
    for name in ("full-memory", "recent-memory", "retrieval-memory"):
        spec = parse_agent_spec(name)
        assert spec.kind == "builtin"
        adapter = build_agent(spec)
        assert isinstance(adapter.target, MemoryAgent)
        assert adapter.capabilities == ["observe", "reset", "retrieve", "context", "fork"]
    assert {"full-memory", "recent-memory", "retrieval-memory"} <= set(REFERENCE_AGENTS)
