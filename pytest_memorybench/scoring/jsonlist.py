"""Lenient JSON parsing and the GoodAI NameList rule for answers given as a JSON list.

Chat models asked for "a JSON list" wrap it in code fences, introduce it with a sentence, comment
it or leave a trailing comma.  GoodAI parses every such answer with goodai-ltm's
`sanitize_and_parse_json`; `parse_lenient_json` repairs the same mistakes in the same order, so
that a reply readable there is readable here and the official NameList numbers can be reproduced.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from pytest_memorybench.core.records import Score

# A fence, its optional language tag, and its body up to the next fence.
_FENCE = re.compile(r"```(?:([A-Za-z]*)[ \t]*\n)?(.*?)```", re.DOTALL)

_CUE = "not a JSON list"


def _fenced_body(text: str) -> str:
    """The body of the fenced block to parse, or `text` itself when it has no complete block.

    Like the reference, a ```javascript block wins; otherwise the last fenced block is used
    (the reference's greedy pattern picks the last one too).
    """
    blocks = _FENCE.findall(text)
    if not blocks:
        return text
    for language, body in blocks:
        if language.lower() == "javascript":
            return str(body)
    return str(blocks[-1][1])


def _drop_line(content: str, start: int) -> str:
    """`content` without the text from `start` to the end of its line (a `//` comment)."""
    end = content.find("\n", start)
    return content[:start] if end == -1 else content[:start] + content[end + 1 :]


def _drop_comma_before(content: str, pos: int) -> str:
    """`content` without the last comma at or before `pos` (a trailing comma before `]`/`}`)."""
    comma = content.rfind(",", 0, pos + 1)
    if comma == -1:
        raise ValueError(f"no comma to remove before position {pos}")
    return content[:comma] + content[comma + 1 :]


def _repair_once(content: str, error: json.JSONDecodeError) -> str:
    """One repair step for the error `json.loads` reported, or ValueError if none applies."""
    msg, pos = error.msg, error.pos
    rest = content[pos:].lstrip()
    if msg.startswith("Extra data"):
        return content[:pos]  # a valid value followed by prose or a second value: keep the first
    if msg.startswith("Expecting value"):
        if pos == 0:  # leading prose: start at the first bracket or brace
            starts = [i for i in (content.find("["), content.find("{")) if i > 0]
            if not starts:
                raise ValueError("no opening bracket or brace to start from")
            return content[min(starts) :]
        if rest.startswith("//"):
            return _drop_line(content, content.index("//", pos))
        if rest.startswith("..."):
            at = content.index("...", pos)
            return content[:at] + content[at + 3 :]
        if rest.startswith("]"):
            return _drop_comma_before(content, pos)
        return content[:pos] + '"' + content[pos:]  # an unquoted string: open the quote
    if msg.startswith("Illegal trailing comma"):  # Python 3.13 names the trailing comma itself
        return _drop_comma_before(content, pos)
    if msg.startswith("Expecting property name enclosed in double quotes"):
        if rest.startswith("..."):
            at = content.index("...", pos)
            return content[:at] + content[at + 3 :]
        if rest.startswith("}"):
            return _drop_comma_before(content, pos)
        if rest.startswith("//"):
            return _drop_line(content, content.index("//", pos))
    elif msg.startswith("Expecting ',' delimiter"):
        return content[:pos] + "," + content[pos:]
    elif msg.startswith("Expecting ':' delimiter"):
        if rest.startswith(("}", ",")):
            return content[:pos] + ": null" + content[pos:]  # a key without a value
    elif msg.startswith("Invalid control character") and content[pos] == "\n":
        return content[:pos] + content[pos + 1 :]  # a raw line break inside a string
    raise ValueError(f"{msg} (line {error.lineno}, column {error.colno})")


def parse_lenient_json(text: str) -> Any:
    """Parse `text` as JSON, repairing what chat models typically get wrong.

    In order: plain `json.loads`; otherwise the body of a ```json (or ```javascript, or bare)
    fence; then up to max(5, len/50) repair steps, each driven by the parser's error: cut
    trailing data after a complete value, skip leading prose to the first `[` or `{`, drop `//`
    comments and `...` placeholders, remove trailing commas before `]`/`}`, insert a missing
    comma, a missing opening quote or a missing `: null`, and delete raw line breaks inside
    strings.  These are the repairs of goodai-ltm's `sanitize_and_parse_json`.

    Raises ValueError saying why when the text cannot be repaired within the step budget.
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    content = _fenced_body(text)
    budget = max(5, len(content) // 50)
    last = "empty text"
    for _ in range(budget):
        content = content.strip()
        try:
            return json.loads(content)
        except json.JSONDecodeError as error:
            last = f"{error.msg} (line {error.lineno}, column {error.colno})"
            try:
                content = _repair_once(content, error)
            except ValueError as reason:
                raise ValueError(f"not JSON: {reason}") from None
    raise ValueError(f"not JSON after {budget} repair steps: {last}")


def _as_list(data: Any) -> tuple[list[Any] | None, str | None]:
    """The list in `data`, unwrapping an object with a single list value; and a note saying so."""
    if isinstance(data, list):
        return data, None
    if isinstance(data, dict) and len(data) == 1:
        key, value = next(iter(data.items()))
        if isinstance(value, list):
            return value, f"read the list under the single key {key!r} of a JSON object"
    return None, None


def score_json_list(expected: Sequence[str], reply: str) -> Score:
    """GoodAI NameList: how well a JSON list in the reply matches the expected items.

    Items are compared lower-cased.  Each answered item still left in the expected multiset
    counts once and is removed from it, so naming an item twice earns it once and the repeat
    counts as a wrong answer; score = correct / max(#expected, #answered), so both missing and
    extra items cost.  An object holding a single list (`{"names": [...]}`) is read as that
    list, and the reasons say so.  A reply that does not parse to a list of strings scores 0,
    "not a JSON list".  An empty expectation answered with an empty list scores 1.
    """
    try:
        data = parse_lenient_json(reply)
    except ValueError as error:
        return Score(0.0, (f"{_CUE}: {error}",))
    items, note = _as_list(data)
    if items is None:
        return Score(0.0, (f"{_CUE}: the reply parses to a JSON {type(data).__name__}",))
    odd = next((item for item in items if not isinstance(item, str)), None)
    if odd is not None:
        return Score(0.0, (f"{_CUE} of strings: {odd!r} is a JSON {type(odd).__name__}",))

    return matched_share(expected, items, [note] if note else [])


def matched_share(
    expected: Sequence[str], answered: Sequence[str], reasons: list[str], *, name_repeats: bool = True
) -> Score:
    """GoodAI's Eq. 1 over lower-cased items: correct / max(#expected, #answered).

    Each answered item still left in the expected multiset counts once and is removed from it; a
    repeat counts as a wrong answer (said as one when `name_repeats`, else as not expected).
    """
    expected_lower = [item.lower() for item in expected]
    remaining = list(expected_lower)
    answered = [item.lower() for item in answered]
    correct = 0
    for item in answered:
        if item in remaining:
            correct += 1
            remaining.remove(item)
        elif name_repeats and item in expected_lower:
            reasons.append(f"{item!r} given more often than expected: the repeat counts as wrong")
        else:
            reasons.append(f"{item!r} was not expected")
    divisor = max(len(expected_lower), len(answered))
    if divisor == 0:
        return Score(1.0, (*reasons, "nothing was expected and the reply lists nothing"))
    if remaining:
        reasons.append(f"missing from the reply: {', '.join(repr(item) for item in remaining)}")
    reasons.append(
        f"{correct} correct / max({len(expected_lower)} expected, {len(answered)} answered)"
        f" = {correct / divisor:.3f}"
    )
    return Score(correct / divisor, tuple(reasons))
