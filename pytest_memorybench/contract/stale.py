"""Stale facts: a superseded value offered to the answer, or given by it.

Where a suite knows that a fact changed (LTM's colours and conflicting personal information, and
any scenario with a `superseded` method), a right answer gives the new value; a memory that keeps
the old one beside it, or ranks it first, offers the answering model a stale fact (StateBench calls
giving it "resurrection").  So for each such question the item's details record `stale`:

- `superseded`: the values the question's answer replaced (the scenario's `superseded(definition)`);
- `reached`: whether one of them was in what the answer was given: the memories the agent's prompt
  held where it says (`context()`), else the first k its search returned (`conversation/evidence.py`
  matches them in each memory as whole words, or by content words for a longer text); None when the
  agent shows neither;
- `asserted`: whether a reply to the test's questions asserts one, negation-aware
  (`scoring/negation.py`: "Blue, not red" and "it used to be red" do not assert red), with the
  `clause` that does.

The run's stale-fact rate is the share of such questions with each (`results/stale.py`).
"""

from __future__ import annotations

from collections.abc import Sequence

from pytest_memorybench.contract.scenario import Scenario
from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.core.records import TestDefinition
from pytest_memorybench.scoring.negation import asserted


def superseded_values(scenario: Scenario, definition: TestDefinition) -> list[str]:
    """The values a question's answer replaced, when its scenario knows them (`superseded`), else []."""
    values = getattr(scenario, "superseded", None)
    return [str(value) for value in values(definition)] if values is not None else []


def expected_superseded(definition: TestDefinition) -> list[str]:
    """The values a probe's generator wrote in its `expected["superseded"]` (ConvoMem's changing
    facts, MemoryAgentBench's conflicts, LongMemEval's knowledge updates): a family whose history is
    not in the definition says there what the answer replaced, where its data knows it."""
    expected = definition.expected
    values = expected.get("superseded") if isinstance(expected, dict) else None
    return [str(value) for value in values] if isinstance(values, list) else []


def stale_details(
    scenario: Scenario, definition: TestDefinition, responses: Sequence[str], details: JsonObject
) -> JsonObject:
    """`details` with `stale` added, for a question whose scenario knows what its answer superseded."""
    values = superseded_values(scenario, definition)
    if not values:
        return details
    mention = next(
        (found for reply in responses for value in values if (found := asserted(reply, value)) is not None),
        None,
    )
    stale: JsonObject = {
        "superseded": list(values),
        "reached": _reached(details.get("evidence")),
        "asserted": mention is not None,
    }
    if mention is not None:
        stale["clause"] = mention.clause
    return {**details, "stale": stale}


def _reached(evidence: object) -> bool | None:
    """From the question's evidence record: the prompt's memories if the agent said, else the search's."""
    if not isinstance(evidence, dict):
        return None
    context = evidence.get("context")
    if isinstance(context, dict) and "stale_reached" in context:
        return bool(context["stale_reached"])
    reached = evidence.get("stale_reached")
    return None if reached is None else bool(reached)
