"""Whether a text asserts a value or only names it: "not red", "it used to be red" do not say red.

A list of forbidden phrases marks a right answer wrong when the answer names an old value to reject
it.  StateBench's v2 audit found exactly that in its v1 scoring ("Your address is 4 Oak Lane, not 12
Elm Street" failed for naming 12 Elm Street), and LTM's colours, ConvoMem's changing facts and
LongMemEval's knowledge updates all have a superseded value that a right answer may name.  So each
mention of the value is read in its clause, and it is asserted unless a cue there rejects it or puts
it in the past.  The rule is ours, written for these cases, not StateBench's code.

- **The clause**: the sentence the mention is in, cut at a comma, colon, semicolon, dash, bracket or
  contrast ("but", "however", "although", "whereas", "instead", "yet"), so that "not blue but red"
  and "red, not blue" assert red and reject blue, and "No, it is red" asserts red.
- **Before the mention**, anywhere in its clause: a negation ("not", "n't", "never", "neither",
  "nor", "without"), a change away from it ("no longer", "instead of", "rather than", "changed …
  from", "switched from", "from … to", "replaced", "stopped", "dropped"), or the past ("used to",
  "formerly", "previously", "was once", "originally"); within its last three words: "no", "old",
  "former", "earlier", "previous", "original", "outdated" ("your old address", not "my 5-year-old
  dog Rex").
- **After the mention**, in its clause: "no longer", "anymore", "used to", "before", "previously",
  "originally", "formerly", "was replaced", "was your old …", "is outdated".
- A question about the value ("Was it red?") asserts nothing.

Examples, for the value "red":
  asserted: "Red.", "Your favourite colour is red.", "Red, not blue.", "Not blue but red."
  not asserted: "Not red.", "It is no longer red; now blue.", "It used to be red.", "You changed it
  from red to blue.", "Blue, not red.", "Blue (red was your old favourite)." (the past), "Was it red?"

The value is found as whole words, case and spacing aside ("Red" in "red", not in "bored").  The
rule errs towards "not asserted" where a clause both rejects and names it: a scorer that punishes
the stale value must not punish the answer that rejects it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pytest_memorybench.agents.evidence_match import whole_words

_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")
# Where a clause ends: a comma, colon or semicolon, a dash, brackets, or a contrast.
_CLAUSE_BREAK = re.compile(
    r"\s*(?:[,:;]|\s[-–—]\s|[()\[\]]|\b(?:but|however|although|though|whereas|instead(?!\s+of)|yet)\b)\s*",
    re.IGNORECASE,
)
# Anywhere before the mention in its clause: a negation, a change away from it, the past.
_BEFORE = re.compile(
    r"\b(?:not|never|neither|nor|without|no\s+longer|"
    r"(?:changed|changing|switched|switching|moved|moving|went|updated|shifted)\b.*\bfrom|from|"
    r"replaced|replacing|stopped|dropped|used\s+to|formerly|previously|was\s+once|once\s+was|originally)\b"
    r"|n['’]t\b",
    re.IGNORECASE,
)
# Right before it (its last three words): "no red", "your old red", "the former address".
_NEAR = re.compile(
    r"\b(?:no|old|older|former|earlier|previous|original|outdated|instead\s+of|rather\s+than)\b",
    re.IGNORECASE,
)
_CHANGE = re.compile(r"from$", re.IGNORECASE)
# After it, in its clause: "red no longer", "red was replaced", "red was your old favourite".
_AFTER = re.compile(
    r"\b(?:no\s+longer|any\s*more|used\s+to|before|previously|originally|formerly|"
    r"(?:was|were|has\s+been|have\s+been)\s+(?:replaced|changed|dropped|superseded)|"
    r"(?:was|were)\s+(?:\w+\s+){0,2}(?:old|former|previous|earlier|original)|"
    r"is\s+(?:outdated|out\s+of\s+date))\b",
    re.IGNORECASE,
)
_TO = re.compile(r"\bto\b", re.IGNORECASE)
_LAST_WORDS = re.compile(r"(?:\S+\s+){0,3}$")


@dataclass(frozen=True)
class Mention:
    """One mention of a value: the clause it is in, and the cue that rejects it (None: asserted)."""

    value: str
    clause: str
    cue: str | None

    @property
    def asserted(self) -> bool:
        return self.cue is None


def _clauses(text: str) -> list[tuple[str, str]]:
    """Each clause of `text`, with the sentence it is in."""
    clauses = []
    for sentence in _SENTENCES.split(text):
        clauses += [(part, sentence) for part in _CLAUSE_BREAK.split(sentence) if part and part.strip()]
    return clauses


def _cue(clause: str, start: int, end: int, sentence: str) -> str | None:
    """The cue that rejects the mention at clause[start:end], or None."""
    before, after = clause[:start], clause[end:]
    if sentence.rstrip().endswith("?"):
        return "a question"
    cues = list(_BEFORE.finditer(before))
    found = cues[-1] if cues else None  # the cue nearest the mention
    if found is not None:
        # a change "from" rejects the value it comes from, not the one after its "to" ("from red to
        # blue"), and "from" alone is a change only with a "to" after the value
        if not _CHANGE.search(found.group(0)):
            return found.group(0)
        if not _TO.search(before[found.end() :]) and (found.group(0).lower() != "from" or _TO.search(after)):
            return found.group(0)
    near = _LAST_WORDS.search(before)
    found = _NEAR.search(near.group(0)) if near is not None else None
    if found is not None:
        return found.group(0)
    found = _AFTER.search(after)
    return found.group(0) if found is not None else None


def mentions(text: str, value: str) -> list[Mention]:
    """Each mention of `value` in `text`, with the cue that rejects it, if any."""
    pattern = whole_words(value)
    if pattern is None:
        return []
    found = []
    for clause, sentence in _clauses(str(text)):
        for match in pattern.finditer(clause):
            found.append(Mention(value, clause.strip(), _cue(clause, match.start(), match.end(), sentence)))
    return found


def asserted(text: str, value: str) -> Mention | None:
    """The first mention of `value` that `text` asserts, or None when it names it only to reject it
    (or not at all)."""
    return next((mention for mention in mentions(text, value) if mention.asserted), None)
