"""The `nugget` task: does an answer satisfy one rubric criterion (0 / 0.5 / 1)?"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.judges.local.identifiers import identifier_written
from pytest_memorybench.judges.local.stance import asserted, stance, value_spans
from pytest_memorybench.judges.local.text import (
    UNIT_WORDS,
    Analysis,
    abstains,
    analyse,
    clean,
    coverage,
    normalise,
    stem,
)
from pytest_memorybench.judges.local.values import dates_agree, has_value, times_agree

# nugget and equivalence -------------------------------------------------------------------------------

_VERBS = (
    r"mention|include|state|say|suggest|recommend|use|contain|reference|refer\s+to|bring\s+up|claim|provide|"
    r"give|list|discuss|assume|imply|propose|reveal|repeat|confuse|attribute|describe|introduce|offer|advise"
)
_PROHIBITIONS = (
    re.compile(
        r"\b(?:does\s+not|doesn'?t|do\s+not|don'?t|should\s+not|shouldn'?t|must\s+not|mustn'?t|will\s+not|won'?t|"
        r"never|cannot|can'?t|may\s+not)\s+(?:\w+ly\s+)?(?:"
        + _VERBS
        + r")(?:s|es|ed|ing)?\b\s*(?:that\s+|any\s+|the\s+)?(?P<x>.+)"
    ),
    # not "scripts to avoid duplicate copies": a purpose, not the criterion's own prohibition
    re.compile(
        r"(?<!\bto\s)\bavoid(?:s|ing)?\s+(?:(?:" + _VERBS + r")(?:s|es|ing)?\s+)?(?:any\s+|the\s+)?(?P<x>.+)"
    ),
    re.compile(r"(?<!\bto\s)\brefrains?\s+from\s+(?:\w+ing\s+)?(?:any\s+|the\s+)?(?P<x>.+)"),
    re.compile(
        r"^\W*(?:the\s+)?(?:response|answer)?\s*(?:has\s+|contains\s+|includes\s+)?(?:no|without)\s+(?:mention\s+of\s+|mentioning\s+|reference\s+to\s+|references\s+to\s+)?(?P<x>.+)"
    ),
)
_ABSTENTION_NUGGET = re.compile(
    r"\b(?:no\s+information|not\s+(?:mentioned|provided|specified|available|discussed|stated|known)|no\s+(?:record|mention|details?|data)|"
    r"(?:does\s+not|doesn'?t|do\s+not|don'?t)\s+(?:know|have\s+(?:the\s+)?(?:information|details?))|cannot\s+(?:answer|be\s+answered|determine)|"
    r"unable\s+to|never\s+(?:mentioned|discussed|shared|told)|lacks?\s+(?:the\s+)?information|insufficient\s+information)\b"
)
_REQUIREMENT = re.compile(
    r"^\W*(?:the\s+)?(?:llm\s+|ai\s+|assistant'?s?\s+|model'?s?\s+)?(?:response|answer|assistant|model|it)?\s*"
    r"(?:should\s+|must\s+|needs\s+to\s+|has\s+to\s+|will\s+)?(?:\w+ly\s+)?"
    r"(?:mention|state|say|include|note|explain|indicate|provide|list|identif(?:y|ies)|recall|specif(?:y|ies)|describe|give|"
    r"confirm|acknowledge|suggest|recommend|show|demonstrate|reference|answer|point\s+out|report|present)(?:s|es|ed)?\b\s*(?:that\s+)?"
)


# BEAM's rubric stem for instruction, preference and summarization criteria: what follows the colon
# is the criterion proper, a requirement ("numbered steps", "suggests X") or a prohibition ("avoids X").
_CONTAINS_STEM = re.compile(
    r"^\W*(?:the\s+)?(?:llm\s+)?(?:response|answer)\s+(?:should|must)\s+(?:contain|include)s?\s*:\s*"
)


def judge_nugget(payload: Mapping[str, Any]) -> JsonObject:
    """A nugget's verdict on a response: 1, 0.5 or 0 with the reason, as BEAM's rubric asks."""
    nugget = _CONTAINS_STEM.sub("", clean(str(payload["nugget"])), count=1)
    answer = str(payload["answer"] or "")
    given = analyse(answer)
    if given.empty:
        return {"score": 0, "reason": "empty response"}
    declines = abstains(answer)
    prohibition = None if _REQUIREMENT.match(nugget) else _prohibited(nugget)
    if prohibition is None and _ABSTENTION_NUGGET.search(nugget):
        return {
            "score": 1 if declines else 0,
            "reason": "the response declines, as required" if declines else "the response does not decline",
        }
    if prohibition is not None:
        if declines:
            return {"score": 0, "reason": "a declining response does not address the question"}
        return _prohibition(prohibition, answer, given)
    return _requirement(nugget, answer, given, str(payload.get("question") or ""))


def _prohibition(prohibition: str, answer: str, given: Analysis) -> JsonObject:
    """A prohibition is respected when the response holds little of what it names."""
    target = analyse(prohibition)
    target = replace(target, content=_without_meta(target.content))
    text = clean(answer)
    # Values named: numbers, times ("4 PM") and identifiers ("HTML5"), each present or not.
    values = [
        *(has_value(n, given.numbers) for n in target.numbers),
        *(times_agree([t], given.times) for t in target.times),
        *(bool(identifier_written(i, text)) for i in target.identifiers),
    ]
    if not target.content and not values:
        return {"score": 1, "reason": "nothing identifiable is prohibited"}
    share = coverage(target.content, given.content_set) if target.content else 0.0
    present = share if not values else (share + sum(values) / len(values)) / (2 if target.content else 1)
    if present >= 0.8:
        return {"score": 0, "reason": f"the prohibited content is present ({present:.0%})"}
    if present >= 0.5:
        return {"score": 0.5, "reason": f"part of the prohibited content is present ({present:.0%})"}
    return {"score": 1, "reason": "the prohibited content is absent"}


def _requirement(nugget: str, answer: str, given: Analysis, question_text: str) -> JsonObject:
    """A requirement is met by the response covering its words and stating its values."""
    stated = _REQUIREMENT.sub("", nugget, count=1)
    requirement = analyse(stated)
    content = _without_meta(requirement.content)
    if requirement.numbers:  # "25 km": the unit goes with the value, in whatever spelling
        content = tuple(word for word in content if word not in UNIT_WORDS)
    requirement = replace(requirement, content=content)
    if not content and not _has_values(requirement, nugget):
        return _phrase(stated, answer)
    named = [bool(identifier_written(i, clean(answer))) for i in requirement.identifiers]
    # "Authlib v1.2.1" is about the version; in a long description ("… checked against sha256
    # digests every night") a name is one detail among the words: it counts as one of them.
    incidental = named if len(set(content)) > NAME_WORDS else []
    if incidental:
        rivals = _rivals(stated, answer, requirement.identifiers, given.identifiers)
        if rivals:
            return {"score": 0, "reason": f"the response names another {rivals[0]}"}
        requirement = replace(requirement, identifiers=frozenset())
    identifiers = [] if incidental else named
    numbers = [has_value(n, given.numbers) for n in requirement.numbers]
    dates_ok = dates_agree(requirement.dates, given.dates)
    times_ok = times_agree(requirement.times, given.times)
    values_ok = all(numbers) and all(identifiers) and dates_ok and times_ok
    # A criterion with values is about the values: words of the subject without them, or the values
    # denied, doubted or offered among others, earn nothing.
    if _has_values(requirement, nugget) and not _values_stated(requirement, answer, stated):
        return {"score": 0, "reason": "the response does not state the criterion's values"}
    if (
        requirement.content
        and not _NEGATED_CRITERION.search(nugget)
        and _contradicts(answer, requirement.content)
    ):
        return {"score": 0, "reason": "the response says the opposite of the criterion"}
    # Words the question already says ("the commute" of "how far is my commute?") are the subject,
    # not what the response must add: where the response gives the criterion's values, they count.
    question = analyse(question_text).content_set
    with_values = _has_values(requirement, nugget) and values_ok
    pool = given.content_set | question if with_values else given.content_set
    pool |= _elided(nugget, answer)
    # A criterion that is only a value ("should state: 30") is met by that value, not by any words.
    share = coverage(requirement.words_against(given), pool) if requirement.content else float(values_ok)
    if incidental:
        words = len(set(requirement.content))
        share = (share * words + sum(incidental)) / (words + len(incidental))
    if share >= 0.75 and values_ok:
        return {"score": 1, "reason": f"covers {share:.0%} of the criterion's words and its values"}
    some_values = (
        any(numbers)
        or any(identifiers)
        or (requirement.dates and dates_ok)
        or (requirement.times and times_ok)
    )
    if share >= 0.4 or some_values:
        verdict = "ok" if values_ok else "missing"
        return {"score": 0.5, "reason": f"covers {share:.0%} of the criterion's words; values {verdict}"}
    return {"score": 0, "reason": f"covers only {share:.0%} of the criterion's words"}


_NEGATED_CRITERION = re.compile(
    r"\b(?:not|never|no|nor|neither|without|contradict\w*|conflict\w*|inconsisten\w*|both|but)\b|n't"
)
_DENIAL = re.compile(r"(?:\bnot|\bnever|n't|\bno longer)\s+(?:\w+\s+){0,1}$")


def _contradicts(answer: str, required: Sequence[str]) -> bool:
    """The response denies the criterion's verb: "he can't attend" against "will attend"."""
    lowered = clean(answer)
    for word in required:
        places = [match.start() for match in re.finditer(rf"\b{re.escape(word)}\w*", lowered)]
        if places and all(_DENIAL.search(lowered[:place]) for place in places):
            return True  # said only in denied form (an answer quoting both sides is not a denial)
    return False


LEAD_WORDS = 3  # words before a value that show the answer words it as the criterion does
NAME_WORDS = 3  # a criterion of at most this many words besides its identifiers is about them
_META = frozenset({"user", "assistant", "response", "answer", "llm", "model", "mention", "state"})


def _without_meta(words: Sequence[str]) -> tuple[str, ...]:
    """Criterion words about the conversation itself ("the user's job"): no evidence either way."""
    return tuple(word for word in words if word not in _META)


def _prohibited(nugget: str) -> str | None:
    """What a prohibition criterion forbids, or None for a requirement."""
    for pattern in _PROHIBITIONS:
        match = pattern.search(nugget)
        if match:
            return match.group("x")
    return None


def _has_values(requirement: Analysis, nugget: str) -> bool:
    """Whether the criterion names values; "one" alone is a pronoun ("clarify which one is true")."""
    numbers = [n for n in requirement.numbers if not (n == 1 and not re.search(r"\b1\b", nugget))]
    return bool(numbers or requirement.dates or requirement.times or requirement.identifiers)


def _rivals(criterion: str, answer: str, wanted: frozenset[str], given: frozenset[str]) -> list[str]:
    """Identifiers the answer gives in place of wanted ones it lacks: the same letters with other
    digits ("HTML4" for "HTML5"), or another bare version of the same name ("Authlib v1.3.0")."""
    text, criterion = clean(answer), clean(criterion)
    rivals = []
    for key in wanted:
        if identifier_written(key, text):
            continue
        letters = re.sub(r"[\d.]", "", key)
        for other in given - {key}:
            if letters:
                rival = re.sub(r"[\d.]", "", other) == letters
            else:
                name = _name_before(criterion, key)
                rival = not re.sub(r"[\d.]", "", other) and bool(name) and _name_before(text, other) == name
            if rival:
                rivals.append(other)
    return sorted(rivals)


def _name_before(text: str, key: str) -> str:
    """The word just before the first place `text` writes identifier `key` ("authlib" for "v1.2.1")."""
    places = identifier_written(key, text)
    words = re.findall(r"[\w'.+#-]+", text[: places[0][0]]) if places else []
    return words[-1] if words else ""


def _phrase(stated: str, answer: str) -> JsonObject:
    """A criterion of function words only ("should state: Go", "should say: no") is met by those words,
    asserted in the response."""
    words = normalise(stated).split()
    if not set(words) - _META:  # "mentions the user": about the conversation, nothing to find
        return {"score": 0, "reason": "nothing identifiable is required"}
    text = clean(answer)
    pattern = r"(?<![\w'])" + r"\W+".join(re.escape(word) for word in words) + r"(?![\w'])"
    spans = [(match.start(), match.end()) for match in re.finditer(pattern, text)]
    if asserted(text, spans):
        return {"score": 1, "reason": f"says {' '.join(words)!r}"}
    return {"score": 0, "reason": f"does not say {' '.join(words)!r}"}


_WHICH = re.compile(r"\bwhich\s+([a-z]+)")
_WHICH_ALONE = re.compile(r"\bwhich(?:\s+one)?\s+(?:is|are|was|were|of|one|applies|holds)\b")


def _elided(nugget: str, answer: str) -> frozenset[str]:
    """The noun after "which" that a response leaves understood: "which is correct?" asks "which
    statement is correct?" as well."""
    if not _WHICH_ALONE.search(clean(answer)):
        return frozenset()
    return frozenset(stem(word) for word in _WHICH.findall(nugget))


def _values_stated(requirement: Analysis, answer: str, criterion: str) -> bool:
    """Whether the answer states at least one of the criterion's values (numbers, dates, times,
    identifiers) as the criterion does: asserted, or denied or offered with an alternative where the
    criterion itself does so ("keep or raise the 90% on-time rate", "you never used v2")."""
    text, criterion = clean(answer), clean(criterion)
    holds = [
        *(lambda found, n=number: has_value(n, found.numbers) for number in requirement.numbers),
        *(lambda found, d=date: dates_agree([d], found.dates) for date in requirement.dates),
        *(lambda found, t=time: times_agree([t], found.times) for time in requirement.times),
    ]
    places = [
        *((value_spans(text, test), value_spans(criterion, test)) for test in holds),
        *(
            (identifier_written(key, text), identifier_written(key, criterion))
            for key in requirement.identifiers
        ),
    ]
    for in_answer, in_criterion in places:
        for start, end in in_answer:
            why = stance(text, start, end)
            if why is None or any(
                stance(criterion, *place) == why and _same_lead(text, start, criterion, place[0])
                for place in in_criterion
            ):
                return True
    return False


def _same_lead(text: str, start: int, criterion: str, criterion_start: int) -> bool:
    """Whether the words just before a value are the criterion's own ("or raise the 90%"): a hedge
    or denial the criterion words is the criterion's, not the answer's."""
    lead = re.findall(r"[\w'%.-]+", criterion[:criterion_start])[-LEAD_WORDS:]
    return bool(lead) and re.findall(r"[\w'%.-]+", text[:start])[-len(lead) :] == lead
