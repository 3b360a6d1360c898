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
from dataclasses import dataclass, field
from typing import Any

from pytest_memorybench.agents.models.llm import (
    DEFAULT_OUTPUT_TOKENS,
    MESSAGE_OVERHEAD,
    Completion,
    LLMChatAgent,
    Turn,
)
from pytest_memorybench.agents.models.openai import (
    REASONING_OUTPUT_TOKENS,
    is_reasoning_model,
)
from pytest_memorybench.agents.models.prices import Price, context_window_for, price_for
from pytest_memorybench.agents.protocol import AgentAdapter
from pytest_memorybench.core.records import Usage
from pytest_memorybench.core.tokens import default_counter
from pytest_memorybench.reports.summary import compact_count
from pytest_memorybench.runner.plan import PlannedTest
from pytest_memorybench.runner.run import BenchmarkRun

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
    status_error = connection_error = timeout_error = RuntimeError

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


@dataclass
class SuiteBill:
    """What one suite would cost: tests, calls, tokens delivered and billed, and the memory's share."""

    tests: int = 0
    calls: int = 0
    delivered: int = 0  # tokens of conversation the agent is told
    usage: Usage = field(default_factory=Usage)
    memory: dict[str, Usage] = field(default_factory=dict)  # a memory system's calls by phase


@dataclass
class Estimate:
    """The bill of a whole run on one model: per suite and in total, and the judge's tasks."""

    model: str | None
    context_tokens: int
    reply_tokens: int
    suites: dict[str, SuiteBill]
    judge_tasks: int
    spans: dict[str, str]

    @property
    def total(self) -> SuiteBill:
        total = SuiteBill()
        for bill in self.suites.values():
            total.tests += bill.tests
            total.calls += bill.calls
            total.delivered += bill.delivered
            total.usage.add(bill.usage)
            for phase, usage in bill.memory.items():
                total.memory.setdefault(phase, Usage()).add(usage)
        return total


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
    tasks_before = run.judge_stats()["calls"]
    for group, members in groups.items():
        agent = _stand_in(run, model, reply_tokens=reply_tokens, context_tokens=context_tokens)
        run.run_sync(run.drive(group, members, agent))
        bill = bills[members[0].definition.suite]
        bill.tests += len(members)
        bill.calls += agent.target.usage.calls
        bill.delivered += run.conversations[group].tokens
        bill.usage.add(agent.target.usage)
        for phase, usage in (agent.memory_usage or {}).items():
            bill.memory.setdefault(phase, Usage()).add(usage)
    spans = {name: str(span) for name, span in run.interleaved_spans.items()}
    return Estimate(
        model, context_tokens, reply_tokens, dict(bills), run.judge_stats()["calls"] - tasks_before, spans
    )


def _stand_in(
    run: BenchmarkRun, model: str | None, *, reply_tokens: int, context_tokens: int
) -> AgentAdapter:
    """The billing chat as the agent, or as the model of the memory system the agent is."""
    chat = BillingChat(model, reply_tokens=reply_tokens, context_tokens=context_tokens)
    spec = run.settings.agent
    if spec is not None and spec.kind == "store":
        # the answering model's bill: k hits of a stand-in store (BM25) in each answer, as the
        # store's would be; what the store itself costs is the product's, not priced here
        from pytest_memorybench.agents.mechanisms.model import MemoryModel
        from pytest_memorybench.agents.stores.local import IndexStore
        from pytest_memorybench.agents.stores.memory import StoreMemory, StoreSettings
        from pytest_memorybench.agents.stores.protocol import StoreClient

        client = StoreClient(IndexStore(), "estimate")
        store = StoreMemory(MemoryModel(chat), client, StoreSettings(k=run.settings.agent_options.k))
        return AgentAdapter(store, "estimate")
    if spec is None or spec.memory is None:
        return AgentAdapter(chat, "estimate")
    from pytest_memorybench.agents.build import build_mechanism
    from pytest_memorybench.agents.mechanisms.model import MemoryModel

    worker = BillingChat(
        model, reply_tokens=reply_tokens, context_tokens=context_tokens, does_memory_work=True
    )
    stand_in = MemoryModel(chat, worker)
    return AgentAdapter(build_mechanism(spec, run.settings.agent_options, stand_in), "estimate")


def estimate_lines(run: BenchmarkRun, tests: Sequence[PlannedTest], reply_tokens: int) -> list[str]:
    """The estimate for the agent's model, then the same run on a few common models.

    The run's progress follows the first play only: the plays for other context windows replay the
    same tests, and counting them again would take "tests done" past the number of tests.
    """
    agent = run.settings.agent
    model = agent.model.target if agent is not None and agent.calls_a_model and agent.model.target else None
    context = run.settings.agent_options.context_tokens or context_window_for(model)
    main = estimate(run, tests, reply_tokens=reply_tokens, context_tokens=context, model=model)
    price = price_for(model)
    spans = ", ".join(f"{suite}={span}" for suite, span in main.spans.items()) or "- (probe suites)"
    lines = [
        (
            f"{agent.display if agent else 'a full-context chat model'} · context {context:,} tokens "
            f"· replies of {reply_tokens} tokens · span {spans}"
        ),
        (
            f"{'suite':<20}{'tests':>6}{'calls':>7}{'delivered':>10}"
            f"{'billed in':>11}{'billed out':>11}{'cost':>11}"
        ),
    ]
    for name, bill in [*main.suites.items(), ("total", main.total)]:
        cost = _money(price.cost(bill.usage.input_tokens, bill.usage.output_tokens)) if price else "?"
        lines.append(
            f"{name:<20}{bill.tests:>6}{bill.calls:>7}{compact_count(bill.delivered):>10}"
            f"{compact_count(bill.usage.input_tokens):>11}{compact_count(bill.usage.output_tokens):>11}{cost:>11}"
        )
    if price is None:
        lines.append(
            f"no price known for {model or 'this agent'}: give one with --mb-price MODEL=IN,OUT, or see the"
            " models below"
        )
    memory = main.total.memory
    if memory:
        lines.append(
            "memory: "
            + " · ".join(
                f"{phase} {usage.calls:,} calls, {compact_count(usage.input_tokens)} in"
                for phase, usage in memory.items()
            )
            + " (in the total above)"
        )
    if main.judge_tasks:
        lines.append(
            f"judge: {main.judge_tasks} tasks; an LLM judge makes at least one call for each (the local judge"
            " none)"
        )
    lines.append("the same run on other models (USD per million tokens in / out, context window):")
    lines += _other_models(run, tests, reply_tokens, {context: main})
    lines.append(
        "billed: each call re-sends the conversation up to the context window; filler is observed without a"
        " call"
    )
    lines.append("reasoning models (o-series, gpt-5) also bill their reasoning as output: not included above")
    return lines


def _other_models(
    run: BenchmarkRun, tests: Sequence[PlannedTest], reply_tokens: int, by_window: dict[int, Estimate]
) -> list[str]:
    """The bill on each compared model: one play per context window, priced per model."""
    lines = []
    for name in COMPARED:
        window = context_window_for(name)
        if window not in by_window:
            progress, run.progress = run.progress, None  # shown for the first play only
            try:
                by_window[window] = estimate(
                    run, tests, reply_tokens=reply_tokens, context_tokens=window, model=name
                )
            finally:
                run.progress = progress
        total = by_window[window].total.usage
        known = price_for(name)
        assert known is not None
        cost = _money(known.cost(total.input_tokens, total.output_tokens))
        lines.append(f"  {name:<20}{_rate(known):>16}{window:>12,}{cost:>12}")
    return lines


def _rate(price: Price) -> str:
    return f"${price.input_per_million:.2f} / ${price.output_per_million:.2f}"


def _money(value: float) -> str:
    return f"${value:,.2f}" if value >= 0.01 or value == 0 else f"${value:.4f}"
