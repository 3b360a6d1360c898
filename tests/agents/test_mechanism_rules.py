"""Each mechanism's rules as its paper states them (and its released code, where that is a setting).

Over the scripted model of `tests/support/memory_model.py`: what Generative Agents keeps of an
insight and reads of a rating, how MemGPT's queue manager warns before it flushes and what the
model sees of its own function calls, when SCM shows summaries, what MemoryBank's search finds
of a fading memory, that LIGHT never cuts its scratchpad itself, and what each prompt held.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from pytest_memorybench.agents.mechanisms.embedders import parse_embedder
from pytest_memorybench.agents.mechanisms.generative_agents import listed, rating
from pytest_memorybench.agents.mechanisms.prompt import tokens
from pytest_memorybench.core.records import Message
from pytest_memorybench.models.llm import MESSAGE_OVERHEAD
from tests.agents.test_memory_systems import FACT, FILLER, START, make, run, served, tell
from tests.support.memory_model import PRESSURE

__all__ = ["served"]  # the fixture, shared

# -- Generative Agents ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "importance"),
    [
        ("On a scale of 1 to 10, I would rate this an 8.", 8.0),
        ("8/10", 8.0),
        ("Rating: 7 out of 10", 7.0),
        ("I'd say 3 (on a 1-10 scale).", 3.0),
        ("10", 10.0),
        ("Hard to say.", 5.0),  # no number: the default
        ("42", 10.0),  # clamped to the scale
    ],
)
def test_a_rating_is_read_past_the_scale_it_restates(reply: str, importance: float) -> None:
    assert rating(reply) == importance


def test_a_listed_line_loses_its_marker_and_nothing_else() -> None:
    reply = "1. The user moved to Paris in 2019\n\n- 2 cats live with them.\n(3) Ends with 7."
    assert listed(reply, 5) == ["The user moved to Paris in 2019", "2 cats live with them.", "Ends with 7."]
    assert listed(reply, 1) == ["The user moved to Paris in 2019"]


def test_an_insight_keeps_its_numbers_and_points_to_the_memories_it_rests_on(served) -> None:  # noqa: ANN001
    server, script = served
    agent = make(server, "generative-agents(reflect_threshold=20)")
    run(tell(agent, [FACT, "Please remember my flight leaves at 7.", "Please remember gate 99."]))
    stream = agent.target.stream
    insights = [o for o in stream if o.insight]
    assert insights and script.asked["insights"] >= 1
    for insight in insights:  # "1. The user cares about this: <statement 1> (because of 1)"
        assert insight.text.startswith("The user cares about this: ")
        assert "(because of" not in insight.text and len(insight.evidence) == 1
        cited = stream[insight.evidence[0]].text
        assert insight.text.endswith(cited)
    assert insights[0].text.endswith("user: Please remember gate 99.")  # its number kept


@pytest.mark.parametrize(("variant", "first"), [("paper", "B"), ("code", "A")])
def test_the_papers_recency_favours_the_newest_and_the_released_codes_the_least_recently_used(
    served,  # noqa: ANN001
    variant: str,
    first: str,
) -> None:
    """Same importance and relevance: recency decides.  The released code sorts memories by last
    retrieval, oldest first, and gives the first the highest recency (0.99 ** 1)."""
    server, _ = served
    agent = make(server, f"generative-agents(variant={variant})")
    run(agent.observe([Message("Tea note A.", START)]))
    run(agent.observe([Message("Tea note B.", START + timedelta(hours=5))]))
    assert [o.importance for o in agent.target.stream] == [2.0, 2.0]
    found = run(agent.retrieve("tea note", 1))
    assert len(found) == 1 and found[0].endswith(f"user: Tea note {first}.")


# -- MemGPT ----------------------------------------------------------------------------------------


def test_memgpt_is_warned_of_memory_pressure_and_saves_before_the_flush(served) -> None:  # noqa: ANN001
    server, _ = served
    agent = make(server, "memgpt(calls=json)", context=1400)
    memgpt = agent.target
    moment = START
    for text in ["My locker code is 4512.", *FILLER]:  # no "remember": saved only when warned
        moment = run(tell(agent, [text], start=moment))
        queued = sum(tokens(entry.text) + MESSAGE_OVERHEAD for entry in memgpt.queue)
        assert queued <= memgpt.prompt_budget  # flushed (by tokens) before the queue fills the window
    assert memgpt.warnings >= 1 and memgpt.evictions >= 1
    bodies = [str(r.body) for r in server.requests_to("/v1/chat/completions")]
    warned = next(i for i, body in enumerate(bodies) if PRESSURE in body)
    saved = next(i for i, body in enumerate(bodies) if "[archival_memory_insert returned: OK]" in body)
    flushed = next(i for i, body in enumerate(bodies) if "Write the new summary" in body)
    assert warned < saved < flushed
    assert any("4512" in text for text in memgpt.archive)  # saved from the queue before it left
    assert "4512" in run(agent.reply(Message("What is my locker code?", moment)))


def test_memgpt_sees_its_last_function_call_and_result_on_the_next_turn(served) -> None:  # noqa: ANN001
    server, _ = served
    agent = make(server, "memgpt")
    moment = run(tell(agent, [FACT, "Hello there."]))
    sent = server.requests_to("/v1/chat/completions")[-1].body["messages"]
    queued = [str(message.get("content")) for message in sent]
    assert any(text.startswith("[called archival_memory_insert(") for text in queued)
    assert any(text.startswith("[archival_memory_insert returned: OK]") for text in queued)
    assert any(
        "function: [archival_memory_insert returned: OK]" in line for line in agent.target.history_lines
    )
    assert len(run(agent.retrieve("locker code", 2))) <= 2  # history and archive together, at most k
    run(agent.reply(Message("What is my locker code?", moment)))
    context = run(agent.context())
    assert context[0].startswith("I am a helpful assistant") and FACT in context  # core, summary, queue


# -- SCM -------------------------------------------------------------------------------------------


def test_scm_shows_summaries_when_they_suffice_and_the_exchanges_when_not(served) -> None:  # noqa: ANN001
    server, script = served
    agent = make(server, "scm")
    story = "Here is my long story. " + " ".join(FILLER[:4]) + " My bike lock number is 7781."
    moment = run(tell(agent, [FACT, story, "Thanks for listening."]))
    assert "4512" in run(agent.reply(Message("What is my locker code?", moment)))
    assert "(summary) Please remember that my locker code is 4512." in script.answer_prompts[-1]
    # the story's summary stops before the lock number: the controller wants the exchanges
    assert "7781" in run(agent.reply(Message("What is my bike lock number?", moment)))
    assert "(summary) Here is my long story" not in script.answer_prompts[-1]
    assert "lock number is 7781." in script.answer_prompts[-1]
    assert script.asked["use_summaries"] == 2 and agent.target.summaries_used == 1


@pytest.mark.parametrize("dense", [False, True])
def test_scm_weighs_relevance_and_recency_alike_whatever_the_embedder(served, dense: bool) -> None:  # noqa: ANN001
    """Dense relevance lies in [0.5, 1], BM25's in [0, 1]: unnormalised, recency would outweigh a
    relevant memory three exchanges back under the one and not the other."""
    server, _ = served
    embedder = parse_embedder(f"openai:embed@{server.openai_url}") if dense else None
    agent = make(server, "scm(decay=0.5)", embedder=embedder)
    run(tell(agent, [FILLER[0], FILLER[1], FACT, FILLER[2], FILLER[3], FILLER[4]]))
    assert "4512" in run(agent.retrieve("What is my locker code?", 1))[0]


# -- MemoryBank -----------------------------------------------------------------------------------


def test_memorybank_search_finds_only_what_the_next_answer_could(served) -> None:  # noqa: ANN001
    server, _ = served
    agent = make(server, "memorybank")
    run(agent.observe([Message("My sister's name is Ottilie.", START)]))
    assert any("Ottilie" in text for text in run(agent.retrieve("sister name", 3)))
    run(agent.observe([Message("Good morning!", START + timedelta(days=4))]))  # R = e^-4 < 0.2
    assert not any("Ottilie" in text for text in run(agent.retrieve("sister name", 3)))
    sister = agent.target.memories[0]
    assert not sister.forgotten and sister.strength == 1.0  # searching forgets and strengthens nothing


# -- LIGHT -----------------------------------------------------------------------------------------


def test_light_keeps_what_the_model_compressed_and_never_cuts_it(served) -> None:  # noqa: ANN001
    server, script = served
    agent = make(server, "light(scratchpad_max=120,scratchpad_target=20)")
    run(tell(agent, [FACT, *FILLER[:12]]))
    light = agent.target
    # the model halves the notes each time: twice is still over 20 tokens, and that is kept
    assert light.compressions >= 1 and light.over_target >= 1
    assert script.asked["compress"] == 2 * light.compressions
    assert sum(len(note.split()) for note in light.notes) > 20
    before = list(light.notes)
    server.queue(text="")  # a compression that comes back empty
    run(light.compress())
    assert light.notes == before


# -- full-context and what every prompt held ------------------------------------------------------


def test_full_context_returns_k_and_says_its_prompt_held_the_window(served) -> None:  # noqa: ANN001
    server, _ = served
    agent = make(server, "full-context")
    moment = run(tell(agent, [FACT, *FILLER[:5]]))
    assert run(agent.retrieve("anything", 3)) == ["Noted.", FILLER[4], "Noted."]
    run(agent.reply(Message("What is my locker code?", moment)))
    assert run(agent.context())[:2] == [FACT, "Noted."]


@pytest.mark.parametrize("mechanism", ["rag", "light", "ltm-agent", "generative-agents", "memorybank", "scm"])
def test_the_answering_prompt_held_what_context_says(served, mechanism: str) -> None:  # noqa: ANN001
    server, script = served
    agent = make(server, mechanism)
    moment = run(tell(agent, [FACT, *FILLER[:6]]))
    run(agent.reply(Message("What is my locker code?", moment)))
    context = run(agent.context())
    assert any("4512" in item for item in context)
    assert all(item in script.answer_prompts[-1] or item in FILLER or item == "Noted." for item in context)
