"""The MemBench scenario: cases become probe contexts, answers become scores, items become tables.

Each case (a generated trajectory, or one of the authors' released ones with `data_path`) is a
probe context of its own with one item, named `<scenario>::<type>-<n>` (`membench::
participation::multi_hop-3`).  Its markers are the scenario (`participation` / `observation`) and
the question type; its skill is the memory level (`factual` / `reflective`), so
`-m "observation and reflective"` selects what the paper's Table 4 reports.

Delivery (engine: `conversation.probing`): the trajectory goes through `observe`, one message a
call by default (`observe_batch: 1`), so the write time per call is MemBench's per-message store
time; participation turns arrive as the user's message and the recorded assistant reply.  Agents
without `observe` get the documented fallback, the turns packed into dated transcript messages.
Then the question with its four options; `retrieve(question, k)` first, for agents that have it.

Capacity (§3.4, §4.4): MemBench asks the question again at every step after the last evidence
and plots accuracy against the tokens delivered so far.  Asking after every message of a 100k
trajectory costs thousands of model calls per question, so we ask at `capacity_points` steps
spread evenly from the last evidence step to the end (all of them when there are fewer, so a large
value gives the paper's every-step probe) plus once at the end; 0 turns the probe off.  The item
is scored on the answer at the end (listed first), the curve uses every answer.

Scoring (one question, the answer given after the whole trajectory):
  paper     the agent's choice against the true choice (§3.4): the option letter read leniently
            from the reply — a letter, "(B)", "Answer: b", {"answer": "B"}, or an option's text
            (`scoring.choice.extract_choice`); a reply naming two options chooses none.
  official  the released code's rule: the reply with spaces and line breaks removed must be the
            correct letter exactly (`score_choice(strict=True)`); its agent forces that form with
            structured output.
Recall@k has one rule in both profiles (§3.4 and `get_recall` agree): the share of evidence step
ids among the ids of the first k retrieved memories.  See `metrics.py`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from pytest_memorybench.contract.probes import ProbeContext, probe_definition
from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.core.load_report import LoadTally
from pytest_memorybench.core.records import Score, TestDefinition
from pytest_memorybench.core.spans import MAX_SPAN_TOKENS
from pytest_memorybench.scenarios.membench.case import Case
from pytest_memorybench.scenarios.membench.metrics import summarize
from pytest_memorybench.scenarios.membench.published import load_cases
from pytest_memorybench.scenarios.membench.questions import (
    ASSISTANT_TYPES,
    LETTERS,
    TYPES,
)
from pytest_memorybench.scenarios.membench.trajectory import generate_case
from pytest_memorybench.scenarios.params import at_least, read_params
from pytest_memorybench.scoring.choice import score_choice
from pytest_memorybench.scoring.profiles import OFFICIAL

HEADER = "Here is an earlier part of our conversation. Remember it; I will ask about it later."
INSTRUCTION = "Answer with the letter of one option (A, B, C or D)."


@dataclass(frozen=True)
class MemBenchParams:
    """How many questions of which types, the trajectories' size and noise, or the released data to read."""

    per_type: int = 5  # questions per type (generated), or a sample per type (released data; 0: all)
    types: str = ""  # comma-separated question types; empty: all of the scenario's
    target_tokens: int = 10000  # generated trajectories are padded with noise to this size
    related: int = 12  # true statements of the graph around the evidence
    capacity_points: int = 8  # extra asks after the last evidence; 0: none
    retrieve_k: int = 10  # recall@k; 0: never call retrieve
    observe_batch: int = 1  # messages per observe() call
    data_path: str = ""  # the released data (file or folder); empty: generate

    def __post_init__(self) -> None:
        at_least("per_type", self.per_type, 0)
        at_least("target_tokens", self.target_tokens, 0, MAX_SPAN_TOKENS)
        for name in ("related", "capacity_points", "retrieve_k"):
            at_least(name, getattr(self, name), 0)
        at_least("observe_batch", self.observe_batch, 1)


def render_question(case: Case) -> str:
    """The question as the agent reads it: the time if the data gives one, the options, the instruction."""
    when = f"(Current time: {case.time}) " if case.time else ""
    options = [f"{letter}. {text}" for letter, text in zip(LETTERS, case.options, strict=False)]
    return "\n".join([when + case.question, *options, INSTRUCTION])


def capacity_asks(case: Case, points: int) -> list[int]:
    """Message counts after which to ask again: `points` steps from the last evidence to the end, evenly."""
    if points <= 0 or not case.evidence:
        return []
    first, last = case.evidence[-1], case.steps - 2  # the final step is the item's own ask
    if last < first:
        return []
    count = last - first + 1
    if points >= count:
        chosen = list(range(first, last + 1))
    else:
        chosen = sorted(
            {first + round(i * (count - 1) / (points - 1)) for i in range(points)} if points > 1 else {first}
        )
    return [case.messages_after(step) for step in chosen]


class MemBenchScenario:
    """`membench.participation` / `membench.observation`: trajectories as contexts, their questions as
    items."""

    skills = ("factual", "reflective")

    def __init__(self, name: str, dialogue: bool) -> None:
        self.name = name
        self.dialogue = dialogue
        self.short = name.rsplit(".", 1)[-1]
        self.types = TYPES if dialogue else tuple(t for t in TYPES if t not in ASSISTANT_TYPES)

    # -- generation -------------------------------------------------------------------------------

    def contexts(self, suite: str, params: Mapping[str, Any], seed: int) -> list[ProbeContext]:
        options = read_params(MemBenchParams, self.name, params)
        if options.data_path:
            tally = LoadTally()
            cases = load_cases(
                options.data_path,
                dialogue=self.dialogue,
                prefix=self.short,
                per_type=options.per_type,
                seed=seed,
                tally=tally,
            )
            if not cases:
                return [self._nothing_to_run(suite, seed, options.data_path)]
            report = tally.report()
            return [replace(self._context(suite, seed, case, options), report=report) for case in cases]
        else:
            cases = [
                generate_case(
                    f"{self.short}-{kind}-{index}",
                    kind,
                    seed=seed,
                    dialogue=self.dialogue,
                    target_tokens=options.target_tokens,
                    related=options.related,
                )
                for kind in self._types(options.types)
                for index in range(1, options.per_type + 1)
            ]
        return [self._context(suite, seed, case, options) for case in cases]

    def _types(self, chosen: str) -> tuple[str, ...]:
        if not chosen.strip():
            return self.types
        wanted = tuple(name.strip() for name in chosen.split(",") if name.strip())
        unknown = [name for name in wanted if name not in self.types]
        if unknown:
            raise usage_error(
                f"scenario {self.name}: unknown question type {unknown[0]!r} (known: {', '.join(self.types)})"
            )
        return wanted

    def _context(self, suite: str, seed: int, case: Case, options: MemBenchParams) -> ProbeContext:
        params: JsonObject = {}
        asks = capacity_asks(case, options.capacity_points)
        if asks:
            params["ask_at"] = [-1, *asks]  # the answer after everything comes first: it is the item's
        if options.retrieve_k:
            params["retrieve_k"] = options.retrieve_k
        definition = probe_definition(
            suite=suite,
            scenario=self.name,
            seed=seed,
            context=case.id,
            probe_id=f"{self.short}::{case.id.removeprefix(self.short + '-')}",
            question=render_question(case),
            ideal_answer=case.answer,
            expected={
                "answer": case.answer,
                "options": dict(zip(LETTERS, case.options, strict=False)),
                "evidence": list(case.evidence),
                "evidence_texts": [list(texts) for texts in case.evidence_texts],
                "level": case.level,
            },
            category=case.type,
            skills=(case.level,),
            markers=(self.short, case.type),
            params=params,
        )
        return ProbeContext(
            case.id,
            (definition,),
            case.turns,
            header=HEADER,
            observe_batch=options.observe_batch,
            tokens=case.tokens,
        )

    def _nothing_to_run(self, suite: str, seed: int, path: str) -> ProbeContext:
        """Released data holding only the other agent's trajectories: one skipped item that says so."""
        folder = "FirstAgent" if self.dialogue else "ThirdAgent"
        definition = probe_definition(
            suite=suite,
            scenario=self.name,
            seed=seed,
            context=f"{self.short}-none",
            probe_id=f"{self.short}::no-data",
            question="(none)",
            ideal_answer="",
            expected=None,
            markers=(self.short,),
        )
        reason = f"{path} holds no {folder} trajectories, which {self.name} needs"
        return ProbeContext(
            f"{self.short}-none", (replace(definition, skip_reason=reason),), lambda: iter(())
        )

    # -- scoring ----------------------------------------------------------------------------------

    def score(self, definition: TestDefinition, responses: Sequence[str], context: ScoringContext) -> Score:
        """The item's verdict from the answer after the whole trajectory; details keep every ask's."""
        expected = definition.expected
        strict = context.profile == OFFICIAL
        verdicts = [
            score_choice(expected["answer"], reply, expected["options"], strict=strict) for reply in responses
        ]
        final = verdicts[0]
        correct_text = expected["options"][expected["answer"]]
        reasons = (*final.reasons, f"{expected['answer']} = {correct_text}")
        if len(verdicts) > 1:
            right = sum(verdict.value for verdict in verdicts[1:])
            reasons += (f"capacity asks: {right:.0f} of {len(verdicts) - 1} correct",)
        details = {
            "correct": [verdict.value == 1.0 for verdict in verdicts],
            "level": expected["level"],
            "evidence": expected["evidence"],
            "evidence_texts": expected["evidence_texts"],
            "retrieve_k": definition.params.get("retrieve_k", 0),
        }
        return Score(final.value, reasons, details)

    summarize = staticmethod(summarize)
