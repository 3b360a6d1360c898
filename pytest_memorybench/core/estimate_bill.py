"""What `--mb-estimate` found a run would bill: per suite, on the agent's model and on others.

Made by the plays in `runner/estimate_plays.py`, priced and shown by `reports/estimate.py`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pytest_memorybench.core.records import Usage


@dataclass
class SuiteBill:
    """What one suite would cost: tests, calls, tokens delivered and billed, and the memory's share."""

    tests: int = 0
    calls: int = 0
    delivered: int = 0  # tokens of conversation the agent is told
    usage: Usage = field(default_factory=Usage)
    memory: dict[str, Usage] = field(default_factory=dict)  # a memory system's calls by phase


@dataclass(frozen=True)
class JudgeBill:
    """What judging would cost: the tasks scorers ask, and the calls, tokens and dollars the LLM
    jurors make of them (each juror, each repeat, each rubric of the band)."""

    judge: str  # the judge (or jury) as results name it
    tasks: int
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = 0.0  # None: a juror's model has no known price


@dataclass
class Estimate:
    """The bill of a whole run on one model: per suite and in total, and the judge's."""

    model: str | None
    context_tokens: int
    reply_tokens: int
    suites: dict[str, SuiteBill]
    judge: JudgeBill
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


@dataclass(frozen=True)
class Bill:
    """The estimate of a run: on the agent's own model, and on each compared model."""

    agent: str | None  # the agent as shown; None: a full-context chat model
    model: str | None
    main: Estimate
    others: dict[str, Estimate]  # by compared model
