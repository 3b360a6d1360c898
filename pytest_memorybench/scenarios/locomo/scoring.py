"""Scoring a reply to a LoCoMo question under the three profiles.

  paper     the paper's code (`task_eval/evaluation.py`): token F1 after its normalisation (lower
            case, commas and other punctuation removed, "a", "an", "the" and "and" removed) and
            Porter stemming (NLTK's, as the code uses); categories 2, 3 and 4 on the whole answer,
            category 3's gold cut at its first ";"; category 1 (multi-hop) split at commas into
            sub-answers, each gold part scored by its best-matching reply part, averaged.
  official  the LLM-as-judge "J" of the common evaluation pipelines: right (1) or wrong (0), graded
            generously against the gold answer (judge task `answer`, rule `generous`).
  audited   `official` against the audit's corrected gold answer where it has one; questions it
            found unanswerable are left out of the run (`LocomoConversations.excluded`).

Category 5 (adversarial) is asked as the multiple choice the paper's code means to pose (the
plausible wrong answer against "Not mentioned in the conversation", in a seeded order; the
original formatter fails on these items, which have no `answer`), and under every profile it is
right when the reply says the information is not there: the code's rule (the reply contains "not
mentioned" or "no information available"), or the reply is just that option's letter.  The common
pipelines leave category 5 out; the summary reports categories 1-4 apart so both numbers are there.
"""

from __future__ import annotations

import re
import string
from collections.abc import Sequence
from functools import cache, lru_cache
from statistics import fmean
from typing import Any

from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.f1 import bag_f1
from pytest_memorybench.core.heavy import heavy_import
from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.core.records import Score, TestDefinition
from pytest_memorybench.judges.local import LocalJudge
from pytest_memorybench.scenarios.locomo.audit import CITATION_ONLY
from pytest_memorybench.scoring.judged import score_answer, score_rubric
from pytest_memorybench.scoring.profiles import AUDITED, OFFICIAL, PAPER

SCORER = "locomo"
_ARTICLES = re.compile(r"\b(a|an|the|and)\b")
_PUNCTUATION = str.maketrans("", "", string.punctuation)
_ABSENT = ("no information available", "not mentioned")


def normalize_answer(text: str) -> str:
    """The paper's normalisation: commas out, lower case, punctuation out, articles and "and" out."""
    text = text.replace(",", "").lower().translate(_PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


@cache
def _stemmer() -> Any:
    """NLTK's Porter stemmer, imported when LoCoMo first scores (nltk pulls in scipy.stats: seconds of
    start-up that every other run would pay)."""
    return heavy_import("nltk.stem.porter").PorterStemmer()


@lru_cache(maxsize=65536)  # a run stems the same few thousand words again and again
def _stem(word: str) -> str:
    return str(_stemmer().stem(word))


def token_f1(prediction: str, gold: str) -> float:
    """F1 over stemmed tokens (0 when they share none)."""
    predicted = [_stem(word) for word in normalize_answer(prediction).split()]
    wanted = [_stem(word) for word in normalize_answer(gold).split()]
    return bag_f1(predicted, wanted)


def multi_answer_f1(prediction: str, gold: str) -> float:
    """Category 1: each comma-separated gold part scored by its best reply part, averaged."""
    parts = [part.strip() for part in prediction.split(",")]
    return fmean(max(token_f1(part, wanted.strip()) for part in parts) for wanted in gold.split(","))


def paper_f1(category: int, reply: str, gold: str) -> float:
    """The paper's token F1 for a category: sub-answer F1 for multi-hop, the open-domain gold cut at ';'."""
    if category == 3:
        gold = gold.split(";")[0].strip()
    if category == 1:
        return multi_answer_f1(reply, gold)
    return token_f1(reply, gold)


def says_absent(reply: str, letter: str | None = None) -> bool:
    """Category 5's rule: the reply says the conversation does not have it (or picks that option)."""
    lowered = reply.lower()
    if any(phrase in lowered for phrase in _ABSENT):
        return True
    return letter is not None and re.fullmatch(rf"\W*\(?{letter}\)?\W*", lowered) is not None


def gold_answer(definition: TestDefinition, profile: str) -> tuple[str, str | None]:
    """(the gold answer the profile scores against, a note when the audit changed it)."""
    expected = definition.expected
    audit = expected.get("audit") if profile == AUDITED else None
    if audit and audit["answer"] != expected["answer"] and audit["error_type"] != CITATION_ONLY:
        note = (
            f"gold corrected by the audit ({audit['error_type']}): {expected['answer']!r} ->"
            f" {audit['answer']!r}"
        )
        return audit["answer"], note
    return expected["answer"], None


async def score_reply(definition: TestDefinition, responses: Sequence[str], context: ScoringContext) -> Score:
    """A reply's score under the run's profile: token F1, the judge's J, or J on the audited gold."""
    expected = definition.expected
    category = int(expected["category"])
    reply = responses[-1] if responses else ""
    if category == 5:
        letter = expected.get("absent_option")
        right = says_absent(reply, letter)
        why = (
            "says the conversation does not mention it" if right else "does not say the conversation lacks it"
        )
        return Score(1.0 if right else 0.0, (f"the reply {why} (category 5, {context.profile} profile)",))
    gold, note = gold_answer(definition, context.profile)
    notes = (note,) if note else ()
    audit = gold_audit(definition)
    if context.profile == PAPER:
        value = paper_f1(category, reply, gold)
        rule = "sub-answer F1" if category == 1 else "token F1"
        return Score(round(value, 6), (*notes, f"{rule} {value:.3f} against {gold!r} (paper profile)"), audit)
    judge = context.judge or LocalJudge()
    score = await score_answer(
        judge, question=str(expected["question"]), expected=gold, answer=reply, rule="generous", scorer=SCORER
    )
    return Score(score.value, (*notes, *score.reasons, f"{context.profile} profile"), audit)


def gold_audit(definition: TestDefinition) -> JsonObject:
    """What the audit the run read says of this question's original gold: `{"gold_audit": None}`
    when it finds it right (or only its citation wrong), the finding's type when it finds the
    answer wrong or unanswerable; nothing when the run read no audit.  The ceiling check
    (`ceiling.py`) counts these, so a subset of the questions has its exact bound."""
    expected = definition.expected
    if not expected.get("audited"):
        return {}
    finding = expected.get("audit") or {}
    error_type = finding.get("error_type")
    return {"gold_audit": error_type if error_type and error_type != CITATION_ONLY else None}


__all__ = [
    "gold_answer",
    "gold_audit",
    "multi_answer_f1",
    "normalize_answer",
    "paper_f1",
    "says_absent",
    "score_reply",
    "token_f1",
]


async def score_cognitive(
    definition: TestDefinition, responses: Sequence[str], context: ScoringContext
) -> Score:
    """LoCoMo-Plus's category 6: does the reply reflect the cue said earlier?  The judge decides it as a
    rubric criterion, 1 / 0.5 / 0 (the paper's three labels); `official` and `audited` count a
    partial link as wrong, as the code's prompt for this category has only correct and wrong."""
    expected = definition.expected
    reply = responses[-1] if responses else ""
    judge = context.judge or LocalJudge()
    profile = PAPER if context.profile == PAPER else OFFICIAL
    question, nuggets = definition.questions[0], [expected["criterion"]]
    return await score_rubric(
        judge, question=question, nuggets=nuggets, answer=reply, profile=profile, scorer=SCORER
    )
