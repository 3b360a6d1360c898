"""Jokes (skill E, episodic): jokes told hours apart, then "which joke did I tell you H hours ago?".

GoodAI paper App. A.2: `jokes_told` one-liners (4 in the standard configuration), each its own
message, drawn without replacement from a list of nine or more (ours: `JOKES`, written for this
project).  After each joke the test waits both a random 30–240 simulated minutes (seeded here; the
reference uses the unseeded global `random`) and until (k+1)·90/jokes_told % of the memory span has
passed, so the last joke lands at 90 % of the span.  One of the told jokes is the target.

The question is built at ask time from the simulated clock: "Which joke did I tell you about
{H} hours {M} minutes ago?", the time since the target joke was sent, a part left out when it is 0.
The script therefore holds a placeholder question line (`QUESTION_TEMPLATE`, `{elapsed}` unfilled)
and the scenario's `program` writes the real text.  How the elapsed time is phrased:
  paper     days are folded into the hours (27 h 5 min → "27 hours 5 minutes"); singular and plural
            forms; a zero part is left out ("3 hours", "45 minutes").
  official  the reference's phrase: it reads `timedelta.seconds`, which drops whole days (27 h 5 min
            → "3 hours 5 minutes" — a known quirk), always says "hours"/"minutes", and on the exact
            hour still says "0 minutes".  (Its double space before "ago" is not reproduced.)
With the default waits (at most 4 × 240 min = 16 h since the first joke) the two phrasings differ
only in number agreement and exact hours; days matter only with more jokes or longer waits.

Scoring (one question; the program scores the reply it got, since only it knows the question text):
  both      1 if the target joke's full text is in the reply verbatim (case-sensitive substring);
            otherwise the judge's `reference` task (paper Fig. 8: does the answer refer to the
            expected answer?) decides, given the question that was actually asked.
  paper     additionally, before asking the judge: a reply that quotes verbatim another joke of
            this test (and not the target) scores 0 without the judge.  App. B.2 reports the LLM
            judge crediting replies that alluded to a different joke, which the authors then scored
            0 by hand; this makes that manual correction automatic.
  official  the judge decides every non-verbatim reply, as the reference code does.
  both      a reply that recounts the target together with two or more of the other jokes told
            (verbatim, or half of a joke's words) names no joke in particular and scores 0.  The
            reference's string match would give it 1, but Benchmark 3's published verdicts give
            such listings 0 ("the agent recalls all the jokes with no definitive answer"), and a
            list of every joke answers nothing about the one told at that time.
No reset statement (the reference has none).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import Any

from pytest_memorybench.contract.program import Finish, ProgramContext, Say, TestProgram, Wait
from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.records import Score, ScriptLine, TestDefinition
from pytest_memorybench.judges.base import Judge
from pytest_memorybench.judges.local import LocalJudge
from pytest_memorybench.scenarios.base import definition
from pytest_memorybench.scenarios.ltm.goodai_format import GoodAIDefinitionFile, script_from_goodai
from pytest_memorybench.scenarios.opening import opening
from pytest_memorybench.scenarios.waits import spread_over_span
from pytest_memorybench.scoring.judged import score_reference
from pytest_memorybench.scoring.profiles import OFFICIAL, PAPER, Profile

NAME = "ltm.jokes"
SKILLS = ("episodic",)
QUESTION_TEMPLATE = "Which joke did I tell you about {elapsed} ago?"
UNKNOWN_ELAPSED = "some time"  # fills the template when a reply is scored without the asked question

JOKES = (
    "My GPS broke up with me; it said we were heading in different directions.",
    "The snowman applied for a mortgage, but the bank said his assets were melting.",
    "I hired a tortoise as my accountant because he never rushes a single figure.",
    "My kettle has a short temper: the moment things heat up, it starts whistling at me.",
    "I tried to teach my cat algebra, but she ignored every x and chased every y.",
    "The baker finally retired once he had enough dough to loaf around all day.",
    "My socks kept vanishing in the dryer, so I hired a detective who finds lost soles.",
    "The mathematician's parrot only repeats itself at prime times.",
    "My toaster wrote a memoir, but the critics said it was mostly crumbs and warm feelings.",
    "The lighthouse keeper quit because the job kept him in the dark about his career.",
    "I asked the mountain for advice, but it just told me to take things one peak at a time.",
    "My umbrella resigned, saying it was tired of being put up with every time it rained.",
)


@dataclass(frozen=True)
class JokesParams:
    """How many jokes are told and how many minutes pass after each."""

    jokes_told: int = 4
    minutes_low: int = 30
    minutes_high: int = 240

    def __post_init__(self) -> None:
        if not 1 <= self.jokes_told <= len(JOKES):
            raise ValueError(f"jokes_told must be between 1 and {len(JOKES)}, got {self.jokes_told}")
        if not 1 <= self.minutes_low <= self.minutes_high:
            raise ValueError(
                f"minutes_low and minutes_high must satisfy 1 <= low <= high, got {self.minutes_low},"
                f" {self.minutes_high}"
            )


def elapsed_phrase(delta: timedelta, profile: Profile = PAPER) -> str:
    """How long ago, in the question's words (see the module docstring for the two profiles)."""
    if profile == OFFICIAL:
        total_minutes = delta.seconds // 60  # timedelta.seconds: whole days are dropped
        hours, minutes = divmod(total_minutes, 60)
        parts = ([f"{hours} hours"] if hours else []) + ([f"{minutes} minutes"] if total_minutes else [])
    else:
        total_minutes = int(delta.total_seconds()) // 60
        hours, minutes = divmod(total_minutes, 60)
        parts = ([f"{hours} hour{'' if hours == 1 else 's'}"] if hours else []) + (
            [f"{minutes} minute{'' if minutes == 1 else 's'}"] if minutes else []
        )
    return " ".join(parts) or "less than a minute"


def question_for(delta: timedelta, profile: Profile = PAPER) -> str:
    """The question about the joke told a given time ago, in the profile's wording."""
    return QUESTION_TEMPLATE.format(elapsed=elapsed_phrase(delta, profile))


class Jokes:
    """`ltm.jokes`: which joke was told a given time ago, on the simulated clock."""

    name = NAME
    skills = SKILLS

    def generate(self, suite: str, params: Mapping[str, Any], seed: int, repetition: int) -> TestDefinition:
        settings, rng = opening(JokesParams, NAME, params, seed, repetition)
        told = rng.sample(JOKES, settings.jokes_told)
        minutes = [rng.randint(settings.minutes_low, settings.minutes_high) for _ in told]
        target = rng.choice(told)
        waits = spread_over_span(len(told) + 1)  # (k+1)·90/jokes_told % after joke k, none after the question
        script = tuple(
            ScriptLine(joke, wait={"time": minute * 60, **wait})
            for joke, minute, wait in zip(told, minutes, waits[: len(told)], strict=True)
        ) + (ScriptLine(QUESTION_TEMPLATE, is_question=True),)
        params = asdict(settings)
        return definition(self, suite, repetition, seed, script, (target,), target, params)

    def from_goodai(
        self, raw: GoodAIDefinitionFile, example_id: str, suite: str, repetition: int
    ) -> TestDefinition:
        """A GoodAI Jokes file: its jokes and waits, plus our placeholder for the ask-time question.

        The files list one more `is_question`/`waits` entry than script lines: the question is not
        stored, since the reference writes it at ask time too.
        """
        jokes = script_from_goodai(raw)
        expected = raw["expected_responses"][0]
        if expected not in [line.text for line in jokes]:
            raise ValueError(
                f"GoodAI Jokes example {example_id}: the expected joke is not among the jokes told"
            )
        question_wait = raw["waits"][len(jokes)] if len(raw["waits"]) > len(jokes) else {}
        script = jokes + (
            ScriptLine(
                QUESTION_TEMPLATE,
                is_question=True,
                wait={k: v for k, v in (question_wait or {}).items() if v},
            ),
        )
        params = {"goodai_example": example_id}
        return definition(self, suite, repetition, 0, script, (expected,), expected, params)

    async def program(self, definition: TestDefinition, context: ProgramContext) -> TestProgram:
        """Tell the jokes with their waits, then ask about the target with the time the clock shows."""
        told_at: datetime | None = None
        for line in definition.script:
            if line.is_question:
                since = context.clock.now() - (told_at or context.clock.now())
                question = question_for(since, context.scoring.profile)
                reply = yield Say(question, is_question=True, ideal=definition.ideal_answers[0])
                yield Finish(await score_joke(definition, question, reply or "", context.scoring))
                return
            if line.text == definition.expected and told_at is None:
                told_at = context.clock.now()
            yield Say(line.text)
            wait = Wait.from_goodai(line.wait)
            if wait is not None:
                yield wait

    async def score(
        self, definition: TestDefinition, responses: Sequence[str], context: ScoringContext
    ) -> Score:
        """The reply scored without the asked question (the engine scores through `program`)."""
        question = QUESTION_TEMPLATE.format(elapsed=UNKNOWN_ELAPSED)
        return await score_joke(definition, question, responses[-1] if responses else "", context)


async def score_joke(definition: TestDefinition, question: str, reply: str, context: ScoringContext) -> Score:
    """Whether the reply quotes the target joke (or, failing that, the judge says it refers to it)."""
    expected: str = definition.expected
    tag = f"{context.profile} profile"
    listed = recounted(
        [line.text for line in definition.script if not line.is_question and line.text != expected], reply
    )
    if len(listed) >= 2 and (expected in reply or len(recounted([expected], reply)) == 1):
        return Score(
            0.0,
            (
                (
                    f"the reply recounts {len(listed) + 1} of the jokes told, the target among them, without"
                    f" naming one ({tag})"
                ),
            ),
        )
    if expected in reply:
        return Score(1.0, (f"the reply quotes the target joke verbatim ({tag})",))
    if context.profile != OFFICIAL:
        others = [line.text for line in definition.script if not line.is_question and line.text != expected]
        quoted = [joke for joke in others if joke in reply]
        if quoted:
            return Score(
                0.0, (f"the reply quotes another joke of this test, {quoted[0]!r}, not the target ({tag})",)
            )
    judge: Judge = context.judge or LocalJudge()
    verdict = await score_reference(judge, question=question, expected=expected, answer=reply, scorer=NAME)
    return Score(
        verdict.value,
        (f"the reply does not quote the target joke verbatim; {'; '.join(verdict.reasons)} ({tag})",),
    )


def recounted(jokes: Sequence[str], reply: str) -> list[str]:
    """The jokes the reply tells again: verbatim, or with half of their words."""
    from pytest_memorybench.judges.local.text import analyse, coverage  # scoring's, not generation's

    words = analyse(reply).content_set
    return [joke for joke in jokes if joke in reply or coverage(analyse(joke).content, words) >= 0.5]


SCENARIO = Jokes()
