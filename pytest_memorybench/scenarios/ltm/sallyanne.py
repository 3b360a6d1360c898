"""Sally-Anne (skill T): a TV show in which people move things around; where will someone look?

GoodAI paper App. A.10: short stories in the style of ToMi (Le et al. 2019, after Nematzadeh et
al. 2018) are told line by line as "(On TV) …" after an intro; the question asks where a character
will look for an object (theory of mind), or where the object is or was (state of the world), and
wants the answer as JSON with a single word.  GoodAI samples the stories from an unlicensed ToMi
file; this module writes its own stories with a seeded generator and computes every answer with
an explicit simulator of the world and of the characters' beliefs (`World`), so the ground truth
never comes from a template.

The world (what `World` implements, and what every generated story respects):
  * Characters enter and exit rooms; a character is in at most one room and must exit it before
    entering another.  Containers are closed: entering a room reveals nothing about them.
  * "The X is in the C." and "A moved the X to the C." happen in a room and are observed by
    exactly the characters in that room at the time (the mover included).  Characters in a
    room see each other.
  * First-order belief: where A last observed X to be.  Second-order belief (where A thinks B
    searches): where X was put in the last event that A and B observed together, since only then
    does A know that B saw it.  Likes and dislikes are noise.
Question types (param `question_type`):
  theory_of_mind (default, the paper's benchmarks)  "Where will A look for the X?" (first order)
        and "Where does A think that B searches for the X?" (second order), about the two
        characters who saw the object placed; a false-belief question (answer ≠ the object's
        real place) is chosen with probability `false_belief_share` when the story has one.
  world_state   "Where was the X at the beginning?" and "Where is the X really?".
  both          either family, with equal chance.

Scoring (one question; the same under `paper` and `official`, which agree here): the reply is
parsed with `parse_lenient_json` (fences, leading prose, trailing text repaired as goodai-ltm
does); it scores 1 iff it is a JSON object whose "answer" is a string equal, ignoring case, to
the expected container.  Nothing else is forgiven, as in the reference: "the pantry", "pantry."
or " pantry" are not the single word asked for, an answer under another key or inside a wrapper
object or a list is invalid, and a reply that is not JSON scores 0 with the parser's reason.
No reset statement, as in the reference.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Awaitable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.records import Score, TestDefinition
from pytest_memorybench.scenarios.base import definition
from pytest_memorybench.scenarios.ltm.goodai_format import GoodAIDefinitionFile, goodai_definition
from pytest_memorybench.scenarios.ltm.question_set import benchmark_1_checklist, score_answers
from pytest_memorybench.scenarios.opening import opening
from pytest_memorybench.scenarios.waits import spread_script
from pytest_memorybench.scoring.jsonlist import parse_lenient_json

NAME = "ltm.sallyanne"
SKILLS = ("theory_of_mind",)

INTRO = (
    "A show is being broadcast on TV right now. I will tell you what happens in it as it goes, and when "
    "it is over I will ask you a question about the show. All right?"
)
ON_TV = "(On TV) {line}"
QUESTION = (
    "The TV show is over for today. {question}\n"
    'Give your answer in JSON, with a single word as the answer, like this: {{"answer": "word"}}\n'
    "Be as specific as possible."
)
QUESTION_TYPES = ("theory_of_mind", "world_state", "both")

NAMES = (
    "Alice", "Ben", "Clara", "Daniel", "Elena", "Felix", "Grace", "Hugo", "Iris", "Jonah", "Kira",
    "Leo", "Maya", "Nina", "Oscar", "Priya", "Rosa", "Samir", "Tessa", "Umar", "Vera", "Wesley",
    "Yara", "Zane", "Lena", "Marco", "Ruth", "Tobias", "Ines", "Omar", "Hannah", "Dmitri",
)  # fmt: skip
ROOMS = (
    "kitchen", "garage", "attic", "cellar", "hallway", "study", "laundry room", "greenhouse",
    "workshop", "nursery", "library", "conservatory", "sunroom", "games room", "porch", "loft",
)  # fmt: skip
CONTAINERS = (
    "basket", "box", "drawer", "cupboard", "suitcase", "crate", "bucket", "envelope", "chest", "bin",
    "tin", "jar", "backpack", "wardrobe", "trunk", "hamper", "satchel", "cabinet", "locker", "sack",
    "tub", "briefcase", "pouch", "bowl",
)  # fmt: skip
OBJECTS = (  # (name, plural)
    ("apple", False), ("scarf", False), ("keys", True), ("gloves", True), ("notebook", False),
    ("hat", False), ("socks", True), ("banana", False), ("slippers", True), ("watch", False),
    ("umbrella", False), ("marbles", True), ("coins", True), ("lemon", False), ("teapot", False),
    ("candle", False), ("pears", True), ("torch", False), ("spoons", True), ("compass", False),
    ("ribbon", False), ("sunglasses", True), ("peach", False), ("mittens", True),
)  # fmt: skip
FEELINGS = ("likes", "dislikes", "loves", "is fond of", "cannot stand", "is afraid of")
TOPICS = (
    "the strawberries", "the parsnips", "the blue jumper", "the melon", "the radio", "the painting",
    "the houseplant", "the rain", "the cat", "the new curtains", "the violin", "the thunder",
)  # fmt: skip

# The story skeletons: A and B watch the object being placed, then one of these happens.
PLOTS = ("false_belief", "true_belief", "second_order", "double_move", "return")

_Q_SEARCH = re.compile(r"Where will (?P<a>.+?) look for the (?P<obj>.+?)\?")
_Q_THINK = re.compile(r"Where does (?P<a>.+?) think that (?P<b>.+?) searches for the (?P<obj>.+?)\?")
_Q_BEGIN = re.compile(r"Where (?:was|were) the (?P<obj>.+?) at the beginning\?")
_Q_REALLY = re.compile(r"Where (?:is|are) the (?P<obj>.+?) really\?")


# -- events and the simulator -----------------------------------------------------------------


@dataclass(frozen=True)
class Enter:
    """A character enters a room."""

    agent: str
    room: str


@dataclass(frozen=True)
class Exit:
    """A character leaves a room."""

    agent: str
    room: str


@dataclass(frozen=True)
class Place:
    """The object is put in a container, in a room."""

    obj: str
    container: str
    room: str


@dataclass(frozen=True)
class Move:
    """A character moves the object to another container."""

    agent: str
    obj: str
    container: str
    room: str


@dataclass(frozen=True)
class Noise:
    """A character's remark that changes nothing."""

    agent: str
    feeling: str
    topic: str


Event = Enter | Exit | Place | Move | Noise


@dataclass
class World:
    """The state of the story world and what each character believes, event by event.

    `belief[(a, obj)]` is where a thinks obj is; `belief2[(a, b, obj)]` is where a thinks b thinks
    obj is.  Both are missing until the character has observed something about the object.
    Illegal events (entering a second room, exiting a room one is not in, moving an object from
    another room, placing an object twice) raise ValueError, so a generator bug cannot pass
    silently.
    """

    location: dict[str, str | None] = field(default_factory=dict)
    container: dict[str, str] = field(default_factory=dict)
    room_of: dict[str, str] = field(default_factory=dict)
    first: dict[str, str] = field(default_factory=dict)
    belief: dict[tuple[str, str], str] = field(default_factory=dict)
    belief2: dict[tuple[str, str, str], str] = field(default_factory=dict)

    @classmethod
    def run(cls, events: Iterable[Event]) -> World:
        world = cls()
        for event in events:
            world.apply(event)
        return world

    def present(self, room: str) -> list[str]:
        return sorted(agent for agent, where in self.location.items() if where == room)

    def apply(self, event: Event) -> None:
        if isinstance(event, Enter):
            where = self.location.get(event.agent)
            if where is not None:
                raise ValueError(f"{event.agent} enters the {event.room} while in the {where}")
            self.location[event.agent] = event.room
        elif isinstance(event, Exit):
            if self.location.get(event.agent) != event.room:
                raise ValueError(f"{event.agent} exits the {event.room} without being there")
            self.location[event.agent] = None
        elif isinstance(event, Place):
            if event.obj in self.container:
                raise ValueError(f"the {event.obj} is placed twice")
            self.first[event.obj] = event.container
            self.room_of[event.obj] = event.room
            self._observed(event.obj, event.container, event.room)
        elif isinstance(event, Move):
            if self.location.get(event.agent) != event.room:
                raise ValueError(f"{event.agent} moves something in the {event.room} without being there")
            if self.room_of.get(event.obj) != event.room:
                raise ValueError(f"the {event.obj} is not in the {event.room}")
            self._observed(event.obj, event.container, event.room)
        elif not isinstance(event, Noise):
            raise TypeError(f"not a story event: {event!r}")

    def _observed(self, obj: str, container: str, room: str) -> None:
        self.container[obj] = container
        witnesses = self.present(room)
        for a in witnesses:
            self.belief[(a, obj)] = container
            for b in witnesses:
                if b != a:
                    self.belief2[(a, b, obj)] = container


# -- telling the story ------------------------------------------------------------------------


@dataclass(frozen=True)
class Thing:
    """The object of a story, and whether its name is plural."""

    name: str
    plural: bool = False


def tell(event: Event, plural: bool) -> str:
    """One story line, in ToMi's plain style."""
    if isinstance(event, Enter):
        return f"{event.agent} entered the {event.room}."
    if isinstance(event, Exit):
        return f"{event.agent} exited the {event.room}."
    if isinstance(event, Place):
        return f"The {event.obj} {'are' if plural else 'is'} in the {event.container}."
    if isinstance(event, Move):
        return f"{event.agent} moved the {event.obj} to the {event.container}."
    assert isinstance(event, Noise)
    return f"{event.agent} {event.feeling} {event.topic}."


@dataclass(frozen=True)
class Question:
    """A question about the story: its kind, its text and the right answer."""

    kind: str  # first_order | second_order | beginning | reality
    text: str
    answer: str
    about: tuple[str, ...] = ()


def questions(world: World, thing: Thing, a: str, b: str, family: str) -> list[Question]:
    """Every question of a family (theory_of_mind / world_state) the story can answer."""
    obj = thing.name
    found: list[Question] = []
    if family == "theory_of_mind":
        for x in (a, b):
            if (x, obj) in world.belief:
                text = f"Where will {x} look for the {obj}?"
                found.append(Question("first_order", text, world.belief[(x, obj)], (x,)))
        for x, y in ((a, b), (b, a)):
            if (x, y, obj) in world.belief2:
                text = f"Where does {x} think that {y} searches for the {obj}?"
                found.append(Question("second_order", text, world.belief2[(x, y, obj)], (x, y)))
    else:
        was, is_ = ("were", "are") if thing.plural else ("was", "is")
        found.append(Question("beginning", f"Where {was} the {obj} at the beginning?", world.first[obj]))
        found.append(Question("reality", f"Where {is_} the {obj} really?", world.container[obj]))
    return found


def _plot(
    plot: str, a: str, b: str, obj: str, room: str, elsewhere: str, c2: str, c3: str, rng: random.Random
) -> list[Event]:
    """What happens after A and B saw the object placed, for one story skeleton."""

    def maybe(chance: float, *events: Event) -> list[Event]:
        return list(events) if rng.random() < chance else []

    if plot == "false_belief":  # B leaves, then A moves the object
        return [
            Exit(b, room),
            *maybe(0.5, Enter(b, elsewhere)),
            Move(a, obj, c2, room),
            *maybe(0.5, Exit(a, room)),
        ]
    if plot == "true_belief":  # A moves the object while B watches; B may leave afterwards
        return [Move(a, obj, c2, room), *maybe(0.6, Exit(b, room)), *maybe(0.4, Exit(a, room))]
    if plot == "second_order":  # both see A's move; A leaves; B moves it again
        return [
            Move(a, obj, c2, room),
            Exit(a, room),
            *maybe(0.5, Enter(a, elsewhere)),
            Move(b, obj, c3, room),
        ]
    if plot == "double_move":  # both see the first move; B leaves; A moves it again
        return [Move(a, obj, c2, room), Exit(b, room), Move(a, obj, c3, room), *maybe(0.4, Exit(a, room))]
    if plot == "return":  # B leaves, A moves the object, B comes back (and sees nothing)
        return [Exit(b, room), Move(a, obj, c2, room), Enter(b, room), *maybe(0.5, Exit(a, room))]
    raise ValueError(f"unknown plot {plot!r}")


@dataclass(frozen=True)
class Story:
    """A story's events, its object, its two characters and its plot."""

    events: tuple[Event, ...]
    thing: Thing
    characters: tuple[str, str]  # A (moves the object first), B
    plot: str


def make_story(rng: random.Random) -> Story:
    """A short seeded story: A and B see the object placed, a plot unfolds, with noise around."""
    a, b, d = rng.sample(NAMES, 3)
    room, elsewhere, other = rng.sample(ROOMS, 3)
    c1, c2, c3 = rng.sample(CONTAINERS, 3)
    thing = Thing(*rng.choice(OBJECTS))
    plot = rng.choice(PLOTS)
    entrances = [Enter(a, room), Enter(b, room)]
    rng.shuffle(entrances)
    events: list[Event] = [*entrances, Place(thing.name, c1, room)]
    events += _plot(plot, a, b, thing.name, room, elsewhere, c2, c3, rng)
    if rng.random() < 0.6:  # a bystander comes and goes, in the same room or another one
        where = rng.choice((room, other))
        enter_at = rng.randint(0, len(events))
        events.insert(enter_at, Enter(d, where))
        if rng.random() < 0.7:
            events.insert(rng.randint(enter_at + 1, len(events)), Exit(d, where))
    people = [a, b, d] if any(getattr(e, "agent", None) == d for e in events) else [a, b]
    for _ in range(rng.choice((0, 1, 1, 2))):
        events.insert(
            rng.randint(0, len(events)), Noise(rng.choice(people), rng.choice(FEELINGS), rng.choice(TOPICS))
        )
    return Story(tuple(events), thing, (a, b), plot)


# -- the scenario -----------------------------------------------------------------------------


@dataclass(frozen=True)
class SallyAnneParams:
    """Which kind of questions are asked and how often they test a false belief."""

    question_type: str = "theory_of_mind"
    false_belief_share: float = 0.75  # ours: the paper's questions are "usually" false-belief ones

    def __post_init__(self) -> None:
        if self.question_type not in QUESTION_TYPES:
            raise ValueError(
                f"question_type must be one of {', '.join(QUESTION_TYPES)}, got {self.question_type!r}"
            )
        if not 0.0 <= self.false_belief_share <= 1.0:
            raise ValueError(f"false_belief_share must be between 0 and 1, got {self.false_belief_share}")


def pick_question(world: World, story: Story, settings: SallyAnneParams, rng: random.Random) -> Question:
    """The question asked about a story, of the kind the settings ask for."""
    family = settings.question_type
    if family == "both":
        family = rng.choice(("theory_of_mind", "world_state"))
    candidates = questions(world, story.thing, *story.characters, family)
    if family == "theory_of_mind":
        reality = world.container[story.thing.name]
        false = [q for q in candidates if q.answer != reality]
        true = [q for q in candidates if q.answer == reality]
        if false and (not true or rng.random() < settings.false_belief_share):
            return rng.choice(false)
        return rng.choice(true)
    return rng.choice(candidates)


def ideal_answer(container: str) -> str:
    """The container as the JSON a perfect agent replies with."""
    return json.dumps({"answer": container})


def question_kind(question: str) -> str | None:
    """Which of the four ToMi question forms a question line uses, if any."""
    forms = (
        ("second_order", _Q_THINK),
        ("first_order", _Q_SEARCH),
        ("beginning", _Q_BEGIN),
        ("reality", _Q_REALLY),
    )
    for kind, pattern in forms:
        if pattern.search(question):
            return kind
    return None


class SallyAnne:
    """`ltm.sallyanne`: where the characters think the object is, after the story."""

    name = NAME
    skills = SKILLS

    def generate(self, suite: str, params: Mapping[str, Any], seed: int, repetition: int) -> TestDefinition:
        settings, rng = opening(SallyAnneParams, NAME, params, seed, repetition)
        story = make_story(rng)
        world = World.run(story.events)
        question = pick_question(world, story, settings, rng)
        lines = [INTRO] + [ON_TV.format(line=tell(event, story.thing.plural)) for event in story.events]
        lines.append(QUESTION.format(question=question.text))
        script = spread_script(lines)
        reality = world.container[story.thing.name]
        ideal = (ideal_answer(question.answer),)
        expected = {
            "answer": question.answer,
            "question_kind": question.kind,
            "false_belief": question.answer != reality if question.kind.endswith("_order") else None,
            "plot": story.plot,
        }
        params = asdict(settings)
        return definition(self, suite, repetition, seed, script, ideal, expected, params)

    def from_goodai(
        self, raw: GoodAIDefinitionFile, example_id: str, suite: str, repetition: int
    ) -> TestDefinition:
        """A GoodAI SallyAnne file: its script and waits as they are (ToMi lines and all), its answer."""
        answer = str(raw["expected_responses"][0])
        question = next((t for t, q in zip(raw["script"], raw["is_question"], strict=False) if q), "")
        ideal = (ideal_answer(answer),)
        expected = {
            "answer": answer,
            "question_kind": question_kind(question),
            "false_belief": None,
            "plot": None,
        }
        return goodai_definition(self, raw, example_id, suite, repetition, ideal, expected)

    def score(
        self, definition: TestDefinition, responses: Sequence[str], context: ScoringContext
    ) -> Score | Awaitable[Score]:
        if benchmark_1_checklist(definition, context):
            return score_answers(definition, responses[-1:], context, [definition.expected["answer"]])
        reply = responses[-1] if responses else ""
        return score_sallyanne(definition.expected["answer"], reply)


def score_sallyanne(expected: str, reply: str) -> Score:
    """1 iff the reply is JSON {"answer": <expected, any case>}; otherwise 0 saying why."""
    try:
        data = parse_lenient_json(reply)
    except ValueError as error:
        return Score(0.0, (f"invalid answer: the reply is {error}",))
    if not isinstance(data, dict):
        kind = type(data).__name__
        return Score(
            0.0, (f"invalid answer: the reply parses to a JSON {kind}, not an object with an 'answer' key",)
        )
    if "answer" not in data:
        keys = ", ".join(repr(key) for key in data) or "none"
        return Score(0.0, (f"invalid answer: the JSON object has no 'answer' key (keys: {keys})",))
    answer = data["answer"]
    if not isinstance(answer, str):
        return Score(0.0, (f"invalid answer: 'answer' holds {json.dumps(answer)}, not a word",))
    if answer.lower() == expected.lower():
        return Score(1.0, (f"the answer {answer!r} is the expected {expected!r} (ignoring case)",))
    return Score(0.0, (f"the answer {answer!r} is not the expected {expected!r}",))


SCENARIO = SallyAnne()
