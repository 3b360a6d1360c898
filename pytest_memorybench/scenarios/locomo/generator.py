"""Conversations of our own in LoCoMo's shape, so the suite runs (and is tested) without its data.

Two friends talk over `sessions` dated sessions.  Between small talk each tells the other facts
about their life, and the questions ask about them in the five categories: a single fact
(single-hop), the date of something done "yesterday" (temporal, answered as the session's
previous day, "7 May 2023"), facts from two sessions ("Lisbon, Oslo": multi-hop), a likely
inference (open-domain, its gold "Likely yes; …" cut at ";" by the paper's rule), and a fact of
one speaker asked of the other (adversarial, category 5).  A shared photo carries a caption.

Like the published data, each conversation has an audit: one gold answer deliberately wrong
(the audit corrects it), one question about something never said (the audit finds it
unanswerable), and one with its evidence misplaced (a citation-only finding).  `write_locomo`
saves conversations and audit in the published file formats.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from pytest_memorybench.scenarios.locomo.audit import Finding
from pytest_memorybench.scenarios.locomo.data import ConversationRow, QuestionRow, SampleRow, TurnRow

_NAMES = (
    "Aurelio", "Bettina", "Cosmo", "Dalia", "Emrys", "Farida", "Gideon", "Hollis", "Ilse", "Jovan", "Kirsi",
    "Lorcan", "Marisol", "Nikhil", "Odette", "Piet", "Quilla", "Rosalind", "Soren", "Tamsin", "Ulrich",
    "Vesna", "Wendell", "Yara",
)  # fmt: skip
_HOBBIES = (
    "bouldering", "watercolour painting", "beekeeping", "birdwatching", "sourdough baking", "kayaking",
    "pottery", "salsa dancing", "chess", "origami", "calligraphy", "trail running",
)  # fmt: skip
_PETS = (("cat", "Pumpernickel"), ("dog", "Juniper"), ("tortoise", "Admiral"), ("parrot", "Biscotti"),
         ("rabbit", "Clementine"), ("ferret", "Tango"), ("dog", "Marzipan"), ("cat", "Quasar"))  # fmt: skip
_EVENTS = (
    "jazz festival", "charity fun run", "pottery fair", "book launch", "community garden open day",
    "film premiere", "robotics workshop", "farmers' market", "lantern parade", "choir concert",
)  # fmt: skip
_CITIES = (
    "Lisbon", "Oslo", "Tallinn", "Valparaiso", "Kyoto", "Ljubljana", "Hobart", "Marrakesh", "Quebec City",
    "Porto", "Reykjavik", "Cusco",
)  # fmt: skip
_LOVES = (
    ("hiking in the mountains", "a mountain cabin weekend"), ("swimming in the sea", "a coastal holiday"),
    ("reading mystery novels", "a crime-fiction book club"), ("cooking spicy food", "a curry cooking class"),
    ("stargazing", "a night at an observatory"), ("playing the piano", "a chamber music evening"),
)  # fmt: skip
_SMALL_TALK = (
    "How has your week been?", "Pretty busy, but good. Work has been hectic.",
    "Same here, I barely had a moment.", "Did you catch the rain on Tuesday?",
    "I did, I got completely soaked on the way home.", "I have been trying to sleep earlier lately.",
    "Good idea, I should do the same.", "Anything fun planned for the weekend?",
    "Nothing much, maybe a long walk.", "That sounds lovely, honestly.", "I finally cleaned out the garage.",
    "Ha, that always takes longer than expected.", "My neighbour keeps playing the trumpet at night.",
    "Oh no, that must be tiring.", "I tried a new café near the station.", "Was it any good?",
    "The coffee was great, the cake less so.", "I'm so glad we keep talking like this.",
    "Me too, it really helps.", "Talk soon!", "Take care, speak soon!",
)  # fmt: skip
_CAPTIONS = ("a photo of a bowl of ramen on a wooden table", "a photo of a sunset over a harbour",
             "a photo of a small dog wearing a red scarf", "a photo of a hand-painted mug")  # fmt: skip


@dataclass
class _Builder:
    rng: random.Random
    speakers: tuple[str, str]
    dates: list[datetime]
    sessions: list[list[TurnRow]] = field(default_factory=list)
    qa: list[QuestionRow] = field(default_factory=list)

    def say(self, session: int, speaker: int, text: str, caption: str | None = None) -> str:
        turns = self.sessions[session]
        turn = TurnRow(speaker=self.speakers[speaker], dia_id=f"D{session + 1}:{len(turns) + 1}", text=text)
        if caption:
            turn["img_url"], turn["blip_caption"] = [], caption
            turn["query"] = caption.removeprefix("a photo of ")
        turns.append(turn)
        return turn["dia_id"]

    def chat(self, session: int, count: int) -> None:
        for _ in range(count):
            self.say(session, len(self.sessions[session]) % 2, self.rng.choice(_SMALL_TALK))

    def ask(
        self,
        question: str,
        answer: str | None,
        category: int,
        evidence: list[str],
        adversarial: str | None = None,
    ) -> int:
        item = QuestionRow(question=question, evidence=evidence, category=category)
        if category == 5:
            item["adversarial_answer"] = adversarial
        else:
            item["answer"] = answer
        self.qa.append(item)
        return len(self.qa) - 1


def _session_dates(rng: random.Random, count: int) -> list[datetime]:
    """When each session starts: about twelve days apart, at varying times of day."""
    start = datetime(2023, 1, 9, 10, 0) + timedelta(days=rng.randrange(0, 200), minutes=rng.randrange(0, 600))
    return [
        start + timedelta(days=12 * i + rng.randrange(0, 6), minutes=rng.randrange(0, 300))
        for i in range(count)
    ]


def generate_sample(seed: int, number: int, sessions: int = 6) -> tuple[SampleRow, list[Finding]]:
    """One conversation in `locomo10.json`'s shape, and its audit findings (for `errors.json`)."""
    rng = random.Random(f"locomo.generated|{seed}|{number}")
    a, b = rng.sample(_NAMES, 2)
    dates = _session_dates(rng, max(4, sessions))
    build = _Builder(rng, (a, b), dates, [[] for _ in dates])
    hobbies, pets, events = rng.sample(_HOBBIES, 2), rng.sample(_PETS, 2), rng.sample(_EVENTS, 2)
    cities, loves = rng.sample(_CITIES, 2), rng.sample(_LOVES, 2)
    last = len(dates) - 1
    for session in range(len(dates)):
        build.chat(session, 2)
    # Session 1: hobbies and a photo.
    hobby_a = build.say(0, 0, f"Guess what, my new hobby this month is {hobbies[0]}!")
    build.say(0, 1, "No way! How is it going?")
    build.say(0, 0, "Really well, look at this.", caption=rng.choice(_CAPTIONS))
    hobby_b = build.say(0, 1, f"Love it. I took up {hobbies[1]} as a hobby myself, a few weeks back.")
    # Session 2: a pet, and an event "yesterday".
    pet_kind, pet_name = pets[0]
    pet = build.say(1, 0, f"We adopted a {pet_kind} last weekend; the name we picked is {pet_name}.")
    event = build.say(1, 1, f"Congratulations! Yesterday I went to the {events[0]}, it was packed.")
    # Sessions 2 and 3 (or the last): two trips.
    trip_1 = build.say(1, 0, f"I travelled to {cities[0]} for a week, I am just back.")
    trip_2 = build.say(2, 0, f"Work had me travel to {cities[1]} for a conference, what a city.")
    love = build.say(2, 1, f"You know me, I could spend every weekend {loves[1][0]}.")
    late_event = build.say(last, 0, f"Yesterday I finally went to the {events[1]} with my sister.")
    for session in range(len(dates)):
        build.chat(session, 3)

    day_before = _day(dates[1] - timedelta(days=1))
    build.ask(f"What is {a}'s new hobby?", hobbies[0], 4, [hobby_a])
    build.ask(f"What is the name of {a}'s {pet_kind}?", pet_name, 4, [pet])
    build.ask(f"When did {b} go to the {events[0]}?", day_before, 2, [event])
    build.ask(f"Which cities has {a} travelled to?", f"{cities[0]}, {cities[1]}", 1, [trip_1, trip_2])
    open_domain = build.ask(
        f"Would {b} likely enjoy {loves[1][1]}?", f"Likely yes; {b} loves {loves[1][0]}", 3, [love]
    )
    build.ask(f"What hobby did {b} take up?", hobbies[1], 4, [hobby_b])
    build.ask(f"What is the name of {b}'s {pet_kind}?", None, 5, [pet], adversarial=pet_name)
    build.ask(f"Which cities has {b} travelled to?", None, 5, [trip_1], adversarial=cities[0])
    # Findings of the audit: a wrong gold date, an unanswerable question, a misplaced citation.
    right_date, wrong_date = _day(dates[last] - timedelta(days=1)), _day(dates[last] + timedelta(days=1))
    wrong = build.ask(f"When did {a} go to the {events[1]}?", wrong_date, 2, [late_event])
    never = build.ask(f"What did {b} name their {pets[1][0]}?", pets[1][1], 4, [pet])
    sample_id = f"gen-{number}"
    audit = [
        _finding(
            number - 1,
            wrong,
            build.qa[wrong],
            "TEMPORAL_ERROR",
            [late_event],
            right_date,
            "The trip was the day before the session, not the day after.",
        ),
        _finding(
            number - 1,
            never,
            build.qa[never],
            "HALLUCINATION",
            [],
            f"Cannot be determined from the transcript; {b} never mentions a pet.",
            "The cited turn is about the other speaker's pet.",
        ),
        _finding(
            number - 1,
            open_domain,
            build.qa[open_domain],
            "WRONG_CITATION",
            [love, hobby_b],
            build.qa[open_domain].get("answer") or "",
            "The answer is right; the hobby turn supports it too.",
        ),
    ]
    sample = SampleRow(sample_id=sample_id, conversation=_conversation(a, b, dates, build), qa=build.qa)
    return sample, audit


def _conversation(a: str, b: str, dates: list[datetime], build: _Builder) -> ConversationRow:
    """The speakers and the dated sessions, as `locomo10.json` lays them out."""
    conversation: ConversationRow = {"speaker_a": a, "speaker_b": b}
    for index, (when, turns) in enumerate(zip(dates, build.sessions, strict=True), 1):
        conversation[f"session_{index}_date_time"] = _date_time(when)
        conversation[f"session_{index}"] = turns
    return conversation


def _finding(
    sample: int, index: int, item: QuestionRow, error: str, evidence: list[str], answer: str, why: str
) -> Finding:
    return Finding(
        question_id=f"locomo_{sample}_qa{index}",
        question=item["question"],
        golden_answer=item.get("answer"),
        category=item["category"],
        error_type=error,
        cited_evidence=item["evidence"],
        correct_evidence=evidence,
        reasoning=why,
        correct_answer=answer,
    )


def _day(when: datetime) -> str:
    """How LoCoMo's gold answers write a date: "7 May 2023"."""
    return f"{when.day} {when:%B %Y}"


def _date_time(when: datetime) -> str:
    """LoCoMo's way of writing a session's time: "1:56 pm on 8 May, 2023"."""
    return (
        f"{(when.hour - 1) % 12 + 1}:{when:%M} {'am' if when.hour < 12 else 'pm'} on {when.day} {when:%B},"
        f" {when.year}"
    )


def write_locomo(
    folder: str | Path, seed: int = 0, conversations: int = 2, sessions: int = 6
) -> tuple[Path, Path]:
    """Generated conversations as `locomo10.json` and their audit as `errors.json`, in `folder`."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    samples: list[SampleRow] = []
    findings: list[Finding] = []
    for number in range(1, conversations + 1):
        sample, audit = generate_sample(seed, number, sessions)
        samples.append(sample)
        findings.extend(audit)
    data, audit_file = folder / "locomo10.json", folder / "errors.json"
    data.write_text(json.dumps(samples, indent=1, ensure_ascii=False), encoding="utf-8")
    audit_file.write_text(json.dumps(findings, indent=1, ensure_ascii=False), encoding="utf-8")
    return data, audit_file


__all__ = ["generate_sample", "write_locomo"]
