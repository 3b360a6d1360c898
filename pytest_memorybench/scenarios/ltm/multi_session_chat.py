"""Multi-Session Chat (GoodAI's `multisessionchat`, after the MSC corpus): finish a long chat in character.

GoodAI's dataset: one message holds a whole multi-session chat between Speaker 1 and Speaker 2 from
the MSC corpus (sessions days apart) and asks what Speaker 2 answers next; a GPT-4 judge, playing
Speaker 2 with their persona, says whether it would continue the chat that way.  The MSC corpus is
not ours to ship, so our chats are our own: in an early session Speaker 2 tells a fact about
themself, sessions of small talk follow, and in the last one Speaker 1 asks about it without
naming it ("How is that hobby of yours going?"); Speaker 2's answer, the one a perfect agent gives,
names the fact.

Scoring (one question):
  paper     the judge's checklist (`question_set.score_answers`): does the completion refer to the
            fact Speaker 2 told, the part of the conversation only memory of the earlier session
            can supply.
  official  the reference's code, quirk included: its judge is shown the *gold* answer, not the
            agent's, so every reply gets the verdict on the gold line (with our judge: right).
            Kept only to reproduce GoodAI's numbers; it does not measure the agent.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.records import Score, ScriptLine, TestDefinition
from pytest_memorybench.scenarios.base import definition
from pytest_memorybench.scenarios.ltm.goodai_format import (
    GoodAIDefinitionFile,
    goodai_definition,
)
from pytest_memorybench.scenarios.ltm.question_set import score_answers
from pytest_memorybench.scenarios.opening import opening
from pytest_memorybench.scenarios.params import at_least
from pytest_memorybench.scoring.profiles import OFFICIAL

NAME = "ltm.multi_session_chat"
SKILLS = ("recall", "episodic")
QUESTION = (
    "Pay attention to the following conversation between Speaker 1 and Speaker 2:\n\n{conversation}\n\n"
    "Complete the conversation: what will Speaker 2 answer?"
)

# (what Speaker 2 tells, what Speaker 1 asks sessions later, Speaker 2's answer, the fact's key phrase)
FACTS = (
    (
        "I have started keeping bees at the bottom of my garden.",
        "How is that new hobby of yours coming along?",
        "The bees are thriving, I took my first jars of honey last week!",
        "bees",
    ),
    (
        "I'm learning to play the cello, my lessons are on Thursdays.",
        "Did you have your lesson this week?",
        "I did, my cello teacher finally let me try a proper piece.",
        "cello",
    ),
    (
        "I've just started working night shifts at the hospital.",
        "Are you still on those awkward hours at work?",
        "Yes, still on night shifts at the hospital, I sleep until noon.",
        "night shifts",
    ),
    (
        "My daughter is moving to Aberdeen for university in September.",
        "Has your daughter settled in up north?",
        "She loves Aberdeen, even the cold wind off the sea.",
        "Aberdeen",
    ),
    (
        "I'm training for a half marathon in the spring.",
        "How is the training going?",
        "My half marathon training is on track, I ran eighteen kilometres on Sunday.",
        "half marathon",
    ),
    (
        "I collect old maps, I found one from 1820 at a market.",
        "Found anything new for your collection?",
        "Yes, another old map, a sea chart of the Irish coast.",
        "map",
    ),
)
SMALL_TALK = (
    ("Speaker 1", "Hi again! How was your weekend?"),
    ("Speaker 2", "Quiet, mostly. I cooked a big pot of soup."),
    ("Speaker 1", "The weather has been awful lately."),
    ("Speaker 2", "I know, my umbrella broke on Tuesday."),
    ("Speaker 1", "Have you watched anything good recently?"),
    ("Speaker 2", "A documentary about octopuses, it was wonderful."),
    ("Speaker 1", "I tried a new bakery near the station."),
    ("Speaker 2", "Was it good? I always need a new bakery."),
    ("Speaker 1", "My neighbour's dog barked all night."), ("Speaker 2", "Poor you, that sounds exhausting."),
    ("Speaker 1", "I'm thinking of painting my kitchen yellow."),
    ("Speaker 2", "Brave choice! Send me a photo."),
)  # fmt: skip
GAPS = ("(2 days later)", "(a week later)", "(3 days later)", "(10 days later)", "(the next day)")


@dataclass(frozen=True)
class MultiSessionChatParams:
    """How many sessions the chat spans."""

    sessions: int = 4

    def __post_init__(self) -> None:
        at_least("sessions", self.sessions, 2)


class MultiSessionChat:
    """`ltm.multi_session_chat`: a fact from an earlier session that a later message relies on."""

    name = NAME
    skills = SKILLS

    def generate(self, suite: str, params: Mapping[str, Any], seed: int, repetition: int) -> TestDefinition:
        settings, rng = opening(MultiSessionChatParams, NAME, params, seed, repetition)
        told, asked, answer, key = FACTS[(repetition - 1 + seed) % len(FACTS)]
        talk = [SMALL_TALK[i : i + 2] for i in range(0, len(SMALL_TALK), 2)]
        lines = [
            ("Speaker 1", "Hello! Nice to meet you, what do you do with your free time?"),
            ("Speaker 2", told),
        ]
        for _ in range(settings.sessions - 2):
            lines.append(("", rng.choice(GAPS)))
            for pair in rng.sample(talk, 2):
                lines.extend(pair)
        lines += [("", rng.choice(GAPS)), ("Speaker 1", asked)]
        conversation = "\n".join(text if not speaker else f"{speaker}: {text}" for speaker, text in lines)
        script = (ScriptLine(QUESTION.format(conversation=conversation), is_question=True),)
        expected = {"fact": key, "gold": answer}
        return definition(self, suite, repetition, seed, script, (answer,), expected, asdict(settings))

    def from_goodai(
        self, raw: GoodAIDefinitionFile, example_id: str, suite: str, repetition: int
    ) -> TestDefinition:
        """GoodAI's files: the expected response is JSON with the gold answer (and Speaker 2's persona)."""
        gold = json.loads(raw["expected_responses"][0])["gold_answer"]
        expected = {"fact": gold, "gold": gold}
        return goodai_definition(self, raw, example_id, suite, repetition, (gold,), expected)

    def score(
        self, definition: TestDefinition, responses: Sequence[str], context: ScoringContext
    ) -> Awaitable[Score]:
        expected = definition.expected
        if context.profile == OFFICIAL:  # the reference judges its own gold line, whatever was replied
            return score_answers(definition, [expected["gold"]], context, [expected["fact"]])
        return score_answers(definition, responses[-1:], context, [expected["fact"]])


SCENARIO = MultiSessionChat()
