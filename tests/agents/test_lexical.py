"""The incremental BM25 that the `recall` agent and the mechanisms search: the scores of an index rebuilt
from scratch at every step, and forks that share their parent's postings without seeing its future."""

from __future__ import annotations

import random
from datetime import datetime

import bm25s
import pytest

from pytest_memorybench.agents.lexical import K1, Bm25, terms
from pytest_memorybench.agents.reference.extractive import ExtractiveAgent, Statements
from pytest_memorybench.core.records import Message

WORDS = (
    "harbour lantern violet orchard pepper canal spruce marble cobalt meadow ferry quilt saffron "
    "tram glacier walnut ember pigeon cello basil"
).split()


def conversation(messages: int, seed: int = 7) -> list[list[str]]:
    """Messages as their words: a skewed vocabulary, so some words are in most messages and some in few."""
    draw = random.Random(seed)
    return [
        draw.choices(WORDS, weights=range(len(WORDS), 0, -1), k=draw.randint(1, 12)) for _ in range(messages)
    ]


def rebuilt(documents: list[list[str]], query: list[str]) -> list[float]:
    """bm25s's batch index over every document at once, with our (k1 + 1) factor."""
    index = bm25s.BM25(method="lucene", k1=K1, b=0.75)
    index.index(documents, show_progress=False)
    return [score * (K1 + 1) for score in index.get_scores(query)]


def said(text: str) -> Message:
    return Message(text, datetime(2026, 11, 27))


def test_the_incremental_index_scores_as_an_index_rebuilt_at_every_step() -> None:
    documents = conversation(1500)
    index = Bm25()
    queries = [["lantern", "basil"], ["harbour"], ["cello", "cello", "ember"], ["unknown"]]
    for position, words in enumerate(documents, start=1):
        index.add(words)
        if position in (1, 10, 250, 1500):
            for query in queries:
                assert list(index.scores(query)) == pytest.approx(rebuilt(documents[:position], query))


def test_a_search_returns_only_the_documents_holding_a_query_word() -> None:
    index = Bm25()
    for words in (["harbour", "lantern"], ["violet"], ["lantern"], []):
        index.add(words)
    found = index.matches(["lantern", "basil"])
    assert sorted(found) == [0, 2]
    assert found[2] > found[0]  # the shorter document that holds it ranks first


def test_a_fork_sees_what_its_parent_held_when_forked_and_nothing_added_after() -> None:
    documents = conversation(400, seed=3)
    parent = Bm25()
    for words in documents[:300]:
        parent.add(words)
    fork = parent.fork()
    for words in documents[300:350]:
        parent.add(words)
    assert len(fork) == 300
    fork.add(documents[350])
    grandchild = fork.fork()
    grandchild.add(documents[351])
    fork.add(["glacier"])  # after the grandchild forked: it must not see it

    query = ["glacier", "walnut", "pepper"]
    assert list(fork.scores(query)) == pytest.approx(
        rebuilt([*documents[:300], documents[350], ["glacier"]], query)
    )
    assert list(grandchild.scores(query)) == pytest.approx(
        rebuilt([*documents[:300], *documents[350:352]], query)
    )
    assert list(parent.scores(query)) == pytest.approx(rebuilt(documents[:350], query))
    assert fork.idf("glacier") != grandchild.idf("glacier")


@pytest.mark.asyncio
async def test_a_forked_recall_agent_answers_from_what_it_heard_before_the_fork() -> None:
    agent = ExtractiveAgent()
    await agent.reply(said("My bicycle is painted cobalt blue."))
    fork = await agent.fork()
    await agent.reply(said("I repainted my bicycle saffron yellow."))
    await fork.reply(said("My kayak is marble white."))

    assert await fork.reply(said("What colour is my bicycle?")) == ("My bicycle is painted cobalt blue.")
    assert await agent.reply(said("What colour is my bicycle?")) == ("I repainted my bicycle saffron yellow.")
    assert await agent.retrieve("kayak colour", 3) == []  # the fork's statement stays in the fork


def test_statements_ranks_a_statement_made_of_the_question_s_own_words_last_of_all() -> None:
    memory = Statements(["where did I park the tram", "I parked the tram by the canal", "the ferry"])
    assert [memory.texts[i] for i in memory.ranked("where did I park the tram", 5)] == [
        "I parked the tram by the canal"
    ]
    assert terms("Where did I park?") == ["park"]
