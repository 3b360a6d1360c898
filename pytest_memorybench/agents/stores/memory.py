"""`--agent STORE:MODEL_SPEC`: a memory store behind one answerer, one prompt and one k.

This is the `rag` mechanism with its index supplied from outside.  Each conversation gets a
namespace of its own (cleared before its first message and after its last); every message the
agent hears, observed or exchanged, is added to the store in the benchmark's simulated time; before
each answer the store is searched once for the user's message, exactly `k` hits (`--mb-k`) go into
the answering prompt within `MEMORY_TOKENS`, and the MODEL_SPEC answers.  A store that returns more
than k is cut to k, and the run says so; a store that answers itself (`answer`) is asked instead,
and the run says that too.

`retrieve(query, k)` hands evidence recall everything the search returned, so the record says how
many came back; `context()` is the hits the prompt held.  The harness's search for evidence recall
and the answer's search are the same call, so a question costs the store one search.
"""

from __future__ import annotations

import dataclasses
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from pytest_memorybench.agents.mechanisms.base import Entry, MemorySystem
from pytest_memorybench.agents.mechanisms.model import MemoryModel, Phase
from pytest_memorybench.agents.mechanisms.prompt import section, system_prompt, tokens
from pytest_memorybench.agents.mechanisms.settings import require
from pytest_memorybench.agents.spec import DEFAULT_STORE_K, MEMORY_TOKENS
from pytest_memorybench.agents.stores.figures import StoreFigures
from pytest_memorybench.agents.stores.store_protocol import Hit, StoreClient, StoreError
from pytest_memorybench.core.records import Message, Usage

MEMORIES_HEADING = "Memories retrieved for this message"

# How the brackets before a memory label its dates (`Hit.line`), as the vendors' own prompts tell
# an event's date from when it was said (Zep's fact date ranges, Supermemory's event dates).
_DATE_LABELS = (
    "In the brackets before a memory, the bare date is when it was said; 'about DATE' is the date"
    " of the event it tells of and 'valid FROM → TO' when a fact held, both already resolved."
)

# The answering prompt of the suites whose published pipelines answer from retrieved memories with a
# prompt of their own (the facts of what they ask, in our words): LoCoMo's a short phrase in the
# conversation's words with dates resolved; LongMemEval's an answer from the dated chat history, as
# of the question's date.  Every other suite: the default, the assistant's own prompt.
ANSWER_PROMPTS = {
    "locomo": (
        "Answer the question about the conversation below with a short phrase. The memories were"
        " retrieved from that conversation, each with the date it was said. Keep the words the"
        " memories use where you can, and answer a question of when with a date: resolve 'yesterday'"
        " or 'last week' against the date of the memory that says it."
        f" {_DATE_LABELS}"
    ),
    "longmemeval": (
        "You are a chat assistant. The memories below come from your earlier chat sessions with the"
        " user, each with the date it was said. Answer the user's question from the ones that bear on"
        " it, as of the current date {date}; when the memories do not hold the answer, say so."
        f" {_DATE_LABELS}"
    ),
}

# The same suites' instructions for a store that answers itself (Letta): it answers from its own
# memory, not from memories below a prompt, so they say so; with the question's simulated date, which
# such a product cannot know (it keeps real time), sent before every question.
STORE_ANSWER_PROMPTS = {
    "locomo": (
        "Answer the question about your conversation with a short phrase. Keep the words the"
        " conversation used where you can, and answer a question of when with a date: resolve"
        " 'yesterday' or 'last week' against the date of the message that says it."
    ),
    "longmemeval": (
        "Answer the user's question from your earlier chat sessions with the user, as of the current"
        " date; when you do not remember the answer, say so."
    ),
}


def store_instructions(suite: str, asked_at: datetime | None) -> str:
    """What a store that answers itself is told before a question: the simulated date it is asked
    on, and the suite's answering instructions, where the suite has them."""
    said = [f"The current date is {asked_at:%Y-%m-%d %H:%M}."] if asked_at else []
    return " ".join([*said, *([STORE_ANSWER_PROMPTS[suite]] if suite in STORE_ANSWER_PROMPTS else [])])


@dataclass(frozen=True)
class StoreSettings:
    """The terms: how many hits a store's answer gets and the tokens they may fill, the same for
    every store, unless the store runs as its vendor's harness runs it (`profile`)."""

    k: int = DEFAULT_STORE_K
    memory_tokens: int = MEMORY_TOKENS
    profile: str = "equal"

    def __post_init__(self) -> None:
        require(self.k >= 1, f"--mb-k must be 1 or more, got {self.k}")
        require(self.memory_tokens >= 1, f"memory_tokens must be 1 or more, got {self.memory_tokens}")


def new_namespace() -> str:
    """A namespace no other conversation, run or user of the store has."""
    return f"memorybench-{uuid.uuid4().hex[:16]}"


class StoreMemory(MemorySystem):
    """A memory store as an agent: the store remembers, the harness answers."""

    name = "store"
    settings_type = StoreSettings

    def __init__(
        self,
        model: MemoryModel,
        client: StoreClient,
        settings: StoreSettings | None = None,
        *,
        figures: StoreFigures | None = None,
        namespace: str | None = None,
        owner: bool = True,
    ) -> None:
        self.client = client
        self.namespace = namespace or new_namespace()
        self.owner = owner  # a fork reads its parent's namespace and never writes or clears it
        settings = settings or StoreSettings()
        self.store_figures = figures or StoreFigures(client.name, settings.k, profile=settings.profile)
        self._opened = not owner
        super().__init__(model, None, settings)

    def start(self) -> None:
        # The last search (query, as of when, hits), reused for the answer.
        self._found: tuple[str, datetime | None, list[Hit]] | None = None
        self._indexing = False  # added since the last wait
        self._suite = ""  # whose answering prompt the next answer uses (`answer_for`)
        self._asked_at: datetime | None = None  # the next question's simulated time, once told
        self._clock: datetime | None = None  # the newest simulated time written

    def answer_for(self, suite: str, asked_at: datetime | None = None) -> None:
        """The next question is from `suite` (answered with the suite's prompt, where it has one),
        asked at `asked_at` (what a product that searches as of a date is given)."""
        self._suite = suite
        self._asked_at = asked_at

    def prime_evidence(self, question: str, evidence: Sequence[str]) -> None:
        """The next question's labelled evidence, for a store that answers with it (`gold`)."""
        prime = getattr(self.client.store, "prime_evidence", None)
        if prime is not None:
            prime(self.namespace, question, list(evidence))

    async def write(self, entries: Sequence[Entry]) -> None:
        if not self.owner or not entries:
            return
        await self._open()
        started = time.perf_counter()
        before = self._store_usage()
        messages = [_message(entry) for entry in entries]
        await self.client.add(messages, self.namespace)
        self._clock = max(message.timestamp for message in messages)
        self._charge("write", before)
        self.store_figures.messages += len(entries)
        self.store_figures.ingest_seconds += time.perf_counter() - started
        self._found, self._indexing = None, True

    async def answer(self, entry: Entry) -> str:
        if self.client.answers:
            await self._open()
            await self._indexed()
            self.store_figures.native_answers += 1
            self.last_context = []
            before = self._store_usage()
            # On a fork (a probe's question), the question must leave no trace in the store.
            told = store_instructions(self._suite, self._asked_at or entry.time)
            reply = await self.client.answer(
                entry.text, self.namespace, aside=not self.owner, instructions=told
            )
            self._charge("read", before)
            return reply
        used, lines = 0, []
        hits = await self._hits(entry.text, entry.time)
        for hit in hits if _is_context(hits) else hits[: self.settings.k]:
            cost = tokens(hit.line)
            if used + cost > self.settings.memory_tokens:
                break
            lines.append(hit.line)
            used += cost
        self.store_figures.context_tokens.append(used)
        return await self.reply_with(self._system(entry, lines, _is_context(hits)), entry, memories=lines)

    async def _open(self) -> None:
        """A namespace starts empty, whatever was left in it, before its first add or native answer
        (the store's agent may be made by either); not ingest time."""
        if not self._opened:
            await self.client.clear(self.namespace)
            self._opened = True

    def _system(self, entry: Entry, lines: list[str], context: bool = False) -> str:
        if context and lines:  # a product's own context, shown as it wrote it
            memories = "\n".join([f"## {MEMORIES_HEADING}", *lines])
        else:
            memories = section(MEMORIES_HEADING, lines) or f"## {MEMORIES_HEADING}\n(none)"
        instructions = ANSWER_PROMPTS.get(self._suite)
        if instructions is None:
            return system_prompt(memories)
        when = f"{entry.time:%Y-%m-%d %H:%M}" if entry.time else "unknown"
        return f"{instructions.format(date=when)}\n\n{memories}"

    async def search(self, query: str, k: int) -> list[str]:
        """Every hit the store returned for `query` (evidence recall cuts to its k and counts the rest);
        a context, one text: the one result its search gave."""
        hits = await self._hits(query)
        if _is_context(hits):
            return ["\n".join(hit.line for hit in hits)]
        return [hit.line for hit in hits]

    async def _hits(self, query: str, when: datetime | None = None) -> list[Hit]:
        asked_at = self._asked_at or when or self._clock
        if self._found is not None and self._found[:2] == (query, asked_at):
            return self._found[2]
        await self._indexed()
        started, before = time.perf_counter(), self._store_usage()
        hits = (
            await self.client.search(query, self.namespace, self.settings.k, asked_at) if self._opened else []
        )
        self.store_figures.search_seconds.append(time.perf_counter() - started)
        self._charge("read", before)
        self.store_figures.returned.append(1 if _is_context(hits) else len(hits))
        self.store_figures.server = self.store_figures.server or getattr(
            self.client.store, "server_version", None
        )
        self._found = (query, asked_at, hits)
        return hits

    async def stored(self) -> list[str] | None:
        """What the store holds for this conversation, where it can list it (`stored(namespace)`),
        asked at the conversation's end before the namespace is cleared; counted into the figures
        (memories, and how many of them the same text twice).  None on a fork, before anything was
        added, and for a store that cannot list."""
        if not (self.owner and self._opened and self.client.has("stored")):
            return None
        try:
            texts = await self.client.stored(self.namespace)
        except StoreError:
            return None  # a listing the store cannot give is no error of the conversation's
        if texts is None:
            return None
        self.store_figures.stored = (self.store_figures.stored or 0) + len(texts)
        self.store_figures.duplicates = (self.store_figures.duplicates or 0) + len(texts) - len(set(texts))
        return texts

    def _store_usage(self) -> Usage | None:
        usage = getattr(self.client.store, "usage", None)
        return dataclasses.replace(usage) if isinstance(usage, Usage) else None

    def _charge(self, phase: Phase, before: Usage | None) -> None:
        """What the store says it spent (its own model or embedding calls), in the phase it spent it."""
        after = self._store_usage()
        if before is not None and after is not None:
            spent = after - before
            self.model.charge(phase, spent)
            if phase == "write":
                self.store_figures.ingest_tokens += spent.input_tokens + spent.output_tokens

    async def _indexed(self) -> None:
        """Wait for what was added to be searchable; the wait is ingest time."""
        if self._indexing and self.owner:
            started, before = time.perf_counter(), self._store_usage()
            await self.client.wait(self.namespace)
            self._charge("write", before)  # what the store spends indexing (Cognee's cognify) is writing
            self.store_figures.ingest_seconds += time.perf_counter() - started
            self._indexing = False

    async def reset(self) -> None:
        if self.owner and self._opened:
            await self.client.clear(self.namespace)
        await super().reset()

    async def fork(self) -> StoreMemory:
        """A reader of the same namespace: a question asked on it is not added to the store, so the
        conversation goes on as if it had not been asked."""
        await self._indexed()
        twin = StoreMemory(
            self.model.fork(),
            self.client,
            self.settings,
            figures=self.store_figures,
            namespace=self.namespace,
            owner=False,
        )
        twin.log = list(self.log)
        return twin

    async def aclose(self) -> None:
        if not self.owner:
            return
        try:
            if self._opened:
                await self.client.clear(self.namespace)
        finally:
            await self.client.close()
            await self.model.aclose()


def _is_context(hits: list[Hit]) -> bool:
    """Whether a search answered with a `Context` (its lines), not hits."""
    return bool(hits) and hits[0].context


def _message(entry: Entry) -> Message:
    """The store's message of an entry: a time the conversation did not give is now, in UTC like every
    harness time (the machine's local time would be read as UTC by every store)."""
    role: Any = entry.role
    when = entry.time or datetime.now(timezone.utc).replace(tzinfo=None)
    return Message(entry.text, when, role, entry.index, entry.session, entry.speaker)
