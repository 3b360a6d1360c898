"""Filler sizing from kept passes and summed counts gives what counting every message gives.

make_filler keeps each pass's lines and counts between calls, and with a counter that sums at
cuts (tokens.py) it adds up an exact count instead of encoding the message.  None of that may
change a single byte: the same seed gives the same tasks and the same conversation, whatever was
kept before.  Timing is measured by tests/bench/bench_conversation.py, not here.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
from datetime import datetime, timezone
from pathlib import Path

import pytest

from pytest_memorybench.agents.agent_protocol import AgentAdapter
from pytest_memorybench.contract.clock import SimulatedClock
from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.conversation import filler
from pytest_memorybench.conversation.channel import AgentChannel, LoggedExchange
from pytest_memorybench.conversation.events import EventLog
from pytest_memorybench.conversation.filler import FillerTask, make_filler
from pytest_memorybench.conversation.log_reader import read_conversations
from pytest_memorybench.conversation.scheduler import Conversation
from pytest_memorybench.conversation.stats import ScheduledTest
from pytest_memorybench.conversation.trivia import PASS_ITEMS, TriviaItem, TriviaSource
from pytest_memorybench.core.records import Message
from pytest_memorybench.core.tokens import ApproximateCounter, TiktokenCounter, TokenCounter, default_counter
from pytest_memorybench.scenarios import get_scenario
from pytest_memorybench.scenarios.ltm.colours import SCENARIO

POOL = PASS_ITEMS  # items in one pass


class Plain:
    """The same counts without the promise to sum at cuts: make_filler counts every message whole."""

    def __init__(self, counter: TokenCounter) -> None:
        self.counter = counter
        self.name = f"plain:{counter.name}"

    def count(self, text: str) -> int:
        return self.counter.count(text)


def fresh_count(counter: TokenCounter, text: str) -> int:
    """The count of `text`, worked out now, not taken from what the counter was told."""
    if isinstance(counter, TiktokenCounter):
        return len(counter._encoding.encode(text, disallowed_special=()))  # type: ignore[attr-defined]
    return counter.count(text)


@pytest.fixture(params=["tiktoken", "approximate"])
def counter(request: pytest.FixtureRequest) -> TokenCounter:
    if request.param == "approximate":
        return ApproximateCounter()
    counter = default_counter()
    if not isinstance(counter, TiktokenCounter):
        pytest.skip("cl100k_base cannot load on this machine")
    return counter


def forget_kept_passes() -> None:
    filler._PASSES.clear()
    filler._MADE.clear()
    filler._cached_count.cache_clear()


def cases() -> list[tuple[int, int, int, int]]:
    """(seed, start, need, cap): starts at, inside and across pass boundaries, needs from 0 to past the
    cap."""
    rng = random.Random(5)
    starts = [0, 1, POOL - 1, POOL, 2 * POOL - 3, 7 * POOL + 11]
    return [
        (
            rng.choice((0, 3, 2**40 + 1)),
            rng.choice(starts),
            rng.choice((0, 1, 40, rng.randrange(5000))),
            rng.choice((4096, 700)),
        )
        for _ in range(60)
    ]


def reference_filler(
    source: TriviaSource, start: int, need: int, cap: int, counter: TokenCounter
) -> tuple[str, str, int, int]:
    """make_filler as it was first written, one item and one count at a time: (message, reply, tokens,
    items)."""
    target = min(need, cap)
    estimate = counter.count(filler.INSTRUCTION) + counter.count("[]") - counter.count(",")
    lines, answers, index = [filler.INSTRUCTION], [], start
    while True:
        item = source.item(index)
        index += 1
        line, piece = (
            f"Q: {item.question}, A: {item.answer}",
            f" {json.dumps(item.answer, ensure_ascii=False)},",
        )
        estimate += counter.count("\n") + counter.count(line) + counter.count(piece)
        lines.append(line)
        answers.append(item.answer)
        if estimate < target:
            continue
        message, reply = "\n".join(lines), json.dumps(answers, ensure_ascii=False)
        exact = fresh_count(counter, message) + fresh_count(counter, reply)
        if exact >= target:
            return message, reply, exact, len(answers)
        estimate = exact


def test_tasks_are_those_of_the_first_make_filler(counter: TokenCounter) -> None:
    for seed, start, need, cap in cases()[:25]:
        task = make_filler(TriviaSource(seed), start, need, cap, counter)
        expected = reference_filler(TriviaSource(seed), start, need, cap, counter)
        assert (task.message, task.expected_reply, task.tokens, task.items) == expected, (
            seed,
            start,
            need,
            cap,
        )


def test_summed_counts_give_the_tasks_whole_counts_give(counter: TokenCounter) -> None:
    for seed, start, need, cap in cases():
        task = make_filler(TriviaSource(seed), start, need, cap, counter)
        assert task == make_filler(TriviaSource(seed), start, need, cap, Plain(counter)), (
            seed,
            start,
            need,
            cap,
        )
        assert task.message_tokens == fresh_count(counter, task.message)
        assert task.reply_tokens == fresh_count(counter, task.expected_reply)
        assert json.loads(task.expected_reply) == [
            line.split(", A: ", 1)[1] for line in task.message.split("\n")[1:]
        ]


def test_kept_passes_change_nothing(counter: TokenCounter) -> None:
    forget_kept_passes()
    late_first = [
        make_filler(TriviaSource(0), start, 3000, 4096, counter) for start in (3 * POOL - 5, 900, 0)
    ]
    forget_kept_passes()
    early_first = [
        make_filler(TriviaSource(0), start, 3000, 4096, counter) for start in (0, 900, 3 * POOL - 5)
    ]
    assert late_first == early_first[::-1]


def test_a_prefetch_ahead_of_the_conversation_changes_nothing(counter: TokenCounter) -> None:
    forget_kept_passes()
    alone = [make_filler(TriviaSource(2), start, 4000, 4096, counter) for start in (0, 150, POOL + 7)]
    forget_kept_passes()

    async def agent_answering() -> list[FillerTask]:
        ahead = filler.prefetch(TriviaSource(2), 3 * POOL * 20, counter, 4096)
        assert ahead is not None
        with ahead.agent_busy():
            await asyncio.sleep(0.02)  # part of the first pass built; the rest by make_filler
            made = [make_filler(TriviaSource(2), start, 4000, 4096, counter) for start in (0, 150, POOL + 7)]
            await until_idle(ahead)
        ahead.stop()
        return made

    assert asyncio.run(agent_answering()) == alone
    kept = [part for key, part in filler._PASSES.items() if key[2] == 2]
    assert len(kept) >= 2 and all(len(part.lines) > 0 for part in kept), "the task built passes ahead"
    assert filler.prefetch(TriviaSource(2), 0, counter, 4096) is None, "nothing to build for no filler"
    assert filler.prefetch(TriviaSource(2), 1000, Plain(counter), 4096) is None, (
        "nothing is kept for such a counter"
    )


async def until_idle(ahead: filler.Prefetch) -> None:
    for _ in range(6000):
        if ahead.idle:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the prefetch never finished")


def test_a_prefetch_makes_the_next_full_messages_ahead(counter: TokenCounter) -> None:
    forget_kept_passes()
    fresh = [make_filler(TriviaSource(4), 0, 4096, 4096, counter)]
    while len(fresh) < 3:
        fresh.append(make_filler(TriviaSource(4), fresh[-1].next_index, 4096, 4096, counter))
    forget_kept_passes()

    async def conversation() -> tuple[list[FillerTask], list[FillerTask], FillerTask]:
        ahead = filler.prefetch(TriviaSource(4), 20 * 4096, counter, 4096)
        assert ahead is not None
        with ahead.agent_busy():
            await until_idle(ahead)
        kept = list(filler._MADE.values())
        sent = [make_filler(TriviaSource(4), 0, 50_000, 4096, counter)]  # a wait needing several messages
        while len(sent) < 3:
            sent.append(make_filler(TriviaSource(4), sent[-1].next_index, 50_000, 4096, counter))
        last = make_filler(
            TriviaSource(4), sent[-1].next_index, 700, 4096, counter
        )  # what the wait still needs
        ahead.follow(last.next_index)
        with ahead.agent_busy():
            await until_idle(ahead)
        ahead.stop()
        return kept, sent, last

    kept, sent, last = asyncio.run(conversation())
    assert len(kept) == filler.AHEAD_MESSAGES and all(a is b for a, b in zip(sent, kept, strict=False)), (
        "made ahead, then sent"
    )
    assert sent == fresh, "the same messages as made on the spot"
    assert (type(counter), counter.name, 4, last.next_index, 4096) in filler._MADE, (
        "the chain follows the conversation"
    )


def test_a_prefetch_waits_while_the_agent_is_idle(counter: TokenCounter) -> None:
    forget_kept_passes()

    async def agent_idle() -> bool:
        idle = filler.prefetch(TriviaSource(3), POOL * 20, counter, 4096)
        assert idle is not None
        await asyncio.sleep(0.05)
        idle.stop()
        await asyncio.sleep(0)
        return idle.task.cancelled()

    assert asyncio.run(agent_idle()), "a stopped prefetch ends"
    assert all(len(part.lines) == 0 for key, part in filler._PASSES.items() if key[2] == 3), (
        "nothing was built"
    )


def test_a_walk_across_passes_chains_without_gaps(counter: TokenCounter) -> None:
    source, index, lines = TriviaSource(1), POOL - 300, []
    while index < 2 * POOL + 100:
        task = make_filler(source, index, 4000, 4096, counter)
        assert task.next_index == index + task.items
        lines += task.message.split("\n")[1:]
        index = task.next_index
    items = [source.item(i) for i in range(POOL - 300, index)]
    assert lines == [f"Q: {item.question}, A: {item.answer}" for item in items]


def test_any_source_with_items_will_do(counter: TokenCounter) -> None:
    class Shouting:
        def item(self, index: int) -> TriviaItem:
            item = TriviaSource(2).item(index)
            return TriviaItem(item.question.upper(), item.answer.upper())

    task = make_filler(Shouting(), 10, 500, 4096, counter)  # type: ignore[arg-type]
    assert (
        task.message.split("\n")[1] == f"Q: {Shouting().item(10).question}, A: {Shouting().item(10).answer}"
    )
    assert task.tokens == fresh_count(counter, task.message) + fresh_count(counter, task.expected_reply)


# --- the channel takes counts it is given -------------------------------------------------------


class Tally:
    """Counts words and remembers what it was asked to count."""

    name = "tally"

    def __init__(self) -> None:
        self.asked: list[str] = []

    def count(self, text: str) -> int:
        self.asked.append(text)
        return len(text.split())


class Listener:
    async def reply(self, message: Message) -> str:
        return "fine thanks"

    async def observe(self, messages: list[Message]) -> None:
        pass


def test_the_channel_uses_counts_it_is_given(tmp_path: Path) -> None:
    tally = Tally()
    log = EventLog(tmp_path / "events.jsonl")
    channel = AgentChannel(
        AgentAdapter(Listener(), "listener"), group="g", counter=tally, clock=SimulatedClock(), log=log
    )

    async def talk() -> None:
        await channel.save(FillerTask("one two three", "four five", 50, 3, 3, 30))
        await channel.say_filler(FillerTask("six seven", "eight", 120, 1, 4, 100))
        await channel.say("eleven", source="test")

    asyncio.run(talk())
    log.close()
    assert channel.tokens == 50 + 100 + 2 + 1 + 2
    assert tally.asked == ["fine thanks", "eleven", "fine thanks"]


def test_filler_is_logged_by_reference_and_read_back(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "events.jsonl")
    channel = AgentChannel(
        AgentAdapter(Listener(), "listener"), group="g", counter=Tally(), clock=SimulatedClock(), log=log
    )
    saved, said = FillerTask("Q: one", '["one"]', 4, 1, 8, 2), FillerTask("Q: two", '["two"]', 4, 1, 9, 2)

    async def talk() -> None:
        await channel.save(saved)
        await channel.say_filler(said)

    asyncio.run(talk())
    log.close()
    text = (tmp_path / "events.jsonl").read_text()
    assert "Q: one" not in text and "Q: two" not in text, "filler text stays out of the log"
    (exchanges,) = [log.exchanges for log in read_conversations(tmp_path).values()]
    assert [dataclasses.replace(exchange, usage=None, seconds=None) for exchange in exchanges] == [
        LoggedExchange(None, None, saved=True, filler=(7, 1)),
        LoggedExchange(None, "fine thanks", saved=False, filler=(8, 1)),
    ]
    assert [exchange.usage.calls for exchange in exchanges if exchange.usage] == [0, 1], (
        "what each cost is logged with it, for a resume to count"
    )
    assert exchanges[0].seconds is None and exchanges[1].seconds is not None, "only a reply has a time"
    assert exchanges[0].same_message(LoggedExchange.sending("Q: one", True, saved))
    assert not exchanges[0].same_message(LoggedExchange.sending("Q: one", True, said)), (
        "told apart by reference"
    )
    assert not exchanges[1].same_message(LoggedExchange.sending("Q: two", True, said)), (
        "saved and said filler differ"
    )


# --- a whole conversation ---------------------------------------------------------------------------


class Ok:
    async def reply(self, message: Message) -> str:
        return "ok"


class Observing(Ok):
    async def observe(self, messages: list[Message]) -> None:
        pass


@pytest.mark.parametrize("agent", [Ok, Observing])
def test_a_conversation_is_the_same_whatever_was_kept(tmp_path: Path, agent: type[Ok]) -> None:
    def converse(name: str) -> str:
        definitions = [SCENARIO.generate("bench", {}, 0, repetition) for repetition in (1, 2)]
        log = EventLog(tmp_path / name)
        clock = SimulatedClock(datetime(2026, 1, 1, tzinfo=timezone.utc))
        channel = AgentChannel(
            AgentAdapter(agent(), "a"), group="g", counter=default_counter(), clock=clock, log=log
        )
        tests = [ScheduledTest(d.test_id, d) for d in definitions]
        asyncio.run(
            Conversation(
                tests,
                channel,
                span=8000,
                scoring=ScoringContext(),
                filler=TriviaSource(0),
                scenario_of=get_scenario,
            ).run()
        )
        log.close()
        events = [json.loads(line) for line in (tmp_path / name).read_text(encoding="utf-8").splitlines()]
        return "\n".join(json.dumps({k: v for k, v in e.items() if k != "usage"}) for e in events)  # (timed)

    forget_kept_passes()
    cold = converse("cold.jsonl")
    assert cold == converse("warm.jsonl")
    assert '"source": "filler"' in cold
