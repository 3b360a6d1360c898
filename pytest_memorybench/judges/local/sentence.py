"""The `sentence` task: is (a paraphrase of) a sentence in the answer, and where?"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from pytest_memorybench.judges.local.text import clean, rouge_l

SENTENCE_THRESHOLD = 0.6  # ROUGE-L F1 for a sentence to count as present
SENTENCE_CONTAINED = 0.85  # ROUGE-L recall for a target sentence found inside a longer one

_TOKEN = re.compile(r"[a-z0-9]+")


def _tokens(text: str) -> list[re.Match[str]]:
    return list(_TOKEN.finditer(clean(text)))


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

