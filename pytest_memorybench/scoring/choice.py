"""Multiple-choice answers (MemBench): which option did the reply pick, if exactly one?

MemBench asks for "only one letter" and compares the reply with the correct letter verbatim.  Chat
agents answer "B", "(B)", "Answer: B", "the answer is b", `{"answer": "B"}` or the option's text,
so `extract_choice` reads all of these, and refuses to guess when a reply names two options.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from pytest_memorybench.core.records import Score
from pytest_memorybench.scoring.jsonlist import parse_lenient_json
from pytest_memorybench.scoring.text import mentions_word, normalise_space

# "answer: B", "the answer is b", "option (C)", "choice - d"
_CUE = re.compile(
    r"\b(?:answer|option|choice)\b\s*(?:is\b)?\s*[:=\-]?\s*[(\[]?\s*([A-Za-z])(?![A-Za-z0-9'’])",
    re.IGNORECASE,
)
# "(b)", "[C]"
_BRACKETED = re.compile(r"[(\[]\s*([A-Za-z])\s*[)\]]")
# "B. Paris", "b) paris", "C: London" at the very start
_LEADING = re.compile(r"^\s*([A-Za-z])\s*[.):\]]")
# a capital letter standing alone: "I'd go with B", "A or B", "B is right"
_CAPITAL = re.compile(r"(?<![\w'’])([A-Z])(?![\w'’])")
_CAPITAL_FOLLOWS = re.compile(
    r"\s*(?:$|[.,;:!?)\]*]|\s(?:or|and|is|was|seems|would|should|because|as|since)\b|\s[-–—])"
)
# After a lower-case "a" or "i" (English words) only punctuation or the end may follow.
_WORD_LETTER_FOLLOWS = re.compile(r"\s*[)\]]?\s*(?:$|[.,;:!?])")
_JSON_KEYS = ("answer", "choice", "option", "letter")
_DECORATION = " \t\r\n*_`'\"“”‘’.:;!()[]"


def _letter_signals(reply: str, letters: Mapping[str, str]) -> list[str]:
    """Every option letter the reply states explicitly, in the options' own spelling."""
    found: list[str] = []

    def take(match: re.Match[str], strict_words: bool) -> None:
        raw = match.group(1)
        letter = letters.get(raw.upper())
        if letter is None:
            return
        if strict_words and raw in "ai" and not _WORD_LETTER_FOLLOWS.match(reply, match.end(1)):
            return  # "the answer is a bit unclear" names no option
        found.append(letter)

    for match in _CUE.finditer(reply):
        take(match, strict_words=True)
    for match in _BRACKETED.finditer(reply):
        take(match, strict_words=False)
    leading = _LEADING.match(reply)
    if leading:
        take(leading, strict_words=False)
    for match in _CAPITAL.finditer(reply):
        if _CAPITAL_FOLLOWS.match(reply, match.end(1)):
            take(match, strict_words=False)
    return found


def _text_signals(reply: str, options: Mapping[str, str]) -> list[str]:
    """Letters of the options whose text the reply mentions, longest texts first.

    A text found inside a longer option's text ("Paris" in "Paris, Texas") only counts if it
    also occurs elsewhere in the reply.
    """
    found: list[str] = []
    working = normalise_space(reply)
    by_length = sorted(options.items(), key=lambda item: len(item[1]), reverse=True)
    for letter, text in by_length:
        text = normalise_space(str(text))
        if text and mentions_word(text, working):
            found.append(letter)
            working = re.sub(re.escape(text), " | ", working, flags=re.IGNORECASE)
    return found


def _blank_texts(reply: str, options: Mapping[str, str]) -> str:
    """The reply with every option text blanked out, so "Vitamin C" states no letter C."""
    for text in sorted((normalise_space(str(t)) for t in options.values()), key=len, reverse=True):
        if len(text) > 1:
            pattern = rf"(?<![\w-]){re.escape(text)}(?![\w-])"
            reply = re.sub(pattern, " | ", normalise_space(reply), flags=re.IGNORECASE)
    return reply


def _explain(reply: str, options: Mapping[str, str]) -> tuple[str | None, str]:
    """The chosen letter (or None) and how it was read."""
    if not options:
        raise ValueError("extract_choice needs at least one option")
    letters = {str(key).upper(): key for key in options}
    bare = reply.strip(_DECORATION)
    if bare.upper() in letters:
        return letters[bare.upper()], f"the reply is the letter {letters[bare.upper()]!r}"
    if "{" in reply:
        try:
            data = parse_lenient_json(reply)
        except ValueError:
            data = None
        if isinstance(data, dict):
            for name, value in data.items():
                if str(name).lower() in _JSON_KEYS and isinstance(value, str):
                    letter, how = _explain(value, options)
                    return letter, f"JSON field {name!r}: {how}"
    stated = sorted(set(_letter_signals(_blank_texts(reply, options), letters)), key=str)
    if len(stated) == 1:
        return stated[0], f"the reply states the letter {stated[0]!r}"
    if len(stated) > 1:
        return None, f"ambiguous: the reply states letters {stated}"
    named = sorted(set(_text_signals(reply, options)), key=str)
    if len(named) == 1:
        return named[0], f"the reply names option {named[0]!r} ({options[named[0]]!r})"
    if len(named) > 1:
        return None, f"ambiguous: the reply names options {named}"
    return None, "the reply names no option"


def extract_choice(reply: str, options: Mapping[str, str]) -> str | None:
    """The option letter (a key of `options`) the reply picks, or None when it is not clear.

    Read, in order: the reply being just a letter ("B", "(b)", "**B**."); a JSON object with an
    `answer`/`choice`/`option`/`letter` field; letters stated explicitly ("Answer: B", "the
    answer is b", "(C)", "D. Paris", a lone capital "I'd say B"); and failing any letter, the
    text of an option, whole-word and ignoring case.  Two different letters, or two option texts,
    give None: guessing would reward a reply that hedges.  A lower-case "a" counts only where it
    cannot be the article ("the answer is a." yes, "the answer is a bit unclear" no).
    """
    return _explain(reply, options)[0]


def score_choice(
    correct_letter: str, reply: str, options: Mapping[str, str], *, strict: bool = False
) -> Score:
    """1 when the reply picks `correct_letter`.

    Lenient by default (see `extract_choice`).  `strict=True` is MemBench's own rule: the reply,
    with spaces and line breaks removed, must be exactly the letter; its official agent forces
    this with structured output, so replies in any other form score 0 there.
    """
    if strict:
        given = reply.replace(" ", "").replace("\n", "")
        right = given == correct_letter
        verdict = "is" if right else "is not"
        return Score(float(right), (f"strict: the reply {given!r} {verdict} exactly {correct_letter!r}",))
    letter, how = _explain(reply, options)
    if letter is None:
        return Score(0.0, (f"{how}; the correct option is {correct_letter!r}",))
    right = str(letter).upper() == str(correct_letter).upper()
    verdict = "correct" if right else f"wrong, the correct option is {correct_letter!r}"
    return Score(float(right), (f"{how}: {verdict}",))
