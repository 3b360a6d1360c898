"""MemBench generator: the relation graph, every question type's ground truth, noise, layout, time."""

from __future__ import annotations

import dataclasses
import random
import re
from datetime import date

import pytest

from pytest_memorybench.core.tokens import ApproximateCounter, default_counter
from pytest_memorybench.scenarios.membench.emotions import EMOTIONS, NEAR_EMOTIONS
from pytest_memorybench.scenarios.membench.graph import (
    Event,
    Graph,
    Item,
    Person,
    Place,
    build_graph,
)
from pytest_memorybench.scenarios.membench.lists import HOBBIES
from pytest_memorybench.scenarios.membench.noise import NoiseStream, noise_stream
from pytest_memorybench.scenarios.membench.phrasing import fact, question, statement
from pytest_memorybench.scenarios.membench.preferences import (
    DOMAINS,
    MOVIES,
    category_of,
)
from pytest_memorybench.scenarios.membench.questions import (
    BUILDERS,
    QuestionSpec,
    build_question,
    related_steps,
)
from pytest_memorybench.scenarios.membench.trajectory import approximate_budget, generate_case

COUNTER = ApproximateCounter()


def person(relation: str, name: str, age: int, height: int, **values: object) -> Person:
    base = dict(
        gender="female",
        birthday=date(2001, 12, 11),
        hometown="Boston, MA",
        work_location="Boston, MA",
        education="associate degree",
        occupation="nurse",
        position="charge nurse",
        company="Brooks LLC",
        hobby="knitting",
        character="patient",
        phone="617-555-0101",
        email=f"{name.lower().replace(' ', '.')}@brooksllc.com",
    )
    base.update(values)
    return Person(relation=relation, name=name, age=age, height=height, **base)  # type: ignore[arg-type]


def mini_graph() -> Graph:
    """A hand-made graph whose every answer is known without running the generator."""
    return Graph(
        key="mini",
        user=person("self", "Nora Quill", 35, 170, hobby="cycling"),
        relatives=(
            person(
                "sister",
                "Amelia Brooks",
                31,
                165,
                birthday=date(2001, 12, 11),
                hobby="pottery",
                email="amelia.brooks@sparkle.com",
            ),
            person(
                "niece",
                "Clara Jennings",
                28,
                158,
                company="TechInnovate Systems LLC",
                hobby="birdwatching",
                hometown="Denver, CO",
            ),
            person(
                "uncle",
                "Landon Pierce",
                57,
                181,
                birthday=date(2001, 3, 24),
                hobby="sailing",
                hometown="Austin, TX",
            ),
        ),
        colleagues=(person("boss", "Nolan Hayes", 44, 176, hobby="astronomy", hometown="Omaha, NE"),),
        events=(
            Event(
                "industry conference",
                "talks",
                "Silver Wave Conference",
                "Boston, MA",
                date(2024, 2, 15),
                400,
                3,
                False,
            ),
            Event(
                "food festival",
                "stalls",
                "Copper Beacon Food Festival",
                "Austin, TX",
                date(2024, 6, 1),
                1500,
                1,
                True,
            ),
            Event(
                "jazz night", "bands", "Blue Spark Jazz Night", "Denver, CO", date(2024, 9, 9), 60, 2, True
            ),
        ),
        items=(Item("coffee machine", "Brewmont Duo"),),
        places=(Place("park", "Willow Park"),),
        preferences=(("movie", "Western"), ("dish", "Spicy"), ("book", "Mystery")),
    )


AGES = {"Amelia Brooks": 31, "Clara Jennings": 28, "Landon Pierce": 57, "Nolan Hayes": 44}
HEIGHTS = {"Amelia Brooks": 165, "Clara Jennings": 158, "Landon Pierce": 181, "Nolan Hayes": 176}
SCALES = {"Silver Wave Conference": 400, "Copper Beacon Food Festival": 1500, "Blue Spark Jazz Night": 60}
DAYS = {"Silver Wave Conference": 3, "Copper Beacon Food Festival": 1, "Blue Spark Jazz Night": 2}
HOBBY_BY_EMAIL = {
    "amelia.brooks@sparkle.com": "pottery", "clara.jennings@brooksllc.com": "birdwatching",
    "landon.pierce@brooksllc.com": "sailing", "nolan.hayes@brooksllc.com": "astronomy",
}  # fmt: skip
ENDS = {
    "Silver Wave Conference": "February 17",
    "Copper Beacon Food Festival": "June 1",
    "Blue Spark Jazz Night": "September 10",
}


def specs(kind: str, runs: int = 30) -> list[QuestionSpec]:
    return [build_question(kind, mini_graph(), random.Random(f"mini|{kind}|{run}")) for run in range(runs)]


def evidence_users(spec: QuestionSpec) -> list[str]:
    return [step.user for unit in spec.evidence for step in unit]


def correct(spec: QuestionSpec) -> str:
    return spec.options[spec.answer]


# -- the graph --------------------------------------------------------------------------------------


def test_the_same_key_gives_the_same_graph_and_other_keys_other_graphs() -> None:
    build_graph.cache_clear()
    first = build_graph("0|participation-single_hop-1")
    build_graph.cache_clear()
    assert build_graph("0|participation-single_hop-1") == first
    assert build_graph("1|participation-single_hop-1") != first
    assert build_graph("0|participation-single_hop-2") != first


@pytest.mark.parametrize("key", [f"{seed}|case-{n}" for seed in range(3) for n in range(20)])
def test_graph_names_ages_heights_and_events_are_distinct(key: str) -> None:
    graph = build_graph(key)
    people = graph.people
    words = [part for p in people for part in p.name.split()]
    assert len(words) == len(set(words)), "no first or last name twice"
    assert len({p.relation for p in people}) == len(people)
    assert len({p.age for p in people}) == len(people) and len({p.height for p in people}) == len(people)
    assert (
        len({e.name for e in graph.events})
        == len({e.scale for e in graph.events})
        == len({e.days for e in graph.events})
        == 4
    )
    assert {p.company for p in graph.colleagues} == {graph.user.company}
    assert all("," not in p.company and "?" not in p.company for p in people)
    assert {d for d, _ in graph.preferences} == {"movie", "dish", "book"}


# -- every question type on the hand-made graph -----------------------------------------------------


def test_single_hop_asks_one_told_fact() -> None:
    for spec in specs("single_hop"):
        (told,) = evidence_users(spec)
        assert correct(spec) in told
        assert not any(lure in told for i, lure in enumerate(spec.options) if i != spec.answer)
    niece = mini_graph().relatives[1]
    assert question(fact(niece, "company")) == "Which company employs my niece?"
    assert statement(fact(niece, "company")) == "My niece is employed at TechInnovate Systems LLC."


def test_multi_hop_needs_the_name_and_the_fact_told_by_relation() -> None:
    for spec in specs("multi_hop"):
        name = re.search(r"the person named (.+)\?$", spec.question).group(1)  # type: ignore[union-attr]
        told = evidence_users(spec)
        assert any(name in line for line in told) and not all(name in line for line in told)
        noun = re.search(r"What is the (.+) of the person", spec.question).group(1)  # type: ignore[union-attr]
        if noun == "age":
            assert correct(spec) == f"{AGES[name]} years old"
        elif noun == "height":
            assert correct(spec) == f"{HEIGHTS[name]} cm"
        elif noun == "birthday" and name == "Amelia Brooks":
            assert correct(spec) == "December 11"
        assert correct(spec) in " ".join(told)


def test_comparative_names_the_larger_one() -> None:
    seen = set()
    for spec in specs("comparative", 60):
        first, second = re.search(r", (?:the )?(.+) or (?:the )?(.+)\?$", spec.question).groups()  # type: ignore[union-attr]
        if spec.question.startswith("Who is older"):
            table = AGES
        elif spec.question.startswith("Who is taller"):
            table = HEIGHTS
        elif "more people" in spec.question:
            table = SCALES
        else:
            table = DAYS
        seen.add(id(table))
        assert correct(spec) == max((first, second), key=table.__getitem__)
        assert {first, second} <= set(spec.options)
    assert len(seen) == 4, "ages, heights, scales and durations are all compared"


AGGREGATE = (
    (r"How many of my relatives and colleagues grew up in (.+)\?", "hometown"),
    (r"How many of my relatives and colleagues hold an? (.+)\?", "education"),
    (r"For how many of my relatives and colleagues is (.+) the favourite hobby\?", "hobby"),
)
SAYS_KIND = {"hometown": "grew up in", "education": " hold", "hobby": "favourite hobby"}


def test_aggregative_counts_every_person_told_with_the_value() -> None:
    kinds = set()
    for spec in specs("aggregative"):
        told = evidence_users(spec)
        assert len(told) == 4, "one statement per relative and colleague"
        value, kind = next(
            (m.group(1), kind) for pattern, kind in AGGREGATE if (m := re.fullmatch(pattern, spec.question))
        )
        kinds.add(kind)
        count = sum(line.endswith(f" {value}.") for line in told)
        assert correct(spec) == f"{count} {'person' if count == 1 else 'people'}" and count >= 2
        assert spec.exclude_kinds == {kind}
        related = related_steps(spec, random.Random(1), 60)
        assert not any(SAYS_KIND[kind] in step.user for step in related), "no other statement of that kind"
    assert kinds == {"hometown", "education", "hobby"}


def test_post_processing_takes_a_further_step() -> None:
    kinds = set()
    for spec in specs("post_processing"):
        if spec.question.startswith("On which day"):
            kinds.add("end")
            event = re.search(r"does the (.+) end\?", spec.question).group(1)  # type: ignore[union-attr]
            assert correct(spec) == ENDS[event]
        else:
            kinds.add("hobby")
            email = re.search(r"address (\S+) enjoy", spec.question).group(1)  # type: ignore[union-attr]
            assert correct(spec) == HOBBIES[HOBBY_BY_EMAIL[email]]
            assert correct(spec) not in " ".join(evidence_users(spec)), "the description is never said"
    assert kinds == {"end", "hobby"}


def test_knowledge_update_takes_the_correction() -> None:
    for spec in specs("knowledge_update"):
        old, new = evidence_users(spec)
        assert correct(spec) in new and correct(spec) not in old
        assert any(option in old for option in spec.options), "the superseded value is a lure"
        assert new.startswith(("I need to correct", "Sorry, I got", "Small update", "Let me fix"))


def test_assistant_questions_are_answered_by_the_recorded_replies() -> None:
    for kind, units in (("single_session_assistant", 1), ("multi_session_assistant", 4)):
        for spec in specs(kind):
            replies = [step.assistant for unit in spec.evidence for step in unit]
            assert len(spec.evidence) == units and all(replies)
            titles = correct(spec).split(", ")
            assert all(title in reply for title, reply in zip(titles, replies, strict=True))
            assert spec.own_sessions == (kind == "multi_session_assistant")
            for lure in (o for i, o in enumerate(spec.options) if i != spec.answer):
                assert sum(t not in titles for t in lure.split(", ")) >= 1


def test_preference_items_all_belong_to_the_graphs_category() -> None:
    for spec in specs("preference"):
        domain = next(d for d in DOMAINS if f" {d.plural} " in spec.question)
        told = evidence_users(spec)
        items = [
            item for items in domain.items.values() for item in items if any(item in line for line in told)
        ]
        assert len(told) == 4 and {category_of(domain, item) for item in items} == {correct(spec)}
        assert correct(spec) == dict(mini_graph().preferences)[domain.name]
        assert not any(correct(spec).lower() in line.lower() for line in told), "the category is never said"
    assert category_of(MOVIES, "High Noon (1952)") == "Western"


def test_reflective_lures_are_never_defensible_too() -> None:
    for run in range(200):
        graph = build_graph(f"lures-{run}")
        spec = build_question("preference", graph, random.Random(run))
        words = [set(option.lower().replace(" and ", " ").split()) for option in spec.options]
        assert all(not words[spec.answer] & other for i, other in enumerate(words) if i != spec.answer), (
            spec.options
        )
        spec = build_question("emotion", graph, random.Random(run))
        assert not {*NEAR_EMOTIONS.get(correct(spec), ())} & set(spec.options), spec.options
    sweet_tooth = dataclasses.replace(
        mini_graph(), preferences=(("movie", "Western"), ("dish", "Sweet"), ("book", "Mystery"))
    )
    dishes = [build_question("preference", sweet_tooth, random.Random(run)) for run in range(60)]
    dishes = [spec for spec in dishes if " dishes " in spec.question]
    assert dishes and all(correct(spec) == "Sweet" for spec in dishes)
    assert not any(
        {"Sweet and Salty", "Sweet and Sour", "Creamy and Sweet"} & set(spec.options) for spec in dishes
    )


def test_emotion_remarks_show_the_state_without_naming_it() -> None:
    for spec in specs("emotion"):
        remarks = evidence_users(spec)
        assert len(spec.evidence) == 1 and len(remarks) == 3, "three consecutive remarks"
        assert set(remarks) <= set(EMOTIONS[correct(spec)])
        assert spec.hour in (8, 14, 19) and spec.own_sessions and "{when}" in spec.question
    for feeling, remarks in EMOTIONS.items():
        assert not any(name in remark.lower() for remark in remarks for name in EMOTIONS), feeling


@pytest.mark.parametrize("kind", sorted(BUILDERS))
def test_options_are_four_distinct_and_related_facts_avoid_the_evidence(kind: str) -> None:
    for spec in specs(kind, 10):
        assert len(spec.options) == 4 == len(set(spec.options)) and 0 <= spec.answer < 4
        told = set(evidence_users(spec))
        related = related_steps(spec, random.Random(1), 40)
        assert not told & {step.user for step in related}
        assert all("?" not in line for line in told)


# -- noise, layout, size, time ----------------------------------------------------------------------


def test_noise_is_distinct_deterministic_and_never_personal() -> None:
    one, two = NoiseStream(3, dialogue=True), NoiseStream(3, dialogue=True)
    steps = [one.step(i) for i in range(400)]
    assert steps == [two.step(i) for i in range(400)]
    assert len({s.user for s in steps}) == 400 and all(s.assistant for s in steps)
    observed = [NoiseStream(3, dialogue=False).step(i) for i in range(400)]
    said = " ".join(s.user for s in steps + observed)  # the user never speaks of themselves in noise
    assert not re.search(r"\b(my|I|me|mine|sister|brother|boss|feel|felt)\b", said, re.IGNORECASE)
    assert "?" not in said + " ".join(s.assistant for s in steps)
    count, tokens = one.span(10, 500)
    assert tokens >= 500 and tokens - one.tokens(10 + count - 1) < 500
    assert one.span(0, 0) == (0, 0)


@pytest.mark.parametrize("dialogue", [True, False])
@pytest.mark.parametrize("target", [3000, 10000, 100000])
def test_noise_reaches_the_target_and_keeps_the_evidence_intact(dialogue: bool, target: int) -> None:
    case = generate_case(
        "t-aggregative-1", "aggregative", seed=0, dialogue=dialogue, target_tokens=target, related=12
    )
    messages = list(case.turns())
    assert messages == list(case.turns()), "the same turns every time"
    assert len(messages) == case.steps * case.messages_per_step
    counted = sum(COUNTER.count(m.text) for m in messages)
    assert counted == case.tokens
    budget = approximate_budget(target)
    assert budget <= counted < budget + 80, "reaches its budget, overshooting by less than a step"
    if default_counter().name.startswith("tiktoken"):  # the target is in the run's cl100k tokens
        assert target <= sum(default_counter().count(m.text) for m in messages) < target * 1.03
    for step, texts in zip(case.evidence, case.evidence_texts, strict=True):
        delivered = messages[step * case.messages_per_step].text
        assert texts[0] in delivered, "each evidence step is delivered where its id says"
    users = [m.text for m in messages if m.role == "user"]
    for texts in case.evidence_texts:
        assert sum(texts[0] in text for text in users) == 1, "evidence is told exactly once"
    # Spread evenly: the u-th of n evidence units lies in the u-th n-th of the trajectory.
    n = len(case.evidence)
    for unit, step in enumerate(case.evidence):
        assert unit * case.steps // n <= step < (unit + 1) * case.steps // n + 1


def test_participation_turns_alternate_and_sessions_are_days_apart() -> None:
    case = generate_case("t-emotion-2", "emotion", seed=4, dialogue=True, target_tokens=4000, related=8)
    messages = list(case.turns())
    assert [m.role for m in messages[:4]] == ["user", "assistant", "user", "assistant"]
    assert all(b.timestamp >= a.timestamp for a, b in zip(messages, messages[1:], strict=False))
    first = messages[case.evidence[0] * 2]
    day = re.search(r"of (\w+ \d+)\?", case.question).group(1)  # type: ignore[union-attr]
    assert f"{first.timestamp:%B} {first.timestamp.day}" == day
    assert first.timestamp.hour in (8, 14, 19)
    same_day = [m for m in messages if m.timestamp.date() == first.timestamp.date() and m.role == "user"]
    assert [m.text for m in same_day[:3]] == [texts[0] for texts in case.evidence_texts]


def test_multi_session_recommendations_fall_in_different_sessions() -> None:
    for index in range(5):
        case = generate_case(
            f"t-msa-{index}",
            "multi_session_assistant",
            seed=index,
            dialogue=True,
            target_tokens=3000,
            related=6,
        )
        messages = list(case.turns())
        days = {messages[step * 2].timestamp.date() for step in case.evidence}
        assert len(days) == len(case.evidence)


def test_observed_messages_carry_their_place_and_a_case_is_reproducible() -> None:
    one = generate_case("t-single_hop-1", "single_hop", seed=2, dialogue=False, target_tokens=2000, related=5)
    two = generate_case("t-single_hop-1", "single_hop", seed=2, dialogue=False, target_tokens=2000, related=5)
    assert list(one.turns()) == list(two.turns()) and dataclasses.replace(one, turns=two.turns) == two
    assert all(re.search(r" \(place: the \w+\)$", m.text) for m in one.turns())
    other = generate_case(
        "t-single_hop-1", "single_hop", seed=3, dialogue=False, target_tokens=2000, related=5
    )
    assert other.question != one.question or list(other.turns()) != list(one.turns())


def test_noise_streams_are_shared_per_seed() -> None:
    assert noise_stream(0, True) is noise_stream(0, True) and noise_stream(0, True) is not noise_stream(
        0, False
    )
