"""The bill before the run: `pytest --memorybench --mb-estimate`.

The run is planned exactly as it would run (same definitions, spans, filler, conversations) and
every conversation is played against a stand-in for a full-context chat model: an LLM adapter
whose "server" answers every message with a reply of the stated length and bills as a chat API
does, the whole transcript that fits the model's context window again on every call (the
adapters' own trimming), plus a few tokens per message.  Filler goes through `observe`, as the
built-in adapters take it, without a call.  Dynamic scenarios are played as a perfect agent plays
them (every stage of the Restaurant scene: the most calls).  Neither the agent nor a judge is
called, and no key is needed; a judge task is counted, since an LLM judge makes a call for each.

The figures are the tokens a provider bills; what a memory agent that sends less than the whole
conversation pays is less, and what a model that writes longer replies pays is more.  A memory
system (`--agent MECHANISM:MODEL`) is played as it runs, its mechanism over the stand-in model: its
own calls (extraction, summaries, ratings; answered with JSON where JSON is asked for) are counted
as write or read, as a run counts them; retrieval is lexical, so embeddings are not billed.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from pytest_memorybench.agents.agent_protocol import AgentAdapter
from pytest_memorybench.core.estimate_bill import Bill, Estimate, JudgeBill, SuiteBill
from pytest_memorybench.core.records import Usage
from pytest_memorybench.core.tokens import default_counter
from pytest_memorybench.models.llm import (
    DEFAULT_OUTPUT_TOKENS,
    MESSAGE_OVERHEAD,
    Completion,
    LLMChatAgent,
    SdkErrors,
    Turn,
)
from pytest_memorybench.models.openai import (
    REASONING_OUTPUT_TOKENS,
    is_reasoning_model,
)
from pytest_memorybench.models.prices import context_window_for
from pytest_memorybench.models.provider_pool import price_for
from pytest_memorybench.runner.plan import PlannedTest
from pytest_memorybench.runner.run import BenchmarkRun
from pytest_memorybench.runner.settings import Settings

DEFAULT_REPLY_TOKENS = 50
# A few models to compare with, whatever the agent: (model as priced, as shown).
COMPARED = (
    "gpt-4o-mini",
    "gpt-4o",
    "gpt-4.1",
    "gpt-5-mini",
    "gpt-5",
    "o4-mini",
    "claude-haiku-4-5",
    "claude-sonnet-4-5",
)


class BillingChat(LLMChatAgent):
    """An LLM adapter without a server: it answers with replies of a set length and bills like an API."""

    provider = "estimate"
    api_key_variable = "MEMORYBENCH_ESTIMATE"
    errors = SdkErrors(RuntimeError, RuntimeError, RuntimeError, RuntimeError)  # it never calls out

    def __init__(
        self, model: str | None, *, reply_tokens: int, context_tokens: int, does_memory_work: bool = False
    ) -> None:
        # The room left for the reply when trimming is what the real adapter leaves (more for reasoning).
        reserved = REASONING_OUTPUT_TOKENS if is_reasoning_model(model) else DEFAULT_OUTPUT_TOKENS
        super().__init__(
            model or "chat-model",
            api_key="not-used",
            context_tokens=context_tokens,
            max_output_tokens=reserved,
        )
        self.reply_tokens = reply_tokens
        self.does_memory_work = does_memory_work  # a memory system's own calls: JSON where JSON is asked for
        self._primed: str | None = None

    def _make_client(self, api_key: str) -> Any:
        return None

    async def prime_answer(self, ideal: str) -> None:
        """The engine's cue for a perfect answer: dynamic scenarios go on as for the best agent."""
        self._primed = ideal

    async def _complete(self, system: str, turns: list[Turn], **options: Any) -> Completion:
        counter = default_counter()
        answer, self._primed = self._primed or "Noted.", None
        missing = self.reply_tokens - counter.count(answer)
        text = answer + " ok" * max(0, missing)  # " ok" is one token
        if self.does_memory_work and turns and "JSON" in turns[-1]["content"]:  # a model obliges
            text = json.dumps({"note": text})
        billed = sum(
            counter.count(part) + MESSAGE_OVERHEAD for part in (system, *(turn["content"] for turn in turns))
        )
        return Completion(text, input_tokens=billed, output_tokens=counter.count(text))

    async def aclose(self) -> None:
        return None


def estimate(
    run: BenchmarkRun,
    tests: Iterable[PlannedTest],
    *,
    reply_tokens: int,
    context_tokens: int,
    model: str | None,
) -> Estimate:
    """Play the conversations of `tests` (the selected ones) against `BillingChat`; add up its bill."""
    groups: dict[str, list[PlannedTest]] = defaultdict(list)
    for test in tests:
        if not test.definition.skip_reason:
            groups[test.group].append(test)
    bills: dict[str, SuiteBill] = defaultdict(SuiteBill)
    judged_before = _judging(run)
    for group, members in groups.items():
        agent = _stand_in(
            run.context.settings, model, reply_tokens=reply_tokens, context_tokens=context_tokens
        )
        run.run_sync(run.driver.drive(group, members, agent))
        bill = bills[members[0].definition.suite]
        bill.tests += len(members)
        bill.calls += agent.target.usage.calls
        bill.delivered += run.book.conversations[group].tokens
        bill.usage.add(agent.target.usage)
        for phase, usage in (agent.memory_usage or {}).items():
            bill.memory.setdefault(phase, Usage()).add(usage)
    spans = {name: str(span) for name, span in run.context.interleaved_spans.items()}
    return Estimate(
        model,
        context_tokens,
        reply_tokens,
        dict(bills),
        _judge_bill(run, judged_before),
        spans,
    )


def _judging(run: BenchmarkRun) -> tuple[int, int, int, int, float]:
    """Tasks asked so far, and the LLM jurors' calls, tokens in and out, and dollars."""
    panel = run.instruments.judge
    llm = [juror.stats for juror in panel.jurors if juror.is_llm]
    return (
        panel.tasks,
        sum(stats.usage.calls for stats in llm),
        sum(stats.usage.input_tokens for stats in llm),
        sum(stats.usage.output_tokens for stats in llm),
        sum(stats.usage.cost_usd for stats in llm),
    )


def _judge_bill(run: BenchmarkRun, before: tuple[int, int, int, int, float]) -> JudgeBill:
    """What the judge would have cost since `before` (a `_judging` of then)."""
    tasks, calls, tokens_in, tokens_out, cost = (
        now - then for now, then in zip(_judging(run), before, strict=True)
    )
    panel = run.instruments.judge
    priced = all(price_for(juror.stats.model) is not None for juror in panel.jurors if juror.is_llm)
    return JudgeBill(
        panel.name, int(tasks), int(calls), int(tokens_in), int(tokens_out), cost if priced else None
    )


def estimate_run(run: BenchmarkRun, tests: Sequence[PlannedTest], reply_tokens: int) -> Bill:
    """The bill for the agent's model, then the same run on a few common models (one play per
    context window: the plays after the first replay the same tests, unheard)."""
    settings = run.context.settings
    agent = settings.agent
    model = agent.model.target if agent is not None and agent.calls_a_model and agent.model.target else None
    context = settings.agent_options.context_tokens or context_window_for(model)
    main = estimate(run, tests, reply_tokens=reply_tokens, context_tokens=context, model=model)
    by_window = {context: main}
    for name in COMPARED:
        window = context_window_for(name)
        if window not in by_window:
            with run.instruments.listeners.muted():  # the terminal counted these tests in the first play
                by_window[window] = estimate(
                    run, tests, reply_tokens=reply_tokens, context_tokens=window, model=name
                )
    others = {name: by_window[context_window_for(name)] for name in COMPARED}
    return Bill(agent.display if agent else None, model, main, others)


def _stand_in(
    settings: Settings, model: str | None, *, reply_tokens: int, context_tokens: int
) -> AgentAdapter:
    """The billing chat as the agent, or as the model of the memory system the agent is."""
    chat = BillingChat(model, reply_tokens=reply_tokens, context_tokens=context_tokens)
    spec = settings.agent
    if spec is not None and spec.kind == "store":
        # the answering model's bill: k hits of a stand-in store (BM25) in each answer, as the
        # store's would be; what the store itself costs is the product's, not priced here
        from pytest_memorybench.agents.mechanisms.model import MemoryModel
        from pytest_memorybench.agents.stores.local import IndexStore
        from pytest_memorybench.agents.stores.memory import StoreMemory, StoreSettings
        from pytest_memorybench.agents.stores.store_protocol import StoreClient

        client = StoreClient(IndexStore(), "estimate")
        store = StoreMemory(MemoryModel(chat), client, StoreSettings(k=settings.agent_options.k))
        return AgentAdapter(store, "estimate")
    if spec is None or spec.memory is None:
        return AgentAdapter(chat, "estimate")
    from pytest_memorybench.agents.agent_build import build_mechanism
    from pytest_memorybench.agents.mechanisms.model import MemoryModel

    worker = BillingChat(
        model, reply_tokens=reply_tokens, context_tokens=context_tokens, does_memory_work=True
    )
    stand_in = MemoryModel(chat, worker)
    return AgentAdapter(build_mechanism(spec, settings.agent_options, stand_in), "estimate")
