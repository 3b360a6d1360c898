"""The judge contract: a typed task goes in, a JSON verdict comes out.

A judge is only a semantic comparator.  Scorers decide the score; the judge answers narrow
questions they cannot answer by string matching ("does this reply refer to the expected thing?",
"which of these items does the answer mention?").  Every task kind has a fixed input payload and a
fixed output schema, so an LLM judge and the offline `local` judge are interchangeable, their
verdicts cacheable, and their disagreement measurable (the meta-evaluation).

Task kinds, inputs → output JSON (all outputs may also carry a free-text "reason"):

  reference    {question, expected, answer}
               → {"refers": bool, "expected_is_number": bool, "numbers_match": bool | null}
               GoodAI's checker (paper Fig. 8): correct ⇔ refers and not (expected_is_number and
               not numbers_match).
  sentence     {answer, sentence}
               → {"present": bool, "extracted": str | null}
               GoodAI Fig. 20: is (a paraphrase of) `sentence` in the answer; quote it if so.
  directions   {answer, places: [str]}
               → {"hops": [{"origin": str, "kilometers": int, "direction": "north"|"south"|"east"|"west",
                            "destination": str}]}
               GoodAI Fig. 10: the route the answer describes, place names from `places`; [] if none.
  restaurant   {reply, menu: [str], drinks: [str]}
               → {"dishes": [str], "drinks": [str], "other": str | null}
               GoodAI Figs. 17–18: what the diner's reply orders, as menu / drink names.
  items        {question, retrieval_type, ground_truth: [str], answer}
               → {"identified": [str], "matching": [0 | 0.5 | 1 for each ground_truth item, in order]}
               Episodic Listing 12: identified = unique relevant items in the answer ([] if it says it
               has no information); matching = 1 found, 0.5 related but not explicit, 0 missing.
  order        {predicted: [str], ground_truth: [str]}
               → {"predicted_indexes": [int]}   (for each predicted item, the first unused matching
               ground-truth index, or -1) — episodic Listing 14.
  nugget       {question, nugget, answer}
               → {"score": 0 | 0.5 | 1}
               BEAM Listing 20: does the answer satisfy this rubric nugget (positive or negative).
  interpretation {statement, keywords: [str], answer}
               → {"valid": bool}
               GoodAI Spy Meeting's fallback: does the answer decode the coded statement as something
               that means one of the keywords (repeating the statement's own words does not)?
  equivalence  {first, second}
               → {"equivalent": bool}
               BEAM Listing 21: do the two snippets state the same event or fact.
  answer       {question, expected, answer, rule}
               → {"correct": bool}
               LoCoMo's "J" of the common evaluation pipelines (rule `generous`) and LongMemEval's
               per-type checks (`contains`, `days`, `update`, `preference`, `abstention`): is the
               answer right, by that rule (`prompts.ANSWER_RULES` says each rule in words).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Protocol

from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.core.records import Usage

TASK_KINDS = (
    "reference",
    "sentence",
    "directions",
    "restaurant",
    "items",
    "order",
    "nugget",
    "equivalence",
    "interpretation",
    "answer",
)

UNPARSEABLE = "judge-unparseable"
JUDGE_ERROR = "judge-error"  # the judge could not be asked: its provider failed after retries, or a bug
# The local judge's rules' version: bump when a rule changes (judges/local/); it is recorded with
# results like a prompt hash.  Here, not beside the rules, so a run records it without loading them.
LOCAL_VERSION = "local-9"


class JudgeFailed(Exception):
    """A run's judge could not give a verdict: the test it scores has no score (an error, not a 0).

    Raised by the run's judge wrapper (`conversation.channel.LoggedJudge`); the public asserts and
    the judge check use the judge directly and see a verdict with its `error` instead.
    """

    kind = "judge"


@dataclass(frozen=True)
class JudgeTask:
    """One question for the judge.  `scorer` names who asks, and is part of the cache key."""

    kind: str
    payload: JsonObject  # what the kind's prompt is filled with (its schema: judges/prompts)
    scorer: str = ""

    def __post_init__(self) -> None:
        if self.kind not in TASK_KINDS:
            raise ValueError(f"unknown judge task {self.kind!r}; known: {', '.join(TASK_KINDS)}")

    def fingerprint(self) -> str:
        """A stable hash of the task, for cache keys and logs."""
        text = json.dumps([self.kind, self.payload, self.scorer], sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class JudgeVerdict:
    """The judge's answer: `data` matches the task's output schema, or `error` says why not.

    An unparseable or invalid reply after retries is not an exception: `error` starts with
    "judge-unparseable" and the scorer turns it into a 0 with that reason.
    """

    kind: str
    data: JsonObject | None  # the reply as `judges.replies.validate` left it: the kind's schema
    error: str | None = None
    cached: bool = False

    @property
    def ok(self) -> bool:
        return self.error is None and self.data is not None


@dataclass
class JudgeStats:
    """What judging cost a run: its model's calls, tokens and dollars (`usage`, the same counters an
    agent's calls have; a judge's seconds are not measured), cache hits and unparseable replies."""

    usage: Usage = field(default_factory=Usage)
    cache_hits: int = 0
    unparseable: int = 0
    prompt_hashes: dict[str, str] = field(default_factory=dict)  # task kind → hash of its prompt template
    model: str | None = None  # the model an LLM judge answered with (discovered when the spec names none)
    output_form: str | None = (
        None  # the structured-output form the server took ("json_schema", "tool", "text")
    )
    version: str | None = None  # the local judge's rules version

    def add(self, other: JudgeStats) -> None:
        """Count `other`'s judging too (a panel's jurors added up); its identity is not taken."""
        self.usage.add(other.usage)
        self.cache_hits += other.cache_hits
        self.unparseable += other.unparseable

    def record(self) -> JsonObject:
        """As results.json keeps it: the counters flat beside the identity, in this order."""
        return {
            "calls": self.usage.calls,
            "cache_hits": self.cache_hits,
            "input_tokens": self.usage.input_tokens,
            "output_tokens": self.usage.output_tokens,
            "cost_usd": self.usage.cost_usd,
            "unparseable": self.unparseable,
            "prompt_hashes": dict(self.prompt_hashes),
            "model": self.model,
            "output_form": self.output_form,
            "version": self.version,
        }


class Judge(Protocol):
    """`name` identifies the judge in results (model and base URL, never a key)."""

    @property
    def stats(self) -> JudgeStats: ...

    @property
    def name(self) -> str: ...

    async def judge(self, task: JudgeTask) -> JudgeVerdict: ...
