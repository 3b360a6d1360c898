"""The local judge on answers that are a value: clock times, identifiers ("HTML5", "v1.2.1", "app.py"),
short criteria ("should state: Go"), and the word forms BEAM's rubric labels use ("setup" for
"setting up", "implementation" for "implementing").  Each right answer has its wrong twins: another
time, another identifier, the old value, a denial, a hedge."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_memorybench.judges.base import JudgeTask
from pytest_memorybench.judges.local import LocalJudge, analyse
from pytest_memorybench.judges.local.identifiers import identifier_written
from pytest_memorybench.judges.local.stance import stance
from pytest_memorybench.judges.local.text import clean, word_found
from pytest_memorybench.judges.replies import validate

JUDGE = LocalJudge()


def verdict(kind: str, **payload: Any) -> dict[str, Any]:
    result = JUDGE.judge_now(JudgeTask(kind, payload))
    assert result.ok, result.error
    assert result.data is not None
    assert validate(kind, result.data, payload) == result.data
    return result.data


def nugget(criterion: str, answer: str) -> float:
    return float(verdict("nugget", question="What is it now?", nugget=criterion, answer=answer)["score"])


# -- what the analysis reads -------------------------------------------------------------------------------


def test_a_clock_time_alone_is_a_value_not_an_empty_text() -> None:
    four_thirty = analyse("4:30 PM")
    assert four_thirty.times == frozenset({(16 * 60 + 30, True)})
    assert not four_thirty.empty
    assert analyse("4 PM").times == frozenset({(16 * 60, True)})
    assert analyse(" . ").empty and analyse("the").empty


@pytest.mark.parametrize(
    ("text", "identifiers", "numbers"),
    [
        ("We use HTML5.", {"html5"}, ()),
        ("Authlib v1.2.1 is installed", {"1.2.1"}, ()),  # a version is no number 1.2
        ("version 1.2.1", {"1.2.1"}, ()),
        ("3C2 = 3 ways", {"3c2"}, (3.0,)),  # the 3 of 3C2 is no number; the answer's 3 is
        ("Photos go to S3 via OAuth2", {"s3", "oauth2"}, ()),
        ("The entry point is app.py; settings in config.yaml.", {"apppy", "configyaml"}, ()),
        ("Charts with Chart.js", {"chartjs"}, ()),
        ("Written in C++, not C#", {"c++", "c#"}, ()),
        ("Python 3.11", set(), (3.11,)),  # two words: a name and a number
        ("It costs $1.5 million over 12 months", set(), (1_500_000.0, 12.0)),
        ("The meeting is at 4:30 pm on 9 May", set(), ()),
    ],
)
def test_identifiers_are_read_whole(text: str, identifiers: set[str], numbers: tuple[float, ...]) -> None:
    analysis = analyse(text)
    assert analysis.identifiers == identifiers
    assert analysis.numbers == numbers


def test_an_identifier_is_found_in_one_token_or_two_and_never_by_spelling_distance() -> None:
    assert identifier_written("html5", clean("You chose HTML 5."))
    assert identifier_written("python3.11", clean("Python 3.11 it is."))
    assert identifier_written("1.2.1", clean("It's v1.2.1."))
    assert identifier_written("chartjs", clean("ChartJS"))
    assert not identifier_written("html5", clean("HTML4, not XHTML."))
    assert not identifier_written("python3", clean("python2"))  # 86 % alike: still another name
    assert not identifier_written("1.2.1", clean("1.2.2"))


def test_acronym_plurals_and_word_forms() -> None:
    assert "api" in analyse("Two APIs and their URLs").content
    assert word_found("implementation", frozenset({"implementing"}))
    assert word_found("improvement", frozenset({"improving"}))
    assert word_found("application", frozenset({"applying"}))
    assert not word_found("statement", frozenset({"stating", "station"}))  # a shared "stat" is chance
    assert not word_found("apartment", frozenset({"apart"}))  # "apart" has no ending to come from
    assert "setup" in analyse("Setting up the project").content_set
    assert "setup" not in analyse("Setting the table").content_set
    assert analyse("Setting up the project").words_against(analyse("Project setup")) == ("setup", "project")
    assert analyse("Setting up the project").words_against(analyse("Project plan")) == ("setting", "project")


def test_a_point_or_comma_inside_a_number_ends_no_sentence() -> None:
    text = "keep or raise the 90% on-time rate with release 2.3.0 or later"
    start = text.index("2.3.0")
    assert stance(text, start, start + 5) == "hedged"  # the "or later" is in the same sentence
    assert stance("it costs 1,500 euros, not less.", 9) is None


# -- nuggets with values -----------------------------------------------------------------------------------

TIME = "LLM response should state: 4:30 PM"
HOUR = "LLM response should state: 4 PM"


@pytest.mark.parametrize(
    ("criterion", "answer", "score"),
    [
        (TIME, "4:30 PM", 1),
        (TIME, "It's at 4:30 pm now.", 1),
        (TIME, "16:30", 1),
        (TIME, "Half past four in the afternoon.", 1),
        (TIME, "4 PM", 0),  # the old time
        (TIME, "5:30 PM", 0),
        (TIME, "It is no longer at 4:30 PM.", 0),
        (TIME, "Either 4:30 PM or 5 PM.", 0),
        (TIME, "I don't know.", 0),
        (HOUR, "4 PM", 1),
        (HOUR, "At four o'clock in the afternoon.", 1),
        (HOUR, "5 PM", 0),
        (HOUR, "9 AM", 0),
        (HOUR, "4 AM", 0),
        (HOUR, "It moved to 4 PM, not 5 PM.", 1),
        (HOUR, "Was it 4 PM?", 0),
        ("LLM response should state: 9:45 AM", "Your flight leaves at 7:45 in the morning.", 0),
    ],
)
def test_time_only_criteria(criterion: str, answer: str, score: float) -> None:
    assert nugget(criterion, answer) == score


@pytest.mark.parametrize(
    ("criterion", "answer", "score"),
    [
        ("LLM response should state: HTML5", "HTML5", 1),
        ("LLM response should state: HTML5", "You chose HTML 5 for the templates.", 1),
        ("LLM response should state: HTML5", "HTML4", 0),
        ("LLM response should state: HTML5", "HTML", 0),
        ("LLM response should state: HTML5", "Not HTML5 but HTML4.", 0),
        ("LLM response should state: v1.2.1", "Authlib 1.2.1", 1),
        ("LLM response should state: v1.2.1", "Authlib v1.2.2", 0),
        ("LLM response should state: v1.2.1", "Version 1.2 of Authlib.", 0),
        ("LLM response should mention: Authlib v1.2.1", "You installed Authlib v1.2.1.", 1),
        ("LLM response should state: Python 3.11", "Python 3.11", 1),
        ("LLM response should state: Python 3.11", "Python 3.12", 0),
        ("LLM response should state: OAuth 2.0", "OAuth 1.0", 0),
        ("LLM response should state: ES6", "ES6 modules", 1),
        ("LLM response should state: ES6", "ES5 modules", 0),
        ("LLM response should state: 3C2", "That's 3C2 = 3 ways.", 1),
        ("LLM response should state: 3C2", "That's 3P2 = 6 ways.", 0),
        ("LLM response should mention: app.py", "The entry point is app.py.", 1),
        ("LLM response should mention: app.py", "The entry point is main.py.", 0),
        ("should mention config.yaml", "Settings live in config.yaml.", 1),
        ("should mention config.yaml", "Settings live in config.json.", 0),
        ("LLM response should state: S3", "Photos go to an S3 bucket.", 1),
        ("LLM response should state: S3", "Photos go to a GCS bucket.", 0),
        ("LLM response should state: C++", "C++", 1),
        ("LLM response should state: C++", "C#", 0),
        ("LLM response should state: JWT", "You sign sessions with JWT.", 1),
        ("LLM response should state: JWT", "You sign sessions with OAuth.", 0),
        ("LLM response should not mention: HTML5", "You used HTML5.", 0),
        ("LLM response should not mention: HTML5", "You used plain HTML4 templates.", 1),
    ],
)
def test_identifier_criteria(criterion: str, answer: str, score: float) -> None:
    assert nugget(criterion, answer) == score


CONTRADICTION = (
    "LLM response should mention: you also said that Celery v5.3.1 was added for the nightly report jobs"
)


@pytest.mark.parametrize(
    ("criterion", "answer", "score"),
    [
        # in a long criterion a name is one detail: left out, it costs what a word costs
        (
            CONTRADICTION,
            "You also said that Celery v5.3.1 was added for the nightly report jobs.",
            1,
        ),
        (CONTRADICTION, "You also said that Celery was added for the nightly report jobs.", 1),
        # … but another one in its place is a wrong detail
        (
            CONTRADICTION,
            "You also said that Celery v5.4.0 was added for the nightly report jobs.",
            0,
        ),
        (
            CONTRADICTION,
            "You also said Celery was added for the nightly report jobs on Python 3.11.4.",
            1,
        ),
        (
            "LLM response should contain: the backups were checked against sha256 digests every night",
            "The backups were checked against sha512 digests every night.",
            0,
        ),
        ("LLM response should contain: the backups were checked every night", "Checked backups.", 0.5),
    ],
)
def test_identifiers_in_long_criteria(criterion: str, answer: str, score: float) -> None:
    assert nugget(criterion, answer) == score


@pytest.mark.parametrize(
    ("criterion", "answer", "score"),
    [
        ("LLM response should state: Go", "You rewrote the service in Go.", 1),
        ("LLM response should state: Go", "You rewrote the service in Rust.", 0),
        ("LLM response should state: yes", "Yes, you did.", 1),
        ("LLM response should state: yes", "No, you didn't.", 0),
        ("LLM response should state:", "Anything at all.", 0),  # nothing is required: nothing earned
        # BEAM's contradiction nugget: "which is correct?" leaves "statement" understood
        (
            "LLM response should mention: which statement is correct?",
            "Could you clarify which is correct?",
            1,
        ),
        ("LLM response should mention: which statement is correct?", "Which one is correct?", 1),
        ("LLM response should mention: which statement is correct?", "I don't know.", 0),
        # "till" and "from" are no words a date range must repeat
        ("LLM response should state: from March 29 till April 19", "From March 29 to April 19.", 1),
        ("LLM response should state: from March 29 till April 19", "From March 22 to April 19.", 0),
        # a value hedged, or denied, as the criterion itself words it
        (
            "LLM response should state: keep or raise the 90% on-time rate",
            "Add a spare driver to keep or raise the 90% on-time rate.",
            1,
        ),
        ("LLM response should state: keep or raise the 90% on-time rate", "Maybe 90% or 95%.", 0),
        # "to avoid" is a purpose, not the criterion's prohibition
        (
            "LLM response should contain: backup scripts to avoid duplicate copies",
            "You rewrote the backup scripts to avoid duplicate copies.",
            1,
        ),
        (
            "LLM response should contain: avoids duplicate copies",
            "Copy it again twice: duplicate copies.",
            0,
        ),
    ],
)
def test_short_and_worded_criteria(criterion: str, answer: str, score: float) -> None:
    assert nugget(criterion, answer) == score


# -- equivalence: BEAM's event labels against the items of a reply --------------------------------------


@pytest.mark.parametrize(
    ("label", "item", "equivalent"),
    [
        ("First repository setup", "Setting up the first repository with a licence file", True),
        ("Search cluster setup", "Setting up the search clusters", True),
        ("Site folder setup", "Setting up the site folder", True),  # as many words either way
        ("Release and docs improvements", "Improving the release scripts and the docs pages", True),
        (
            "Picking 2 cards at random (probability application)",
            "Applying probability to picking 2 cards out of 5 at random",
            True,
        ),  # one word each side, in two forms: no other detail
        ("Weather API caching integration", "Using weather APIs for caching and retries", True),
        ("HTML5 migration", "Migrating the templates to HTML4", False),
        ("Celery v5.3.1 integration", "Integrating Celery v5.4.0", False),
        ("The user got engaged in Paris in June.", "The user got married in Paris in June.", False),
        ("First repository setup", "Setting the first repository budget", False),
    ],
)
def test_event_labels(label: str, item: str, equivalent: bool) -> None:
    assert verdict("equivalence", first=item, second=label)["equivalent"] is equivalent


@pytest.mark.parametrize(
    ("expected", "answer", "refers"),
    [
        ("HTML5", "It's HTML5.", True),
        ("HTML5", "It's HTML4.", False),
        ("1.2.1", "Version 1.2.2.", False),  # once read as the number 1.2, which 1.2.2 also holds
        ("1.2.1", "v1.2.1", True),
        ("app.py", "main.py", False),
    ],
)
def test_reference_answers_that_are_identifiers(expected: str, answer: str, refers: bool) -> None:
    assert verdict("reference", question="Which one?", expected=expected, answer=answer)["refers"] is refers
