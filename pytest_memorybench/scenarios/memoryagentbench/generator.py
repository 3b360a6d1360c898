"""Samples of our own in MemoryAgentBench's shape, so each competency runs with no data.

- **Conflict resolution**: a numbered pool of facts about invented people (where each lives, what
  each does, whom each is married to), where a later fact about the same thing overrides an
  earlier one.  Single-hop questions ask the current value; multi-hop ones chain two current
  values ("the city where the spouse of X lives").  Each question keeps the values a later fact
  overrode (`Question.superseded`: the stale-fact rate's).  Every name and place is invented, so a model
  cannot answer from what it already knows (the contamination check reads near zero).
- **Test-time learning**: in-context classification; requests of a home assistant, each labelled
  with a number that stands for its intent (the mapping drawn per seed), then new requests to label.
- **Accurate retrieval**: EventQA's task over a story of our own: given the events so far, which
  of six candidate events happens next.
- **Long-range understanding**: a summary of the whole story, judged against its keypoints (one
  key event per chapter) as nuggets.

Contexts grow to `tokens` (the spans of the paper's datasets: 6K, 32K, 64K, 262K).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from pytest_memorybench.scenarios.memoryagentbench.data import Question, Sample

_FIRST = (
    "Orla", "Tobin", "Maelis", "Corvin", "Ysolde", "Brannoch", "Quenby", "Idris", "Wrenna", "Halvard",
    "Seraphine", "Dunstan", "Liesl", "Perrin", "Anouk", "Caspian", "Thessaly", "Radomir", "Elspeth",
    "Fenwick",
    "Ottoline", "Bastien", "Marit", "Leocadia",
)  # fmt: skip
_LAST = (
    "Venn", "Ashcombe", "Quillfeather", "Darrowby", "Morrant", "Pellucid", "Strand", "Vantongeren",
    "Harrowgate", "Lisle", "Brackwater", "Ondergate", "Thistlewood", "Kerrigan-Vale", "Mossendew",
)  # fmt: skip
_TOWNS = (
    "Kestrel Bay", "Umbervale", "Port Ysmir", "Hollowmere", "Calder's Reach", "Vintry Cross",
    "Saltmarsh Hythe",
    "Greywater Fen", "Ostbruck", "Lanternmoor", "Quarry End", "Fallowdene", "Merrowgate", "Tarnwick",
    "Brindle Ford", "Elderholt",
)  # fmt: skip
_JOBS = (
    "glassblower", "lighthouse keeper", "cartographer", "beekeeper", "clockmaker", "ferry pilot", "archivist",
    "violin maker", "tea blender", "stonemason", "puppeteer", "seed banker", "kite designer", "bell founder",
)  # fmt: skip
_RELATIONS = {
    "lives": ("{person} lives in {value}.", "in which town does {person} live?"),
    "job": ("{person} works as a {value}.", "what does {person} work as?"),
    "spouse": ("{person} is married to {value}.", "who is {person} married to?"),
}
_CHAIN = "in which town does the person married to {person} live?"

_INTENTS = {
    "alarm": ("wake me at {time} tomorrow", "set an alarm for {time}", "I need to be up by {time}",
              "can you ring me at {time}", "alarm at {time} please"),
    "weather": ("will it rain in {town} on {day}", "how cold is it in {town}", "umbrella needed in {town}?",
                "what's the forecast for {day} in {town}", "is it sunny in {town} right now"),
    "music": ("put on some {genre}", "play my {genre} playlist", "I feel like hearing {genre}",
              "start the {genre} radio", "some {genre} for the kitchen please"),
    "shopping": ("add {item} to the shopping list", "we are out of {item}", "remind me to buy {item}",
                 "put {item} on the list for {day}", "did I already add {item}"),
    "timer": ("start a {minutes} minute timer", "count down {minutes} minutes",
              "time {minutes} minutes for the eggs", "set a timer for {minutes} minutes",
              "tell me when {minutes} minutes are up"),
    "lights": ("dim the lights in the {room}", "turn off the {room} lights", "switch the {room} lamp on",
               "make the {room} brighter", "lights to half in the {room}"),
    "taxi": ("get me a cab to {town}", "book a taxi to {town} for {time}", "I need a ride to {town}",
             "order a car to {town}", "how soon can a taxi reach {town}"),
    "calendar": ("what's on my calendar for {day}", "am I free on {day} at {time}", "move my {day} meeting",
                 "add dentist on {day} at {time}", "cancel everything on {day}"),
}  # fmt: skip
_SLOTS = {
    "time": ("6:15", "7 am", "half past five", "8:40", "noon", "5:50", "9 pm", "quarter to seven"),
    "town": _TOWNS,
    "day": ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", "the weekend"),
    "genre": ("jazz", "sea shanties", "baroque", "lo-fi", "bluegrass", "synthwave", "fado", "ska"),
    "item": ("oat milk", "lentils", "dish soap", "saffron", "batteries", "rye bread", "lemons", "filters"),
    "minutes": ("3", "5", "7", "10", "12", "15", "20", "25"),
    "room": ("kitchen", "bedroom", "hallway", "study", "garden room", "attic", "bathroom", "porch"),
}  # fmt: skip

_HEROES = ("Mirela", "Ansgar", "Pilar", "Evander", "Sunniva", "Tiberio")
_PLACES = (
    "the salt market", "the drowned chapel", "the signal tower", "the orchard terraces",
    "the old customs house",
    "the river locks", "the glass conservatory", "the quarry tunnels", "the ferry landing",
    "the bell foundry",
    "the moth archive", "the tide mill", "the hilltop observatory", "the rope walk", "the winter gardens",
)  # fmt: skip
_DEEDS = (
    "found a brass key hidden in", "argued with the warden of", "traded a silver spoon at",
    "lost a glove near",
    "drew a careful map of", "rescued a stray goat from", "repaired a cracked lantern at",
    "overheard a smugglers' plan in", "planted a walnut sapling beside", "hid a sealed letter inside",
    "bought a crate of pears at", "rang the great bell of", "copied an old ledger at",
    "slept through a storm in",
    "painted a blue door at", "followed a masked stranger to", "returned a borrowed book to",
    "mended a fishing net at",
)  # fmt: skip
_WHEN = (
    "at dawn", "before breakfast", "at midday", "in the afternoon", "at dusk", "after supper", "at midnight",
    "in the rain", "on market day", "during the festival", "in thick fog", "under a full moon",
)  # fmt: skip
_COMPANIONS = (
    "alone", "with the ferryman", "with a street musician", "with two apprentices", "with a cartographer",
    "with a borrowed mule", "with the harbour cat", "with a nervous clerk", "with the lamplighter's son",
    "with a travelling tinker",
)  # fmt: skip
_SCENERY = (
    "The wind came off the estuary and smelled of tar.", "Gulls circled low over the slate roofs.",
    "A cart rattled past, loaded with barrels.", "Somewhere a dog barked twice and fell silent.",
    "The light turned amber as the afternoon wore on.", "Rain threatened but never quite arrived.",
    "Children chased a hoop along the cobbles.", "The smell of bread drifted from a bakery.",
    "A clock struck the hour a little late, as it always did.", "Fog settled in the hollows below the town.",
)  # fmt: skip


@dataclass(frozen=True)
class Sized:
    """How large a generated sample is: its context's tokens, and how many questions it asks."""

    tokens: int
    questions: int
    count: Callable[[str], int]  # the run's token counter


def conflict_sample(seed: int, number: int, size: Sized, multi_hop: bool) -> Sample:
    """A pool of numbered facts that override each other, and questions about the current state."""
    rng = random.Random(f"mab-conflict|{seed}|{number}|{multi_hop}")
    people = [f"{first} {last}" for first in _FIRST for last in _LAST]
    rng.shuffle(people)
    people = people[: max(12, size.questions * 2)]
    current: dict[tuple[str, str], str] = {}
    said: dict[tuple[str, str], list[str]] = {}  # every value each fact had, in order
    lines: list[str] = []
    tokens = 0
    while tokens < size.tokens or len(current) < len(people) * len(_RELATIONS):
        person = rng.choice(people)
        relation = rng.choice(tuple(_RELATIONS))
        value = _fresh_value(rng, relation, person, people, current.get((person, relation)))
        current[(person, relation)] = value
        said.setdefault((person, relation), []).append(value)
        line = f"{len(lines)}. {_RELATIONS[relation][0].format(person=person, value=value)}"
        lines.append(line)
        tokens += size.count(line) + 1
    asked = rng.sample(people, min(size.questions, len(people)))
    questions = []
    for index, person in enumerate(asked):
        if multi_hop:
            spouse = current[(person, "spouse")]
            text, gold = _CHAIN.format(person=person), current[(spouse, "lives")]
            # the town a superseded fact on the chain gives: the spouse's earlier towns, and where
            # an earlier spouse lives
            earlier = said[(spouse, "lives")] + [current[(old, "lives")] for old in said[(person, "spouse")]]
        else:
            relation = ("lives", "job")[index % 2]
            text, gold = _RELATIONS[relation][1].format(person=person), current[(person, relation)]
            earlier = said[(person, relation)]
        stale = tuple(dict.fromkeys(value for value in earlier if value != gold))
        questions.append(Question(text, (gold,), f"fc-{number}-q{index}", superseded=stale))
    source = f"factconsolidation_{'mh' if multi_hop else 'sh'}_{_size_name(size.tokens)}"
    return Sample(f"{source}-{number}", source, "conflict_resolution", "\n".join(lines), tuple(questions))


def _fresh_value(rng: random.Random, relation: str, person: str, people: list[str], old: str | None) -> str:
    choices = {"lives": _TOWNS, "job": _JOBS, "spouse": tuple(p for p in people if p != person)}[relation]
    return rng.choice([value for value in choices if value != old])


def classification_sample(seed: int, number: int, size: Sized) -> Sample:
    """Labelled requests (intent → a number drawn per seed), then requests to label."""
    rng = random.Random(f"mab-icl|{seed}|{number}")
    intents = list(_INTENTS)
    numbers = list(range(len(intents)))
    rng.shuffle(numbers)
    label = dict(zip(intents, numbers, strict=True))
    lines: list[str] = []
    tokens = 0
    while tokens < size.tokens:
        intent = rng.choice(intents)
        example = f"{_utterance(rng, intent)}\nlabel: {label[intent]}"
        lines.append(example)
        tokens += size.count(example) + 2
    questions = []
    for index in range(size.questions):
        intent = intents[index % len(intents)]
        questions.append(Question(_utterance(rng, intent), (str(label[intent]),), f"icl-{number}-q{index}"))
    source = f"icl_assistant_{_size_name(size.tokens)}"
    return Sample(f"{source}-{number}", source, "test_time_learning", "\n\n".join(lines), tuple(questions))


def _utterance(rng: random.Random, intent: str) -> str:
    template = rng.choice(_INTENTS[intent])
    return template.format(**{slot: rng.choice(values) for slot, values in _SLOTS.items()})


@dataclass(frozen=True)
class Story:
    """A story of our own: its text, and its events in order."""

    text: str
    events: tuple[str, ...]
    keypoints: tuple[str, ...]  # one key event per chapter


def story(seed: int, number: int, tokens: int, count: Callable[[str], int]) -> Story:
    """Chapters of a journey: each a few events among scenery, until the text reaches `tokens`."""
    rng = random.Random(f"mab-story|{seed}|{number}")
    hero = rng.choice(_HEROES)
    unused = [
        f"{hero} {deed} {place} {when}, {company}."
        for deed in _DEEDS
        for place in _PLACES
        for when in _WHEN
        for company in _COMPANIONS
    ]
    rng.shuffle(unused)
    events: list[str] = []
    keypoints: list[str] = []
    chapters: list[str] = []
    used = 0
    chapter = 0
    while used < tokens:
        chapter += 1
        sentences = []
        for position in range(rng.randint(3, 5)):
            if not unused:
                raise ValueError(f"the story generator has no more distinct events for {tokens:,} tokens")
            event = unused.pop()
            events.append(event)
            if position == 0:
                keypoints.append(event)
            sentences.append(event)
            sentences.extend(rng.sample(_SCENERY, 2))
        body = f"Chapter {chapter}\n" + " ".join(sentences)
        chapters.append(body)
        used += count(body)
    return Story("\n\n".join(chapters), tuple(events), tuple(keypoints))


def event_sample(seed: int, number: int, size: Sized) -> Sample:
    """EventQA over our story: the events so far, six candidates, which happens next."""
    tale = story(seed, number, size.tokens, size.count)
    rng = random.Random(f"mab-eventqa|{seed}|{number}")
    positions = sorted(rng.sample(range(3, len(tale.events)), min(size.questions, len(tale.events) - 3)))
    questions = []
    for index, at in enumerate(positions):
        nxt = tale.events[at]
        others = rng.sample([event for event in tale.events if event != nxt], 5)
        options = [nxt, *others]
        rng.shuffle(options)
        previous = "\n".join(f"{n}. {event}" for n, event in enumerate(tale.events[at - 3 : at], start=1))
        listed = "\n".join(f"{n}. {event}" for n, event in enumerate(options, start=1))
        questions.append(
            Question(listed, (nxt,), f"eventqa-{number}-q{index}", {"previous_events": previous})
        )
    source = f"eventqa_story_{_size_name(size.tokens)}"
    return Sample(f"{source}-{number}", source, "accurate_retrieval", tale.text, tuple(questions))


def summary_sample(seed: int, number: int, size: Sized) -> Sample:
    """The whole story to summarise, judged against one key event per chapter."""
    tale = story(seed, number, size.tokens, size.count)
    question = Question(
        "Summarise the story in a few paragraphs, telling its main events in order.",
        tale.keypoints,
        f"summary-{number}",
        {"keypoints": tale.keypoints},
    )
    source = f"story_sum_{_size_name(size.tokens)}"
    return Sample(f"{source}-{number}", source, "long_range_understanding", tale.text, (question,))


def _size_name(tokens: int) -> str:
    return f"{round(tokens / 1000)}k"


def generate(competency: str, seed: int, contexts: int, size: Sized) -> list[Sample]:
    """`contexts` samples of a competency (conflict resolution: single- and multi-hop each)."""
    samples: list[Sample] = []
    for number in range(1, contexts + 1):
        if competency == "conflict_resolution":
            samples += [conflict_sample(seed, number, size, False), conflict_sample(seed, number, size, True)]
        elif competency == "test_time_learning":
            samples.append(classification_sample(seed, number, size))
        elif competency == "accurate_retrieval":
            samples.append(event_sample(seed, number, size))
        else:
            samples.append(summary_sample(seed, number, size))
    return samples


__all__ = ["Sized", "Story", "generate", "story"]
