"""The `answer` task: is an answer right by LoCoMo's J or one of LongMemEval's per-type rules?

  generous, contains  the reference rule (the expected answer, or enough of its content words and
             every date and number of it, stated and not denied, hedged or asked); dates compared
             by value in any format
  days       the same, and a count that is one off the expected number still counts
  update     the same: naming an earlier value beside the current one is allowed
  preference the answer uses the rubric's own specifics (its distinctive content words, at least
             half of them), and does not abstain
  abstention the answer says it does not know or that the conversation never said, and does not
             go on to answer anyway ("I don't remember, but it was called …")

The local judge reads no relative dates ("last Tuesday"), which the generous rule accepts when they
land on the right day, and no paraphrase beyond spelling and stems.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pytest_memorybench.judges.local.reference import judge_reference
from pytest_memorybench.judges.local.text import (
    abstains,
    analyse,
    coverage,
    normalise,
    parse_number,
    same_value,
)

# Words every preference rubric uses and no answer needs to repeat.
_RUBRIC_WORDS = frozenset(
    "user users would prefer prefers preferred preference preferences response responses suggest suggests"
    " suggestion suggestions recommend recommendations recommendation answer answers might may likely should"
    " tailored personalized personalised specific specifically their they them based utilize utilizing use"
    " using consider considering mention mentioned interest interests previous previously given include"
    " including also not especially particular".split()
)

# "I don't remember every detail, but your brother's boat is called the Gull": an abstention that
# goes on to answer.
_GOES_ON = re.compile(
    r"\b(?:but|though|although|however)\b[^.;!?]*\b(?:is|was|are|were|called|named)\b", re.IGNORECASE
)


def judge_answer(payload: Mapping[str, Any]) -> dict[str, Any]:
    """The local judge's verdict on an answer task, by its rule: generous J, or one of LongMemEval's per-type
    rules.
    """
    rule, answer = str(payload["rule"]), str(payload["answer"] or "")
    if normalise(answer) and normalise(answer) == normalise(str(payload["expected"])):
        return {"correct": True, "reason": "the answer is the expected answer"}
    if rule == "abstention":
        said = abstains(answer) and not _GOES_ON.search(answer)
        return {
            "correct": said,
            "reason": "the answer says it does not know" if said else "the answer answers as if it knew",
        }
    if abstains(answer):
        return {"correct": False, "reason": "the answer does not answer"}
    if rule == "preference":
        return _preference(str(payload["expected"]), answer)
    verdict = judge_reference(
        {"question": payload["question"], "expected": payload["expected"], "answer": answer}
    )
    correct = bool(verdict["refers"]) and (
        not verdict["expected_is_number"] or bool(verdict["numbers_match"])
    )
    if not correct and rule == "days":
        expected = (
            parse_number(str(payload["expected"]).split()[0]) if str(payload["expected"]).split() else None
        )
        if expected is not None and any(
            same_value(abs(value - expected), 1) for value in analyse(answer).numbers
        ):
            return {
                "correct": True,
                "reason": "the answer's count is one off the expected one, which this rule allows",
            }
    return {"correct": correct, "reason": verdict.get("reason", "")}


def _preference(rubric: str, answer: str) -> dict[str, Any]:
    words = [word for word in analyse(rubric).content if word not in _RUBRIC_WORDS]
    if not words:
        return {"correct": False, "reason": "the rubric names nothing specific to look for"}
    share = coverage(words, analyse(answer).content_set)
    if share >= 0.5:
        return {"correct": True, "reason": f"the answer uses {share:.0%} of the rubric's specifics"}
    return {"correct": False, "reason": f"the answer uses only {share:.0%} of the rubric's specifics"}
