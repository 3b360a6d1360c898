"""The `local` judge: every task kind answered offline, deterministically, in microseconds.

It compares normalised text (case, accents, punctuation, articles, whitespace and plural endings
ignored), values (numbers written in digits or words, "12k", "$68,000", "1.5 million"; dates such
as "April 9, 2026", "9th of April", "2026-04-09"), content-word coverage with fuzzy word matching
(rapidfuzz; "colour" ~ "color", "spagetti" ~ "spaghetti") and ROUGE-L (a small LCS, no dependency).

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
  nugget       positive: content words and numbers of the criterion covered (1), partly (0.5), not
               (0); prohibitions ("does not mention X", "avoids X") score 1 when X is absent from a
               responsive answer; "states there is no information" criteria reward abstentions.
  equivalence  content words of the shorter text covered by the longer (and a little back); numbers
               and dates must agree where both texts give them.

Where it is weaker than an LLM judge (the meta-evaluation measures how much):
  * paraphrase and synonyms beyond spelling: "theatre performance" is not "theater show", "began"
    is not "started", "joined a gym" does not imply "exercise";
  * implicit or inferred answers ("the colour of the sky" for blue) and answers that are right for
    the wrong reason: only surface evidence counts, so listing many candidates may earn credit;
  * negation scope: a cue negates the rest of its clause part ("not too spicy, the curry" loses the
    curry; "I wouldn't say no to the soup" is a refusal); double negation is not understood;
  * routes: legs must be written as "<distance> km <direction>" near place names; relative turns
    ("turn left") and distances in miles are not understood;
  * full-chapter ground truths and long criteria are judged by word coverage, a rough proxy.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from rapidfuzz import fuzz, process

from pytest_memorybench.judges.base import JudgeStats, JudgeTask, JudgeVerdict
from pytest_memorybench.judges.prompts import check_payload, validate
from pytest_memorybench.errors import describe_exception

VERSION = "local-4"  # bump when a rule changes: it is recorded with results like a prompt hash

WORD_MATCH = 85  # rapidfuzz ratio for two words to count as the same (spelling variants, typos)
SENTENCE_THRESHOLD = 0.6  # ROUGE-L F1 for a sentence to count as present
SENTENCE_CONTAINED = 0.85  # ROUGE-L recall for a target sentence found inside a longer one


class LocalJudge:
    """The offline judge; use it directly or behind `CachedJudge` (which `build_judge` does)."""

    name = "local"
    version = VERSION

    def __init__(self) -> None:
        self.stats = JudgeStats()

    async def judge(self, task: JudgeTask) -> JudgeVerdict:
        return self.judge_now(task)

    def judge_now(self, task: JudgeTask) -> JudgeVerdict:
        """The same verdict, synchronously."""
        check_payload(task.kind, task.payload)
        self.stats.calls += 1
        self.stats.prompt_hashes[task.kind] = VERSION
        try:
            data = validate(task.kind, _JUDGES[task.kind](task.payload), task.payload)
        except Exception as exc:  # noqa: BLE001 - a rule's bug must cost one verdict, not the run
            return JudgeVerdict(task.kind, None, error=f"judge-error: local: {describe_exception(exc)}")
        return JudgeVerdict(task.kind, data)


# -- text analysis ------------------------------------------------------------------------------

_ARTICLES = frozenset({"a", "an", "the"})
STOPWORDS = frozenset(
    """a an the and or but nor so yet if then than that this these those there here of to in on at by for
    with without from into onto over under about as per via up down out off again also too very just only
    i me my mine we us our ours you your yours he him his she her hers it its they them their theirs
    who whom whose which what when where why how is are was were be been being am do does did done doing
    have has had having will would shall should can could may might must ought not no yes
    some any all each every both either neither other another such own same more most much many few
    please like get got go went going let lets okay ok oh well really thing things one ones""".split()
)
_SMALL = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9}
_NUMBER_WORDS = frozenset({*_SMALL, *_TENS, *_SCALES, "hundred", "dozen"})
_MONTHS = {
    name: number
    for number, names in enumerate(
        [("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",),
         ("june", "jun"), ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"),
         ("october", "oct"), ("november", "nov"), ("december", "dec")],
        start=1,
    )
    for name in names
}
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DATES = (
    re.compile(rf"\b(?P<m>{_MONTH})\.?\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+(?P<y>\d{{4}})\b)?"),
    re.compile(rf"\b(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<m>{_MONTH})\b\.?(?:,?\s+(?P<y>\d{{4}})\b)?"),
    re.compile(r"\b(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})\b"),
    re.compile(rf"\b(?P<m>{_MONTH})\s+(?P<y>\d{{4}})\b"),
)
_NUMBER = re.compile(
    r"(?<![\w.])(?P<cur>[$£€¥])?\s?(?P<num>\d+(?:\.\d+)?)(?:\s?(?P<suf>k|bn|thousand|million|billion|m)\b)?"
)
_SUFFIX_SCALE = {"k": 1e3, "thousand": 1e3, "m": 1e6, "million": 1e6, "bn": 1e9, "billion": 1e9}
_UNIT_WORDS = frozenset(
    "km kms kilometer kilometers kilometre kilometres percent usd dollar dollars euro euros pound pounds "
    "year years yr yrs times item items".split()
)
_WORD_SUFFIXES = ("s", "es", "ed", "d", "ing", "er", "ers", "ly")
_CHARMAP = str.maketrans({"’": "'", "‘": "'", "`": "'", "“": '"', "”": '"', "–": "-", "—": "-", "\u00a0": " "})


def clean(text: str) -> str:
    """Unicode quotes and dashes made plain, accents dropped, case folded."""
    text = unicodedata.normalize("NFKD", str(text).translate(_CHARMAP))
    return "".join(char for char in text if not unicodedata.combining(char)).casefold()


def normalise(text: str) -> str:
    """Lower case, no accents, punctuation or articles, one space between words; 68,000 → 68000."""
    text = clean(text)
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)
    text = text.replace("&", " and ")
    text = re.sub(r"'s\b", "", text)
    text = re.sub(r"(?<!\d)\.|\.(?!\d)", " ", text)
    text = re.sub(r"[^\w\s.]|_", " ", text)
    return " ".join(word for word in text.split() if word not in _ARTICLES)


def stem(word: str) -> str:
    """Plural endings off: enough for "eggs" to match "egg" and "berries" "berry"."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("ches", "shes", "xes", "sses", "zes", "oes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


@dataclass(frozen=True)
class Analysis:
    text: str
    norm: str
    content: tuple[str, ...]  # stems of content words, in order (numbers and dates excluded)
    numbers: tuple[float, ...]
    dates: frozenset[tuple[int | None, int, int | None]]

    @property
    def content_set(self) -> frozenset[str]:
        return frozenset(self.content)


@lru_cache(maxsize=4096)
def analyse(text: str) -> Analysis:
    lowered = re.sub(r"(?<=\d),(?=\d{3}\b)", "", clean(text))
    dates, rest = _find_dates(lowered)
    numbers = tuple(_find_numbers(rest))
    norm = normalise(text)
    content = tuple(
        stem(word)
        for word in normalise(rest).split()
        if word not in STOPWORDS and word not in _NUMBER_WORDS and not any(char.isdigit() for char in word)
    )
    return Analysis(str(text), norm, content, numbers, frozenset(dates))


def _find_dates(text: str) -> tuple[list[tuple[int | None, int, int | None]], str]:
    found: list[tuple[int | None, int, int | None]] = []
    for pattern in _DATES:
        def keep(match: re.Match[str]) -> str:
            month_text, day_text = match.group("m"), match.groupdict().get("d")
            month = int(month_text) if month_text.isdigit() else _MONTHS[month_text]
            day = int(day_text) if day_text else None
            year = int(match.group("y")) if match.group("y") else None
            if not 1 <= month <= 12 or (day is not None and not 1 <= day <= 31):
                return match.group(0)
            found.append((year, month, day))
            return " "

        text = pattern.sub(keep, text)
    return found, text


def _find_numbers(text: str) -> list[float]:
    values = []
    for match in _NUMBER.finditer(text):
        value = float(match.group("num"))
        suffix = match.group("suf")
        if suffix and (suffix != "m" or match.group("cur")):
            value *= _SUFFIX_SCALE[suffix]
        values.append(value)
    words = re.findall(r"[a-z]+", _NUMBER.sub(" ", text))
    values.extend(_word_numbers(words))
    return values


def _word_numbers(words: Sequence[str]) -> list[float]:
    """Numbers written in words: "twelve", "twenty-five", "a hundred and five", "two dozen"."""
    values = []
    index = 0
    while index < len(words):
        word = words[index]
        starts = word in _SMALL or word in _TENS or word == "dozen"
        if word in ("a", "an") and index + 1 < len(words) and words[index + 1] in {"hundred", "dozen", *_SCALES}:
            starts, index = True, index + 1
        if not starts:
            index += 1
            continue
        total, current, seen = 0.0, 0.0, False
        while index < len(words):
            word = words[index]
            if word in _SMALL:
                current += _SMALL[word]
            elif word in _TENS:
                current += _TENS[word]
            elif word == "hundred":
                current = max(current, 1) * 100
            elif word == "dozen":
                current = max(current, 1) * 12
            elif word in _SCALES:
                total += max(current, 1) * _SCALES[word]
                current = 0
            elif word == "and" and seen and index + 1 < len(words) and words[index + 1] in _NUMBER_WORDS:
                pass
            else:
                break
            seen = True
            index += 1
        values.append(total + current)
    return values


def parse_number(text: str) -> float | None:
    """The value when `text` is just a number or amount ("12", "twelve", "$68,000", "12k", "3 km")."""
    analysis = analyse(text)
    leftover = [word for word in analysis.content if word not in _UNIT_WORDS and stem(word) not in _UNIT_WORDS]
    if len(analysis.numbers) == 1 and not leftover and not analysis.dates:
        return analysis.numbers[0]
    return None


def same_value(first: float, second: float) -> bool:
    return abs(first - second) <= 1e-9 * max(1.0, abs(first), abs(second))


def has_value(value: float, values: Iterable[float]) -> bool:
    return any(same_value(value, other) for other in values)


def word_found(word: str, pool: frozenset[str]) -> bool:
    """`word` (a stem) is in `pool`, up to spelling variants and common endings."""
    if word in pool:
        return True
    for other in pool:
        short, long = (word, other) if len(word) <= len(other) else (other, word)
        if len(short) >= 4 and long.startswith(short) and long[len(short):] in _WORD_SUFFIXES:
            return True
    if len(word) >= 5 and pool:
        return process.extractOne(word, pool, scorer=fuzz.ratio, score_cutoff=WORD_MATCH) is not None
    return False


def coverage(needle: Sequence[str], pool: frozenset[str]) -> float:
    """The share of `needle`'s words found in `pool` (1.0 for no words)."""
    words = list(dict.fromkeys(needle))
    if not words:
        return 1.0
    return sum(word_found(word, pool) for word in words) / len(words)


def phrase_in(phrase: str, text: str) -> bool:
    """Normalised `phrase` occurs in normalised `text` as whole words."""
    needle = normalise(phrase)
    return bool(needle) and f" {needle} " in f" {normalise(text)} "


def dates_agree(expected: Iterable[tuple[int | None, int, int | None]], found: Iterable[tuple[int | None, int, int | None]]) -> bool:
    """Every expected date is in `found`; a year left out in `found` is not held against it, a day is."""
    found = list(found)
    for year, month, day in expected:
        if not any(
            month == m and (year is None or y is None or year == y) and (day is None or day == d)
            for y, m, d in found
        ):
            return False
    return True


_ABSTENTION = re.compile(
    r"\b(?:"
    r"(?:i|we)\s+(?:do\s+not|don'?t|did\s+not|didn'?t)\s+(?:know|remember|recall|have\s+(?:any\s+)?(?:information|info|record|details?|data|memory))"
    r"|(?:i\s+am|i'?m)\s+(?:not\s+sure|unsure|unable|not\s+able)"
    r"|i\s+have\s+no\s+(?:idea|information|info|record|memory|recollection|details?|data)"
    r"|no\s+(?:idea|information|info|record|records|mention|details?|data)\s+(?:about|on|of|regarding|available|was|is|in)"
    r"|(?:there\s+is|there\s+are|there'?s|there\s+were|there\s+was)\s+(?:none|nothing|no\s+(?:information|record|mention|such))"
    r"|(?:can'?t|cannot|can\s+not|couldn'?t|could\s+not|unable\s+to)\s+(?:recall|remember|find|answer|say|tell|determine|know|locate)"
    r"|(?:was|were|is|are|has\s+been|have\s+been)\s+(?:not|never)\s+(?:mentioned|specified|provided|stated|recorded|discussed|shared)"
    r"|(?:you|we)\s+(?:haven'?t|have\s+not|never|didn'?t|did\s+not)\s+(?:told|tell|mentioned|mention|said|say|shared|share|discussed|discuss)"
    r")\b"
)
_BARE_ABSTENTION = re.compile(r"^\W*(?:none|nothing|n/?a|unknown|no idea|not sure|i don'?t know)\W*$")


def abstains(text: str) -> bool:
    """The answer says it has no such information or cannot answer (anywhere in it)."""
    lowered = clean(text)
    return bool(_ABSTENTION.search(lowered) or _BARE_ABSTENTION.match(lowered))


_TOKEN = re.compile(r"[a-z0-9]+")


def _tokens(text: str) -> list[re.Match[str]]:
    return list(_TOKEN.finditer(clean(text)))


def lcs_length(first: Sequence[str], second: Sequence[str]) -> int:
    if not first or not second:
        return 0
    previous = [0] * (len(second) + 1)
    for token in first:
        current = [0]
        for index, other in enumerate(second):
            current.append(previous[index] + 1 if token == other else max(previous[index + 1], current[index]))
        previous = current
    return previous[-1]


def rouge_l(candidate: Sequence[str], reference: Sequence[str]) -> tuple[float, float, float]:
    """(precision, recall, F1) of the longest common subsequence, as ROUGE-L defines them."""
    common = lcs_length(candidate, reference)
    if common == 0:
        return 0.0, 0.0, 0.0
    precision, recall = common / len(candidate), common / len(reference)
    return precision, recall, 2 * precision * recall / (precision + recall)


def _lcs_span(candidate: Sequence[str], reference: Sequence[str]) -> tuple[int, int] | None:
    """First and last positions in `candidate` of a longest common subsequence with `reference`."""
    rows, cols = len(candidate), len(reference)
    table = [[0] * (cols + 1) for _ in range(rows + 1)]
    for i in range(rows - 1, -1, -1):
        for j in range(cols - 1, -1, -1):
            table[i][j] = table[i + 1][j + 1] + 1 if candidate[i] == reference[j] else max(table[i + 1][j], table[i][j + 1])
    i = j = 0
    matched = []
    while i < rows and j < cols:
        if candidate[i] == reference[j]:
            matched.append(i)
            i, j = i + 1, j + 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return (matched[0], matched[-1]) if matched else None


_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+|\n+|(?<=:)\s+(?=[\"'A-Z])")


def sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) character spans of the sentences of `text`, stripped."""
    spans, start = [], 0
    for match in _SENTENCE_END.finditer(text):
        spans.append((start, match.start()))
        start = match.end()
    spans.append((start, len(text)))
    result = []
    for begin, end in spans:
        piece = text[begin:end]
        stripped = piece.strip(" \t\r\n-*•")
        if stripped:
            offset = begin + piece.index(stripped)
            result.append((offset, offset + len(stripped)))
    return result


# -- the task kinds -----------------------------------------------------------------------------


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
    if not all(has_value(number, given.numbers) for number in wanted.numbers):
        return False, "a number of the expected answer is missing"
    if phrase_in(expected, answer):
        if _only_negated(wanted.norm, clean(answer)):
            return False, "the answer mentions the expected answer only to deny it"
        return True, "the answer contains the expected answer"
    words = wanted.content
    if not words:
        found = bool(wanted.dates or wanted.numbers)
        return found, "the expected values are in the answer" if found else "the answer does not contain it"
    share = coverage(words, given.content_set)
    needed = 1.0 if len(set(words)) <= 2 else 0.75 if len(set(words)) <= 5 else 0.6
    if share >= needed:
        return True, f"the answer covers {share:.0%} of the expected answer's words"
    return False, f"the answer covers only {share:.0%} of the expected answer's words"


def _only_negated(phrase: str, lowered_answer: str) -> bool:
    words = phrase.split()
    pattern = re.compile(r"(?<![\w])" + r"\W+(?:(?:a|an|the)\W+)?".join(re.escape(w) for w in words) + r"(?![\w])")
    matches = list(pattern.finditer(lowered_answer))
    return bool(matches) and all(_NEGATION_BEFORE.search(lowered_answer[: m.start()]) for m in matches)


def judge_sentence(payload: Mapping[str, Any]) -> dict[str, Any]:
    answer, target = str(payload["answer"] or ""), str(payload["sentence"])
    reference = [match.group(0) for match in _tokens(target)]
    if not reference or not answer.strip():
        return {"present": False, "extracted": None, "reason": "nothing to compare"}
    spans = sentences(answer)
    candidates = spans + [(spans[i][0], spans[i + 1][1]) for i in range(len(spans) - 1)]
    best: tuple[float, tuple[int, int]] | None = None
    contained: tuple[float, tuple[int, int]] | None = None
    for begin, end in candidates:
        tokens = _tokens(answer[begin:end])
        words = [match.group(0) for match in tokens]
        _, recall, f1 = rouge_l(words, reference)
        if best is None or f1 > best[0]:
            best = (f1, (begin, end))
        if recall >= SENTENCE_CONTAINED and (contained is None or recall > contained[0]):
            span = _lcs_span(words, reference)
            if span is not None:
                contained = (recall, (begin + tokens[span[0]].start(), begin + tokens[span[1]].end()))
    assert best is not None
    if best[0] >= SENTENCE_THRESHOLD:
        begin, end = best[1]
        return {"present": True, "extracted": answer[begin:end], "reason": f"ROUGE-L F1 {best[0]:.2f}"}
    if contained is not None:
        begin, end = contained[1]
        return {"present": True, "extracted": answer[begin:end],
                "reason": f"contained with ROUGE-L recall {contained[0]:.2f}"}
    return {"present": False, "extracted": None, "reason": f"best ROUGE-L F1 {best[0]:.2f}"}


# directions ---------------------------------------------------------------------------------------

_SMALL_WORDS = "|".join(sorted(_SMALL, key=len, reverse=True))
_DISTANCE = re.compile(
    rf"\b(?P<n>\d+(?:\.\d+)?|{_SMALL_WORDS}|a|an)\s*-?\s*(?:km|kms|kilometers?|kilometres?)\b"
)
_HEADING = re.compile(r"\b(?P<d>north|south|east|west)(?:wards?|bound)?\b")
_FROM_BEFORE = re.compile(r"\b(?:from|start(?:ing)?\s+(?:at|from|in)|begin(?:ning)?\s+(?:at|from|in)|leav(?:e|ing))\s*(?:the\s+)?$")
_TO_BEFORE = re.compile(r"\b(?:to|towards?|reach(?:ing)?|arriv(?:e|ing)\s+at|until|end(?:ing)?\s+(?:up\s+)?(?:at|in))\s*(?:the\s+)?$")


@dataclass
class _Leg:
    origin: str | None
    kilometers: int | None = None
    direction: str | None = None


def judge_directions(payload: Mapping[str, Any]) -> dict[str, Any]:
    answer = str(payload["answer"] or "")
    places = [str(place) for place in payload["places"]]
    text = clean(answer)
    events = _place_events(text, places)
    masked = list(text)
    for begin, end, _, _ in events:
        masked[begin:end] = " " * (end - begin)
    plain = "".join(masked)
    for match in _DISTANCE.finditer(plain):
        amount = match.group("n")
        number = float(amount) if amount[0].isdigit() else 1.0 if amount in ("a", "an") else float(_SMALL[amount])
        events.append((match.start(), match.end(), "km", int(round(number))))
    for match in _HEADING.finditer(plain):
        events.append((match.start(), match.end(), "dir", match.group("d")))
    events.sort()

    hops: list[dict[str, Any]] = []
    current: str | None = None
    leg: _Leg | None = None

    def finish(destination: str | None) -> None:
        nonlocal current, leg
        if leg is not None and leg.kilometers is not None and leg.direction is not None:
            hops.append({"origin": leg.origin or current or "", "kilometers": leg.kilometers,
                         "direction": leg.direction, "destination": destination or ""})
        current, leg = destination, None

    for begin, _, kind, value in events:
        if kind in ("km", "dir"):
            field = "kilometers" if kind == "km" else "direction"
            if leg is not None and getattr(leg, field) is not None:
                finish(None)  # a new leg starts before the last one named where it ends
            if leg is None:
                leg = _Leg(origin=current)
            setattr(leg, field, value)
            continue
        before = text[max(0, begin - 30) : begin]
        moving = leg is not None and (leg.kilometers is not None or leg.direction is not None)
        if _FROM_BEFORE.search(before):
            if moving:
                assert leg is not None
                leg.origin = value
            else:
                current = value
        elif moving:
            finish(value)
        elif not _TO_BEFORE.search(before):
            current = value  # "Start at the Library." (a bare "to X" without a movement is the goal)
    if leg is not None:
        finish(None)
    why = f"{len(hops)} leg(s) read" if hops else "no legs found"
    return {"hops": hops, "reason": why}


def _place_events(text: str, places: Sequence[str]) -> list[tuple[int, int, str, Any]]:
    """Mentions of the known places in `text`, longest first where they overlap."""
    found: list[tuple[int, int, str, Any]] = []
    for place in places:
        pattern = _name_pattern(place)
        if pattern is None:
            continue
        matches = [(m.start(), m.end()) for m in pattern.finditer(text)]
        if not matches and len(normalise(place)) >= 5:
            alignment = fuzz.partial_ratio_alignment(normalise(place), text, score_cutoff=90)
            if alignment is not None:
                matches = [_widen_to_words(text, alignment.dest_start, alignment.dest_end)]
        found.extend((begin, end, "place", place) for begin, end in matches)
    found.sort(key=lambda event: (-(event[1] - event[0]), event[0]))
    kept: list[tuple[int, int, str, Any]] = []
    for event in found:
        if all(event[1] <= other[0] or event[0] >= other[1] for other in kept):
            kept.append(event)
    return sorted(kept)


@lru_cache(maxsize=1024)
def _name_pattern(name: str) -> re.Pattern[str] | None:
    words = [word for word in re.findall(r"[a-z0-9]+", clean(name))]
    while words and words[0] in _ARTICLES:
        words = words[1:]
    if not words:
        return None
    return re.compile(r"(?<![a-z0-9])" + r"[\W_]+".join(re.escape(word) for word in words) + r"(?:'?s)?(?![a-z0-9])")


def _widen_to_words(text: str, begin: int, end: int) -> tuple[int, int]:
    while begin > 0 and text[begin - 1].isalnum():
        begin -= 1
    while end < len(text) and text[end].isalnum():
        end += 1
    return begin, end


# restaurant -------------------------------------------------------------------------------------------

_CLAUSE = re.compile(r"[^.!?;,\n]+(?:[.!?;,\n]+|$)")
_NEGATION_WORDS = frozenset({"no", "not", "never", "without", "except", "nothing", "none", "skip", "neither", "nor"})
_NEGATION_PHRASES = (
    ("instead", "of"), ("rather", "than"), ("hold", "the"), ("allergic", "to"), ("thank", "you", "for"),
    ("thanks", "for"), ("thank", "you", "so", "much", "for"), ("other", "than"),
)
_ORDER_WORDS = frozenset({"have", "get", "take", "order", "like", "want", "bring", "try", "please", "ill", "id"})
_ORDER_PHRASE = re.compile(
    r"\b(?:(?:i'?ll|i\s+will|i'?d|i\s+would|can\s+i|could\s+i|may\s+i|let\s+me)\s+"
    r"(?:(?:like|love)\s+(?:to\s+(?:order|have|get|try)\s+)?|(?:have|get|take|order|try|go\s+with|start\s+with)\s+)"
    r"|i\s+want\s+(?:to\s+(?:order|have|get|try)\s+)?)"
    r"(?P<what>[^.!?;\n]+)"
)
_NOT_FOOD = frozenset({"minute", "moment", "second", "look", "bill", "check", "menu", "time", "table", "recommendation", "help"})


@dataclass(frozen=True)
class _Word:
    stem: str
    position: int
    negated: bool


def _reply_words(reply: str) -> list[_Word]:
    """The reply's words, each marked negated when a cue before it in its clause part rules it out."""
    words: list[_Word] = []
    text = clean(reply)
    for clause in _CLAUSE.finditer(text):
        body = clause.group(0)
        raw = [(m.group(0).replace("'", ""), clause.start() + m.start()) for m in re.finditer(r"[a-z0-9']+", body)]
        plain = [token for token, _ in raw]
        asking = body.rstrip().endswith("?") and not (_ORDER_WORDS & set(plain))
        negated_from = len(raw) if not asking else 0
        for index, token in enumerate(plain):
            if token in _NEGATION_WORDS or token.endswith("nt") and token in {"dont", "wont", "cant", "isnt", "arent", "wasnt", "didnt", "doesnt", "wouldnt", "shouldnt", "couldnt", "havent"}:
                negated_from = min(negated_from, index)
                break
            if any(tuple(plain[index : index + len(phrase)]) == phrase for phrase in _NEGATION_PHRASES):
                negated_from = min(negated_from, index)
                break
        for index, (token, position) in enumerate(raw):
            if token not in STOPWORDS:
                words.append(_Word(stem(token), position, index >= negated_from))
    return words


def _mentions(names: Sequence[str], words: Sequence[_Word], all_names: Sequence[str]) -> list[tuple[int, str]]:
    """(position, name) of the names mentioned positively: by most of their words or a word only they have."""
    counts: dict[str, int] = {}
    for name in all_names:
        for word in set(analyse(name).content):
            counts[word] = counts.get(word, 0) + 1
    positive = [word for word in words if not word.negated]
    pool = frozenset(word.stem for word in positive)
    result = []
    for name in names:
        content = list(dict.fromkeys(analyse(name).content))
        if not content:
            continue
        found = [word for word in content if word_found(word, pool)]
        distinctive = [word for word in found if counts.get(word, 0) == 1]
        if found and (len(found) / len(content) >= 0.6 or distinctive):
            anchors = {word for word in found}
            position = min(
                (w.position for w in positive if any(word_found(w.stem, frozenset({a})) for a in anchors)),
                default=0,
            )
            result.append((position, name))
    return sorted(result)


def judge_restaurant(payload: Mapping[str, Any]) -> dict[str, Any]:
    reply = str(payload["reply"] or "")
    menu = [str(item) for item in payload["menu"]]
    drinks = [str(item) for item in payload["drinks"]]
    everything = [*menu, *drinks]
    words = _reply_words(reply)
    dishes = [name for _, name in _mentions(menu, words, everything)]
    ordered_drinks = [name for _, name in _mentions(drinks, words, everything)]
    other = []
    for match in _ORDER_PHRASE.finditer(clean(reply)):
        for piece in re.split(r",|\band\b|\bplus\b", match.group("what")):
            if any(token.strip("'") in _NEGATION_WORDS or "n't" in token for token in piece.split()):
                continue
            content = [word for word in analyse(piece).content if word not in _NOT_FOOD]
            if not content or set(analyse(piece).content) & _NOT_FOOD:
                continue
            piece_words = [_Word(word, 0, False) for word in content]
            if not _mentions(everything, piece_words, everything):
                other.append(" ".join(normalise(piece).split()))
    reason = "mentions found by name" if dishes or ordered_drinks else "no menu item or drink ordered"
    return {"dishes": dishes, "drinks": ordered_drinks, "other": ", ".join(other) or None, "reason": reason}


# items and order --------------------------------------------------------------------------------------


def item_score(item: str, answer: str, *, ignore: frozenset[str] = frozenset()) -> tuple[float, int]:
    """(1 | 0.5 | 0, character position of the evidence) for one ground-truth item in an answer."""
    wanted, given = analyse(item), analyse(answer)
    lowered = clean(answer)
    if phrase_in(item, answer) and not (wanted.content_set and wanted.content_set <= ignore):
        return 1, _position(lowered, wanted)
    if wanted.dates:
        if dates_agree(wanted.dates, given.dates):
            return (1 if not wanted.content or coverage(wanted.content, given.content_set) >= 0.5 else 0.5), _position(lowered, wanted)
        if any(m == month for _, m, _ in given.dates for _, month, _ in wanted.dates):
            return 0.5, _position(lowered, wanted)
        return 0, -1
    pool = given.content_set - ignore
    words = list(dict.fromkeys(wanted.content))
    numbers_ok = all(has_value(number, given.numbers) for number in wanted.numbers)
    if not words:
        return (1 if wanted.numbers and numbers_ok else 0), _position(lowered, wanted)
    share = coverage(words, pool)
    full, half = (0.5, 0.25) if len(words) > 12 else (0.75, 0.5)
    if share >= full and numbers_ok:
        score: float = 1
    elif share >= half or (share >= full and not numbers_ok):
        score = 0.5
    else:
        return 0, -1
    return score, _position(lowered, wanted)


def _position(lowered: str, wanted: Analysis) -> int:
    """Where in the answer the first of the item's words occurs (for ordering identified items).

    An item without content words (a date) is placed where its text occurs, so that a list of
    dates keeps the answer's order."""
    positions = []
    for word in wanted.content:
        match = re.search(rf"\b{re.escape(word[:max(4, len(word) - 1)])}", lowered)
        if match:
            positions.append(match.start())
    if not positions and lowered.find(clean(wanted.text)) >= 0:
        positions.append(lowered.find(clean(wanted.text)))
    return min(positions) if positions else len(lowered)


_BULLET = re.compile(r"^\s*(?:[-*•·]|\d+[.)]|\(\d+\)|[a-z][.)])\s+(?P<item>.+)$", re.MULTILINE)


def list_fragments(answer: str) -> list[tuple[int, str]]:
    """(position, text) of the items of a bulleted list or a one-line comma-separated list."""
    found = [(m.start("item"), _item_name(m.group("item"))) for m in _BULLET.finditer(answer)]
    if found:
        return [(position, name) for position, name in found if name]
    lines = [line for line in answer.strip().splitlines() if line.strip()]
    if len(lines) == 1 and (answer.count(",") >= 2 or (answer.count(",") >= 1 and " and " in answer)):
        head, colon, tail = answer.partition(":")
        body = tail if colon else head
        start = len(head) + 1 if colon else 0
        result = []
        for match in re.finditer(r"[^,;]+", body):
            for part in re.split(r"\s+and\s+", match.group(0)):
                name = _item_name(part)
                if name and len(name.split()) <= 6:
                    result.append((start + match.start() + body[match.start():].find(part.strip()[:1]), name))
        return result
    return []


def _item_name(text: str) -> str:
    name = re.split(r":|\s[-–—]\s|\s\(", text, maxsplit=1)[0]
    return name.strip().strip(".;,!?\"'*").strip()


_ABSTENTION_SPLIT = re.compile(r"(?<=[.!?;])\s+|\n+|,?\s+but\s+|,?\s+although\s+|,?\s+though\s+")


def judge_items(payload: Mapping[str, Any]) -> dict[str, Any]:
    answer = str(payload["answer"] or "")
    ground_truth = [str(item) for item in payload["ground_truth"]]
    abstaining = abstains(answer)
    evidence, ignore = answer, frozenset[str]()
    if abstaining:
        # A declining answer often repeats the question's words or names what it cannot tell
        # about ("no information about the Hackathon"): only the parts that do not decline count.
        evidence = " ".join(part for part in _ABSTENTION_SPLIT.split(answer) if part and not abstains(part))
        ignore = analyse(str(payload.get("question") or "")).content_set
    scored = [item_score(item, evidence, ignore=ignore) for item in ground_truth]
    matching = [score for score, _ in scored]
    if abstaining:
        identified: list[str] = []
    else:
        located = [(position, item) for item, (score, position) in zip(ground_truth, scored) if score > 0]
        for position, fragment in list_fragments(answer):
            if all(item_score(item, fragment)[0] == 0 for item in ground_truth) and not abstains(fragment):
                located.append((position, fragment))
        # Names of the kind asked for that the scorer knows of (every place of a book) count where
        # the answer states them in full, in prose too, unless they are ground-truth items.
        for candidate in (str(c) for c in payload.get("candidates") or ()):
            if any(same_item(candidate, item) for item in ground_truth):
                continue
            score, position = item_score(candidate, answer)
            if score == 1 and not any(same_item(candidate, item) for _, item in located):
                located.append((position, candidate))
        identified = list(dict.fromkeys(item for _, item in sorted(located, key=lambda pair: pair[0])))
    found = sum(1 for score in matching if score == 1)
    reason = "the answer abstains" if abstaining else f"{found} of {len(ground_truth)} items found"
    return {"identified": identified, "matching": matching, "reason": reason}


def same_item(first: str, second: str) -> bool:
    """Two names of list items denote the same thing (up to spelling, plurals and extra words)."""
    a, b = analyse(first), analyse(second)
    if a.norm == b.norm:
        return True
    if a.dates or b.dates:
        return bool(a.dates) and bool(b.dates) and dates_agree(a.dates, b.dates) and dates_agree(b.dates, a.dates)
    if sorted(a.numbers) != sorted(b.numbers):
        return False
    short, long = (a, b) if len(set(a.content)) <= len(set(b.content)) else (b, a)
    if not short.content:
        return False
    if fuzz.token_sort_ratio(a.norm, b.norm) >= 88:
        return True
    return coverage(short.content, long.content_set) >= 0.66 and coverage(long.content, short.content_set) >= 0.34


def judge_order(payload: Mapping[str, Any]) -> dict[str, Any]:
    predicted = [str(item) for item in payload["predicted"]]
    ground_truth = [str(item) for item in payload["ground_truth"]]
    used: set[int] = set()
    indexes = []
    for item in predicted:
        index = next((i for i, truth in enumerate(ground_truth) if i not in used and same_item(item, truth)), -1)
        if index >= 0:
            used.add(index)
        indexes.append(index)
    return {"predicted_indexes": indexes, "reason": f"{len(used)} of {len(predicted)} predicted items aligned"}


# nugget and equivalence -------------------------------------------------------------------------------

_VERBS = (
    r"mention|include|state|say|suggest|recommend|use|contain|reference|refer\s+to|bring\s+up|claim|provide|"
    r"give|list|discuss|assume|imply|propose|reveal|repeat|confuse|attribute|describe|introduce|offer|advise"
)
_PROHIBITIONS = (
    re.compile(
        r"\b(?:does\s+not|doesn'?t|do\s+not|don'?t|should\s+not|shouldn'?t|must\s+not|mustn'?t|will\s+not|won'?t|"
        r"never|cannot|can'?t|may\s+not)\s+(?:\w+ly\s+)?(?:" + _VERBS + r")(?:s|es|ed|ing)?\b\s*(?:that\s+|any\s+|the\s+)?(?P<x>.+)"
    ),
    re.compile(r"\bavoid(?:s|ing)?\s+(?:(?:" + _VERBS + r")(?:s|es|ing)?\s+)?(?:any\s+|the\s+)?(?P<x>.+)"),
    re.compile(r"\brefrains?\s+from\s+(?:\w+ing\s+)?(?:any\s+|the\s+)?(?P<x>.+)"),
    re.compile(r"^\W*(?:the\s+)?(?:response|answer)?\s*(?:has\s+|contains\s+|includes\s+)?(?:no|without)\s+(?:mention\s+of\s+|mentioning\s+|reference\s+to\s+|references\s+to\s+)?(?P<x>.+)"),
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
_CONTAINS_STEM = re.compile(r"^\W*(?:the\s+)?(?:llm\s+)?(?:response|answer)\s+(?:should|must)\s+(?:contain|include)s?\s*:\s*")


def judge_nugget(payload: Mapping[str, Any]) -> dict[str, Any]:
    nugget = _CONTAINS_STEM.sub("", clean(str(payload["nugget"])), count=1)
    answer = str(payload["answer"] or "")
    given = analyse(answer)
    if not given.content and not given.numbers and not given.dates:
        return {"score": 0, "reason": "empty response"}
    declines = abstains(answer)
    prohibition = None if _REQUIREMENT.match(nugget) else _prohibited(nugget)
    if prohibition is None and _ABSTENTION_NUGGET.search(nugget):
        return {"score": 1 if declines else 0,
                "reason": "the response declines, as required" if declines else "the response does not decline"}
    if prohibition is not None:
        if declines:
            return {"score": 0, "reason": "a declining response does not address the question"}
        target = analyse(prohibition)
        target = Analysis(target.text, target.norm, _without_meta(target.content), target.numbers, target.dates)
        if not target.content and not target.numbers:
            return {"score": 1, "reason": "nothing identifiable is prohibited"}
        share = coverage(target.content, given.content_set) if target.content else 0.0
        numbers = [has_value(n, given.numbers) for n in target.numbers]
        present = share if not numbers else (share + sum(numbers) / len(numbers)) / (2 if target.content else 1)
        if present >= 0.8:
            return {"score": 0, "reason": f"the prohibited content is present ({present:.0%})"}
        if present >= 0.5:
            return {"score": 0.5, "reason": f"part of the prohibited content is present ({present:.0%})"}
        return {"score": 1, "reason": "the prohibited content is absent"}
    requirement = analyse(_REQUIREMENT.sub("", nugget, count=1))
    requirement = Analysis(requirement.text, requirement.norm, _without_meta(requirement.content),
                           requirement.numbers, requirement.dates)
    numbers = [has_value(n, given.numbers) for n in requirement.numbers]
    numbers_ok = all(numbers)
    dates_ok = dates_agree(requirement.dates, given.dates)
    # A criterion that is only a value ("should state: 30") is met by that value, not by any words.
    share = coverage(requirement.content, given.content_set) if requirement.content else float(numbers_ok and dates_ok)
    if not requirement.content and not numbers and not requirement.dates:
        return {"score": 0, "reason": "nothing identifiable is required"}
    if share >= 0.75 and numbers_ok and dates_ok:
        return {"score": 1, "reason": f"covers {share:.0%} of the criterion's words and its values"}
    if share >= 0.4 or (numbers and any(numbers)) or (requirement.dates and dates_ok):
        return {"score": 0.5, "reason": f"covers {share:.0%} of the criterion's words; values {'ok' if numbers_ok and dates_ok else 'missing'}"}
    return {"score": 0, "reason": f"covers only {share:.0%} of the criterion's words"}


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


def judge_equivalence(payload: Mapping[str, Any]) -> dict[str, Any]:
    first, second = analyse(str(payload["first"])), analyse(str(payload["second"]))
    if first.norm == second.norm:
        return {"equivalent": True, "reason": "the same text"}
    short, long = (first, second) if len(set(first.content)) <= len(set(second.content)) else (second, first)
    # Values must agree where both texts give them; the longer text may add details of its own.
    fewer, more = sorted((first.numbers, second.numbers), key=len)
    if fewer and not all(has_value(number, more) for number in fewer):
        return {"equivalent": False, "reason": "different numbers"}
    fewer_dates, more_dates = sorted((first.dates, second.dates), key=len)
    if fewer_dates and not dates_agree(fewer_dates, more_dates):
        return {"equivalent": False, "reason": "different dates"}
    if not short.content:
        return {"equivalent": False, "reason": "nothing to compare"}
    there, back = coverage(short.content, long.content_set), coverage(long.content, short.content_set)
    # A short label every word of which the longer text uses ("Core functionality" in "Setting up
    # the core functionality, with tests") names the same event, however much the other adds.
    contained = there == 1.0 and len(set(short.content)) >= 2
    same = fuzz.token_sort_ratio(first.norm, second.norm) >= 90 or (there >= 0.7 and back >= 0.35) or contained
    return {"equivalent": same, "reason": f"word overlap {there:.0%} / {back:.0%}"}


_JUDGES = {
    "reference": judge_reference,
    "sentence": judge_sentence,
    "directions": judge_directions,
    "restaurant": judge_restaurant,
    "items": judge_items,
    "order": judge_order,
    "nugget": judge_nugget,
    "equivalence": judge_equivalence,
}
