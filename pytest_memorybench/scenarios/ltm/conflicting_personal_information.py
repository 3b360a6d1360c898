"""Conflicting Personal Information (GoodAI's `conflicting_personal_info`): facts about the user that change.

GoodAI's dataset (GPT-4-generated, judged by GPT-4's checklist): one message of personal facts in
which some facts are later contradicted by the user, then questions whose right answers are the
latest versions.  Ours: the user tells `facts` facts about themself, then corrects `changes` of them
("Actually, scratch that: …"), in one message; the questions ask for the corrected facts (and, when
`questions` exceeds `changes`, for unchanged ones too).  Scored as `question_set` says.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from pytest_memorybench.core.records import TestDefinition
from pytest_memorybench.scenarios.ltm.question_set import QuestionSetScenario
from pytest_memorybench.scenarios.opening import opening
from pytest_memorybench.scenarios.params import at_least

NAME = "ltm.conflicting_personal_information"
SKILLS = ("recall", "conflicting_information")
OPENING = "A few things about me, so you know me better:\n\n{facts}"
CORRECTION = "Actually, scratch that about {topic}: {statement}"
RESET = "Please forget the things I told you about myself earlier in this conversation."

# topic: (statement template, question, choices); the answer is the value itself.
TOPICS = {
    "where I live": ("I live in {v}.", "Which town do I live in now?",
                     ("Bristol", "Leeds", "Galway", "Dundee", "Norwich", "Cork", "York")),
    "my job": ("I work as a {v}.", "What is my job?",
               ("pharmacist", "carpenter", "radio producer", "translator", "park ranger", "dentist")),
    "my pet": ("I have a {v} at home.", "What kind of pet do I have?",
               ("tortoise", "grey parrot", "spaniel", "ginger cat", "pair of rabbits", "goldfish")),
    "my car": ("I drive a {v} car.", "What colour is my car?",
               ("red", "silver", "dark green", "white", "yellow", "navy blue")),
    "my sport": ("On weekends I play {v}.", "Which sport do I play at the weekend?",
                 ("badminton", "hockey", "water polo", "tennis", "rugby", "table tennis")),
    "my breakfast": ("Every morning I eat {v} for breakfast.", "What do I eat for breakfast?",
                     ("porridge", "scrambled eggs", "toast with jam", "a banana", "yoghurt and granola")),
    "my birthday": ("My birthday is in {v}.", "In which month is my birthday?",
                    ("March", "July", "October", "January", "May", "December")),
    "my sister": ("My sister is called {v}.", "What is my sister's name?",
                  ("Nadia", "Fionnuala", "Harriet", "Ingrid", "Tamsin", "Lucía")),
}  # fmt: skip


@dataclass(frozen=True)
class ConflictingParams:
    """How many facts are stated, how many change, and how many are asked."""

    facts: int = 6
    changes: int = 3
    questions: int = 4

    def __post_init__(self) -> None:
        at_least("facts", self.facts, 1)
        at_least("changes", self.changes, 1)
        at_least("questions", self.questions, 1)
        if self.facts > len(TOPICS):
            raise ValueError(f"facts must be at most {len(TOPICS)}, got {self.facts}")
        if not self.changes <= self.facts or not self.questions <= self.facts:
            raise ValueError(
                f"changes ({self.changes}) and questions ({self.questions}) cannot exceed facts"
                f" ({self.facts})"
            )


class ConflictingPersonalInformation(QuestionSetScenario):
    """`ltm.conflicting_personal_information`: the latest value of personal facts that change."""

    name = NAME
    skills = SKILLS
    reset_message = RESET

    def generate(self, suite: str, params: Mapping[str, Any], seed: int, repetition: int) -> TestDefinition:
        settings, rng = opening(ConflictingParams, NAME, params, seed, repetition)
        topics = rng.sample(sorted(TOPICS), settings.facts)
        first = {topic: rng.choice(TOPICS[topic][2]) for topic in topics}
        changed = rng.sample(topics, settings.changes)
        latest = dict(first)
        for topic in changed:
            latest[topic] = rng.choice([v for v in TOPICS[topic][2] if v != first[topic]])
        lines = [TOPICS[topic][0].format(v=first[topic]) for topic in topics]
        lines += [
            CORRECTION.format(topic=topic, statement=TOPICS[topic][0].format(v=latest[topic]))
            for topic in changed
        ]
        unchanged = [topic for topic in topics if topic not in changed]
        asked = changed + rng.sample(unchanged, max(0, settings.questions - len(changed)))
        asked = sorted(asked[: settings.questions], key=topics.index)
        cases = [(TOPICS[topic][1], latest[topic]) for topic in asked]
        return self.definition(
            suite, repetition, seed, OPENING.format(facts="\n".join(lines)), cases, asdict(settings)
        )

    def superseded(self, definition: TestDefinition) -> list[str]:
        """The first values of the facts the user corrected, read from the script's message: what the
        answers replaced (`contract/stale.py`); an old value that the new one holds as words ("tennis",
        now "table tennis") is left out, since an answer naming the new one would name it too."""
        text = "\n".join(line.text for line in definition.script if not line.is_question)
        superseded = []
        for topic, (template, _, _) in TOPICS.items():
            statement = re.escape(template).replace(re.escape("{v}"), "(.+?)")
            correction = re.search(
                rf"scratch that about {re.escape(topic)}: {statement}$", text, re.MULTILINE
            )
            first = re.search(rf"^{statement}$", text, re.MULTILINE)
            old, new = (first.group(1), correction.group(1)) if correction and first else ("", "")
            # "tennis" inside "table tennis" cannot be told apart by its words: left out
            if old and not re.search(rf"\b{re.escape(old)}\b", new, re.IGNORECASE):
                superseded.append(old)
        return superseded


SCENARIO = ConflictingPersonalInformation()
