"""Whether an answer asserts what it mentions: the difference between naming a thing and answering with it.

A wrong answer often contains the right words: "Your cat is not called Mochi", "Mochi, Miso or
Maple, I'm not sure which", "I can't recall whether you said Mochi", "Was it Porto?".  Word
matching alone accepts all of them.  `stance(text, start)` reads the sentence and clause around a
mention (a character offset in the `clean`ed text) and says why it is not asserted, or None when
it is; every task that looks for expected words asks it before giving credit.

  negated  a negation shortly before the mention in its clause ("not", "never", "neither … nor",
           "didn't", "skipped"), or its event denied right after it ("Aiko didn't come")
  hedged   the mention offered as one of several ("X or Y", "either", "maybe", "one of those",
           "something like"); "I think" is no hedge, nor "X or other Y"
  asked    its sentence is a question (a tag question such as ", right?" still asserts)
  doubted  it sits inside an abstention ("I'm not sure if", "whether", "I don't remember if")
"""

from __future__ import annotations

import re
from collections.abc import Callable

from pytest_memorybench.judges.local.text import Analysis, abstains, analyse

# A point or comma between digits ("v1.2.1", "1.5 million", "68,000", "4:30") ends no sentence or clause.
_SENTENCE = re.compile(r"(?:[^.!?;\n]|(?<=\d)[.:](?=\d))+[.!?;\n]*")
_CLAUSE = re.compile(r"(?:[^,:;.!?\n]|(?<=\d)[.,:](?=\d))+")
_NEGATED_BEFORE = re.compile(
    r"(?:\bnot|\bno|\bnever|n't|\bnor|\bneither|\bwithout|\bskipped|\bmissed|\bcancell?ed|\bnothing\s+about)"
    r"(?:(?:\s+[\w'&-]+){0,3}|(?=(?:\s+[\w'&-]+){0,7}\s*$)(?:\s+[\w'&-]+)*?\s+(?:and|or|nor)(?:\s+[\w'&-]+){0,3})\s*$"
)  # up to 3 words before the mention, or a list joined by "and" / "or" ("skipped the workshop and the quiz")
# "Aiko didn't come", "the quiz never took place": the mention's own event denied (not "the aviary
# had never hosted anything so chaotic", which still places the event there).
_NEGATED_AFTER = re.compile(
    r"^(?:\s+[\w'&-]+){0,2}?\s+(?:didn'?t|did\s+not|couldn'?t|could\s+not|never)\s+"
    r"(?:come|came|go|went|make\s+it|attend|attended|show\s+up|showed\s+up|happen|happened|take\s+place|took\s+place)\b"
)
_HEDGE = re.compile(
    r"\b(?:either|maybe|perhaps|possibly|might\s+(?:be|have)|(?<!every\s)(?<!each\s)one\s+of\s+(?:those|these)|some(?:thing|where|one)\s+like"
    r"|i\s+forget|not\s+sure\s+which|whichever|or\s+so|any\s+(?:of\s+them|one))\b"
)
_OR = re.compile(
    r"\bor\b(?!\s+(?:not|(?:some\s+|any\s+)?(?:other|similar|another|equivalent|comparable|the\s+like))\b)"
)
_TAG_QUESTION = re.compile(
    r",\s*(?:right|correct|isn'?t\s+(?:it|that)|wasn'?t\s+(?:it|that)|no|yes)\s*\?\s*$"
)
_DOUBT = re.compile(
    r"\b(?:whether|not\s+(?:sure|certain)\s+(?:if|whether|that)|(?:don'?t|do\s+not|can'?t|cannot|couldn'?t)\s+"
    r"(?:know|remember|recall|tell|say)\s+(?:if|whether)|no\s+idea\s+(?:if|whether))\b"
)
OR_REACH = 6  # words between a mention and an "or" that makes it one of several
# How a verdict's reason says why a mention earns nothing.
EXPLAINED = {
    "negated": "to deny it",
    "hedged": "as one of several guesses",
    "asked": "in a question",
    "doubted": "inside an abstention",
}


def stance(text: str, start: int, end: int | None = None, *, or_hedges: bool = True) -> str | None:
    """Why the mention at text[start:end] is not asserted ("negated", "hedged", "asked", "doubted"), or None.

    `or_hedges=False` reads "X or Y" as naming two fitting things ("lock picks or a slim jim" both
    open a door), for tasks that accept any of several meanings; hedging words still hedge.
    """
    end = start if end is None else end
    sentence = next(
        (m for m in _SENTENCE.finditer(text) if m.start() <= start < max(m.end(), m.start() + 1)), None
    )
    if sentence is None:
        return None
    clause = next(
        (m for m in _CLAUSE.finditer(text, sentence.start(), sentence.end()) if m.start() <= start < m.end()),
        sentence,
    )
    if _NEGATED_BEFORE.search(text[clause.start() : start]) or _NEGATED_AFTER.match(text[end : clause.end()]):
        return "negated"
    words_before = text[sentence.start() : start].split()[-OR_REACH:]
    words_after = text[end : sentence.end()].split()[:OR_REACH]
    near = " ".join((*words_before, "_", *words_after))
    if (or_hedges and _OR.search(near)) or _HEDGE.search(sentence.group(0)):
        return "hedged"
    body = sentence.group(0).rstrip()
    if body.endswith("?") and not _TAG_QUESTION.search(body):
        return "asked"
    before = text[sentence.start() : start]
    if _DOUBT.search(before) or abstains(text[clause.start() : clause.end()]):
        return "doubted"
    return None


def asserted(text: str, spans: list[tuple[int, int]]) -> bool:
    """Whether at least one of the mentions is asserted (no mention: False)."""
    return any(stance(text, start, end) is None for start, end in spans)


def value_spans(text: str, holds: Callable[[Analysis], bool], width: int = 3) -> list[tuple[int, int]]:
    """Where in `text` a value is written: the shortest runs of up to `width` words whose analysis
    `holds` it ("8:15", "twenty-five km", "June 12")."""
    words = list(re.finditer(r"[\w:'./-]+", text))
    spans: list[tuple[int, int]] = []
    for size in range(1, width + 1):  # the shortest runs first: "25", not "it's not 25"
        for start in range(len(words) - size + 1):
            first, last = words[start].start(), words[start + size - 1].end()
            if not any(a < last and first < b for a, b in spans) and holds(analyse(text[first:last])):
                spans.append((first, last))
    return sorted(spans)
