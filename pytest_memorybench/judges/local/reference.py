"""The `reference` task: does an answer refer to the expected answer (GoodAI's checker)?"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.judges.local.identifiers import identifier_written
from pytest_memorybench.judges.local.stance import EXPLAINED, asserted, stance
from pytest_memorybench.judges.local.text import analyse, clean, coverage, parse_number, phrase_in
from pytest_memorybench.judges.local.values import dates_agree, has_value, times_agree


def judge_reference(payload: Mapping[str, Any]) -> JsonObject:
    """Whether an answer refers to the expected one: its value for a number, its words otherwise."""
    expected, answer = str(payload["expected"]), str(payload["answer"] or "")
    value = parse_number(expected)
    if value is not None:
        matched, why = _states_value(value, answer, str(payload.get("question") or ""))
        return {"refers": matched, "expected_is_number": True, "numbers_match": matched, "reason": why}
    refers, why = _refers(expected, answer)
    return {"refers": refers, "expected_is_number": False, "numbers_match": None, "reason": why}


def _states_value(value: float, answer: str, question: str) -> tuple[bool, str]:
    """The answer states `value` as its answer: not denied, offered among others, asked or doubted, and
    where a sentence about the question's subject gives values, one of them ("three is common; you
    have four siblings" states four)."""
    if not has_value(value, analyse(answer).numbers):
        return False, f"the answer does not state the value {value:g}"
    text = clean(answer)
    spans = [
        (m.start(), m.end()) for m in re.finditer(r"[\w.,:'-]+", text) if _word_value(m.group(0)) == value
    ]
    if spans and not asserted(text, spans):
        return False, f"the answer gives the value {value:g} only {_why(text, spans)}"
    subject = set(analyse(question).content)
    on_subject = [
        analyse(sentence)
        for sentence in re.split(r"(?<=[.!?;])\s+", text)
        if subject & set(analyse(sentence).content)
    ]
    values = [number for sentence in on_subject for number in sentence.numbers]
    if values and not has_value(value, values):
        return False, f"the answer gives another value than {value:g} for what was asked"
    return True, f"the answer states the value {value:g}"


def _word_value(word: str) -> float | None:
    return parse_number(word.strip(".,:'-"))


def _why(text: str, spans: list[tuple[int, int]]) -> str:
    return EXPLAINED.get(stance(text, *spans[0]) or "", "without stating it")


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
    if not all(identifier_written(key, clean(answer)) for key in wanted.identifiers):
        return False, 'a name of the expected answer ("HTML5", "app.py") is missing'
    if phrase_in(expected, answer):
        text = clean(answer)
        spans = _phrase_spans(wanted.norm, text)
        if spans and not asserted(text, spans):
            return False, f"the answer names the expected answer only {_why(text, spans)}"
        return True, "the answer contains the expected answer"
    words = wanted.content
    if not words:
        found = bool(wanted.dates or wanted.numbers or wanted.times or wanted.identifiers)
        return found, "the expected values are in the answer" if found else "the answer does not contain it"
    share = coverage(words, given.content_set)
    needed = 1.0 if len(set(words)) <= 2 else 0.75 if len(set(words)) <= 5 else 0.6
    if share >= needed:
        return True, f"the answer covers {share:.0%} of the expected answer's words"
    return False, f"the answer covers only {share:.0%} of the expected answer's words"


def _phrase_spans(phrase: str, lowered_answer: str) -> list[tuple[int, int]]:
    words = phrase.split()
    pattern = re.compile(
        r"(?<![\w])"
        + r"\W+(?:(?:a|an|the)\W+)?".join("(?:and|&)" if w == "and" else re.escape(w) for w in words)
        + r"(?![\w])"
    )
    return [(match.start(), match.end()) for match in pattern.finditer(lowered_answer)]
