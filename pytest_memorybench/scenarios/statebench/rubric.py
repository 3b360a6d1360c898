"""How StateBench matches a phrase or a decision in a reply, under its 2.x rules and its 1.0 rules.

StateBench's judge (`evaluation/rubric.py`, `evaluation/phrase_quality.py`) is deterministic first
and asks an LLM only where that is inconclusive.  Release 2.0.0 changed the deterministic part
(CHANGELOG "All six fixes"); both versions are here, chosen by the scoring profile:

- `modern` (2.x, profile `paper`): a phrase matches on word boundaries, each edge only where that
  edge is a word character ("$45" does not fire in "$450", "HP" not in "PHP"); a forbidden phrase
  every occurrence of which has a negation cue in the 40 characters before it ("not Friday") is a
  negated mention, not a violation, unless the phrase is exempt (deletion: naming the value is
  the harm); a forbidden phrase a correct reply could hold (a symbol, ordinary vocabulary, a short
  word without a digit) is skipped and left out of the denominator; yes/no signals match on word
  boundaries, and a substantive reply with neither signal nor refusal reads as "yes".
- `v1` (1.0.2, profile `official`): plain case-insensitive substring containment everywhere, no
  negation, every forbidden phrase scored, yes/no signals as substrings ("no" fires in "now").

A phrase `regex:PATTERN` is a regular expression; `a|b` matches either alternative.  Both come from
the authors' rubric and are kept under both rules.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

Rules = Literal["modern", "v1"]
MODERN: Rules = "modern"
V1: Rules = "v1"

# Cues that turn a following phrase into a rejection of it (2.x: "the meeting is not Friday").
NEGATION_CUES = (
    "not ", "n't ", "no longer", "never", "cannot", "can not", "instead of", "rather than", "no more",
    "avoid ", "without ", "isn't", "wasn't", "aren't", "weren't", "don't", "doesn't", "didn't",
    "superseded", "outdated", "previously", "used to be", "was changed", "no longer valid",
    "not valid", "invalid",
)  # fmt: skip
NEGATION_WINDOW = 40  # characters before a match where a cue governs it

# Words a correct reply may use freely, so a forbidden list naming one of them alone cannot tell
# right from wrong (2.x `phrase_quality`: function words, time and planning nouns, decision verbs).
ORDINARY_WORDS = frozenset(
    """a an the and or but if then than as at by for from in into of on to with before after during
    until per via using about is was are were be been will would can could should may might do does
    did not no yes it its this that these those you your day days week weeks month months quarter
    quarters year years time date deadline schedule today tomorrow yesterday budget cost costs price
    amount total color colour size option options detail details spec specs quantity number model
    product item order discount quote requirement requirements approved approve agreed agree decided
    decide chose choose selected select allocated allocate confirmed confirm expected expect arriving
    returning requested request mentioned wanted final""".split()
)
SHORTEST_WORD = 3  # a shorter all-letter phrase is too likely to occur by chance

_PARAPHRASES = (
    (r"do not (\w+)", r"don't \1"),
    (r"don't (\w+)", r"do not \1"),
    (r"cannot (\w+)", r"can't \1"),
    (r"can't (\w+)", r"cannot \1"),
    (r"should not (\w+)", r"shouldn't \1"),
    (r"shouldn't (\w+)", r"should not \1"),
)
YES_SIGNALS = ("yes", "go ahead", "proceed", "approved", "can do", "will do")
NO_SIGNALS_V1 = ("no", "don't", "do not", "cannot", "should not", "shouldn't", "stop", "hold off")
NO_SIGNALS = (*NO_SIGNALS_V1, "not possible", "not permitted", "exceeds")
REFUSALS = (
    "not specified", "not provided", "no information", "cannot determine", "insufficient", "unclear",
    "not available", "not mentioned", "unknown",
)  # fmt: skip
SUBSTANTIVE_WORDS = 5  # a reply this long with no signal and no refusal answers "yes" (2.x)


def bounded(phrase: str) -> str:
    """A pattern for `phrase` with a word boundary at each edge that is a word character."""
    lead = r"(?<!\w)" if phrase[:1].isalnum() or phrase[:1] == "_" else ""
    trail = r"(?!\w)" if phrase[-1:].isalnum() or phrase[-1:] == "_" else ""
    return lead + re.escape(phrase) + trail


def _found(reply: str, phrase: str, rules: Rules) -> bool:
    if not phrase:
        return False
    return bool(re.search(bounded(phrase), reply)) if rules == MODERN else phrase in reply


def contains(reply: str, phrase: str, rules: Rules = MODERN) -> bool:
    """Whether `reply` says `phrase`, ignoring case: alternatives, a regex, or a do not / don't variant."""
    reply, phrase = reply.lower().strip(), phrase.lower().strip()
    if phrase.startswith("regex:"):
        return bool(re.search(phrase[6:], reply))
    if "|" in phrase:
        return any(_found(reply, alternative.strip(), rules) for alternative in phrase.split("|"))
    if _found(reply, phrase, rules):
        return True
    for pattern, replacement in _PARAPHRASES:
        variant = re.sub(pattern, replacement, phrase)
        if variant != phrase and _found(reply, variant, rules):
            return True
    return False


def only_negated(reply: str, phrase: str) -> bool:
    """Whether `phrase` occurs in `reply` and every occurrence has a negation cue just before it
    (one plain occurrence anywhere makes this False; a regex phrase is never negated)."""
    reply, phrase = reply.lower().strip(), phrase.lower().strip()
    if phrase.startswith("regex:"):
        return False
    seen = False
    for alternative in (part.strip() for part in phrase.split("|")):
        for match in re.finditer(bounded(alternative), reply) if alternative else ():
            seen = True
            before = reply[max(0, match.start() - NEGATION_WINDOW) : match.start()]
            if not any(cue in before for cue in NEGATION_CUES):
                return False
    return seen


def admissible(phrase: str) -> bool:
    """Whether a forbidden phrase can tell a right reply from a wrong one (2.x): not empty, not all
    symbols, not one ordinary word, not a short word without a digit; every alternative so."""
    text = phrase.strip()
    if not text:
        return False
    if text.lower().startswith("regex:"):
        return True
    if "|" in text:
        return all(admissible(part) for part in text.split("|"))
    if not any(char.isalnum() for char in text) or text.lower() in ORDINARY_WORDS:
        return False
    if len(text) < SHORTEST_WORD and not any(char.isdigit() for char in text):
        return " " in text
    return True


def decision(reply: str, expected: str, rules: Rules = MODERN) -> str | None:
    """The decision `reply` states, read as StateBench reads it: for a yes/no question its signals
    (the one alone, else an explicit bare yes or no, else the earlier one), otherwise the expected
    label when the reply holds it verbatim; None when the reply does not say."""
    text, wanted = reply.lower().strip(), expected.lower().strip()
    if wanted not in ("yes", "no"):
        return wanted if wanted in text else None
    no_signals = NO_SIGNALS if rules == MODERN else NO_SIGNALS_V1
    says_yes, says_no = _signalled(text, YES_SIGNALS, rules), _signalled(text, no_signals, rules)
    if says_yes != says_no:
        return "yes" if says_yes else "no"
    if says_yes:
        if rules == MODERN:
            bare_no, bare_yes = bool(re.search(r"\bno\b", text)), bool(re.search(r"\byes\b", text))
            if bare_no != bare_yes:
                return "no" if bare_no else "yes"
        return "no" if _first(text, no_signals, rules) < _first(text, YES_SIGNALS, rules) else "yes"
    if rules == MODERN and len(text.split()) >= SUBSTANTIVE_WORDS and not any(r in text for r in REFUSALS):
        return "yes"
    return None


def _signalled(text: str, signals: Iterable[str], rules: Rules) -> bool:
    return any(_found(text, signal, rules) for signal in signals)


def _first(text: str, signals: Iterable[str], rules: Rules) -> int:
    places = []
    for signal in signals:
        if rules == MODERN:
            match = re.search(bounded(signal), text)
            if match:
                places.append(match.start())
        elif signal in text:
            places.append(text.find(signal))
    return min(places, default=999)


__all__ = [
    "MODERN",
    "NEGATION_CUES",
    "V1",
    "Rules",
    "admissible",
    "bounded",
    "contains",
    "decision",
    "only_negated",
]
