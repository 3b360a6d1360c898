"""Getting the JSON out of an LLM's reply, and mending the usual small faults.

Judges (and memory systems asking a model for structured notes) are told to answer with JSON only (and asked
for structured output where the server can); they still wrap it in code fences, add a sentence before it,
leave a trailing comma, or write a Python dict (single quotes, True/None).  `extract_json` tries, in order and
within fixed bounds:
  1. the whole reply (without code fences) as strict JSON;
  2. each `{…}` / `[…]` that balances, from the first, as strict JSON and then mended by the
     json-repair package (quotes, literals, trailing commas, raw newlines inside strings).
Only balanced candidates are mended: a truncated object stays unparseable, so the judge is re-asked
rather than trusted with a route or a list cut short.
"""

from __future__ import annotations

import json
import re
from typing import Any

import json_repair

MAX_CHARS = 100_000  # longer replies are cut: a judge's JSON is short
MAX_CANDIDATES = 16  # opening brackets tried before giving up

_FENCE = re.compile(r"```[ \t]*(?:json|JSON|javascript|python)?[ \t]*\n?(.*?)```", re.DOTALL)
_CLOSERS = {"{": "}", "[": "]"}


def extract_json(text: str) -> Any:
    """The first JSON value in `text`; ValueError with a short reason when there is none."""
    if not isinstance(text, str):
        raise ValueError("the reply is not text")
    text = text[:MAX_CHARS]
    fenced = _FENCE.findall(text)
    sources = [*fenced, text] if fenced else [text]
    for source in sources:
        stripped = source.strip()
        if not stripped:
            continue
        try:
            return json.loads(stripped)
        except ValueError:
            pass
        for candidate in _balanced_candidates(stripped):
            try:
                return json.loads(candidate)
            except ValueError:
                pass
            mended = json_repair.loads(candidate)
            if isinstance(mended, (dict, list)) and mended:
                return mended
    if not text.strip():
        raise ValueError("the reply is empty")
    if not any(bracket in text for bracket in "{["):
        raise ValueError("no JSON object in the reply")
    raise ValueError("the JSON in the reply is malformed")


def _balanced_candidates(text: str) -> list[str]:
    """Substrings from an opening bracket to the bracket that closes it.

    Outermost ones first, objects before lists ("see [1]" in the prose is not the answer), then
    the nested ones, each group in order of position.
    """
    spans: list[tuple[int, int]] = []
    start = 0
    while len(spans) < MAX_CANDIDATES:
        positions = [p for p in (text.find("{", start), text.find("[", start)) if p >= 0]
        if not positions:
            break
        begin = min(positions)
        end = _matching_close(text, begin)
        if end is not None:
            spans.append((begin, end))
        start = begin + 1

    def rank(span: tuple[int, int]) -> tuple[bool, bool, int]:
        nested = any(b < span[0] and span[1] < e for b, e in spans)
        return nested, text[span[0]] == "[", span[0]

    return [text[begin : end + 1] for begin, end in sorted(spans, key=rank)]


def _matching_close(text: str, begin: int) -> int | None:
    stack: list[str] = []
    index = begin
    while index < len(text):
        char = text[index]
        if char in "\"'":
            index = _string_end(text, index)
            if index < 0:
                return None
        elif char in _CLOSERS:
            stack.append(_CLOSERS[char])
        elif char in "}]":
            if not stack or stack.pop() != char:
                return None
            if not stack:
                return index
        index += 1
    return None


def _string_end(text: str, begin: int) -> int:
    """Index of the quote closing the string opened at `begin`, or -1.

    A single quote followed by something that cannot come after a string (a letter, say) is an
    apostrophe inside the string ("'I don't know'"), not its end.
    """
    quote = text[begin]
    index = begin + 1
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if char == quote:
            if quote == '"':
                return index
            rest = text[index + 1 :].lstrip(" \t\r\n")
            if not rest or rest[0] in ",:}]":
                return index
        index += 1
    return -1
