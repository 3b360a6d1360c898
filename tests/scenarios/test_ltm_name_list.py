"""Name List (GoodAI App. A.4): generator, JSON-list scorer, engine calibration, GoodAI files."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.scenarios.ltm.name_list import (
    QUESTION,
    RESET_MESSAGE,
    SCENARIO,
    TEMPLATES,
    score_name_list,
)
from tests.support.ltm import generator, needs_goodai, published, stored_agreement

generate = generator(SCENARIO)


def stated_name(line: str) -> str:
    for template in TEMPLATES:
        before, after = template.split("{name}")
        if line.startswith(before) and line.endswith(after):
            return line[len(before) : len(line) - len(after)]
    raise AssertionError(f"no template produced {line!r}")


# -- generator ------------------------------------------------------------------------------------


def test_seeds_and_repetitions_give_different_names() -> None:
    names = {tuple(generate(seed, rep).expected) for seed in range(3) for rep in (1, 2, 3)}
    assert len(names) == 9
    reps = [set(generate(5, rep).expected) for rep in (1, 2, 3)]
    assert not (reps[0] & reps[1] or reps[0] & reps[2] or reps[1] & reps[2]), "repetitions never share a name"


def test_shape_follows_the_paper() -> None:
    for seed in range(10):
        definition = generate(seed=seed)
        statements = [line.text for line in definition.script[:-1]]
        names = [stated_name(text) for text in statements]
        assert len(statements) == 5 and len({name.lower() for name in names}) == 5
        assert definition.script[-1].text == QUESTION and definition.script[-1].is_question
        assert "JSON list" in QUESTION
        assert not any(line.is_question for line in definition.script[:-1])
        assert definition.expected == names
        assert json.loads(definition.ideal_answers[0]) == names
        assert definition.reset_message == RESET_MESSAGE and "forget" in RESET_MESSAGE.lower()
        assert definition.test_id == "name_list[rep1]"
        assert definition.skills == ("recall", "conflicting_information")
    waits = [line.wait for line in generate().script]
    assert waits == [{"percentage_finished": p} for p in (18.0, 36.0, 54.0, 72.0, 90.0)] + [{}]


def test_name_changes_parameter() -> None:
    assert len(generate(name_changes=2).script) == 3
    assert generate(name_changes=2).params == {"name_changes": 2}
    with pytest.raises(UsageError, match="'name_changes' must be of type int"):
        SCENARIO.generate("ltm", {"name_changes": "5"}, 0, 1)
    with pytest.raises(UsageError, match="at least 1"):
        SCENARIO.generate("ltm", {"name_changes": 0}, 0, 1)


# -- scorer ---------------------------------------------------------------------------------------

NAMES = ["Terence", "Christopher", "Jane", "Liam", "Janet"]
OLD = ["Gabriel", "Sinead"]  # names of an earlier repetition


@pytest.mark.parametrize(
    ("reply", "paper", "official", "why"),
    [
        ('["Terence", "Christopher", "Jane", "Liam", "Janet"]', 1, 1, "plain JSON list"),
        ('```json\n["terence", "CHRISTOPHER", "Jane", "Liam", "Janet"]\n```', 1, 1, "fenced, case ignored"),
        (
            (
                'Sure! Here are the names:\n\n["Terence", "Christopher", "Jane", "Liam", "Janet"]\n\nAnything'
                " else, Janet?"
            ),
            1,
            1,
            "verbose: prose before and after the list",
        ),
        ('["Terence", "Christopher", "Jane", "Liam", "Janet",]', 1, 1, "trailing comma"),
        ('["Janet", "Liam", "Jane", "Christopher", "Terence"]', 1, 1, "order does not matter"),
        ('["Terence", "Christopher", "Jane", "Liam"]', 0.8, 0.8, "one name missing"),
        (
            '["Gabriel", "Sinead", "Terence", "Christopher", "Jane", "Liam", "Janet"]',
            5 / 7,
            5 / 7,
            "names of an older repetition listed too (App. D)",
        ),
        ('["Gabriel", "Sinead", "Phillip", "Jody", "Samantha"]', 0, 0, "only the older repetition's names"),
        ('["Janet"]', 0.2, 0.2, "only the last name, as if asked for the current name"),
        (
            '["Terence", "Terence", "Christopher", "Jane", "Liam", "Janet"]',
            5 / 6,
            5 / 6,
            "a repeat counts as wrong",
        ),
        (
            '{"names": ["Terence", "Christopher", "Jane", "Liam", "Janet"]}',
            1,
            0,
            "wrapper object: paper reads its list, official counts its key 'names'",
        ),
        ('[{"name": "Terence"}, {"name": "Jane"}]', 0, 0, "wrong format: objects instead of strings"),
        ("Terence, Christopher, Jane, Liam and Janet.", 0, 0, "wrong format: prose, not JSON"),
        ('"Terence"', 0, 0, "a JSON string is not a list"),
        ("[]", 0, 0, "empty list"),
        ("I don't know.", 0, 0, "abstention"),
        ("", 0, 0, "no reply"),
    ],
)
def test_scorer_verdicts_under_both_profiles(reply: str, paper: float, official: float, why: str) -> None:
    assert score_name_list(NAMES, reply, "paper").value == pytest.approx(paper), why
    assert score_name_list(NAMES, reply, "official").value == pytest.approx(official), why


def test_scorer_reasons_are_readable() -> None:
    older = score_name_list(NAMES, json.dumps(OLD + NAMES[:4]), "paper")
    assert older.reasons == (
        "'gabriel' was not expected",
        "'sinead' was not expected",
        "missing from the reply: 'janet'",
        "4 correct / max(5 expected, 6 answered) = 0.667",
        "paper profile",
    )
    wrapped = score_name_list(NAMES, json.dumps({"names": NAMES}), "official")
    assert wrapped.reasons[:2] == (
        "the reply is a JSON object: its keys are read as the names, as the reference does",
        "'names' was not expected",
    )
    assert score_name_list(NAMES, json.dumps({"names": NAMES}), "paper").reasons[0] == (
        "read the list under the single key 'names' of a JSON object"
    )
    for profile in ("paper", "official"):
        unparseable = score_name_list(NAMES, "I don't know.", profile)
        assert unparseable.value == 0 and "not JSON" in unparseable.reasons[0]
    assert "not a name" in score_name_list(NAMES, "[1, 2]", "official").reasons[0]
    with pytest.raises(ValueError, match="unknown scoring profile"):
        score_name_list(NAMES, "[]", "strict")


# -- GoodAI definitions and results ---------------------------------------------------------------


@needs_goodai
def test_from_goodai_reads_the_published_definitions() -> None:
    pairs = published(SCENARIO, "NameList")
    assert len(pairs) == 3
    for raw, definition in pairs:
        assert definition.questions == [raw["script"][-1]]
        assert definition.expected == raw["expected_responses"]
        assert definition.script[0].wait == {"percentage_finished": 18.0} and definition.script[-1].wait == {}
        assert definition.reset_message == RESET_MESSAGE
        for profile in ("paper", "official"):
            assert score_name_list(definition.expected, definition.ideal_answers[0], profile).value == 1
            assert score_name_list(definition.expected, "I don't know.", profile).value == 0


@needs_goodai
def test_agreement_with_the_stored_verdicts() -> None:
    """The 9 stored NameList results of Benchmark 3 (gpt-4o 1k and 32k isolated, Mixtral 1k).

    official: 9/9 (none carries a hand correction).  paper: 8/9 — Mixtral's `{"names": [...]}`
    (1k, 1_0) scores 1 under the paper profile, which reads a single-list wrapper as its list,
    while the reference iterated the object's keys, answered the one name "names" and gave 0.
    """

    def verdict(stored: dict[str, Any], profile: str) -> float:
        assert "auto_score" not in stored
        return score_name_list(stored["expected_responses"], stored["actual_responses"][-1], profile).value

    assert stored_agreement("NameList", verdict) == (9, {"paper": 8, "official": 9})
