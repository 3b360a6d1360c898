"""The `sentence` task: is (a paraphrase of) a sentence in the answer, and where?"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pytest_memorybench.core.heavy import heavy_import
from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.judges.local.text import STOPWORDS, analyse, clean, rouge_l
from pytest_memorybench.judges.local.values import dates_agree, has_value, times_agree

SENTENCE_THRESHOLD = 0.6  # ROUGE-L F1 for a sentence to count as present
SENTENCE_CONTAINED = 0.85  # ROUGE-L recall for a target sentence found inside a longer one

_TOKEN = re.compile(r"[a-z0-9]+")
_IDIOMS = {
    ("don", "t", "forget"): "remember",
    ("do", "not", "forget"): "remember",
    ("never", "forget"): "remember",
}
_NEGATIONS = frozenset(
    {
        "not",
        "no",
        "never",
        "t",
        "nor",
        "cannot",
        "neither",
        "nothing",
        "nobody",
        "hardly",
        "barely",
        "scarcely",
    }
)
_OPPOSED = frozenset(
    {"north", "south", "east", "west", "left", "right", "up", "down", "before", "after", "early", "late"}
)


@dataclass(frozen=True)
class _Token:
    word: str  # stemmed, for comparison
    start: int  # character offsets in the text tokenised
    end: int


def _tokens(text: str) -> list[_Token]:
    """Stemmed words ("leaving" and "leave" compare equal), idioms read for what they mean."""
    raw = list(_TOKEN.finditer(clean(text)))
    tokens: list[_Token] = []
    index = 0
    while index < len(raw):
        idiom = next(
            (
                meaning
                for words, meaning in _IDIOMS.items()
                if tuple(m.group(0) for m in raw[index : index + len(words)]) == words
            ),
            None,
        )
        if idiom is not None:
            width = next(
                len(words)
                for words, meaning in _IDIOMS.items()
                if tuple(m.group(0) for m in raw[index : index + len(words)]) == words
            )
            tokens.append(_Token(_porter(idiom), raw[index].start(), raw[index + width - 1].end()))
            index += width
            continue
        tokens.append(_Token(_porter(raw[index].group(0)), raw[index].start(), raw[index].end()))
        index += 1
    return tokens


@lru_cache(maxsize=8192)
def _porter(word: str) -> str:
    return str(_stemmer().stem(word))


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    """nltk's Porter stemmer (nltk is rouge-score's dependency, untyped); imported on first use."""
    return heavy_import("nltk.stem.porter").PorterStemmer()


def _same_claim(
    candidate: str, target: str, candidate_words: Sequence[str], target_words: Sequence[str]
) -> bool:
    """A candidate that shares the target's words can still say otherwise: negated where the target is
    not (or the reverse), or with other values ("at nine" for "at seven", "south" for "north")."""
    negations, opposed = {_porter(word) for word in _NEGATIONS}, {_porter(word) for word in _OPPOSED}
    if bool(negations & set(candidate_words)) != bool(negations & set(target_words)):
        return False
    wanted, given = analyse(target), analyse(candidate)
    if not all(has_value(number, given.numbers) for number in wanted.numbers):
        return False
    if not dates_agree(wanted.dates, given.dates) or not times_agree(wanted.times, given.times):
        return False
    if _HEDGED.search(clean(candidate)) and not _HEDGED.search(clean(target)):
        return False  # "… seventeen or twenty-seven", "on the left, or maybe the right"
    stop = {_porter(word) for word in STOPWORDS}
    content = {word for word in target_words if word not in stop | negations and not word.isdigit()}
    missing = len(content - set(candidate_words))
    if missing > (1 if len(content) >= LONG_SENTENCE_WORDS else 0):
        # "The owl flies." is not "The owl flies at midnight."; "feed the cat" is not "water the basil"
        return False
    return opposed & set(target_words) <= set(candidate_words)


LONG_SENTENCE_WORDS = 6  # a target with this many content words may lose one in a paraphrase
_HEDGED = re.compile(r"\bor\b(?!\s+not\b)|\b(?:maybe|perhaps|either|possibly)\b")


def _lcs_span(candidate: Sequence[str], reference: Sequence[str]) -> tuple[int, int] | None:
    """First and last positions in `candidate` of a longest common subsequence with `reference`."""
    rows, cols = len(candidate), len(reference)
    table = [[0] * (cols + 1) for _ in range(rows + 1)]
    for i in range(rows - 1, -1, -1):
        for j in range(cols - 1, -1, -1):
            table[i][j] = (
                table[i + 1][j + 1] + 1
                if candidate[i] == reference[j]
                else max(table[i + 1][j], table[i][j + 1])
            )
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


def judge_sentence(payload: Mapping[str, Any]) -> JsonObject:
    """Whether a text contains a sentence, word for word or reworded, and where."""
    answer, target = str(payload["answer"] or ""), str(payload["sentence"])
    reference = [token.word for token in _tokens(target)]
    if not reference or not answer.strip():
        return {"present": False, "extracted": None, "reason": "nothing to compare"}
    spans = sentences(answer)
    candidates = spans + [(spans[i][0], spans[i + 1][1]) for i in range(len(spans) - 1)]
    best: tuple[float, tuple[int, int]] | None = None
    contained: tuple[float, tuple[int, int]] | None = None
    for begin, end in candidates:
        tokens = _tokens(answer[begin:end])
        words = [token.word for token in tokens]
        if not _same_claim(answer[begin:end], target, words, reference):
            continue
        _, recall, f1 = rouge_l(words, reference)
        if best is None or f1 > best[0]:
            best = (f1, (begin, end))
        if recall >= SENTENCE_CONTAINED and (contained is None or recall > contained[0]):
            span = _lcs_span(words, reference)
            if span is not None:
                contained = (recall, (begin + tokens[span[0]].start, begin + tokens[span[1]].end))
    if best is None:
        return {
            "present": False,
            "extracted": None,
            "reason": "the answer says otherwise (negation or other values)",
        }
    if best[0] >= SENTENCE_THRESHOLD:
        begin, end = best[1]
        return {"present": True, "extracted": answer[begin:end], "reason": f"ROUGE-L F1 {best[0]:.2f}"}
    if contained is not None:
        begin, end = contained[1]
        return {
            "present": True,
            "extracted": answer[begin:end],
            "reason": f"contained with ROUGE-L recall {contained[0]:.2f}",
        }
    return {"present": False, "extracted": None, "reason": f"best ROUGE-L F1 {best[0]:.2f}"}
