"""The `interpretation` task: does an answer decode a coded statement as one of the meanings given?

Evidence is a meaning word in the answer: as it is, inflected ("docks" for "dock", "picking" for
"pick"), as the head of a meaning of several words ("vehicle" for "fast vehicle"), or as part of
a compound whose other part the statement or the answer itself uses ("seaport" where the
statement speaks of the sea, "lock-picking" where it speaks of locked doors, "night-time" where it
speaks of time), so that "transport" is no decoding of "port" nor "cargo" of "car".  Repeating
the statement earns nothing: only the meaning words are looked for, and only where the answer
asserts them (`stance`: "Don't bring a boat" and "a canoe, or a towel, whichever" decode nothing).  Synonyms
beyond these forms ("a tool that opens locks" for "key") need an LLM judge.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.judges.local.stance import EXPLAINED, stance
from pytest_memorybench.judges.local.text import abstains, clean, stem

_SUFFIXES = ("", "s", "es", "ing", "ed", "er", "ers", "d")


def judge_interpretation(payload: Mapping[str, Any]) -> JsonObject:
    """Whether a reply validly interprets a coded statement, by the meanings the keywords allow."""
    answer = clean(str(payload["answer"] or ""))
    statement = clean(str(payload["statement"] or ""))
    meanings = [clean(str(word)) for word in payload["keywords"]]
    if not answer.strip() or abstains(answer):
        return {"valid": False, "reason": "no decoding given"}
    words = list(re.finditer(r"[a-z]+(?:-[a-z]+)*", answer))
    grounding = {stem(word) for word in re.findall(r"[a-z]+", f"{statement} {answer}") if len(word) >= 3}
    refused = None
    for meaning in meanings:
        head = meaning.split()[-1] if meaning.split() else ""
        for match in words:
            word = match.group(0)
            if _decodes(word, meaning, head, grounding):
                why = stance(answer, match.start(), match.end(), or_hedges=False)
                if why is None:
                    return {"valid": True, "reason": f"the answer says {word!r} for {meaning!r}"}
                refused = refused or f"the answer names {word!r} only {EXPLAINED[why]}"
    return {"valid": False, "reason": refused or "none of the meanings is in the answer"}


def _decodes(word: str, meaning: str, head: str, grounding: set[str]) -> bool:
    if not head:
        return False
    plain = word.replace("-", "")
    if any(plain == head + suffix or plain == head.removesuffix("s") + suffix for suffix in _SUFFIXES):
        return True
    for part_start in range(1, len(plain)):
        for core in (head, head.removesuffix("s")):
            if len(core) >= 3 and plain.startswith(core, part_start):
                prefix, rest = plain[:part_start], plain[part_start + len(core) :]
                if rest in _SUFFIXES and len(prefix) >= 3 and _grounded(prefix, grounding):
                    return True
            if len(core) >= 3 and plain.startswith(core):
                rest = plain[len(core) :]
                suffix = next(
                    (s for s in sorted(_SUFFIXES, key=len, reverse=True) if s and rest.endswith(s)), ""
                )
                body = rest[: len(rest) - len(suffix)] if suffix else rest
                if len(body) >= 3 and _grounded(body, grounding):
                    return True
    return False


def _grounded(part: str, grounding: set[str]) -> bool:
    """`part` is a word the statement or answer uses, maybe inflected there ("lock" for "locked")."""
    return any(
        word == part or (word.startswith(part) and word[len(part) :] in _SUFFIXES) for word in grounding
    )
