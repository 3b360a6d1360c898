"""The `reference` task: does an answer refer to the expected answer (GoodAI's checker)?"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pytest_memorybench.judges.local.text import (
    analyse,
    clean,
    coverage,
    dates_agree,
    has_value,
    parse_number,
    phrase_in,
    times_agree,
)


def judge_reference(payload: Mapping[str, Any]) -> dict[str, Any]:
    expected, answer = str(payload["expected"]), str(payload["answer"] or "")
    value = parse_number(expected)
    if value is not None:
        matched = has_value(value, analyse(answer).numbers)
        return {"refers": matched, "expected_is_number": True, "numbers_match": matched,
                "reason": f"the answer {'states' if matched else 'does not state'} the value {value:g}"}
    refers, why = _refers(expected, answer)
    return {"refers": refers, "expected_is_number": False, "numbers_match": None, "reason": why}


_NEGATION_BEFORE = re.compile(r"(?:\bnot|\bno|\bnever|n't|\bnor|\bneither)(?:\s+\w+){0,2}\s*$")


def _refers(expected: str, answer: str) -> tuple[bool, str]:
    wanted, given = analyse(expected), analyse(answer)
    if not wanted.norm:
        return False, "nothing was expected"
    if wanted.dates and not dates_agree(wanted.dates, given.dates):
        return False, "the expected date is not in the answer"
    if wanted.times and not times_agree(wanted.times, given.times):
        return False, "the expected time is not in the answer"
    if not all(has_value(number, given.numbers) for number in wanted.numbers):
        return False, "a number of the expected answer is missing"
    if phrase_in(expected, answer):
        if _only_negated(wanted.norm, clean(answer)):
            return False, "the answer mentions the expected answer only to deny it"
        if _among_alternatives(wanted.norm, clean(answer)):
            return False, "the answer names the expected answer only as one of several it cannot choose between"
        return True, "the answer contains the expected answer"
    words = wanted.content
    if not words:
        found = bool(wanted.dates or wanted.numbers or wanted.times)
        return found, "the expected values are in the answer" if found else "the answer does not contain it"
    share = coverage(words, given.content_set)
    needed = 1.0 if len(set(words)) <= 2 else 0.75 if len(set(words)) <= 5 else 0.6
    if share >= needed:
        return True, f"the answer covers {share:.0%} of the expected answer's words"
    return False, f"the answer covers only {share:.0%} of the expected answer's words"


_UNSURE = re.compile(r"\b(?:either|not\s+(?:sure|certain)|unsure|maybe|perhaps|might\s+have|can'?t\s+(?:remember|recall)\s+which)\b")


def _among_alternatives(phrase: str, lowered_answer: str) -> bool:
    """"It was either Japan, South Korea or Vietnam, I'm not sure which": a guess among candidates."""
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", lowered_answer):
        if phrase_in(phrase, sentence) and re.search(r"\bor\b", sentence) and _UNSURE.search(sentence):
            return True
    return False


def _only_negated(phrase: str, lowered_answer: str) -> bool:
    words = phrase.split()
    pattern = re.compile(r"(?<![\w])" + r"\W+(?:(?:a|an|the)\W+)?".join(re.escape(w) for w in words) + r"(?![\w])")
    matches = list(pattern.finditer(lowered_answer))
    return bool(matches) and all(_NEGATION_BEFORE.search(lowered_answer[: m.start()]) for m in matches)
