"""The BEAM-shaped generator: deterministic, sized as asked, every planted fact where its question says."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.core.tokens import default_counter
from pytest_memorybench.scenarios.beam import content
from pytest_memorybench.scenarios.beam.chat import ANY_MARKER, batches, deliver
from pytest_memorybench.scenarios.beam.generator import ChatPlan, plan_chat
from pytest_memorybench.scenarios.beam.generator import batches as generated
from pytest_memorybench.scenarios.beam.questions import ABILITIES
from pytest_memorybench.scenarios.beam.scenario import SCENARIO


def _messages(plan: ChatPlan) -> list[str]:
    return [m.text for m in deliver(batches(generated(plan)))]


@pytest.mark.parametrize("domain", [d.key for d in content.DOMAINS])
def test_twenty_questions_two_per_ability_in_every_domain(domain: str) -> None:
    plan = plan_chat(100_000, seed=5, domain=domain)
    assert plan.domain.key == domain
    assert Counter(q.ability for q in plan.questions) == dict.fromkeys(ABILITIES, 2)
    assert all(q.rubric and q.answer and q.question for q in plan.questions)


def test_the_same_seed_gives_the_same_chat_and_another_seed_another() -> None:
    first, again, other = plan_chat(60_000, seed=11), plan_chat(60_000, seed=11), plan_chat(60_000, seed=12)
    assert first.questions == again.questions and _messages(first) == _messages(again)
    assert first.questions != other.questions


@pytest.mark.parametrize("tokens", [100_000, 300_000])
def test_the_chat_has_the_size_asked_for(tokens: int) -> None:
    counter = default_counter()
    plan = plan_chat(tokens, seed=2)
    total = sum(counter.count(text) for text in _messages(plan))
    assert 0.9 * tokens <= total <= 1.1 * tokens, f"{total} tokens for a target of {tokens} ({counter.name})"


def test_the_chat_has_batches_with_time_anchors_and_markers_like_beam_s() -> None:
    plan = plan_chat(100_000, seed=4)
    raw = list(generated(plan))
    assert len(raw) == len(plan.batch_starts) == 3
    chat = list(batches(raw))
    assert [b.time_anchor for b in chat] == [f"{d:%B}-{d.day:02d}-{d.year}" for d in plan.dates]
    assert sum(len(b.turns) for b in chat) == plan.turns
    ids = [m.id for b in chat for m in b.messages]
    assert ids == list(range(2 * plan.turns))
    assert all(ANY_MARKER.search(m.content) for b in chat for m in b.messages if m.role == "user")
    assert not any(ANY_MARKER.search(text) for text in _messages(plan))


def test_every_question_s_sources_are_the_turns_that_plant_its_facts() -> None:
    plan = plan_chat(100_000, seed=8)
    by_id = {m.id: m.content for b in batches(generated(plan)) for m in b.messages}
    for q in plan.questions:
        texts = [by_id[source] for source in q.source_ids]
        if q.ability == "knowledge_update":
            assert q.extra["original"] in texts[0] and q.answer.split("now ")[1].rstrip(".") in texts[1]
        elif q.ability == "information_extraction":
            assert q.rubric[0].removeprefix("LLM response should state: ") in texts[0]
        elif q.ability == "multi_session_reasoning" and q.rubric[0].endswith(tuple("0123456789")):
            total = int(q.rubric[0].rsplit(" ", 1)[1])
            assert sum(int(re.search(r"\d+", t).group()) for t in texts) == total  # type: ignore[union-attr]
        elif q.ability == "event_ordering":
            assert len(texts) == len(q.rubric) and q.source_ids == tuple(sorted(q.source_ids))
        elif q.ability == "contradiction_resolution":
            assert sum("never" in t for t in texts) == 1
        elif q.ability in ("instruction_following", "preference_following"):
            assert len(texts) == 1 and texts[0].rstrip(" ->,0123456789") in (
                *(
                    i.said.format(
                        plan_task=plan.domain.plan_task,
                        costly=plan.domain.costly,
                        option_a=plan.domain.options[0],
                        option_b=plan.domain.options[1],
                    )
                    for i in content.INSTRUCTIONS
                ),
                *(p.said for p in content.PREFERENCES),
            )
    # Source turns sit after the first tenth of the chat (BEAM's Table 7: none in the first decile).
    first_tenth = 2 * plan.turns // 10
    assert all(s >= 2 for q in plan.questions for s in q.source_ids)
    assert (
        sum(s < first_tenth for q in plan.questions for s in q.source_ids) <= 6
    )  # instructions and preferences come early


def test_temporal_answers_are_the_days_between_the_anchors() -> None:
    plan = plan_chat(300_000, seed=9)
    days = [q for q in plan.questions if q.ability == "temporal_reasoning"][0]
    first, second = (plan.dates[plan.batch_of(source // 2)] for source in days.source_ids)
    assert days.rubric == (f"LLM response should state: {(second - first).days} days",)
    assert second > first


def test_abstention_topics_never_come_up_in_the_chat() -> None:
    plan = plan_chat(100_000, seed=6)
    chat = " ".join(_messages(plan)).lower()
    for _who, what in content.NEVER_DISCUSSED:
        assert what.lower() not in chat
    friend = plan.profile["friend"]
    assert f"{friend.lower()} thought" not in chat and f"{friend.lower()} said" not in chat


def test_the_scenario_makes_items_per_question_with_ability_and_size_markers() -> None:
    (context,) = SCENARIO.contexts("beam", {"tokens": "100K"}, seed=0)
    assert context.id == "gen-100K-1" and len(context.probes) == 20
    ids = [p.test_id for p in context.probes]
    assert ids[0] == "gen-100K-1::abstention[1]" and len(set(ids)) == 20
    assert all(p.markers == ("size_100k",) and p.skills == (p.category,) for p in context.probes)
    two = SCENARIO.contexts("beam", {"tokens": "1M", "chats": 2}, seed=0)
    assert [c.id for c in two] == ["gen-1M-1", "gen-1M-2"]


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"tokens": "tiny"}, "tokens must be a length"),
        ({"tokens": "5K"}, "at least 20K"),
        ({"domain": "baking"}, "domain must be one of"),
        ({"chats": 0}, "chats must be at least 1"),
        ({"sizes": "100KB"}, "is not a size"),
        ({"colour": "red"}, "unknown parameter 'colour'"),
    ],
)
def test_bad_parameters_fail_with_one_line(params: dict[str, object], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        SCENARIO.contexts("beam", params, seed=0)
