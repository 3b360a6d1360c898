"""BEAM questions whose answer is a value — a clock time, an identifier — in the published layout.

`tests/fixtures/beam` is a chat of our own in BEAM's repository layout (`chats/<size>/<n>/chat.json`
and `probing_questions/probing_questions.json`, each ability's answer under its own field name):
time-only answers ("4:30 PM", "4 PM"), identifier nuggets ("should state: HTML5", "v1.2.1",
"app.py", "OAuth2", "S3"), BEAM's contradiction and date-range wordings and short event labels.
The oracle scores 1 on it, the null agent 0 but on abstention, and wrong values earn nothing.
Where the published 100K chats are present (../shared/reference/beam, read in place), the oracle's
losses there are pinned, each with whose it is: the data's or the judge's.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from pytest_memorybench.agents.reference.null import ABSTENTION
from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.records import TestDefinition
from pytest_memorybench.judges.local import LocalJudge
from pytest_memorybench.scenarios.beam.loader import find_conversations
from pytest_memorybench.scenarios.beam.scenario import SCENARIO
from tests.support.paths import FIXTURES, REFERENCE
from tests.support.runs import run_benchmark

FIXTURE = FIXTURES / "beam"
PUBLISHED = REFERENCE / "beam"


def _definitions(path: Path, **params: str) -> dict[str, TestDefinition]:
    contexts = SCENARIO.contexts("beam", {"data_path": str(path), **params}, seed=0)
    return {probe.test_id: probe for context in contexts for probe in context.probes}


def _score(definition: TestDefinition, reply: str, profile: str = "paper") -> float:
    context = ScoringContext(profile=profile, judge=LocalJudge())
    return asyncio.run(SCENARIO.score(definition, [reply], context)).value


DEFINITIONS = _definitions(FIXTURE)


def test_the_fixture_is_read_as_published() -> None:
    (conversation,) = find_conversations(FIXTURE)
    assert conversation.id == "1K-1"
    assert len(conversation.questions) == len(DEFINITIONS) == 11
    by_id = {f"{q.ability}[{q.index}]": q for q in conversation.questions}
    assert by_id["knowledge_update[1]"].answer == "4:30 PM"
    assert by_id["knowledge_update[1]"].source_ids == (2, 8)  # a dict of lists, flattened in order
    assert by_id["abstention[1]"].answer.startswith("There is no information")  # from ideal_response
    assert by_id["contradiction_resolution[1]"].source_ids == (4, 10)
    assert by_id["event_ordering[1]"].rubric == (
        "Site folder setup",
        "Members' area login implementation",
        "Photo gallery speed improvements",
    )


@pytest.mark.parametrize("test_id", sorted(DEFINITIONS))
def test_the_oracle_scores_one(test_id: str) -> None:
    definition = DEFINITIONS[test_id]
    assert _score(definition, definition.ideal_answers[0]) == 1.0


@pytest.mark.parametrize("test_id", sorted(DEFINITIONS))
def test_the_null_agent_scores_nothing_but_on_abstention(test_id: str) -> None:
    score = _score(DEFINITIONS[test_id], ABSTENTION)
    if "abstention" in test_id:
        assert score == 1.0
    elif "event_ordering" in test_id:
        assert score < 0.25  # BEAM's tau_norm floor for a reply that lists no event
    else:
        assert score == 0.0


@pytest.mark.parametrize(
    ("question", "reply", "score"),
    [
        ("knowledge_update[1]", "It's at half past four in the afternoon now.", 1.0),
        ("knowledge_update[1]", "16:30", 1.0),
        ("knowledge_update[1]", "4 PM", 0.0),  # the time before the update
        ("knowledge_update[1]", "5 PM", 0.0),
        ("knowledge_update[2]", "The newsletter goes out at 4 pm now.", 1.0),
        ("knowledge_update[2]", "5 PM", 0.0),
        ("knowledge_update[2]", "9 AM", 0.0),  # the time before the update
        ("information_extraction[1]", "You're writing it in HTML 5.", 1.0),
        ("information_extraction[1]", "HTML4", 0.0),
        ("information_extraction[2]", "Authlib 1.2.1", 1.0),
        ("information_extraction[2]", "v1.2.2", 0.0),
        ("information_extraction[2]", "1.2", 0.0),
        ("multi_session_reasoning[1]", "The entry point is app.py and the settings are in config.yaml.", 1.0),
        ("multi_session_reasoning[1]", "app.py and settings.json", 0.5),
        ("multi_session_reasoning[1]", "main.py and config.json", 0.0),
        ("multi_session_reasoning[2]", "OAuth 1.0 for the login, photos in GCS.", 0.0),
        ("temporal_reasoning[1]", "44 days, from March 6 to April 19.", 0.0),
        # one side of the contradiction, taken as the answer: half of one nugget of four
        ("contradiction_resolution[1]", "No, you have never used a CSS framework.", 0.125),
    ],
)
def test_values_in_other_words_count_and_other_values_do_not(question: str, reply: str, score: float) -> None:
    assert _score(DEFINITIONS[f"1K-1::{question}"], reply) == score


def test_the_official_profile_gives_the_oracle_the_same_nuggets() -> None:
    """Under BEAM's own rules (the judge sees no question, half credit truncates) nothing changes
    for answers that are the values; event ordering splits the one-line reply at newlines only."""
    for test_id, definition in DEFINITIONS.items():
        if "event_ordering" not in test_id:
            assert _score(definition, definition.ideal_answers[0], "official") == 1.0, test_id


def test_the_suite_runs_the_fixture_through_mb_data(pytester: pytest.Pytester) -> None:
    oracle = run_benchmark(pytester, "--mb-suite=beam", "--agent=oracle", f"--mb-data=beam={FIXTURE}")
    oracle.outcome.assert_outcomes(passed=11)
    assert oracle.results["scenarios"]["beam.conversations"]["metrics"]["table"]["1K"]["average"] == 1.0
    null = run_benchmark(pytester, "--mb-suite=beam", "--agent=null", f"--mb-data=beam={FIXTURE}")
    table = null.results["scenarios"]["beam.conversations"]["metrics"]["table"]["1K"]
    assert table["abstention"] == 1.0
    assert all(
        table[ability] == 0.0
        for ability in table
        if ability not in ("abstention", "event_ordering", "average")
    )


# -- BEAM's published 100K chats, read in place ---------------------------------------------------------

# Every published 100K question the oracle (answering with the published answer) does not score 1
# on with the local judge, and why.  The data's: the instruction- and preference-following answers
# describe a compliant answer instead of being one ("Response should …"; 100K-5's second
# instruction answer even describes another question's), and one temporal answer says 4 weeks where
# its rubric (and the dates, 8.6 weeks apart) say 8.  The judge's: two event orderings whose items
# paraphrase the rubric's labels (an acronym for the words it stands for, "deciding" for
# "choosing", "examples" for "events"), which word rules do not read.
DATA_LOSSES = {
    "100K-1::instruction_following[2]": 0.0,
    "100K-1::preference_following[2]": 0.0,
    "100K-1::temporal_reasoning[1]": 0.5,
    "100K-5::instruction_following[1]": 0.25,
    "100K-5::instruction_following[2]": 0.0,
    "100K-5::preference_following[1]": 0.0,
    "100K-5::preference_following[2]": 0.0,
}
JUDGE_LOSSES = {"100K-1::event_ordering[2]": 0.533, "100K-5::event_ordering[1]": 0.315}


@pytest.mark.skipif(
    not (PUBLISHED / "chats").is_dir(), reason=f"BEAM reference data not found at {PUBLISHED}"
)
def test_on_the_published_chats_the_oracle_loses_only_where_pinned() -> None:
    definitions = _definitions(PUBLISHED, sizes="100K")
    assert len(definitions) == 40
    scores = {test_id: _score(d, d.ideal_answers[0]) for test_id, d in definitions.items()}
    losses = {test_id: round(score, 3) for test_id, score in scores.items() if score < 1}
    assert losses == DATA_LOSSES | JUDGE_LOSSES
    assert sum(scores.values()) / len(scores) == pytest.approx(0.815, abs=5e-4)  # 0.781 with local-8
