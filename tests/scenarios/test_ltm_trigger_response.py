"""Trigger Response (GoodAI App. A.9): generator, the three-step scorer under both profiles."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from pytest_memorybench.agents.reference.null import NullAgent
from pytest_memorybench.agents.reference.oracle import OracleAgent
from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.core.records import TestDefinition
from pytest_memorybench.judges.base import JudgeStats, JudgeTask, JudgeVerdict
from pytest_memorybench.scenarios.ltm.trigger_response import (
    RESET,
    SCENARIO,
    TRIGGERS,
    score_trigger_replies,
    score_trigger_reply,
    standardise,
)
from tests.support.engine import converse
from tests.support.ltm import GOODAI_TESTS, generator, goodai_results, needs_goodai

DEFINITIONS = GOODAI_TESTS / "Benchmark 3 - 32k/definitions/Trigger Response"

DIET = "resist temptation and stick to your diet"
UMBRELLA = "Do not forget your umbrella"


generate = generator(SCENARIO)


def verdict(expected: str, reply: str, profile: str = "paper", judge: Any = None) -> bool:
    return asyncio.run(score_trigger_reply(expected, reply, profile, judge))[0]


class FakeJudge:
    """Answers the `sentence` task with a fixed verdict, and records what it was asked."""

    name = "fake"

    def __init__(self, data: dict[str, Any] | None, error: str | None = None) -> None:
        self.data, self.error, self.tasks = data, error, []
        self.stats = JudgeStats()

    async def judge(self, task: JudgeTask) -> JudgeVerdict:
        self.tasks.append(task)
        return JudgeVerdict(task.kind, self.data, self.error)


# -- generator ----------------------------------------------------------------------------------


def test_our_triples() -> None:
    assert len(TRIGGERS) >= 7
    for field in ("request", "response", "trigger"):
        assert len({getattr(t, field) for t in TRIGGERS}) == len(TRIGGERS)
    for t in TRIGGERS:
        assert standardise(t.response) not in standardise(t.trigger), "the trigger must not say the answer"
        assert all(standardise(t.response) not in standardise(o.response) for o in TRIGGERS if o is not t)


def test_repetitions_walk_all_triples_before_repeating() -> None:
    firsts = [generate(seed=4, repetition=r).script[0].text for r in range(1, len(TRIGGERS) + 1)]
    assert len(set(firsts)) == len(TRIGGERS)
    assert generate(seed=4, repetition=len(TRIGGERS) + 1).script[0].text == firsts[0]
    orders = {tuple(generate(seed=s, repetition=r).script[0].text for r in (1, 2, 3)) for s in range(6)}
    assert len(orders) > 1, "the order depends on the seed"


def test_shape_follows_the_paper() -> None:
    for seed in range(10):
        definition = generate(seed=seed)
        chosen = next(
            t for t in TRIGGERS if definition.script[0].text == f"Whenever I {t.request}, say: '{t.response}'"
        )
        assert [line.text for line in definition.script[1:]] == [chosen.trigger] * 3
        assert [line.is_question for line in definition.script] == [False, True, True, True]
        assert definition.expected == [chosen.response] * 3
        assert definition.ideal_answers == (chosen.response,) * 3
        assert definition.reset_message == RESET
        assert definition.skills == ("conflicting_information", "prospective")
        assert definition.params == {"trigger_activations": 3, "rouge_threshold": 0.75}
    waits = [line.wait for line in generate().script]
    assert waits == [
        {"percentage_finished": 30.0},
        {"percentage_finished": 60.0},
        {"percentage_finished": 90.0},
        {},
    ]


def test_parameters() -> None:
    definition = generate(trigger_activations=5)
    assert len(definition.script) == 6 and len(definition.expected) == 5
    with pytest.raises(UsageError, match="trigger_activations must be at least 1"):
        generate(trigger_activations=0)
    with pytest.raises(UsageError, match="'rouge_threshold' must be of type float"):
        generate(rouge_threshold="high")
    with pytest.raises(UsageError, match=r"rouge_threshold must be in \[0, 1\), got 1.0"):
        generate(rouge_threshold=1)  # a whole number is read as a float, then range-checked
    with pytest.raises(UsageError, match="unknown parameter 'activations'"):
        generate(activations=3)


# -- scorer: one reply ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expected", "reply", "paper", "official", "why"),
    [
        (DIET, "Resist temptation and stick to your diet.", 1, 1, "case and punctuation are ignored"),
        (
            DIET,
            "Remember to resist temptation and stick to your diet! A walk might help.",
            1,
            1,
            "verbose, but contains it",
        ),
        ("It's party time!", "its party time", 1, 1, "apostrophes go with the punctuation"),
        (
            DIET,
            "Resisting temptation and sticking to your diet.",
            0,
            1,
            "only the stemmer equates stick/sticking",
        ),
        (DIET, "I don't know.", 0, 0, "abstention"),
        (DIET, "Noted.", 0, 0, "a bare acknowledgement"),
        (UMBRELLA, "Remember to stretch every hour", 0, 0, "another repetition's sentence"),
        (
            UMBRELLA,
            "Sure! Whenever you mention rain I'll remind you about your umbrella.",
            0,
            0,
            "promising is not saying",
        ),
        (
            UMBRELLA,
            "Don't forget your umbrella!",
            0,
            0,
            "a contraction: ROUGE-L F 0.667 even on the extracted text",
        ),
        (UMBRELLA, "It is pouring with rain outside.", 0, 0, "echoing the trigger"),
        (
            "Here is a tissue for you",
            "Bless you! It seems you sneezed. I'm here to help!",
            0,
            0,
            "the conventional reply",
        ),
    ],
)
def test_single_reply_verdicts(expected: str, reply: str, paper: int, official: int, why: str) -> None:
    assert verdict(expected, reply, "paper") == bool(paper), why
    assert verdict(expected, reply, "official") == bool(official), why


def test_rouge_decides_before_the_judge() -> None:
    judge = FakeJudge({"present": False, "extracted": None})
    hit, why = asyncio.run(score_trigger_reply(DIET, "resist temptation and stick to a diet", "paper", judge))
    assert hit and why.startswith("ROUGE-L F = 0.857 > 0.75") and judge.tasks == []


def test_the_judge_locates_and_rouge_decides() -> None:
    reply = "Sure, here is what I always say: resist temptation, stick to your diet. Anything else?"
    extracting = FakeJudge({"present": True, "extracted": "resist temptation, stick to your diet"})
    hit, why = asyncio.run(score_trigger_reply(DIET, reply, "paper", extracting))
    assert hit and "extracted" in why
    assert extracting.tasks == [
        JudgeTask("sentence", {"answer": reply, "sentence": DIET}, "ltm.trigger_response")
    ]
    loose = FakeJudge({"present": True, "extracted": "stay healthy"})
    hit, why = asyncio.run(score_trigger_reply(DIET, "Stay healthy!", "paper", loose))
    assert not hit and "is not above 0.75" in why, "present alone does not count"
    absent = FakeJudge({"present": False, "extracted": None})
    assert not asyncio.run(score_trigger_reply(DIET, "Stay healthy!", "paper", absent))[0]


def test_an_unparseable_judge_verdict_is_a_miss_with_its_reason() -> None:
    broken = FakeJudge(None, error="judge-unparseable: not JSON")
    hit, why = asyncio.run(score_trigger_reply(DIET, "Stay healthy!", "official", broken))
    assert not hit and why.endswith("judge-unparseable: not JSON")


# -- scorer: the three triggers --------------------------------------------------------------------


def test_partial_credit_when_the_last_trigger_is_forgotten() -> None:
    """App. D: agents often answer the first two triggers and miss the third."""
    score = asyncio.run(score_trigger_replies([DIET] * 3, [DIET, DIET + ".", "Have a biscuit!"], "paper"))
    assert score.value == pytest.approx(2 / 3)
    assert score.reasons[0].startswith("trigger 1: hit") and score.reasons[2].startswith("trigger 3: miss")
    assert score.reasons[-1] == "2 of 3 triggers answered with the sentence, paper profile"


def test_missing_replies_are_misses() -> None:
    score = asyncio.run(score_trigger_replies([DIET] * 3, [DIET], "official"))
    assert score.value == pytest.approx(1 / 3) and score.reasons[1] == "trigger 2: no reply"


def test_scenario_scores_with_the_local_judge_when_none_is_given() -> None:
    definition = generate(seed=2)
    for profile in ("paper", "official"):
        context = ScoringContext(profile=profile)
        assert asyncio.run(SCENARIO.score(definition, list(definition.ideal_answers), context)).value == 1.0
        assert asyncio.run(SCENARIO.score(definition, ["I don't know."] * 3, context)).value == 0.0


# -- GoodAI definitions and stored verdicts -------------------------------------------------------


@needs_goodai
def test_from_goodai_keeps_the_reference_script() -> None:
    raw = json.loads((DEFINITIONS / "1.def.json").read_text())
    definition = SCENARIO.from_goodai(raw, "1", "goodai", 2)
    assert [line.text for line in definition.script] == raw["script"]
    assert [line.is_question for line in definition.script] == raw["is_question"]
    assert [line.wait for line in definition.script] == raw["waits"]
    assert definition.expected == ["Here is a tissue for you"] * 3 == list(definition.ideal_answers)
    assert definition.reset_message and definition.reset_message.startswith("Cancel any instructions")
    assert (
        asyncio.run(SCENARIO.score(definition, list(definition.ideal_answers), ScoringContext())).value == 1.0
    )


@needs_goodai
@pytest.mark.parametrize("profile", ["paper", "official"])
def test_parity_with_the_stored_automatic_verdicts(profile: str) -> None:
    """All 10 stored results agree with the reference's automatic verdict (`auto_score` where the
    maintainers overrode it), under both profiles, with the offline judge: 10/10.

    Against the final (human) score, 9/10: the maintainers overrode one claude-3-opus reply that
    refused the trigger "Achoo!" because the setup said "Achooo!" ("The agent is actually correct
    here"); no scorer can give that reply credit, and the reference's did not either.  Where the
    reference asked gpt-3.5 (the Mixtral replies offer recipes and "Bless you!"), the local judge
    finds no sentence, as gpt-3.5 did.
    """
    files = goodai_results("Trigger Response")
    assert len(files) == 10
    agree_auto = agree_final = 0
    for path in files:
        stored = json.loads(path.read_text())
        ours = asyncio.run(
            score_trigger_replies(stored["expected_responses"], stored["actual_responses"], profile)
        )
        agree_auto += ours.value == pytest.approx(stored.get("auto_score", stored["score"]))
        agree_final += ours.value == pytest.approx(stored["score"])
    assert (agree_auto, agree_final) == (10, 9)


# -- calibration through the engine ---------------------------------------------------------------


def run(agent: object, definitions: list[TestDefinition], span: int | None, tmp_path: Path) -> list[float]:
    outcomes = converse(definitions, agent, span=span, tmp_path=tmp_path)
    assert all(outcome.error is None for outcome in outcomes.values())
    return [outcome.score.value for outcome in outcomes.values()]


def test_calibration_over_every_triple(tmp_path: Path) -> None:
    definitions = [generate(seed=0, repetition=r) for r in range(1, len(TRIGGERS) + 1)]
    assert run(OracleAgent(), definitions, 2000, tmp_path) == [1.0] * len(TRIGGERS)
    assert run(NullAgent(), definitions, 2000, tmp_path) == [0.0] * len(TRIGGERS)
