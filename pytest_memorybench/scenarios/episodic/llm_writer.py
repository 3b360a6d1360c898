"""The `llm` chapter writer (Huet et al., App. B.1.5–B.1.9), with a configured model.

For each event: ask the model for a chapter (a prompt of our own with the meaning of the paper's
Listing 7), run the exact checks (`verify.py`, App. B.1.6), then ask the model the four true/false
questions of App. B.1.7 (one place, one day, one main character, one main event; our wording of
Listing 8).  A candidate failing either is regenerated, up to `itermax` candidates (the paper's
10); an event with no valid candidate is dropped and the chapters are renumbered, as the published
books are (19 chapters of 20 events, 196 of 200).  One deviation: a retry tells the model what the
previous candidate got wrong.  The paper regenerates blindly at temperature 1; our adapters ask at
temperature 0, where a blind retry would mostly repeat the same text.

Secondary characters come back as `$entity_1`, `$entity_2`, …; each placeholder of a valid chapter
is then given a new name from the universe's secondary stream, in chapter order (App. B.1.8).

The model is anything with `async complete(system, user) -> str` (`TextModel`): `SpecModel` wraps
the judge layer's backends, so `openai:MODEL[@URL]`, `anthropic:MODEL[@URL]` and bare
OpenAI-compatible URLs work here as they do for `--judge`, with the same retries and key handling.
Tests drive the writer with a scripted fake model and through the real OpenAI client against a
local server.  Writing is slow and costs money, so it runs ahead of the suite (`cli.py write
--writer llm`) and the saved book is run with `--mb-data episodic=FOLDER`.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from pytest_memorybench.core.errors import UsageError, usage_error
from pytest_memorybench.core.json_reply import extract_json
from pytest_memorybench.scenarios.episodic.book import (
    Book,
    BookPlan,
    ChapterTruth,
    unused_universe,
)
from pytest_memorybench.scenarios.episodic.events import (
    Event,
    EventMeta,
    sample_events,
    sample_meta,
)
from pytest_memorybench.scenarios.episodic.lists import STYLES
from pytest_memorybench.scenarios.episodic.universe import (
    build_universe,
    first_name,
    secondary_names,
)
from pytest_memorybench.scenarios.episodic.verify import (
    placeholder_problems,
    placeholders,
    placement_problems,
    split_numbered,
)

DEFAULT_ITERMAX = 10
MAX_OUTPUT_TOKENS = 4096

WRITER_SYSTEM = (
    "You write fiction: vivid, immersive scenes in the manner of a novel, built precisely from the "
    "instructions you are given."
)

CHAPTER_PROMPT = """Write a scene from a novel, in a {style} style, about {entity} taking part in a {content}. It happens on {date}, at {location}, where {first} {detail}.

Layout and what to reveal where:
1. Write exactly {paragraphs} paragraph(s). Start each with its number in brackets, (1), (2) and so on, and keep paragraph lengths natural for a novel.
2. Write the location "{location}" word for word in paragraph {idx_location}, and in no other paragraph.
3. Write the date "{date}" word for word in paragraph {idx_date}, and in no other paragraph.
4. Write the full name "{entity}" word for word in paragraph {idx_entity}, and in no other paragraph.
5. Write the words "{first} {detail}" exactly like that in paragraph {idx_content}, and in no other paragraph.
6. Let hints about the place, the day, the main character and the event run through every paragraph.

Content:
1. Stay with {first}: what {first} sees, feels and does during the {content}, and with whom.
2. Describe the surroundings, the atmosphere and {first}'s feelings in concrete, sensory detail.
3. The scene covers that one day only and stays at {location} throughout.

Characters:
1. Write every other character as $entity_1, $entity_2 and so on (a dollar sign, the word entity, an underscore and a number), never with a name.
2. Give no background about {first} or anyone else.

Style: {style}, with {words}; keep one narrative voice from start to end.

Do not mention any other place or date, write no introduction or conclusion, and keep to this one {content}."""

RETRY_NOTE = (
    "\n\nYour previous version did not meet these requirements: {problems}. Write the scene again and meet"
    " every requirement."
)

CHECK_SYSTEM = (
    "You check texts. Read the text you are given and answer true or false to each question about it, "
    "using only what the text states. Reply with one JSON object and nothing else."
)

CHECK_PROMPT = """Here is a text, between the markers [BEGIN] and [END].

[BEGIN]
{text}
[END]

Answer each question with true or false:
1. Does the text take place at one single geographical place?
2. Does the text take place on one single day?
3. Does the text have one single main character?
4. Does the text have one single main event, happening at that place on that day (possibly made of several moments)?

Reply in this JSON format: {{"1": true or false, "2": true or false, "3": true or false, "4": true or false}}"""

CHECK_TOPICS = {"1": "one place", "2": "one day", "3": "one main character", "4": "one main event"}


class TextModel(Protocol):
    """What the writer needs of a model: a system prompt and a user message in, text out."""

    async def complete(self, system: str, user: str) -> str: ...


class SpecModel:
    """A model named the way `--judge` names one (`openai:MODEL[@URL]`, `anthropic:MODEL[@URL]`, URL)."""

    def __init__(
        self, spec: str, *, max_output_tokens: int = MAX_OUTPUT_TOKENS, api_key: str | None = None
    ) -> None:
        from pytest_memorybench.judges.spec import build_judge

        try:
            client = build_judge(spec, cache_path=None, max_output_tokens=max_output_tokens, api_key=api_key)
        except UsageError as exc:  # the judge layer names its own option; here the model is --model
            raise usage_error(
                str(exc)
                .replace("--judge ", "--model ", 1)
                .replace("point the judge at", "point the writer at")
            ) from None
        if not client.is_llm:
            raise usage_error(f"--model {spec!r}: the llm writer needs a model, such as openai:gpt-4o-mini")
        self.name = client.name
        self._backend: Any = client.backend

    async def complete(self, system: str, user: str) -> str:
        await self._backend.resolve_model()
        completion, _ = await self._backend.complete(system, [{"role": "user", "content": user}])
        return str(completion.text)

    async def aclose(self) -> None:
        closer = getattr(self._backend, "aclose", None)
        if closer is not None:
            await closer()


@dataclass
class Attempt:
    """One candidate chapter and what was wrong with it (nothing, if it was accepted)."""

    text: str
    problems: list[str]


@dataclass
class WrittenByModel:
    """An event's candidates; `paragraphs` (placeholders still in) is set when one passed."""

    event: Event
    meta: EventMeta
    attempts: list[Attempt] = field(default_factory=list)
    paragraphs: list[str] | None = None


def chapter_prompt(event: Event, meta: EventMeta) -> str:
    """The prompt that asks a model to write one chapter about an event."""
    words = STYLES[meta.style]
    return CHAPTER_PROMPT.format(
        style=meta.style,
        words=f"{words[0]}, {words[1]} and {words[2]}",
        entity=event.entity,
        first=first_name(event.entity),
        content=event.content,
        date=event.date,
        location=event.location,
        detail=event.detail,
        paragraphs=meta.nb_paragraphs,
        **{f"idx_{name}": index for name, index in meta.idx_paragraph.items()},
    )


async def model_check(model: TextModel, text: str) -> list[str]:
    """The four true/false questions (App. B.1.7); a problem for each false or unreadable answer."""
    reply = await model.complete(CHECK_SYSTEM, CHECK_PROMPT.format(text=text))
    try:
        data = extract_json(reply)
    except ValueError as exc:
        return [f"the verification reply was not JSON ({exc})"]
    if not isinstance(data, dict):
        return ["the verification reply was not a JSON object"]
    failed = [
        topic
        for key, topic in CHECK_TOPICS.items()
        if data.get(key) is not True and str(data.get(key)).lower() != "true"
    ]
    return [f"the check found more than {', '.join(failed)}"] if failed else []


async def write_with_model(
    model: TextModel, event: Event, meta: EventMeta, itermax: int = DEFAULT_ITERMAX
) -> WrittenByModel:
    """Candidates until one passes the exact checks and the model's check, or `itermax` are spent."""
    result = WrittenByModel(event, meta)
    prompt = chapter_prompt(event, meta)
    for _ in range(itermax):
        previous = result.attempts[-1].problems if result.attempts else []
        text = await model.complete(
            WRITER_SYSTEM, prompt + (RETRY_NOTE.format(problems="; ".join(previous)) if previous else "")
        )
        paragraphs, problems = split_numbered(text)
        problems += placeholder_problems(text)
        if not problems:
            problems += placement_problems(paragraphs, event, meta)
        if not problems:
            problems += await model_check(model, "\n\n".join(paragraphs))
        result.attempts.append(Attempt(text, problems))
        if not problems:
            result.paragraphs = paragraphs
            break
    return result


def fill_placeholders(
    paragraphs: Sequence[str], names: Callable[[], str]
) -> tuple[list[str], tuple[str, ...]]:
    """Each distinct `$entity_X` replaced by a new name, in order of first appearance."""
    text = "\n\n".join(paragraphs)
    mapping = {placeholder: names() for placeholder in placeholders(text)}
    filled = [
        re.sub(r"\$entity_\d+\b", lambda match: mapping[match.group(0)], paragraph)
        for paragraph in paragraphs
    ]
    return filled, tuple(mapping.values())


def read_journal(path: Path) -> dict[int, dict[str, Any]]:
    """The chapters an earlier, interrupted writing of the book settled, by event index.

    A line cut short by the interruption is ignored: its chapter is written again.
    """
    settled: dict[int, dict[str, Any]] = {}
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                entry = json.loads(line)
                settled[int(entry["index"])] = entry
            except (ValueError, KeyError, TypeError):
                continue
    return settled


def _journal(journal: Path, index: int, written: WrittenByModel) -> None:
    """Append a settled chapter to the journal a stopped writing resumes from."""
    line = {
        "index": index,
        "event": written.event.as_list(),
        "paragraphs": written.paragraphs,
        "attempts": [{"text": a.text, "problems": a.problems} for a in written.attempts],
    }
    journal.parent.mkdir(parents=True, exist_ok=True)
    with journal.open("a", encoding="utf-8") as file:
        file.write(json.dumps(line, ensure_ascii=False) + "\n")


async def write_book_with_model(
    model: TextModel,
    plan: BookPlan,
    *,
    itermax: int = DEFAULT_ITERMAX,
    concurrency: int = 4,
    progress: Callable[[int, WrittenByModel], None] | None = None,
    journal: Path | None = None,
) -> tuple[Book, list[WrittenByModel]]:
    """The plan's book written by `model`: events whose chapters never passed are dropped.

    With a `journal`, each chapter is appended to it as soon as it is settled (passed or dropped),
    and chapters already in it for the same event are taken from it instead of the model: a
    writing stopped by a failing model continues where it stopped, paying for nothing twice.
    """
    universe = build_universe(plan.seed, plan.universe_size, plan.start, plan.end)
    events = sample_events(universe, plan.chapters, plan.seed, distribution=plan.distribution, p=plan.p)
    limit = asyncio.Semaphore(max(1, concurrency))
    settled = read_journal(journal) if journal is not None else {}

    async def one(index: int, event: Event) -> WrittenByModel:
        meta = sample_meta(index, plan.seed)
        entry = settled.get(index)
        if entry is not None and entry.get("event") == event.as_list():
            attempts = [Attempt(str(a["text"]), list(a["problems"])) for a in entry["attempts"]]
            return WrittenByModel(event, meta, attempts, entry["paragraphs"])
        async with limit:
            written = await write_with_model(model, event, meta, itermax)
        if journal is not None:
            _journal(journal, index, written)
        if progress is not None:
            progress(index, written)
        return written

    results = await asyncio.gather(*(one(index, event) for index, event in enumerate(events)))
    names = secondary_names(universe)
    truths: list[ChapterTruth] = []
    texts: dict[int, str] = {}
    discarded = []
    for index, written in enumerate(results):
        if written.paragraphs is None:
            discarded.append(index)
            continue
        number = len(truths) + 1
        paragraphs, cast = fill_placeholders(written.paragraphs, lambda: next(names))
        truths.append(ChapterTruth(number, written.event, cast, written.meta))
        texts[number] = "\n\n".join(paragraphs)
    book = Book(
        tuple(truths),
        unused_universe(universe.items, tuple(truths)),
        lambda truth: texts[truth.chapter],
        discarded=tuple(discarded),
    )
    return book, list(results)
