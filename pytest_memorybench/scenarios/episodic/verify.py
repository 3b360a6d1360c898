"""The exact checks of a candidate chapter (Huet et al., App. B.1.6), shared by both writers.

A chapter is valid when
  * it has exactly the planned number of paragraphs (an LLM's are numbered "(1) ", "(2) ", …,
    in steps of one; the template writer's need no numbers);
  * other characters appear only as `$entity_X` placeholders, X an integer (LLM output only);
  * the date, the location, the protagonist's full name and "<first name> <detail>" each appear
    verbatim in their assigned paragraph and in no other.
The `template` writer is tested against these same checks; the `llm` writer retries until a
candidate passes them (then asks the model's true/false verification, `llm_writer.py`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pytest_memorybench.scenarios.episodic.events import Event, EventMeta
from pytest_memorybench.scenarios.episodic.universe import FEATURES, first_name

_NUMBERED = re.compile(r"^\((\d+)\)\s+", re.MULTILINE)
_PLACEHOLDER = re.compile(r"\$[A-Za-z_]\w*")
_GOOD_PLACEHOLDER = re.compile(r"\$entity_\d+\b")


def verbatim(event: Event, feature: str) -> str:
    """The exact text that must appear for a feature; the content is checked through its detail."""
    if feature == "content":
        return f"{first_name(event.entity)} {event.detail}"
    return event.feature(feature)


def split_numbered(text: str) -> tuple[list[str], list[str]]:
    """(paragraphs, problems) of a text whose paragraphs start with "(1) ", "(2) ", …"""
    starts = list(_NUMBERED.finditer(text))
    if not starts:
        return [], ["no paragraph starts with a number in brackets, such as (1)"]
    problems = []
    if text[: starts[0].start()].strip():
        problems.append("there is text before paragraph (1)")
    numbers = [int(match.group(1)) for match in starts]
    if numbers != list(range(1, len(numbers) + 1)):
        problems.append(f"paragraphs are numbered {numbers}, not 1, 2, 3, …")
    ends = [match.start() for match in starts[1:]] + [len(text)]
    paragraphs = [text[match.end() : end].strip() for match, end in zip(starts, ends, strict=False)]
    return paragraphs, problems


def placement_problems(paragraphs: Sequence[str], event: Event, meta: EventMeta) -> list[str]:
    """What breaks the paragraph count or the verbatim placement of the four features."""
    problems = []
    if len(paragraphs) != meta.nb_paragraphs:
        problems.append(f"{len(paragraphs)} paragraphs instead of {meta.nb_paragraphs}")
        return problems
    for feature in FEATURES:
        needle = verbatim(event, feature)
        wanted = meta.idx_paragraph[feature]
        found = [number for number, paragraph in enumerate(paragraphs, 1) if needle in paragraph]
        if wanted not in found:
            problems.append(f"{feature} '{needle}' is missing from paragraph {wanted}")
        others = [number for number in found if number != wanted]
        if others:
            problems.append(f"{feature} '{needle}' also appears in paragraph(s) {others}")
    return problems


def placeholder_problems(text: str) -> list[str]:
    """Secondary characters must be written `$entity_X`; any other `$word` is a malformed one."""
    bad = sorted(
        {
            match.group(0)
            for match in _PLACEHOLDER.finditer(text)
            if not _GOOD_PLACEHOLDER.fullmatch(match.group(0))
        }
    )
    return [f"malformed character placeholder(s): {', '.join(bad)}"] if bad else []


def placeholders(text: str) -> list[str]:
    """The distinct `$entity_X` placeholders, in order of first appearance."""
    return list(dict.fromkeys(match.group(0) for match in _GOOD_PLACEHOLDER.finditer(text)))
