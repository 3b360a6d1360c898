"""Probe scenarios: one long context delivered once, then many independent questions about it.

The episodic, BEAM and MemBench families share this shape: a book, a multi-session chat or a
message stream is handed to the agent, and each question about it is a pytest item of its own.
A probe scenario therefore yields `ProbeContext`s instead of one definition per repetition; each
context becomes one conversation group, driven by `conversation.probing`.

Delivery follows the agent's capabilities: with `observe`, the turns are ingested in batches
without replies (recorded assistant turns included); without it, they are packed into transcript
messages of at most `pack_tokens` tokens and sent through `reply`.  Each question is then asked on
a `fork()` of the agent when it has one (independent probes from the same state), else in turn.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from pytest_memorybench.core.load_report import LoadReport
from pytest_memorybench.core.records import Message, Score, ScriptLine, TestDefinition

DEFAULT_PACK_TOKENS = 4096
DEFAULT_HEADER = "Here is an earlier part of our conversation. Remember it; I will ask about it later."


@dataclass(frozen=True)
class ProbeContext:
    """What the agent is given before the questions, and the questions themselves.

    `turns` is a function, not a list, so a 10M-token chat can stream from disk batch by batch;
    it must produce the same turns every time it is called.  `tokens`, when the scenario knows
    it, saves counting the whole context again.
    """

    id: str
    probes: tuple[TestDefinition, ...]
    turns: Callable[[], Iterable[Message]]
    header: str = DEFAULT_HEADER
    pack_tokens: int = DEFAULT_PACK_TOKENS
    observe_batch: int = 64  # messages per observe() call
    tokens: int | None = None
    sessions: int | None = None  # the history's size, where it is counted in sessions (ConvoMem's
    # conversations, as asked: every evidence one is kept beyond it): each item's details record it,
    # and a comparison of runs of other sizes draws the scale curve
    report: LoadReport | None = None  # published data: what its loader read and could not use (the
    # same report on every context of one loader call; the suite counts their items)


@runtime_checkable
class ProbeScenario(Protocol):
    """A scenario that produces contexts with probes (instead of `generate`)."""

    name: str
    skills: tuple[str, ...]

    def contexts(self, suite: str, params: Mapping[str, Any], seed: int) -> list[ProbeContext]: ...

    def score(
        self, definition: TestDefinition, responses: Sequence[str], context: Any
    ) -> Score | Awaitable[Score]: ...

    # Optional: `evidence_ids(definition) -> Sequence[int]`, the ids (`Message.id`) of the context
    # turns a question rests on; with it, agents that can `retrieve` get evidence recall measured.
    # Optional: `async follow_up(definition, replies) -> str | None`, what to tell the agent after its
    # replies so far (sdebench: the failing tests of its fix), None when the ask is over; every reply
    # is scored.  `workspace(definition)`: files an agent with `edit(message, workspace)` acts on
    # instead of replying (its `answer(said)` is the reply kept, `close()` removes it).


class FamilyPart:
    """A scenario that is one part of a benchmark family (`convomem.abstention`,
    `memoryagentbench.conflict_resolution`): named and marked by its part, its questions' evidence
    the turns their definitions name."""

    family = ""

    def __init__(self, part: str) -> None:
        self.part = part
        self.name = f"{self.family}.{part}"
        self.skills = (part,)

    def evidence_ids(self, definition: TestDefinition) -> list[int]:
        return list((definition.expected or {}).get("evidence_ids") or ())


def is_probe_scenario(scenario: object) -> bool:
    """Whether a scenario delivers contexts and asks questions about them (a probe family)."""
    return callable(getattr(scenario, "contexts", None))


def probe_definition(
    *,
    suite: str,
    scenario: str,
    seed: int,
    context: str,
    probe_id: str,
    question: str,
    ideal_answer: str,
    expected: Any,
    category: str | None = None,
    skills: Sequence[str] = (),
    markers: Sequence[str] = (),
    params: Mapping[str, Any] | None = None,
    index: int = 1,
) -> TestDefinition:
    """A one-question definition about `context`.

    `params["ask_at"]`, if set, is the number of context turns delivered before the question is
    asked (default: after all of them); a list of such numbers asks the same question at each
    point (MemBench's capacity curve), one response per point.
    """
    return TestDefinition(
        suite=suite,
        scenario=scenario,
        repetition=index,
        seed=seed,
        script=(ScriptLine(question, is_question=True),),
        ideal_answers=(ideal_answer,),
        expected=expected,
        skills=tuple(skills),
        params=dict(params or {}),
        probe_id=probe_id,
        context=context,
        category=category,
        markers=tuple(markers),
    )


def ideal_answer(definition: TestDefinition, profile: str) -> str:
    """What the calibration oracle answers under `profile`: the definition's ideal answer, or the
    gold a profile corrects (`params["ideal_by_profile"]`, e.g. the LoCoMo audit's answer)."""
    corrected = definition.params.get("ideal_by_profile")
    ideal = corrected.get(profile) if isinstance(corrected, Mapping) else None
    return ideal if isinstance(ideal, str) and ideal else definition.ideal_answers[0]


_UNSAFE = re.compile(r"[^A-Za-z0-9._\[\]-]+")


def file_stem(test_id: str) -> str:
    """A file name for a test id: ids such as `q0137[(t,s,*,*)]` hold characters file systems
    refuse, so those become `_` and a short hash keeps distinct ids distinct."""
    safe = _UNSAFE.sub("_", test_id)
    if safe == test_id:
        return test_id
    return f"{safe}-{hashlib.sha1(test_id.encode()).hexdigest()[:8]}"


__all__ = [
    "DEFAULT_HEADER",
    "DEFAULT_PACK_TOKENS",
    "FamilyPart",
    "ProbeContext",
    "ProbeScenario",
    "file_stem",
    "ideal_answer",
    "is_probe_scenario",
    "probe_definition",
]
