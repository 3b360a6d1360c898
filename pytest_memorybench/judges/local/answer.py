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

The rubric band's two rules (`judges/rubrics.py`):
  topic      right when the `generous` rule says so, or the answer shares a content word, a
             number or a date with the expected answer and does not abstain
  complete   right only when the `contains` rule says so (no part of a list), every content word,
             number and date of the expected answer is in the answer, and nothing is offered as
             one of several ("X or Y")

Read by meaning, for every rule but `preference` and `abstention`:
  dates      an expected answer that is a date is compared by the days it covers, the answer's
             dates resolved against the anchors they name ("a month before 27 March 2022" is
             February 2022; `when.py`), at the expected answer's grain or finer
  gist       an answer the reference rule refuses is right when it states the expected answer's
             gist in other words, and its numbers (`gist.py`); under `generous`, part of a list
  negatives  a question about a negative ("What does John not like?") is answered by a negative
             ("He does not like dark beer"): the answer's negation asserts, it does not deny
Relative dates that name no anchor ("last Tuesday") are not read, nor synonyms ("loves" is not
"likes").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.judges.local.gist import mentions, other_name, states_gist
from pytest_memorybench.judges.local.reference import judge_reference
from pytest_memorybench.judges.local.stance import asserted, stance, value_spans
from pytest_memorybench.judges.local.text import abstains, analyse, clean, coverage, normalise, parse_number
from pytest_memorybench.judges.local.values import dates_agree, has_value, same_value
from pytest_memorybench.judges.local.when import is_date_answer, same_date

# Words every preference rubric uses and no answer needs to repeat.
_RUBRIC_WORDS = frozenset(
    "user users would prefer prefers preferred preference preferences response responses suggest suggests"
    " suggestion suggestions recommend recommendations recommendation answer answers might may likely should"
    " tailored personalized personalised specific specifically their they them based utilize utilizing use"
    " using consider considering mention mentioned interest interests previous previously given include"
    " including also not especially particular".split()
)

# A question asking about a negative, and the negations its answer then asserts with.
_NEGATIVE_QUESTION = re.compile(
    r"\b(?:not|never|no\s+longer|dislikes?|hates?|avoids?|refuses?|cannot)\b|n't\b", re.IGNORECASE
)
_NEGATION = re.compile(r"\b(?:not|never|cannot)\b|n't\b", re.IGNORECASE)

DateParts = tuple[int | None, int, int | None]  # (year, month, day) as `text.analyse` reads them

# An answer opening with yes or no, hedged or not: "Likely yes; …", "Probably not", "No."
_YES_NO = re.compile(
    r"^(?:(?:most\s+)?(?:likely|probably|possibly|maybe|perhaps)\s+)?(yes|yeah|yep|no|not)\b"
)

# "Either X or Y", "X or maybe Y", "probably": an answer that does not commit to one.
_ALTERNATIVES = re.compile(r"\b(?:or|either|maybe|perhaps|possibly|probably)\b", re.IGNORECASE)

# "I don't remember every detail, but your brother's boat is called the Gull": an abstention that
# goes on to answer.
_GOES_ON = re.compile(
    r"\b(?:but|though|although|however)\b[^.;!?]*\b(?:is|was|are|were|called|named)\b", re.IGNORECASE
)


def judge_answer(payload: Mapping[str, Any]) -> JsonObject:
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
    if rule == "topic":
        return _touches(payload, answer)
    if rule == "complete":
        return _complete(payload, answer)
    if rule == "preference":
        return _preference(str(payload["expected"]), answer)
    question, expected = str(payload["question"]), str(payload["expected"])
    wanted = _polarity(expected)
    given = _polarity(answer)
    if wanted is not None and given is not None:  # "Likely yes; he plays…" answered "Yes."
        return {
            "correct": wanted == given,
            "reason": f"the answer says {given}, as expected"
            if wanted == given
            else f"the answer says {given}",
        }
    if _NEGATIVE_QUESTION.search(question):
        answer = _NEGATION.sub(" ", answer)  # "John does not like dark beer" answers the question
    if is_date_answer(expected):
        same = same_date(answer, expected)
        text = clean(answer)
        spans = value_spans(text, lambda analysis: bool(analysis.dates or analysis.numbers))
        if same and spans and not asserted(text, spans):
            return {"correct": False, "reason": "the answer gives the date only to deny or doubt it"}
        if same is not None:
            return {
                "correct": same,
                "reason": "the answer's date falls on the expected one"
                if same
                else "the answer's date is not the expected one, or is vaguer",
            }
    other = other_name(expected, answer, question)
    if other is not None:
        return {"correct": False, "reason": f"the answer is about {other!r}, not what was expected"}
    verdict = judge_reference({"question": question, "expected": expected, "answer": answer})
    correct = bool(verdict["refers"]) and (
        not verdict["expected_is_number"] or bool(verdict["numbers_match"])
    )
    if not correct and dates_agree(analyse(expected).dates, analyse(answer).dates):
        gist = states_gist(expected, answer, question, partial_lists=rule == "generous")
        if gist is not None:
            text, spans = clean(answer), mentions(answer, expected, question)
            said = gist[0] and bool(spans) and all(stance(text, *span) is None for span in spans)
            return {"correct": said, "reason": gist[1] if said or not gist[0] else verdict["reason"]}
    if not correct and rule == "days":
        count = parse_number(expected.split()[0]) if expected.split() else None
        if count is not None and any(same_value(abs(value - count), 1) for value in analyse(answer).numbers):
            return {
                "correct": True,
                "reason": "the answer's count is one off the expected one, which this rule allows",
            }
    return {"correct": correct, "reason": verdict.get("reason", "")}


def _polarity(text: str) -> str | None:
    """ "yes" or "no" when the text opens with one, plain or hedged ("Likely yes", "Probably not")."""
    match = _YES_NO.match(normalise(text))
    if match is None:
        return None
    return "yes" if match.group(1) in ("yes", "yeah", "yep") else "no"


def _touches(payload: Mapping[str, Any], answer: str) -> JsonObject:
    """The `topic` rule: the generous verdict, or any content word, number or date in common."""
    verdict = judge_answer({**payload, "rule": "generous"})
    if verdict["correct"]:
        return verdict
    wanted, given = analyse(str(payload["expected"])), analyse(answer)
    asked = set(analyse(str(payload["question"])).content)  # restating the question touches nothing
    shared = bool((set(wanted.content) - asked) & given.content_set) or any(
        has_value(number, given.numbers) for number in wanted.numbers
    )
    if shared or _overlap(wanted.dates, given.dates):
        return {"correct": True, "reason": "the answer touches the subject of the expected answer"}
    return {"correct": False, "reason": "the answer shares nothing with the expected answer"}


def _overlap(wanted: Iterable[DateParts], given: Iterable[DateParts]) -> bool:
    """Whether a date of the answer overlaps one of the expected answer's: the same month, and the
    same year and day where both say them ("May 2023" overlaps "7 May 2023")."""
    return any(
        month == other_month and _either(year, other_year) and _either(day, other_day)
        for year, month, day in wanted
        for other_year, other_month, other_day in given
    )


def _either(first: int | None, second: int | None) -> bool:
    return first is None or second is None or first == second


def _complete(payload: Mapping[str, Any], answer: str) -> JsonObject:
    """The `complete` rule: right by `contains`, every element of the expected answer stated, no
    alternatives offered."""
    verdict = judge_answer({**payload, "rule": "contains"})
    if not verdict["correct"]:
        return verdict
    expected = str(payload["expected"])
    wanted, given = analyse(expected), analyse(answer)
    if normalise(answer) != normalise(expected):
        if coverage(wanted.content, given.content_set) < 1.0:
            return {"correct": False, "reason": "the answer leaves out part of the expected answer"}
        if not all(has_value(number, given.numbers) for number in wanted.numbers):
            return {"correct": False, "reason": "a number of the expected answer is missing"}
        if _ALTERNATIVES.search(answer) and not _ALTERNATIVES.search(expected):
            return {"correct": False, "reason": "the answer offers alternatives rather than committing"}
    return {"correct": True, "reason": "the answer states every element of the expected answer"}


def _preference(rubric: str, answer: str) -> JsonObject:
    words = [word for word in analyse(rubric).content if word not in _RUBRIC_WORDS]
    if not words:
        return {"correct": False, "reason": "the rubric names nothing specific to look for"}
    share = coverage(words, analyse(answer).content_set)
    if share >= 0.5:
        return {"correct": True, "reason": f"the answer uses {share:.0%} of the rubric's specifics"}
    return {"correct": False, "reason": f"the answer uses only {share:.0%} of the rubric's specifics"}
