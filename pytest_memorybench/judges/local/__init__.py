"""The `local` judge: every task kind answered offline, deterministically, in microseconds.

One module per task kind (`reference.py`, `sentence.py`, …), over the text analysis they share
(`text.py`, which reads values out with `values.py` and `identifiers.py`).

It compares normalised text (case, accents, punctuation, articles, whitespace and plural endings
ignored), values (numbers written in digits or words, "12k", "$68,000", "1.5 million"; dates such
as "April 9, 2026", "9th of April", "2026-04-09"; clock times, "4:30 PM", "half past four";
identifiers, compared whole: "HTML5", "v1.2.1", "app.py", "OAuth2", "C++"), content-word coverage
with fuzzy word matching (rapidfuzz; "colour" ~ "color", "spagetti" ~ "spaghetti"), forms of one
word ("implementation" ~ "implementing", "setup" ~ "setting up") and ROUGE-L (a small LCS, no
dependency).

Per task kind:
  reference    the expected phrase, or enough of its content words, occurs in the answer and is
               not negated just before ("not blue"); a number is compared by value.
  sentence     the best ROUGE-L match among the answer's sentences and adjacent pairs; a sentence
               that contains the target almost verbatim counts too, and only that span is quoted.
  directions   place names (from the given list) and "<n> km <direction>" phrases are read in order
               and assembled into legs: a place after a movement ends a leg; "from X" starts one.
  restaurant   menu and drink names mentioned, by full name or a word only that item has; mentions
               in a negated clause part ("no soup", "not the fish", "instead of"), in a "thank you
               for the X" part or in a question that orders nothing are left out.
  items        per ground-truth item 1 / 0.5 / 0 by coverage bands; identified = the matched items in
               answer order plus short unmatched items of a bulleted or comma-separated list; [] when
               the answer abstains ("I don't know", "no information", "there is none").
  order        for each predicted item the first unused ground-truth item it matches, else -1.
  nugget       positive: content words and values of the criterion covered (1), partly (0.5), not
               (0); a criterion with values (numbers, dates, times, identifiers) earns nothing unless
               the answer asserts one of them; one of function words only ("should state: Go") is
               met by those words; prohibitions ("does not mention X", "avoids X"; not "to avoid X")
               score 1 when X is absent from a responsive answer; "states there is no information"
               criteria reward abstentions.
  interpretation  a meaning word in the answer, inflected, as the head of a longer meaning, or in a
               compound whose other part the statement or the answer uses ("seaport", "lock-picking").
  equivalence  content words of the shorter text covered by the longer (and a little back); numbers,
               dates and identifiers must agree where both texts give them.
  answer       the reference rule for LoCoMo's J and LongMemEval's checks, read by meaning: dates
               resolved against the anchors they name and compared by the days they cover, the
               expected answer's gist in other words, part of a list under the generous rule, a
               negative answer to a negative question (`answer.py`, `when.py`, `gist.py`); a count
               one off allowed for `days`, the rubric's specifics for `preference`, an abstention
               for `abstention`.

Where it is weaker than an LLM judge (the meta-evaluation measures how much: 91 % of its labelled
cases; the rest are these):
  * synonyms and paraphrase beyond spelling, stems and a few idioms: "phone Mum" is not "call my
    mother", "moved flats" not "moved to a new apartment", "chose" not "settled on";
  * world knowledge: shrimp and crab are shellfish, almonds are nuts, a guest who eats no meat is
    vegetarian, nightfall is night;
  * negation scope: a cue negates the rest of its clause part ("not too spicy, the curry" loses the
    curry); double negation is understood only in set phrases ("wouldn't say no", "don't forget");
  * routes: legs need a distance in km and a heading or a turn; miles, blocks and landmarks are not
    read; an answer that gives two routes counts the first;
  * full-chapter ground truths and long criteria are judged by word coverage, a rough proxy.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

from pytest_memorybench.core.errors import describe_exception
from pytest_memorybench.core.lazy import lazy_exports
from pytest_memorybench.judges.base import LOCAL_VERSION, JudgeStats, JudgeTask, JudgeVerdict
from pytest_memorybench.judges.prompts import check_payload
from pytest_memorybench.judges.replies import validate

VERSION = LOCAL_VERSION  # bump it (judges/base.py) when a rule changes


class LocalJudge:
    """The offline judge; use it directly or behind `CachedJudge` (which `build_judge` does)."""

    name = "local"
    version = VERSION

    def __init__(self) -> None:
        self.stats = JudgeStats(version=VERSION)

    async def judge(self, task: JudgeTask) -> JudgeVerdict:
        return self.judge_now(task)

    def judge_now(self, task: JudgeTask) -> JudgeVerdict:
        """The same verdict, synchronously."""
        check_payload(task.kind, task.payload)
        self.stats.usage.calls += 1
        self.stats.prompt_hashes[task.kind] = self.version
        try:
            data = validate(task.kind, _rule(task.kind)(task.payload), task.payload)
        except Exception as exc:  # noqa: BLE001 - a rule's bug must cost one verdict, not the run
            return JudgeVerdict(task.kind, None, error=f"judge-error: local: {describe_exception(exc)}")
        return JudgeVerdict(task.kind, data)


# Each task kind's rule, by the module that holds it: imported when a task of that kind is first
# judged, so naming the local judge (every scenario does, as its fallback) loads none of them.
_RULES = {
    "reference": "reference",
    "sentence": "sentence",
    "directions": "directions",
    "restaurant": "restaurant",
    "items": "listed_items",
    "order": "order",
    "nugget": "nugget",
    "equivalence": "equivalence",
    "interpretation": "interpretation",
    "answer": "answer",
}


@cache
def _rule(kind: str) -> Callable[[Mapping[str, Any]], object]:
    module = importlib.import_module(f"{__name__}.{_RULES[kind]}")
    return getattr(module, f"judge_{kind}")  # type: ignore[no-any-return]


_TEXT = ("abstains", "analyse", "clean", "normalise", "parse_number", "rouge_l")
__getattr__ = lazy_exports(__name__, {name: f"{__name__}.text" for name in _TEXT})

__all__ = ["VERSION", "LocalJudge", "abstains", "analyse", "clean", "normalise", "parse_number", "rouge_l"]
