"""The ten MemBench question types (App. A.3): for a graph, the evidence, the question, four options.

Factual memory (what was said explicitly):
  single_hop                one message answers it ("What is my niece's employer?")
  multi_hop                 two messages together: a name, then a fact told by relation only
                            ("What is the birthday of the person named Amelia Brooks?")
  comparative               two entities on one attribute ("Who is older, X or Y?", "Which lasts
                            longer, event A or event B?")
  aggregative               more than two entities on one attribute ("How many of my relatives and
                            colleagues grew up in Denver, CO?"; every person's value is told)
  post_processing           two messages and a further step: what the person with a given email
                            address likes doing (their hobby, described), or the day an event ends
                            (its start plus its length)
  knowledge_update          a value told, later corrected; the corrected one is right
  single_session_assistant  what the assistant recommended, two replies within one session
  multi_session_assistant   what the assistant recommended, movies, books and dishes, each in a
                            session of its own
Reflective memory (never said, to be inferred):
  preference                four liked items reveal a genre or a taste
  emotion                   three consecutive remarks, within minutes, show how the user felt

The two assistant types exist in the participation scenario only, as in the paper's data (the
observation data has no assistant).  Options are one correct value and three lures, preferring
values other subjects of the same graph have for the same attribute (those can be in the
conversation, as related facts), in a seeded order.  A reflective question's lures are never
defensible too: no taste sharing a word with the answer ("Sweet" against "Creamy and Sweet"), no
neighbouring feeling (`emotions.NEAR_EMOTIONS`).  Builders may adjust the graph for their
question (a corrected value, a shared hometown) and return the graph the rest of the
trajectory must agree with.
"""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from pytest_memorybench.scenarios.membench import lists
from pytest_memorybench.scenarios.membench.emotions import EMOTIONS, NEAR_EMOTIONS, PARTS_OF_DAY
from pytest_memorybench.scenarios.membench.graph import (
    Event,
    Graph,
    Item,
    Person,
    Place,
    faker_tables,
)
from pytest_memorybench.scenarios.membench.phrasing import (
    CORRECTIONS,
    EVENT_KINDS,
    PERSON_KINDS,
    PERSON_NOUNS,
    Fact,
    Subject,
    article,
    correction,
    day_text,
    fact,
    question,
    statement,
    subject_key,
    value_text,
)
from pytest_memorybench.scenarios.membench.preferences import DOMAINS, Domain

FACTUAL = (
    "single_hop", "multi_hop", "comparative", "aggregative", "post_processing", "knowledge_update",
    "single_session_assistant", "multi_session_assistant",
)  # fmt: skip
REFLECTIVE = ("preference", "emotion")
TYPES = FACTUAL + REFLECTIVE
ASSISTANT_TYPES = ("single_session_assistant", "multi_session_assistant")
LETTERS = ("A", "B", "C", "D")
WHEN = "{when}"  # in an emotion question: the day of its remarks, known once the trajectory is laid out


def level_of(kind: str) -> str:
    """Whether a question type is factual or reflective."""
    return "reflective" if kind in REFLECTIVE else "factual"


@dataclass(frozen=True)
class Step:
    """One step of a trajectory: a user message and, in participation data, the assistant's reply.

    `assistant` is empty when any acknowledgement will do (one is chosen when the trajectory is laid
    out); the assistant question types fill it with the recommendation that is their evidence.
    """

    user: str
    assistant: str = ""


@dataclass(frozen=True)
class QuestionSpec:
    """A question with its evidence, before it is placed in a trajectory.

    `evidence` is a sequence of units in the order they must be told; a unit of several steps
    stays consecutive (an emotion's remarks, one session's recommendations).  `own_sessions`
    starts each unit in a new session; `hour` is when such a session starts.
    """

    type: str
    question: str
    options: tuple[str, ...]
    answer: int
    evidence: tuple[tuple[Step, ...], ...]
    graph: Graph
    exclude: frozenset[tuple[str, str]] = frozenset()  # (subject key, kind) pairs related facts must avoid
    exclude_kinds: frozenset[str] = frozenset()
    own_sessions: bool = False
    hour: int | None = None

    @property
    def level(self) -> str:
        return level_of(self.type)

    @property
    def letter(self) -> str:
        return LETTERS[self.answer]


Builder = Callable[[Graph, random.Random], QuestionSpec]


def build_question(kind: str, graph: Graph, rng: random.Random) -> QuestionSpec:
    """A question of type `kind` about the graph, with its options and evidence."""
    return BUILDERS[kind](graph, rng)


# -- options ----------------------------------------------------------------------------------------


def _options(rng: random.Random, correct: str, lures: Sequence[str]) -> tuple[tuple[str, ...], int]:
    """The correct option and the first three distinct lures, shuffled; (options, answer index)."""
    chosen: list[str] = []
    for lure in lures:
        if lure != correct and lure not in chosen:
            chosen.append(lure)
        if len(chosen) == 3:
            break
    if len(chosen) < 3:
        raise ValueError(f"not enough lures for {correct!r}")
    options = [correct, *chosen]
    rng.shuffle(options)
    return tuple(options), options.index(correct)


def _pool(kind: str, rng: random.Random, subject: Subject) -> list[Any]:
    """Plausible values of `kind` nobody in the graph need have, in a seeded order."""
    if kind in ("hometown", "work_location", "location"):
        values: list[Any] = list(lists.CITIES)
    elif kind == "education":
        values = list(lists.EDUCATION)
    elif kind == "occupation":
        values = sorted(lists.OCCUPATIONS)
    elif kind == "position":
        values = sorted(p for positions in lists.OCCUPATIONS.values() for p in positions)
    elif kind == "hobby":
        values = sorted(lists.HOBBIES)
    elif kind == "character":
        values = list(lists.CHARACTERS)
    elif kind == "age":
        values = [value for value in range(18, 93)]
    elif kind == "height":
        values = [value for value in range(150, 200)]
    elif kind in ("birthday", "start"):
        base = (
            date(2001, 1, 1)
            if kind == "birthday"
            else date(getattr(subject, "start", date(2024, 1, 1)).year, 1, 1)
        )
        values = [base + timedelta(days=offset) for offset in range(365)]
    elif kind == "scale":
        values = list(lists.EVENT_SCALES)
    elif kind == "days":
        values = list(lists.EVENT_DAYS)
    elif kind == "content":
        values = sorted({**lists.WORK_EVENTS, **lists.LEISURE_EVENTS}.values())
    elif kind == "item" and isinstance(subject, Item):
        values = list(lists.ITEMS[subject.type])
    elif kind == "place" and isinstance(subject, Place):
        values = [f"{first} {lists.PLACE_TYPES[subject.type]}" for first in lists.PLACE_FIRST]
    elif kind == "phone":
        values = [
            f"{rng.randrange(201, 990)}-{rng.randrange(100, 1000)}-{rng.randrange(1000, 10000)}"
            for _ in range(6)
        ]
    elif kind == "email" and isinstance(subject, Person):
        first, last = subject.name.lower().split(" ", 1)
        domain = subject.email.split("@", 1)[1]
        values = [
            f"{last}.{first}@{domain}",
            f"{first}{last}@{domain}",
            f"{first[0]}.{last}@{domain}",
            f"{first}@{domain}",
        ]
    elif kind in ("company", "name"):  # after the graph's own (`_same_kind`), Faker-table ones
        male, female, lasts, suffixes = faker_tables()
        if kind == "company":
            values = [f"{rng.choice(lasts)} {rng.choice(suffixes)}" for _ in range(6)]
        else:
            values = [f"{rng.choice(male + female)} {rng.choice(lasts)}" for _ in range(6)]
    else:
        raise ValueError(f"no value pool for {kind!r}")
    rng.shuffle(values)
    return values


def _same_kind(graph: Graph, item: Fact) -> list[Any]:
    """What the graph's other subjects have for the same kind (lures that may be in the conversation)."""
    if isinstance(item.subject, Person) and item.kind in PERSON_KINDS:
        return [getattr(p, item.kind) for p in graph.people if p is not item.subject]
    if isinstance(item.subject, Event):
        return [getattr(e, item.kind) for e in graph.events if e is not item.subject]
    return []


def _lures(graph: Graph, item: Fact, rng: random.Random, avoid: Sequence[Any] = ()) -> list[str]:
    seen = [value for value in _same_kind(graph, item) if value != item.value and value not in avoid]
    rng.shuffle(seen)
    pool = [
        value for value in _pool(item.kind, rng, item.subject) if value != item.value and value not in avoid
    ]
    return [value_text(item.kind, value) for value in seen[:2] + pool + seen[2:]]


# -- related facts (the rest of the graph) ----------------------------------------------------------


def all_facts(graph: Graph) -> list[Fact]:
    """Every fact of the graph, in a fixed order."""
    facts = [fact(person, kind) for person in graph.people for kind in PERSON_KINDS]
    facts += [fact(event, kind) for event in graph.events for kind in EVENT_KINDS]
    facts += [fact(item, "item") for item in graph.items]
    facts += [fact(place, "place") for place in graph.places]
    return facts


def related_steps(spec: QuestionSpec, rng: random.Random, count: int) -> list[Step]:
    """`count` statements of other facts of the graph: true, relevant-looking, not evidence."""
    candidates = [
        item
        for item in all_facts(spec.graph)
        if (subject_key(item.subject), item.kind) not in spec.exclude
        and item.kind not in spec.exclude_kinds
        and not (item.kind == "name" and isinstance(item.subject, Person) and item.subject.relation == "self")
    ]
    chosen = rng.sample(candidates, min(count, len(candidates)))
    return [Step(statement(item)) for item in chosen]


def _spec(
    kind: str,
    graph: Graph,
    text: str,
    options: tuple[tuple[str, ...], int],
    evidence: Sequence[Sequence[Step]],
    facts: Sequence[Fact] = (),
    **extra: Any,
) -> QuestionSpec:
    return QuestionSpec(
        kind,
        text,
        options[0],
        options[1],
        tuple(tuple(unit) for unit in evidence),
        graph,
        exclude=frozenset((subject_key(f.subject), f.kind) for f in facts),
        **extra,
    )


def _replace_person(graph: Graph, old: Person, new: Person) -> Graph:
    return dataclasses.replace(
        graph,
        user=new if graph.user is old else graph.user,
        relatives=tuple(new if p is old else p for p in graph.relatives),
        colleagues=tuple(new if p is old else p for p in graph.colleagues),
    )


def _replace_event(graph: Graph, old: Event, new: Event) -> Graph:
    return dataclasses.replace(graph, events=tuple(new if e is old else e for e in graph.events))


# -- factual ----------------------------------------------------------------------------------------


def single_hop(graph: Graph, rng: random.Random) -> QuestionSpec:
    subjects: list[tuple[Subject, str]] = [
        (p, k) for p in graph.people for k in PERSON_KINDS if not (p.relation == "self" and k == "name")
    ]
    subjects += [(e, k) for e in graph.events for k in EVENT_KINDS]
    subjects += [(i, "item") for i in graph.items] + [(p, "place") for p in graph.places]
    subject, kind = rng.choice(subjects)
    item = fact(subject, kind)
    return _spec(
        "single_hop",
        graph,
        question(item),
        _options(rng, item.text, _lures(graph, item, rng)),
        [[Step(statement(item))]],
        [item],
    )


def multi_hop(graph: Graph, rng: random.Random) -> QuestionSpec:
    person = rng.choice(graph.others)
    kind = rng.choice(sorted(PERSON_NOUNS))
    name, item = fact(person, "name"), fact(person, kind)
    units = [[Step(statement(name))], [Step(statement(item))]]
    rng.shuffle(units)
    text = f"What is the {PERSON_NOUNS[kind]} of the person named {person.name}?"
    return _spec(
        "multi_hop", graph, text, _options(rng, item.text, _lures(graph, item, rng)), units, [name, item]
    )


def comparative(graph: Graph, rng: random.Random) -> QuestionSpec:
    kind = rng.choice(("age", "height", "scale", "days"))
    if kind in ("age", "height"):
        first, second = rng.sample(graph.others, 2)
        bigger = first if getattr(first, kind) > getattr(second, kind) else second
        verb = "older" if kind == "age" else "taller"
        text = f"Who is {verb}, {first.name} or {second.name}?"
        facts = [fact(first, kind), fact(second, kind)]
        units = [[Step(statement(f, named=True))] for f in facts]
        lures = [p.name for p in rng.sample(graph.others, len(graph.others)) if p not in (first, second)]
        options = _options(rng, bigger.name, [(second if bigger is first else first).name, *lures])
    else:
        one, two = rng.sample(graph.events, 2)
        bigger_event = one if getattr(one, kind) > getattr(two, kind) else two
        text = (
            f"Which is expected to draw more people, the {one.name} or the {two.name}?"
            if kind == "scale"
            else f"Which lasts longer, the {one.name} or the {two.name}?"
        )
        facts = [fact(one, kind), fact(two, kind)]
        units = [[Step(statement(f))] for f in facts]
        lures = [e.name for e in graph.events if e not in (one, two)] + [
            f"Both the same ({value_text(kind, getattr(one, kind))})"
        ]
        options = _options(rng, bigger_event.name, [(two if bigger_event is one else one).name, *lures])
    return _spec("comparative", graph, text, options, units, facts)


_AGGREGATE_QUESTIONS = {
    "hometown": "How many of my relatives and colleagues grew up in {v}?",
    "education": "How many of my relatives and colleagues hold {a} {v}?",
    "hobby": "For how many of my relatives and colleagues is {v} the favourite hobby?",
}


def aggregative(graph: Graph, rng: random.Random) -> QuestionSpec:
    """Every relative's and colleague's value of one kind is told, by name; 2 to 4 share the asked one."""
    kind = rng.choice(sorted(_AGGREGATE_QUESTIONS))
    people = list(graph.others)
    target = rng.choice(_pool(kind, rng, people[0]))
    count = rng.randint(2, min(4, len(people) - 1))
    sharing = set(map(id, rng.sample(people, count)))
    others = [value for value in _pool(kind, rng, people[0]) if value != target]
    for person in people:
        value = target if id(person) in sharing else rng.choice(others)
        graph = _replace_person(graph, person, dataclasses.replace(person, **{kind: value}))
    facts = [fact(person, kind) for person in graph.others]
    units = [[Step(statement(f, named=True))] for f in facts]
    text = _AGGREGATE_QUESTIONS[kind].format(v=target, a=article(target))

    def people_text(n: int) -> str:
        return f"{n} {'person' if n == 1 else 'people'}"

    lures = [people_text(n) for n in (count - 1, count + 1, count + 2, count - 2) if n >= 0]
    spec = _spec("aggregative", graph, text, _options(rng, people_text(count), lures), units, facts)
    return dataclasses.replace(spec, exclude_kinds=frozenset({kind}))


def post_processing(graph: Graph, rng: random.Random) -> QuestionSpec:
    if rng.random() < 0.5:  # the hobby of the person with an email address, described
        person = rng.choice(graph.others)
        email, hobby = fact(person, "email"), fact(person, "hobby")
        units = [[Step(statement(email))], [Step(statement(hobby))]]
        rng.shuffle(units)
        text = f"What does the person with the email address {person.email} enjoy doing?"
        lures = [
            lists.HOBBIES[value]
            for value in [*(p.hobby for p in graph.people), *_pool("hobby", rng, person)]
            if value != person.hobby
        ]
        return _spec(
            "post_processing",
            graph,
            text,
            _options(rng, lists.HOBBIES[person.hobby], lures),
            units,
            [email, hobby],
        )
    event = rng.choice(graph.events)  # the last day of an event: its start plus its length
    start, length = fact(event, "start"), fact(event, "days")
    end = event.start + timedelta(days=event.days - 1)
    text = f"On which day does the {event.name} end?"
    lures = [
        day_text(event.start + timedelta(days=shift))
        for shift in (event.days, event.days + 1, 0, event.days - 2, -1)
    ]
    return _spec(
        "post_processing",
        graph,
        text,
        _options(rng, day_text(end), lures),
        [[Step(statement(start))], [Step(statement(length))]],
        [start, length],
    )


_UPDATABLE = (
    ("person", "work_location"), ("person", "company"), ("person", "hobby"), ("person", "character"),
    ("event", "location"), ("event", "start"), ("event", "scale"), ("event", "days"),
)  # fmt: skip


def knowledge_update(graph: Graph, rng: random.Random) -> QuestionSpec:
    """The old value, later a correction; the graph keeps the corrected one."""
    owner, kind = rng.choice(_UPDATABLE)
    if owner == "person":
        person = rng.choice(graph.others)
        old = fact(person, kind)
        candidates = [p.company for p in graph.people] if kind == "company" else _pool(kind, rng, person)
        new_value = next(value for value in candidates if value != old.value)
        updated_person = dataclasses.replace(person, **{kind: new_value})  # type: ignore[arg-type]
        graph = _replace_person(graph, person, updated_person)
        new: Fact = fact(updated_person, kind)
    else:
        event = rng.choice(graph.events)
        old = fact(event, kind)
        taken = {getattr(e, kind) for e in graph.events} if kind in ("scale", "days") else {old.value}
        new_value = next(value for value in _pool(kind, rng, event) if value not in taken)
        updated_event = dataclasses.replace(event, **{kind: new_value})
        graph = _replace_event(graph, event, updated_event)
        new = fact(updated_event, kind)
    units = [[Step(statement(old))], [Step(correction(new, rng.choice(CORRECTIONS)))]]
    options = _options(rng, new.text, [old.text, *_lures(graph, new, rng, avoid=[old.value])])
    return _spec("knowledge_update", graph, question(new), options, units, [old, new])


_REQUESTS = (
    "I'm in the mood for a good {d}. Suggest one I haven't mentioned yet.",
    "Recommend me a {d}, something other than the ones I talked about.",
    "I could use a new {d} to try. Give me a suggestion.",
    "Help me pick a {d} for this weekend, not one I already know.",
)
_RECOMMENDATIONS = (
    "I would recommend {t}. Many people love it.",
    "Try {t}. I think it will suit you.",
    "My suggestion is {t}. It is a real favourite.",
    "You could go for {t}. It rarely disappoints.",
)


def _recommendation(domain: Domain, title: str, rng: random.Random) -> Step:
    return Step(rng.choice(_REQUESTS).format(d=domain.name), rng.choice(_RECOMMENDATIONS).format(t=title))


def _list_options(
    rng: random.Random, titles: list[str], pools: list[list[str]]
) -> tuple[tuple[str, ...], int]:
    """The recommended titles; each lure swaps one of them for a title of the same domain never
    recommended."""
    lures = []
    for index in rng.sample(range(len(titles)), min(3, len(titles))):
        swapped = list(titles)
        swapped[index] = pools[index].pop()
        lures.append(", ".join(swapped))
    while len(lures) < 3:
        lures.append(", ".join(pool.pop() for pool in pools))
    return _options(rng, ", ".join(titles), lures)


def single_session_assistant(graph: Graph, rng: random.Random) -> QuestionSpec:
    domain = rng.choice(DOMAINS)
    every = sorted(title for titles in domain.items.values() for title in titles)
    titles = rng.sample(every, 2)
    unused = [title for title in rng.sample(every, len(every)) if title not in titles]
    pools = [unused[0::2], unused[1::2]]
    block = [_recommendation(domain, title, rng) for title in titles]
    text = f"Which {domain.plural} have you recommended to me?"
    return _spec("single_session_assistant", graph, text, _list_options(rng, titles, pools), [block])


def multi_session_assistant(graph: Graph, rng: random.Random) -> QuestionSpec:
    chosen = [*DOMAINS, rng.choice(DOMAINS)]
    rng.shuffle(chosen)
    titles, pools = [], []
    for domain in chosen:
        every = sorted(title for items in domain.items.values() for title in items)
        title = rng.choice([t for t in every if t not in titles])
        titles.append(title)
    for domain in chosen:
        every = sorted(title for items in domain.items.values() for title in items)
        pools.append([t for t in rng.sample(every, len(every)) if t not in titles])
    units = [[_recommendation(domain, title, rng)] for domain, title in zip(chosen, titles, strict=True)]
    text = "Which movies, books and dishes have you recommended to me?"
    return _spec(
        "multi_session_assistant", graph, text, _list_options(rng, titles, pools), units, own_sessions=True
    )


# -- reflective -------------------------------------------------------------------------------------

_LIKES = (
    "I really enjoyed {v} {t} the other day.",
    "{T} is one of my all-time favourites.",
    "I could happily keep {v} {t} again and again.",
    "Lately I can't get enough of {t}.",
    "Nothing beats {v} {t} on a quiet evening.",
    "I recommended {t} to a friend because I loved it so much.",
)
_PREFERENCE_QUESTION = "Going by the {p} I have mentioned, which {c} do I probably like most?"


def _category_words(category: str) -> set[str]:
    """ "Sweet and Salty" -> {"sweet", "salty"}: a lure sharing a word with the answer is dropped, since
    four sweet dishes would also defend "Creamy and Sweet" or "Sweet and Sour"."""
    return {word for word in re.findall(r"[a-z]+", category.lower()) if word != "and"}


def preference(graph: Graph, rng: random.Random) -> QuestionSpec:
    domain = rng.choice(DOMAINS)
    category = graph.preference(domain.name)
    items = rng.sample(domain.items[category], 4)
    templates = rng.sample(_LIKES, len(items))
    units = [
        [Step(template.format(v=rng.choice(domain.like_verbs), t=item, T=item))]
        for template, item in zip(templates, items, strict=True)
    ]
    lures = [
        c
        for c in rng.sample(sorted(domain.items), len(domain.items))
        if not _category_words(c) & _category_words(category)
    ]
    text = _PREFERENCE_QUESTION.format(p=domain.plural, c=domain.category)
    return _spec("preference", graph, text, _options(rng, category, lures), units)


def emotion(graph: Graph, rng: random.Random) -> QuestionSpec:
    feeling = rng.choice(sorted(EMOTIONS))
    remarks = rng.sample(EMOTIONS[feeling], 3)
    part, hour = rng.choice(PARTS_OF_DAY)
    lures = [
        e
        for e in rng.sample(sorted(EMOTIONS), len(EMOTIONS))
        if e != feeling and e not in NEAR_EMOTIONS.get(feeling, ())
    ]
    text = f"How was I feeling on the {part} of {WHEN}?"
    return _spec(
        "emotion",
        graph,
        text,
        _options(rng, feeling, lures),
        [[Step(remark) for remark in remarks]],
        own_sessions=True,
        hour=hour,
    )


BUILDERS: dict[str, Builder] = {
    "single_hop": single_hop,
    "multi_hop": multi_hop,
    "comparative": comparative,
    "aggregative": aggregative,
    "post_processing": post_processing,
    "knowledge_update": knowledge_update,
    "single_session_assistant": single_session_assistant,
    "multi_session_assistant": multi_session_assistant,
    "preference": preference,
    "emotion": emotion,
}

__all__ = [
    "ASSISTANT_TYPES",
    "BUILDERS",
    "FACTUAL",
    "LETTERS",
    "REFLECTIVE",
    "TYPES",
    "WHEN",
    "QuestionSpec",
    "Step",
    "all_facts",
    "build_question",
    "level_of",
    "related_steps",
]  # fmt: skip
