"""A BEAM-shaped chat of our own: planted facts for the ten abilities, and their probing questions.

BEAM's chats (paper §2.2) follow one user through a project over dated sessions; its probing
questions (§2.3, App. B.6, D) target facts planted by the conversation plan.  This generator writes
the same shape offline, deterministically from (seed, number, size): a user profile and people, a
project in one of our domains (`content.py`), batches dated by time anchors, turns of a user main
question and an assistant answer, and — at planned turns spread over the chat (none in its first
tenth but the introduction, as BEAM's Table 7 finds) — the facts each ability needs:

  information_extraction   two numbers stated once            "What monthly hosting budget did I give?"
  knowledge_update         two numbers stated, later changed   the later value is the answer
  temporal_reasoning       two dated milestones; a deadline    days between them
  multi_session_reasoning  a count over three sessions; three members of a category over three sessions
  contradiction_resolution "I have never …" and, elsewhere, "I used/was …": the answer asks which is right
  event_ordering           project phases and life events in the order they were brought up
  summarization            the same two threads, one nugget per phase / event
  instruction_following    two standing instructions, then requests they govern
  preference_following     two stated preferences, then requests they should shape
  abstention               a known person's never-given opinion; a topic never discussed

Everything else is filler written from the domain's topics and advice sentences, which name no
planted value.  The plan (who, what, where, the questions) is small and built at once; the chat's
text is generated batch by batch when it is streamed, each turn from its own seeded random source,
so a 1M-token chat is never held in memory and every call yields the same text.  Batches come out
in the published repository shape (main questions carry BEAM's ` ->-> b,k` plan marker, the first
message of a batch its time anchor), so the generated chat goes through exactly the code that
reads published chats, and `writer.py` can save it as a `chat.json` the loader reads back.

Size: turns average about `TURN_TOKENS` tokens; filler answers grow sentence by sentence until
their turn's share of the target is reached (counted as BEAM-like word pieces, ≈ cl100k counts).
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from pytest_memorybench.scenarios.beam import content as text
from pytest_memorybench.scenarios.beam.questions import ProbingQuestion

TURN_TOKENS = 1000  # average tokens per turn (user question + assistant answer), as in BEAM's 128K chats
BATCH_TOKENS = 35_000  # about one batch per 35k tokens: 3 batches at 100K, 29 at 1M
# Our own wording for the three fixed-form probes (abstention, contradiction, the number of items to
# list); published BEAM questions and rubrics are never copied.
ABSTENTION_STEM = "our conversations never mentioned"


def estimate_tokens(words: str) -> int:
    """A quick estimate of cl100k tokens: about 1.2 tokens per word of this plain English."""
    return (len(words.split()) * 6 + 4) // 5


@dataclass(frozen=True)
class Planted:
    """A turn carrying a fact: what the user says and how the assistant acknowledges it."""

    user: str
    assistant: str


@dataclass(frozen=True)
class ChatPlan:
    """Everything about a generated chat except its filler text (which `batches` writes)."""

    id: str
    seed: int
    tokens: int
    domain: text.Domain
    project: str
    project_short: str
    turns: int
    batch_starts: tuple[int, ...]  # first turn of each batch
    dates: tuple[date, ...]  # each batch's time anchor
    planted: dict[int, Planted]
    questions: tuple[ProbingQuestion, ...]
    filler_tokens: int  # each filler turn's share of the target
    profile: dict[str, Any] = field(default_factory=dict)

    def batch_of(self, turn: int) -> int:
        """0-based batch of a turn."""
        return max(i for i, start in enumerate(self.batch_starts) if start <= turn)

    def message_id(self, turn: int) -> int:
        """The id of a turn's user message (ids run over the chat: user 2t, assistant 2t + 1)."""
        return 2 * turn


def anchor(day: date) -> str:
    """A date as BEAM writes time anchors: "March-15-2024"."""
    return f"{day:%B}-{day.day:02d}-{day.year}"


def spoken(day: date) -> str:
    return f"{day:%B} {day.day}, {day.year}"


class _Slots:
    """Free turns of the chat, handed out by position (a share of the chat's length)."""

    def __init__(self, turns: int, rng: random.Random) -> None:
        self.turns = turns
        self.rng = rng
        self.taken: set[int] = {0}  # the introduction

    def take(self, low: float, high: float) -> int:
        lo, hi = max(1, int(low * self.turns)), max(2, int(high * self.turns))
        start = self.rng.randrange(lo, max(lo + 1, hi))
        for distance in range(self.turns):
            for turn in (start + distance, start - distance):
                if 1 <= turn < self.turns and turn not in self.taken:
                    self.taken.add(turn)
                    return turn
        raise ValueError("the chat is too short for its planted facts")

    def increasing(self, count: int, low: float, high: float) -> list[int]:
        """`count` turns in increasing order, one in each equal part of [low, high)."""
        width = (high - low) / count
        turns = [self.take(low + i * width, low + (i + 1) * width) for i in range(count)]
        return sorted(turns)


def _thread_length(tokens: int) -> tuple[int, int]:
    """How many phases and life events a chat of this size orders and summarises."""
    if tokens < 400_000:
        return 5, 4
    if tokens < 2_000_000:
        return 7, 6
    return 10, 8


def plan_chat(tokens: int, seed: int, number: int = 1, domain: str = "") -> ChatPlan:
    """The plan of generated chat `number` for `seed`, about `tokens` tokens long."""
    rng = random.Random(f"beam.generated|{seed}|{number}|{tokens}|{domain}")
    pack = next((d for d in text.DOMAINS if d.key == domain), None) or rng.choice(text.DOMAINS)
    turns = max(60, round(tokens / TURN_TOKENS))
    batch_count = max(3, math.ceil(tokens / BATCH_TOKENS))
    batch_starts = tuple(round(i * turns / batch_count) for i in range(batch_count))
    day = date(2024, 1, 8) + timedelta(days=rng.randrange(0, 120))
    dates = []
    for _ in range(batch_count):
        dates.append(day)
        day += timedelta(days=rng.randrange(6, 25))
    names = rng.sample(text.FIRST_NAMES, 4)
    people = {
        "first": names[0], "last": rng.choice(text.LAST_NAMES), "partner": names[1], "friend": names[2],
        "colleague": names[3], "age": rng.randrange(24, 63), "city": rng.choice(text.CITIES),
        "profession": rng.choice(text.PROFESSIONS), "pet": rng.choice(text.PET_NAMES),
    }  # fmt: skip
    places = rng.sample(text.PLACES, 2)
    people["place"] = places[0]
    short = rng.choice(pack.names)
    project = pack.project.format(name=short)
    builder = _Builder(ChatPlan(
        id=f"gen-{size_name(tokens)}-{number}", seed=seed, tokens=tokens, domain=pack, project=project,
        project_short=short, turns=turns, batch_starts=batch_starts, dates=tuple(dates), planted={},
        questions=(), filler_tokens=0, profile=people,
    ), rng, places[1])  # fmt: skip
    return builder.build()


def size_name(tokens: int) -> str:
    """100000 → "100K", 1000000 → "1M", 2500000 → "2500K"."""
    if tokens % 1_000_000 == 0:
        return f"{tokens // 1_000_000}M"
    if tokens % 1000 == 0:
        return f"{tokens // 1000}K"
    return str(tokens)


class _Builder:
    """Places the facts and writes the questions (one method per ability)."""

    def __init__(self, plan: ChatPlan, rng: random.Random, other_place: str) -> None:
        self.plan = plan
        self.rng = rng
        self.other_place = other_place
        self.slots = _Slots(plan.turns, rng)
        self.planted: dict[int, Planted] = {}
        self.questions: list[ProbingQuestion] = []
        self.people = plan.profile

    def build(self) -> ChatPlan:
        self.instructions()
        self.preferences()
        self.phases_and_life()
        self.extraction_and_update()
        self.temporal()
        self.multi_session()
        self.contradictions()
        self.abstention()
        order = {ability: i for i, ability in enumerate(sorted({q.ability for q in self.questions}))}
        questions = tuple(sorted(self.questions, key=lambda q: (order[q.ability], q.index)))
        planted_tokens = sum(estimate_tokens(p.user + " " + p.assistant) for p in self.planted.values())
        fillers = self.plan.turns - 1 - len(self.planted)
        share = max(120, (self.plan.tokens - planted_tokens - 150) // max(1, fillers))
        return ChatPlan(
            **{**self.plan.__dict__, "planted": self.planted, "questions": questions, "filler_tokens": share}
        )

    # helpers -------------------------------------------------------------------------------------

    def fill(self, template: str) -> str:
        return template.format(project_short=self.plan.project_short, **self.people)

    def plant(self, turn: int, user: str, assistant: str | None = None) -> int:
        self.planted[turn] = Planted(user, assistant or self.rng.choice(text.ACKNOWLEDGEMENTS))
        return self.plan.message_id(turn)

    def ask(
        self, ability: str, question: str, answer: str, rubric: list[str], sources: list[int], **extra: Any
    ) -> None:
        index = sum(1 for q in self.questions if q.ability == ability) + 1
        self.questions.append(
            ProbingQuestion(
                ability, index, question, answer, tuple(rubric), "generated", tuple(sources), extra
            )
        )

    def day_of(self, turn: int) -> date:
        return self.plan.dates[self.plan.batch_of(turn)]

    # abilities ----------------------------------------------------------------------------------

    def instructions(self) -> None:
        domain = self.plan.domain
        for item in self.rng.sample(text.INSTRUCTIONS, 2):
            values = {
                "plan_task": domain.plan_task,
                "costly": domain.costly,
                "option_a": domain.options[0],
                "option_b": domain.options[1],
            }
            source = self.plant(
                self.slots.take(0.03, 0.3),
                item.said.format(**values),
                "Understood; I'll follow that from now on.",
            )
            self.ask(
                "instruction_following",
                item.request.format(**values),
                item.answer.format(**values),
                list(item.rubric),
                [source],
                instruction_being_tested=item.said,
            )

    def preferences(self) -> None:
        for item in self.rng.sample(text.PREFERENCES, 2):
            source = self.plant(
                self.slots.take(0.03, 0.35), item.said, "Thanks, I'll keep that preference in mind."
            )
            self.ask(
                "preference_following",
                self.fill(item.request),
                item.answer,
                list(item.rubric),
                [source],
                preference_being_tested=item.said,
            )

    def phases_and_life(self) -> None:
        phase_count, life_count = _thread_length(self.plan.tokens)
        domain = self.plan.domain
        phases = domain.phases[:phase_count]
        phase_turns = self.slots.increasing(phase_count, 0.1, 0.97)
        sources = [self.plant(turn, phase.said) for turn, phase in zip(phase_turns, phases, strict=True)]
        labels = [phase.label for phase in phases]
        self.ask(
            "event_ordering",
            f"In what order did I work on the parts of {self.plan.project_short} during our conversations? "
            f"List them in order, one per line, exactly {len(labels)} of them.",
            "\n".join(labels),
            labels,
            sources,
            ordering_type="development_tracking",
        )
        clauses = [phase.summary for phase in phases]
        self.ask(
            "summarization",
            f"Can you summarize how {self.plan.project_short} has developed over our conversations, from the"
            " start until now?",
            "Here is how it went: " + "; then ".join(clauses) + ".",
            [f"LLM response should contain: {clause}" for clause in clauses],
            sources,
        )
        events = self.rng.sample(text.LIFE_EVENTS, life_count)
        life_turns = self.slots.increasing(life_count, 0.12, 0.95)
        life_sources = [
            self.plant(turn, self.fill(event.said)) for turn, event in zip(life_turns, events, strict=True)
        ]
        life_labels = [self.fill(event.label) for event in events]
        self.ask(
            "event_ordering",
            "Apart from the project, I told you about a few things happening in my life. In what order did"
            f" they happen? List them one per line, exactly {len(life_labels)} of them.",
            "\n".join(life_labels),
            life_labels,
            life_sources,
            ordering_type="mention_sequence",
        )
        life_clauses = [self.fill(event.summary) for event in events]
        self.ask(
            "summarization",
            "Can you give me a summary of what has been going on in my personal life outside the project?",
            "Outside the project, " + "; then ".join(life_clauses) + ".",
            [f"LLM response should contain: {clause}" for clause in life_clauses],
            life_sources,
        )

    def _value(self, measure: text.Measure, avoid: int | None = None) -> int:
        while True:
            value = self.rng.randrange(measure.low, measure.high + 1)
            if value != avoid:
                return value

    def extraction_and_update(self) -> None:
        measures = self.rng.sample(self.plan.domain.measures, 4)
        for measure in measures[:2]:
            value = measure.unit.format(n=self._value(measure))
            source = self.plant(
                self.slots.take(0.1, 0.9),
                f"For the record, the {measure.name} for {self.plan.project_short} is {value}.",
            )
            self.ask(
                "information_extraction",
                f"What {measure.name} did I give for {self.plan.project_short}?",
                f"You said the {measure.name} is {value}.",
                [f"LLM response should state: {value}"],
                [source],
            )
        for measure in measures[2:]:
            old_number = self._value(measure)
            old, new = (
                measure.unit.format(n=old_number),
                measure.unit.format(n=self._value(measure, avoid=old_number)),
            )
            first = self.plant(self.slots.take(0.1, 0.45), f"Let's fix the {measure.name} at {old}.")
            second = self.plant(
                self.slots.take(0.55, 0.95),
                f"Change of plan: the {measure.name} is now {new} instead of {old}.",
            )
            self.ask(
                "knowledge_update",
                f"What is the {measure.name} now?",
                f"It is now {new}.",
                [f"LLM response should state: {new}"],
                [first, second],
                original=old,
            )

    def temporal(self) -> None:
        domain = self.plan.domain
        batches = len(self.plan.batch_starts)
        first_batch = self.rng.randrange(0, batches - 1)
        second_batch = self.rng.randrange(first_batch + 1, batches)
        turns = [self._in_batch(first_batch), self._in_batch(second_batch)]
        sources = []
        for turn, milestone in zip(turns, domain.milestones, strict=True):
            sources.append(self.plant(turn, f"Today, {spoken(self.day_of(turn))}, I finally {milestone}."))
        days = (self.day_of(turns[1]) - self.day_of(turns[0])).days
        self.ask(
            "temporal_reasoning",
            f"How many days passed between the day I {domain.milestones[0]} and the day I"
            f" {domain.milestones[1]}?",
            f"{days} days passed, from {spoken(self.day_of(turns[0]))} to {spoken(self.day_of(turns[1]))}.",
            [f"LLM response should state: {days} days"],
            sources,
        )
        turn = self.slots.take(0.1, 0.9)
        start = self.day_of(turn)
        length = self.rng.randrange(9, 45)
        due = start + timedelta(days=length)
        source = self.plant(
            turn,
            f"I've set myself a deadline today, {spoken(start)}: {domain.deadline} has to be done by"
            f" {spoken(due)}.",
        )
        self.ask(
            "temporal_reasoning",
            f"When I set the deadline for {domain.deadline}, how many days did I give myself?",
            f"{length} days: from {spoken(start)} to {spoken(due)}.",
            [f"LLM response should state: {length} days"],
            [source],
        )

    def _in_batch(self, batch: int) -> int:
        starts = (*self.plan.batch_starts, self.plan.turns)
        low, high = starts[batch] / self.plan.turns, starts[batch + 1] / self.plan.turns
        for _ in range(50):
            turn = self.slots.take(low, high)
            if self.plan.batch_of(turn) == batch:
                return turn
            self.slots.taken.discard(turn)
        raise ValueError("no free turn in batch")

    def multi_session(self) -> None:
        domain = self.plan.domain
        what, said = domain.tally
        counts = [self.rng.randrange(2, 13) for _ in range(3)]
        sources = [
            self.plant(self.slots.take(0.1 + 0.3 * i, 0.4 + 0.3 * i), said.format(n=n) + " today.")
            for i, n in enumerate(counts)
        ]
        total = sum(counts)
        self.ask(
            "multi_session_reasoning",
            f"Across our conversations, {what} in total?",
            f"{total} in total ({' + '.join(map(str, counts))}).",
            [f"LLM response should state: {total}"],
            sources,
        )
        category, members = domain.kinds
        chosen = self.rng.sample(members, 3)
        member_sources = [
            self.plant(
                self.slots.take(0.1 + 0.3 * i, 0.4 + 0.3 * i),
                f"I've been looking at {member} as one of the {category} to try.",
            )
            for i, member in enumerate(chosen)
        ]
        self.ask(
            "multi_session_reasoning",
            f"Which {category} did I say I was looking at, across all our sessions?",
            f"Three {category}: {chosen[0]}, {chosen[1]} and {chosen[2]}.",
            [f"LLM response should mention: {member}" for member in chosen],
            member_sources,
        )

    def contradictions(self) -> None:
        tool, use = self.plan.domain.tool
        never, did = (
            f"I have never used {tool} before, so I'll need some help with it.",
            f"I used {tool} once before, {use}.",
        )
        self._contradiction(
            never,
            did,
            f"Have I ever used {tool} before?",
            f"you have never used {tool}",
            f"you used {tool} {use}",
        )
        place = self.other_place
        pair = self.rng.choice(text.CONTRADICTIONS)
        self._contradiction(
            pair[0].format(place=place),
            pair[1].format(place=place),
            f"Have I ever been to {place}?",
            f"you have never {pair[2].format(place=place)}",
            f"you mentioned {pair[3].format(place=place)}",
        )

    def _contradiction(self, never: str, did: str, question: str, claim_a: str, claim_b: str) -> None:
        first, second = (never, did) if self.rng.random() < 0.5 else (did, never)
        sources = [
            self.plant(self.slots.take(0.1, 0.45), first),
            self.plant(self.slots.take(0.55, 0.95), second),
        ]
        self.ask(
            "contradiction_resolution",
            question,
            f"Those two statements conflict: {claim_a}, yet {claim_b}. Could you clarify which one is true?",
            [
                "LLM response should state: the two statements conflict",
                f"LLM response should mention: {claim_a}",
                f"LLM response should mention: {claim_b}",
                "LLM response should mention: clarify which one is true",
            ],
            sources,
            contradiction_type="never_statement_violation",
        )

    def abstention(self) -> None:
        phase = self.plan.domain.phases[0].label.lower()
        friend = self.people["friend"]
        target = f"what {friend} thought about {phase}"
        self.ask(
            "abstention",
            f"What did {friend} think about {phase}?",
            f"I can't tell you: {ABSTENTION_STEM} {target}.",
            [f"LLM response should state: {ABSTENTION_STEM} {target}"],
            [],
            abstention_type="missing_detail",
        )
        who, what = self.rng.choice(text.NEVER_DISCUSSED)
        target = f"what {who} said about {what}"
        self.ask(
            "abstention",
            f"What did {who} say about {what}?",
            f"I can't tell you: {ABSTENTION_STEM} {target}.",
            [f"LLM response should state: {ABSTENTION_STEM} {target}"],
            [],
            abstention_type="unavailable_information",
        )


# -- the chat's text, batch by batch --------------------------------------------------------------


def batches(plan: ChatPlan) -> Iterator[dict[str, Any]]:
    """The chat in the repository's `chat.json` shape, one batch at a time."""
    starts = (*plan.batch_starts, plan.turns)
    for number in range(len(plan.batch_starts)):
        turns = []
        for position, turn in enumerate(range(starts[number], starts[number + 1]), 1):
            user, assistant = _turn(plan, turn)
            message = {
                "role": "user", "id": plan.message_id(turn), "index": f"{number + 1},{position}",
                "question_type": "main_question", "content": f"{user} ->-> {number + 1},{position}",
            }  # fmt: skip
            if position == 1:
                message = {
                    "role": "user",
                    "id": message["id"],
                    "time_anchor": anchor(plan.dates[number]),
                    **message,
                }
            turns.append(
                [message, {"role": "assistant", "id": plan.message_id(turn) + 1, "content": assistant}]
            )
        yield {"batch_number": number + 1, "turns": turns, "time_anchor": None}


def _turn(plan: ChatPlan, turn: int) -> tuple[str, str]:
    if turn == 0:
        return _introduction(plan)
    planted = plan.planted.get(turn)
    if planted is not None:
        return planted.user, planted.assistant
    return _filler(plan, turn)


def _introduction(plan: ChatPlan) -> tuple[str, str]:
    p = plan.profile
    user = (
        f"Hi! I'm {p['first']} {p['last']}, a {p['age']}-year-old {p['profession']} living in {p['city']}. My"
        f" partner is {p['partner']}, my closest friend is {p['friend']}, and {p['colleague']} is a colleague"
        f" of mine. Over the next weeks I'm working on {plan.project}, and I'd like you to help me along the"
        " way."
    )
    return (
        user,
        (
            f"Nice to meet you, {p['first']}! I'd be glad to help with {plan.project_short}. Tell me where"
            " you'd like to start."
        ),
    )


def _filler(plan: ChatPlan, turn: int) -> tuple[str, str]:
    """A question about one of the domain's topics and a long, general answer to it."""
    rng = random.Random(f"beam.filler|{plan.seed}|{plan.id}|{turn}")
    domain = plan.domain
    topic = rng.choice(domain.topics)
    user = " ".join((
        rng.choice(text.USER_OPENERS).format(topic=topic, project_short=plan.project_short),
        rng.choice(text.USER_ASKS),
    ))  # fmt: skip
    budget = max(40, plan.filler_tokens - estimate_tokens(user))
    paragraphs = [rng.choice(text.ANSWER_OPENERS).format(topic=topic)]
    used = estimate_tokens(paragraphs[0])
    closer = rng.choice(text.ANSWER_CLOSERS)
    budget -= estimate_tokens(closer)
    while used < budget:
        sentences = []
        for _ in range(rng.randrange(3, 6)):
            subject = topic if rng.random() < 0.7 else rng.choice(domain.topics)
            sentences.append(rng.choice(domain.advice).format(topic=subject))
        paragraph = " ".join(sentences)
        paragraphs.append(paragraph)
        used += estimate_tokens(paragraph)
    paragraphs.append(closer)
    return user, "\n\n".join(paragraphs)


__all__ = [
    "ABSTENTION_STEM",
    "TURN_TOKENS",
    "ChatPlan",
    "Planted",
    "anchor",
    "batches",
    "plan_chat",
    "size_name",
]
