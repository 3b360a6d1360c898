"""The `recall` BM25 baseline: what it remembers, what it answers, and its memory operations."""

from __future__ import annotations

from datetime import datetime

import pytest

from pytest_memorybench.agents.reference.extractive import RECENCY_BAND, ExtractiveAgent
from pytest_memorybench.agents.reference.null import ABSTENTION
from pytest_memorybench.agents.reference.oracle import ACKNOWLEDGEMENT
from pytest_memorybench.core.records import Message

WHEN = datetime(2024, 1, 1, 12, 0)
COLOUR_QUESTION = "What is my favourite colour?"


def msg(text: str) -> Message:
    return Message(text, WHEN)


async def told(*statements: str) -> ExtractiveAgent:
    agent = ExtractiveAgent()
    for statement in statements:
        assert await agent.reply(msg(statement)) == ACKNOWLEDGEMENT
    return agent


def test_constants() -> None:
    assert ABSTENTION == "I don't know."
    assert ACKNOWLEDGEMENT == "Noted."
    assert RECENCY_BAND == 0.8


@pytest.mark.asyncio
async def test_empty_memory_abstains() -> None:
    assert await ExtractiveAgent().reply(msg(COLOUR_QUESTION)) == ABSTENTION


@pytest.mark.asyncio
async def test_statement_is_acknowledged_and_answers_the_question() -> None:
    agent = await told("My favourite colour is Red.")
    assert await agent.reply(msg(COLOUR_QUESTION)) == "My favourite colour is Red."


@pytest.mark.asyncio
async def test_questions_are_not_remembered() -> None:
    agent = ExtractiveAgent()
    # A question is answered (here: abstention), never stored as a fact.
    assert await agent.reply(msg("Is my favourite colour Red?")) == ABSTENTION
    assert await agent.reply(msg(COLOUR_QUESTION)) == ABSTENTION
    assert await agent.retrieve("favourite colour red", 5) == []


@pytest.mark.asyncio
async def test_question_gets_the_best_matching_statement() -> None:
    agent = await told(
        "My sister Anna lives in Lisbon.",
        "My brother Tom lives in Oslo.",
        "Anna plays the cello.",
    )
    assert await agent.reply(msg("Where does my sister Anna live?")) == "My sister Anna lives in Lisbon."
    assert await agent.reply(msg("Where does my brother Tom live?")) == "My brother Tom lives in Oslo."


@pytest.mark.asyncio
async def test_equal_matches_the_newest_wins() -> None:
    agent = await told("My favourite colour is Red.", "My favourite colour is Blue.")
    assert await agent.reply(msg(COLOUR_QUESTION)) == "My favourite colour is Blue."
    await agent.reply(msg("My favourite colour is Green."))
    assert await agent.reply(msg(COLOUR_QUESTION)) == "My favourite colour is Green."


@pytest.mark.asyncio
async def test_slightly_weaker_newer_match_within_the_band_wins() -> None:
    # The newer statement is one word longer, so it scores about 0.88 of the older one: inside the
    # 0.8 band, so it wins.
    agent = await told(
        "My favourite colour is Red.",
        "These days my favourite colour is Blue.",
    )
    assert await agent.reply(msg(COLOUR_QUESTION)) == "These days my favourite colour is Blue."


@pytest.mark.asyncio
async def test_much_weaker_newer_match_outside_the_band_loses() -> None:
    # The newer statement only shares "colour" and scores about 0.2 of the older one.
    agent = await told(
        "My favourite colour is Red.",
        "Colour television was invented a long time ago in Scotland.",
    )
    assert await agent.reply(msg(COLOUR_QUESTION)) == "My favourite colour is Red."


@pytest.mark.asyncio
async def test_no_overlap_abstains_like_the_null_agent() -> None:
    agent = await told("I enjoy pizza with olives.")
    assert await agent.reply(msg("What colour is the sky?")) == ABSTENTION


@pytest.mark.asyncio
async def test_stopword_only_statement_is_not_remembered() -> None:
    agent = await told("The, and, of.")
    assert await agent.retrieve("the and of", 5) == []


@pytest.mark.asyncio
async def test_retrieve_returns_at_most_k_ranked_statements() -> None:
    agent = await told(
        "The cat sleeps on the sofa.",
        "Paris is the capital of France.",
        "Berlin is the capital of Germany.",
        "The capital of Spain is Madrid.",
    )
    assert await agent.retrieve("capital Germany", 1) == ["Berlin is the capital of Germany."]
    top2 = await agent.retrieve("capital Germany", 2)
    assert len(top2) == 2
    assert top2[0] == "Berlin is the capital of Germany."
    assert top2[1] in {"Paris is the capital of France.", "The capital of Spain is Madrid."}
    everything = await agent.retrieve("capital Germany", 10)
    # Statements with no shared term are never returned, however large k is.
    assert len(everything) == 3
    assert "The cat sleeps on the sofa." not in everything
    assert everything[0] == "Berlin is the capital of Germany."
    assert await agent.retrieve("submarine", 10) == []


@pytest.mark.asyncio
async def test_retrieve_ranks_newer_first_within_the_band() -> None:
    agent = await told("My favourite colour is Red.", "My favourite colour is Blue.", "I own a boat.")
    assert await agent.retrieve("favourite colour", 5) == [
        "My favourite colour is Blue.",
        "My favourite colour is Red.",
    ]


@pytest.mark.asyncio
async def test_observe_ingests_statements_without_replying() -> None:
    agent = ExtractiveAgent()
    result = await agent.observe(
        [msg("My dog is called Rex."), msg("What is my dog called?"), msg("I live in Leeds.")]
    )
    assert result is None
    assert await agent.reply(msg("What is my dog called?")) == "My dog is called Rex."
    assert await agent.reply(msg("Which city do I live in, Leeds?")) == "I live in Leeds."
    # The observed question is part of the history, so it is remembered, but never answers itself.
    assert sorted(await agent.retrieve("dog called live leeds", 10)) == [
        "I live in Leeds.",
        "My dog is called Rex.",
        "What is my dog called?",
    ]


@pytest.mark.asyncio
async def test_facts_in_observed_questions_are_remembered() -> None:
    agent = ExtractiveAgent()
    await agent.observe([msg("I moved to Harrogate last spring; can you suggest a quiet gym nearby?")])
    assert await agent.reply(msg("Where have I lived since last spring?")) == (
        "I moved to Harrogate last spring; can you suggest a quiet gym nearby?"
    )


@pytest.mark.asyncio
async def test_reset_forgets_everything() -> None:
    agent = await told("My favourite colour is Red.")
    await agent.reset()
    assert await agent.reply(msg(COLOUR_QUESTION)) == ABSTENTION
    assert await agent.retrieve("favourite colour", 5) == []
    # Still usable after reset.
    await agent.reply(msg("My favourite colour is Teal."))
    assert await agent.reply(msg(COLOUR_QUESTION)) == "My favourite colour is Teal."


@pytest.mark.asyncio
async def test_fork_is_independent() -> None:
    original = await told("My favourite colour is Red.")
    assert await original.reply(msg(COLOUR_QUESTION)) == "My favourite colour is Red."  # builds the index
    fork = await original.fork()
    assert fork is not original
    # The fork shares what was ingested before forking...
    assert await fork.reply(msg(COLOUR_QUESTION)) == "My favourite colour is Red."
    # ...but what it is told afterwards stays in the fork.
    await fork.reply(msg("My favourite colour is Blue."))
    await fork.reply(msg("My cat is called Tom."))
    assert await fork.reply(msg(COLOUR_QUESTION)) == "My favourite colour is Blue."
    assert await original.reply(msg(COLOUR_QUESTION)) == "My favourite colour is Red."
    assert await fork.reply(msg("What is the cat called?")) == "My cat is called Tom."
    assert await original.reply(msg("What is the cat called?")) == ABSTENTION
    # And the other way round.
    await original.reply(msg("My favourite colour is Gold."))
    assert await fork.reply(msg(COLOUR_QUESTION)) == "My favourite colour is Blue."
    assert await original.reply(msg(COLOUR_QUESTION)) == "My favourite colour is Gold."
