"""Key-Value Pairs (GoodAI's `kv` dataset, after MemGPT's nested key-value retrieval task).

GoodAI's dataset: one message shows a JSON object of `pairs` random UUID keys and values (140 by
default, about 8k tokens: MemGPT §3.2.2); with `nested_levels` > 0 some values are themselves
keys of the object, so the leaf value of a root key is found by following the chain.  The question
asks for the leaf value of one root key.  Our UUIDs come from a seeded generator, so a definition is
the same on every machine (GoodAI's `uuid4()` is not reproducible); the object is written as JSON
(GoodAI printed a Python dict).

Scoring (one question, both profiles as the reference): 1 iff the expected leaf value appears in the
reply, as written.
"""

from __future__ import annotations

import json
import random
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.records import Score, ScriptLine, TestDefinition
from pytest_memorybench.scenarios.base import definition
from pytest_memorybench.scenarios.ltm.goodai_format import (
    GoodAIDefinitionFile,
    goodai_definition,
)
from pytest_memorybench.scenarios.opening import opening
from pytest_memorybench.scenarios.params import at_least
from pytest_memorybench.scenarios.waits import spread_over_span

NAME = "ltm.key_value_pairs"
SKILLS = ("recall",)
SHOW = "Here is a JSON file. Please keep it in mind:\n\n{pairs}"
QUESTION = "In the JSON file I showed you earlier, which leaf value belongs to the key {key!r}?"


@dataclass(frozen=True)
class KeyValueParams:
    """How many key-value pairs the JSON file holds and how deeply they nest."""

    pairs: int = 140
    nested_levels: int = 0

    def __post_init__(self) -> None:
        at_least("pairs", self.pairs, 1)
        at_least("nested_levels", self.nested_levels, 0)
        if self.pairs < self.nested_levels + 1:
            raise ValueError(f"pairs ({self.pairs}) must be more than nested_levels ({self.nested_levels})")


def make_pairs(rng: random.Random, pairs: int, nested_levels: int) -> tuple[list[str], dict[str, str]]:
    """Root keys and all pairs: each level's values are the next level's keys, the last level's UUIDs."""

    def new_id() -> str:
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))

    if nested_levels == 0:
        roots = [new_id() for _ in range(pairs)]
        return roots, {key: new_id() for key in roots}
    count = pairs // (nested_levels + 1)
    lower_roots, lower = make_pairs(rng, pairs - count, nested_levels - 1)
    roots = [new_id() for _ in range(count)]
    return roots, {**dict(zip(roots, lower_roots, strict=True)), **lower}


def leaf(key: str, pairs: Mapping[str, str]) -> str:
    """The value a key leads to, following values that are themselves keys."""
    value = pairs[key]
    while value in pairs:
        value = pairs[value]
    return value


class KeyValuePairs:
    """`ltm.key_value_pairs`: a leaf value of a JSON file shown once."""

    name = NAME
    skills = SKILLS

    def generate(self, suite: str, params: Mapping[str, Any], seed: int, repetition: int) -> TestDefinition:
        settings, rng = opening(KeyValueParams, NAME, params, seed, repetition)
        roots, pairs = make_pairs(rng, settings.pairs, settings.nested_levels)
        shuffled = dict(sorted(pairs.items(), key=lambda _: rng.random()))  # a chain's links are not adjacent
        key = rng.choice(roots)
        lines = [SHOW.format(pairs=json.dumps(shuffled, indent=1)), QUESTION.format(key=key)]
        waits = spread_over_span(len(lines))
        script = tuple(
            ScriptLine(text, is_question=index == 1, wait=wait)
            for index, (text, wait) in enumerate(zip(lines, waits, strict=True))
        )
        value = leaf(key, pairs)
        return definition(self, suite, repetition, seed, script, (value,), value, asdict(settings))

    def from_goodai(
        self, raw: GoodAIDefinitionFile, example_id: str, suite: str, repetition: int
    ) -> TestDefinition:
        value = str(raw["expected_responses"][0])
        return goodai_definition(self, raw, example_id, suite, repetition, (value,), value)

    def score(self, definition: TestDefinition, responses: Sequence[str], context: ScoringContext) -> Score:
        reply = responses[-1] if responses else ""
        found = definition.expected in reply
        return Score(
            float(found),
            (
                (
                    f"the leaf value {definition.expected} is {'' if found else 'not '}in the reply"
                    f" ({context.profile} profile)"
                ),
            ),
        )


SCENARIO = KeyValuePairs()
