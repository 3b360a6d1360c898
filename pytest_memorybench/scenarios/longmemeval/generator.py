"""Questions of our own in LongMemEval's shape, each with its own dated chat history.

One question per type (and an abstention question) for each `number`: the evidence is said in
one or two sessions (turns flagged `has_answer`), the rest of the history is everyday assistant
chat, and the question is asked a few days after the last session.  The content is ours: a new
bike, a recommended café, a cooking preference, a course started and a piece finished, a commute
that changed, plants bought in two sessions, and a question about a car never mentioned.
`write_longmemeval` saves them as the published JSON list.
"""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from pytest_memorybench.scenarios.longmemeval.data import format_date

_CHAT = (
    (
        "Can you give me a tip for keeping herbs fresh?",
        "Wrap them in a damp paper towel and keep them in the fridge.",
    ),
    (
        "What's a good stretch after a long day at a desk?",
        "Try a doorway chest stretch: hold it for thirty seconds, twice.",
    ),
    (
        "How long should I boil an egg for a runny yolk?",
        "About six minutes from boiling water, then into cold water.",
    ),
    (
        "Any idea how to get a wine stain out of cotton?",
        "Blot it, cover it with salt, then rinse with cold water.",
    ),
    (
        "How do I politely decline a meeting?",
        "Thank them, say you can't make it, and offer an alternative or a summary.",
    ),
    (
        "What's a good way to learn vocabulary?",
        "Spaced repetition: short daily reviews of the words you find hard.",
    ),
    ("Can you suggest a name for a book club?", "How about 'Chapter and Verse' or 'The Dog-Eared Pages'?"),
    (
        "Why does bread go stale?",
        "Its starch recrystallises and it loses moisture; freezing slows that down.",
    ),
)
_BRANDS = ("Ridgeway", "Kestrel", "Halden", "Marlow")
_CAFES = ("Marigold Café", "The Copper Kettle", "Bramble & Bean", "Little Fig")
_CRAFTS = (
    ("pottery course", "first vase"),
    ("woodcarving class", "first spoon"),
    ("quilting course", "first quilt"),
)


def _session(
    rng: random.Random, evidence: list[tuple[str, str]] | None = None, chat: int = 2
) -> list[dict[str, Any]]:
    turns: list[dict[str, Any]] = []
    for question, answer in rng.sample(_CHAT, chat):
        turns += [{"role": "user", "content": question}, {"role": "assistant", "content": answer}]
    for role, content in evidence or ():
        turns.append({"role": role, "content": content, "has_answer": True})
    return turns


def generate_entries(seed: int, number: int = 1, filler_sessions: int = 3) -> list[dict[str, Any]]:
    """Seven questions (six types and an abstention), each with its own history, for `number`."""
    return [entry for entry, _ in generate_questions(seed, number, filler_sessions)]


def generate_questions(
    seed: int, number: int = 1, filler_sessions: int = 3
) -> list[tuple[dict[str, Any], tuple[str, ...]]]:
    """`generate_entries`' questions, each with the values its answer replaced (the knowledge
    update's old commute): what LongMemEval's files do not say, kept beside the entry, not in it."""
    rng = random.Random(f"longmemeval.generated|{seed}|{number}")
    brand, cafe = rng.choice(_BRANDS), rng.choice(_CAFES)
    craft, piece = rng.choice(_CRAFTS)
    gap_days = rng.randrange(9, 30)
    old_commute, new_commute = rng.choice((45, 50, 55)), rng.choice((25, 30, 35))
    first_plants, more_plants = rng.randrange(2, 5), rng.randrange(2, 5)
    start = datetime(2023, 3, 1, 9, 0) + timedelta(days=rng.randrange(0, 120))
    planted: dict[str, tuple[str, str, list[list[tuple[str, str]]]]] = {
        "single-session-user": (
            "What brand is my new bike?",
            brand,
            [[("user", f"I finally bought a new gravel bike, a blue {brand}.")]],
        ),
        "single-session-assistant": (
            "Which café did you recommend to me for brunch?",
            cafe,
            [
                [
                    ("user", "Where should I go for brunch this weekend?"),
                    ("assistant", f"Try {cafe}; their brunch menu is excellent."),
                ]
            ],
        ),
        "single-session-preference": (
            "Can you suggest a dinner recipe for tonight?",
            "The user would prefer vegetarian recipes cooked in their new cast-iron wok.",
            [[("user", "I only cook vegetarian food, and I just got a cast-iron wok.")]],
        ),
        "temporal-reasoning": (
            f"How many days passed between starting my {craft} and finishing my {piece}?",
            f"{gap_days} days",
            [[("user", f"I started my {craft} today!")], [("user", f"I finished my {piece} today.")]],
        ),
        "knowledge-update": (
            "How long is my commute now?",
            f"{new_commute} minutes",
            [
                [("user", f"My commute to work takes {old_commute} minutes each way.")],
                [("user", f"Since I moved flats, my commute takes {new_commute} minutes.")],
            ],
        ),
        "multi-session": (
            "How many houseplants have I bought in total?",
            str(first_plants + more_plants),
            [
                [("user", f"I bought {first_plants} houseplants for the living room.")],
                [("user", f"I bought {more_plants} more houseplants for the bedroom.")],
            ],
        ),
    }
    superseded: dict[str, tuple[str, ...]] = {"knowledge-update": (f"{old_commute} minutes",)}
    entries: list[tuple[dict[str, Any], tuple[str, ...]]] = []
    for index, (question_type, (question, answer, evidence)) in enumerate(planted.items(), 1):
        entries.append(
            (
                _entry(
                    rng,
                    f"gen{number}-{index}",
                    question_type,
                    question,
                    answer,
                    evidence,
                    start,
                    gap_days,
                    filler_sessions,
                ),
                superseded.get(question_type, ()),
            )
        )
    entries.append((_entry(
        rng, f"gen{number}-{len(planted) + 1}_abs", "single-session-user", "What brand is my new car?",
        "The user never mentioned a car; they mentioned buying a new bike.",
        planted["single-session-user"][2], start, gap_days, filler_sessions,
    ), ()))  # fmt: skip
    return entries


def _entry(
    rng: random.Random, question_id: str, question_type: str, question: str, answer: str,
    evidence: list[list[tuple[str, str]]], start: datetime, gap_days: int, filler_sessions: int,
) -> dict[str, Any]:  # fmt: skip
    sessions, dates, ids, answer_ids = [], [], [], []
    evidence_at = {1: 0} if len(evidence) == 1 else {1: 0, filler_sessions: 1}
    when = start
    for index in range(filler_sessions + 1):
        # The first evidence a day after the start, a second one exactly `gap_days` later (the
        # temporal question's answer), every other session a day after the one before.
        if index == 1:
            when = start + timedelta(days=1, hours=1)
        elif evidence_at.get(index) == 1:
            when = start + timedelta(days=1 + gap_days, hours=2)
        elif index:
            when += timedelta(days=1)
        said = evidence[evidence_at[index]] if index in evidence_at else None
        session_id = f"{question_id}_s{index}"
        sessions.append(_session(rng, said))
        dates.append(format_date(when))
        ids.append(session_id)
        if said:
            answer_ids.append(session_id)
    return {
        "question_id": question_id, "question_type": question_type, "question": question, "answer": answer,
        "question_date": format_date(when + timedelta(days=3)), "haystack_session_ids": ids,
        "haystack_dates": dates, "haystack_sessions": sessions, "answer_session_ids": answer_ids,
    }  # fmt: skip


def write_longmemeval(path: str | Path, seed: int = 0, numbers: int = 1) -> Path:
    """Our generated questions written as a LongMemEval file, for tests and demos."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    entries = [entry for number in range(1, numbers + 1) for entry in generate_entries(seed, number)]
    path.write_text(json.dumps(entries, indent=1, ensure_ascii=False), encoding="utf-8")
    return path


__all__ = ["generate_entries", "generate_questions", "write_longmemeval"]
