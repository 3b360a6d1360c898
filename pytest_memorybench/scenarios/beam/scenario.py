"""`beam.conversations`: BEAM's long chats, each question of each chat a pytest item.

One context per conversation (its own conversation group, so one xdist worker delivers it once):
the chat is streamed to the agent turn by turn with its time anchors (`observe` in batches when
the agent has it, recorded assistant turns included; otherwise dated transcript messages through
`reply`), then the 20 probing questions are asked as independent probes, on a `fork()` of the agent
when it has one.  Items are named `<size>-<n>::<ability>[<i>]` (published) or
`gen-<size>-<n>::<ability>[<i>]` (generated), carry the ability and the size as markers
(`-m knowledge_update`, `-m size_100k`), and the ability as their summary category.

Where the chats come from:
  * `data_path` set (`--mb-data beam=PATH`): the published conversations (`loader.py`), filtered by
    `sizes` ("100K,1M") and `conversations` ("1,5");
  * otherwise: `chats` conversations of our generator (`generator.py`), `tokens` long ("100K",
    "1M", …), in the `domain` given or one chosen by seed.
`strip_markers` (default true) removes the ` ->-> b,k` plan markers from every message; set it false
to feed the chat exactly as the official pipeline does.  `truncated` (default true) reads
`chat_trunecated.json` where the repository has one, as the official answer script does.
`ordering_score` picks event ordering's item score: `tau_norm` (default, what BEAM reports) or
`tau_norm_f1` (the code's `final_score`, which an answer listing no event scores 0 on).

Scoring is `scoring.py` (profiles `paper` / `official`); `summarize` is `summary.py`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_memorybench.contract.probes import ProbeContext, probe_definition
from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.errors import UsageError, usage_error
from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.core.load_report import LoadTally
from pytest_memorybench.core.records import Message, Score, TestDefinition
from pytest_memorybench.core.spans import parse_span
from pytest_memorybench.scenarios.beam import generator
from pytest_memorybench.scenarios.beam.chat import batches, deliver
from pytest_memorybench.scenarios.beam.content import DOMAINS
from pytest_memorybench.scenarios.beam.loader import (
    SIZES,
    PublishedConversation,
    find_conversations,
    size_label,
)
from pytest_memorybench.scenarios.beam.questions import ABILITIES, ProbingQuestion
from pytest_memorybench.scenarios.beam.scoring import ORDERING_SCORES, score_reply
from pytest_memorybench.scenarios.beam.summary import summarize
from pytest_memorybench.scenarios.params import at_least, read_params

NAME = "beam.conversations"
HEADER = (
    "Here is an earlier part of our conversation, each message dated as it was sent. "
    "Remember it; I will ask you about it later."
)


@dataclass(frozen=True)
class BeamParams:
    """Where BEAM's data is and which of it runs, or how many chats to generate, and its scoring rule."""

    data_path: str = ""
    sizes: str = ""  # published data: which sizes, e.g. "100K,500K" (all found when empty)
    conversations: str = ""  # published data: which conversations, e.g. "1,5" (all when empty)
    truncated: bool = True
    strip_markers: bool = True
    tokens: str = "100K"  # generated chats: the target length
    chats: int = 1  # generated chats: how many
    domain: str = ""  # generated chats: software, renovation or running; by seed when empty
    ordering_score: str = "tau_norm"  # event ordering's item score: tau_norm (BEAM's report) or tau_norm_f1

    def __post_init__(self) -> None:
        at_least("chats", self.chats, 1)
        if self.ordering_score not in ORDERING_SCORES:
            raise ValueError(
                f"ordering_score must be one of {', '.join(ORDERING_SCORES)}, got {self.ordering_score!r}"
            )
        domains = {d.key for d in DOMAINS}
        if self.domain and self.domain not in domains:
            raise ValueError(f"domain must be one of {', '.join(sorted(domains))}, got {self.domain!r}")
        unknown = [size for size in _split(self.sizes) if size_label(size) != size.upper()]
        if unknown:
            raise ValueError(f"sizes: {unknown[0]!r} is not a size such as {', '.join(SIZES)}")

    def target_tokens(self) -> int:
        try:
            span = parse_span(self.tokens)
        except UsageError:
            raise usage_error(
                f"scenario {NAME}: tokens must be a length such as 100K or 1M, got {self.tokens!r}"
            ) from None
        if span.tokens is None or span.tokens < 20_000:
            raise usage_error(f"scenario {NAME}: tokens must be at least 20K, got {self.tokens!r}")
        return span.tokens


def _split(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())


def size_marker(size: str) -> str:
    """ "100K" → "size_100k" (a marker must be an identifier)."""
    return "size_" + "".join(char for char in size.lower() if char.isalnum())


class BeamConversations:
    """`beam.*`: BEAM's chats as probe contexts and its probing questions as items."""

    name = NAME
    skills = ABILITIES

    def contexts(self, suite: str, params: Mapping[str, Any], seed: int) -> list[ProbeContext]:
        settings = read_params(BeamParams, NAME, params)
        if settings.data_path:
            return self._published(suite, settings, seed)
        return self._generated(suite, settings, seed)

    def _published(self, suite: str, settings: BeamParams, seed: int) -> list[ProbeContext]:
        tally = LoadTally()
        found = find_conversations(
            settings.data_path,
            sizes=tuple(size.upper() for size in _split(settings.sizes)),
            numbers=_split(settings.conversations),
            truncated=settings.truncated,
            tally=tally,
        )
        for conversation in found:
            _check_sources(conversation, tally)
        report = tally.report()
        contexts = []
        for conversation in found:
            probes = _definitions(
                suite,
                seed,
                conversation.id,
                conversation.size,
                conversation.questions,
                conversation.source,
                settings.ordering_score,
            )
            if conversation.missing:
                probes = [dataclasses.replace(p, skip_reason=conversation.missing) for p in probes]
            turns = _stream(conversation.units, settings.strip_markers)
            contexts.append(ProbeContext(conversation.id, tuple(probes), turns, header=HEADER, report=report))
        return contexts

    def _generated(self, suite: str, settings: BeamParams, seed: int) -> list[ProbeContext]:
        tokens = settings.target_tokens()
        contexts = []
        for number in range(1, settings.chats + 1):
            plan = generator.plan_chat(tokens, seed, number, settings.domain)
            probes = _definitions(
                suite,
                seed,
                plan.id,
                generator.size_name(tokens),
                plan.questions,
                "generated",
                settings.ordering_score,
            )

            def units(plan: generator.ChatPlan = plan) -> Iterator[Any]:
                return generator.batches(plan)

            contexts.append(
                ProbeContext(plan.id, tuple(probes), _stream(units, settings.strip_markers), header=HEADER)
            )
        return contexts

    def evidence_ids(self, definition: TestDefinition) -> list[int]:
        """The chat messages the question rests on (its `source_chat_ids`): evidence recall's target."""
        return list((definition.expected or {}).get("source_chat_ids") or ())

    def score(
        self, definition: TestDefinition, responses: Sequence[str], context: ScoringContext
    ) -> Awaitable[Score]:
        return score_reply(definition, responses, context)

    def summarize(self, records: Sequence[Mapping[str, Any]]) -> JsonObject:
        return summarize(records)


def _check_sources(conversation: PublishedConversation, tally: LoadTally) -> None:
    """Count a conversation's questions that cannot run (its chat file missing), and the evidence
    ids (`source_chat_ids`) naming no message of its chat: kept, though no agent can retrieve them."""
    if conversation.missing:
        tally.note(
            "questions skipped: their chat file is missing (the repository leaves out large chats)",
            conversation.id,
            len(conversation.questions),
        )
        return
    for question in conversation.questions:
        for source in question.source_ids:
            if source not in conversation.message_ids:
                tally.note(
                    "source_chat_ids naming no message of the chat, kept (never retrievable)",
                    f"{conversation.id} {question.ability}[{question.index}]: {source}",
                )


def _stream(units: Callable[[], Iterable[Any]], strip_markers: bool) -> Callable[[], Iterator[Message]]:
    """The context's `turns`: a fresh stream of the chat's messages every time it is called."""
    return lambda: deliver(batches(units()), strip_markers=strip_markers)


def _definitions(
    suite: str,
    seed: int,
    context: str,
    size: str,
    questions: Sequence[ProbingQuestion],
    source: str,
    ordering_score: str,
) -> list[TestDefinition]:
    return [
        probe_definition(
            suite=suite,
            scenario=NAME,
            seed=seed,
            context=context,
            probe_id=f"{context}::{q.ability}[{q.index}]",
            question=q.question,
            # What the calibration oracle answers: the published reference answer (its rubric when
            # a question has none).
            ideal_answer=q.answer or "\n".join(q.rubric),
            expected=q.expected(),
            category=q.ability,
            skills=(q.ability,),
            markers=(size_marker(size),),
            params={"size": size, "source": source, "ordering_score": ordering_score},
            index=position,
        )
        for position, q in enumerate(questions, 1)
    ]


SCENARIO = BeamConversations()

__all__ = ["NAME", "SCENARIO", "BeamConversations", "BeamParams", "size_marker"]
