"""Prospective Memory (skill P): add a quote to the nth reply from now, counting this one as first.

GoodAI paper App. A.5: the test recites a quotation with its author, then asks the agent to append
that quote to its nth response, n random in 2..8, the reply to the instruction itself counting as
the first.  Our quotations (`QUOTES`) are public-domain lines by authors dead for over a century,
ten different authors so the instruction names one quote unambiguously; the repetitions of one
seed draw them without repeats, as the reference cycles through its list.

Whatever the agent answers after the instruction counts, whichever test or filler it answers: the
test registers a callback that hears every later exchange of the conversation.  The reply to the
instruction happens before the callback is registered, so the callback hears replies 2, 3, …; it
decides when the nth reply has been heard, and the calibration oracle is told to quote in its
(n−1)th reply after registration, which is reply n.  Like the reference (which "waits for 1
token" after registering), the program then polls with one-token waits until the callback has
decided, and sends the reset statement right after the verdict.  In isolated mode token waits are
ignored, so the program cannot wait for its callback: the engine feeds the callback 100-token filler
until it decides, and the reset statement is not sent (harmless: isolated tests do not share an
agent's memory; the reference still sends it there).

Scoring: full credit iff the quote appears in the nth reply and in none of replies 1..n−1, judged
when reply n arrives (later replies are not watched).  Off-by-one placements score 0.  The author
is not checked.  Quote matching, lower-cased with punctuation removed, substring:
  paper     every Unicode punctuation mark becomes a space, whitespace runs collapse, and the quote
            must stand as whole words, so curly apostrophes and dashes ("touched—they") match.
  official  the reference's `cites_quote`: lower-case, delete ASCII `string.punctuation` only,
            plain substring (a curly apostrophe or an em dash in the reply defeats the match).
"""

from __future__ import annotations

import random
import re
import string
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from pytest_memorybench.contract.program import (
    Exchange,
    ProgramContext,
    RegisterCallback,
    Say,
    TestProgram,
    Verdict,
    Wait,
)
from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.records import Score, ScriptLine, TestDefinition
from pytest_memorybench.scenarios.base import definition
from pytest_memorybench.scenarios.ltm.goodai_format import (
    GoodAIDefinitionFile,
    StoredTest,
    goodai_definition,
    goodai_format,
)
from pytest_memorybench.scenarios.opening import seeded
from pytest_memorybench.scenarios.params import read_params
from pytest_memorybench.scenarios.waits import spread_over_span
from pytest_memorybench.scoring.profiles import OFFICIAL, PAPER, Profile

NAME = "ltm.prospective_memory"
SKILLS = ("prospective",)

QUOTES = (
    ("Lost time is never found again.", "Benjamin Franklin"),
    ("Brevity is the soul of wit.", "William Shakespeare"),
    ("Hope springs eternal in the human breast.", "Alexander Pope"),
    ("The pen is mightier than the sword.", "Edward Bulwer-Lytton"),
    ("Music is the universal language of mankind.", "Henry Wadsworth Longfellow"),
    ("A house divided against itself cannot stand.", "Abraham Lincoln"),
    ("Fortune favours the bold.", "Virgil"),
    ("Hope is the thing with feathers that perches in the soul.", "Emily Dickinson"),
    ("A journey of a thousand miles begins with a single step.", "Laozi"),
    ("Well begun is half done.", "Aristotle"),
)

STATEMENT = 'Here is a quotation I like: "{quote}" ({author})'
INSTRUCTION = (
    "Once you have replied to the unrelated messages that follow, add the quote by {author} to the "
    "end of your {nth} reply. Your reply to this message counts as the first reply."
)
IDEAL_ACKNOWLEDGEMENT = "Understood."
RESET = "Please disregard my earlier request to add a quote to one of your replies."


@dataclass(frozen=True)
class ProspectiveMemoryParams:
    """The range of replies after which the quote is due."""

    min_reply: int = 2
    max_reply: int = 8

    def __post_init__(self) -> None:
        if not 2 <= self.min_reply <= self.max_reply:
            raise ValueError(
                f"min_reply and max_reply must satisfy 2 <= min <= max, got {self.min_reply},"
                f" {self.max_reply}"
            )


def ordinal(number: int) -> str:
    """1st, 2nd, 3rd, 4th, ... 11th, 12th, 13th, ... 21st."""
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


def _normalise_paper(text: str) -> str:
    spaced = "".join(" " if unicodedata.category(char).startswith("P") else char for char in text.casefold())
    return " " + " ".join(spaced.split()) + " "


_ASCII_PUNCTUATION = str.maketrans("", "", string.punctuation)


def cites_quote(quote: str, reply: str, profile: Profile = PAPER) -> bool:
    """Does the reply contain the quote (see the module docstring for the two rules)?"""
    if profile == OFFICIAL:
        return quote.lower().translate(_ASCII_PUNCTUATION) in reply.lower().translate(_ASCII_PUNCTUATION)
    return _normalise_paper(quote) in _normalise_paper(reply)


def score_replies(
    quote: str, nth: int, replies: Sequence[str], profile: Profile = PAPER, after: int = 0
) -> Score:
    """The verdict on the replies from the instruction's own reply (the first) on; needs n of them.

    `after`: replies past the nth that must not hold the quote either (Benchmarks 1 and 2, whose
    scorer looked at every line it had seen when it ran, the reply after the nth included).
    """
    tag = f"{profile} profile"
    if len(replies) < nth:
        return Score(
            0.0,
            (
                (
                    f"only {len(replies)} replies were seen after the instruction; the {ordinal(nth)} never"
                    f" came ({tag})"
                ),
            ),
        )
    cited = [
        index for index, reply in enumerate(replies[: nth + after], 1) if cites_quote(quote, reply, profile)
    ]
    elsewhere = [index for index in cited if index != nth]
    where = ", ".join(ordinal(index) for index in elsewhere)
    if nth not in cited:
        extra = f"; it is in the {where} reply instead" if elsewhere else ""
        return Score(0.0, (f"the quote is not in the {ordinal(nth)} reply{extra} ({tag})",))
    if elsewhere:
        return Score(0.0, (f"the quote is in the {ordinal(nth)} reply but also in the {where} ({tag})",))
    return Score(
        1.0,
        (
            (
                f"the quote is in the {ordinal(nth)} reply and in no {'other' if after else 'earlier'} one"
                f" ({tag})"
            ),
        ),
    )


def _after(definition: TestDefinition, profile: Profile) -> int:
    """Under the official profile a Benchmark 1 or 2 file is scored as their code did: one more reply."""
    return 1 if profile == OFFICIAL and goodai_format(definition) < 3 else 0


_QUOTED = re.compile(r"'(.*?)'")
_AUTHOR = re.compile(r"quote (?:by|from) (.+?)(?: after| in the| to your|[.,]|$)")


def older_expectation(raw: GoodAIDefinitionFile) -> tuple[str, str, int]:
    """(quote, author, n) of a Benchmark 1 or 2 file, whose expected response is a sentence.

    Their scorer took the first number of the instruction ("after the next 3 statements", "in
    the 8th new message after this one") as the count of messages after the instruction whose
    reply must hold the quote: the reply to the instruction is the first, so that reply is the
    (count + 1)th.  The quote is the first single-quoted text of the expected response
    (Benchmark 1) or of the statement (Benchmark 2), as their scorers read it.
    """
    statement, instruction = raw["script"][0], raw["script"][-1]
    source = raw["expected_responses"][0] if raw.get("_format") == 1 else statement
    quoted = _QUOTED.search(source) or _QUOTED.search(statement)
    count = re.search(r"\d+", instruction)
    if quoted is None or count is None:
        raise ValueError("no single-quoted quote or no count of messages in the Prospective Memory lines")
    author = _AUTHOR.search(instruction)
    return quoted.group(1), author.group(1).strip() if author else "", int(count.group()) + 1


@dataclass
class _Watch:
    """The callback's state, shared with the program that registered it."""

    quote: str
    nth: int
    profile: Profile
    after: int = 0  # replies past the nth that are watched too (see `score_replies`)
    first_reply: str = ""
    heard: int = 0
    verdict: Score | None = None
    replies: list[str] = field(default_factory=list)

    def hear(self, exchanges: Sequence[Exchange]) -> Verdict:
        self.heard = len(exchanges)
        self.replies = [self.first_reply, *(exchange.reply for exchange in exchanges)]
        if len(self.replies) < self.nth + self.after:
            return Verdict(done=False)
        self.verdict = score_replies(
            self.quote, self.nth, self.replies[: self.nth + self.after], self.profile, self.after
        )
        return Verdict(done=True, score=self.verdict)


class ProspectiveMemory:
    """`ltm.prospective_memory`: a quote to add to the n-th reply from now."""

    name = NAME
    skills = SKILLS

    def generate(self, suite: str, params: Mapping[str, Any], seed: int, repetition: int) -> TestDefinition:
        settings = read_params(ProspectiveMemoryParams, NAME, params)
        order = list(QUOTES)
        random.Random(f"{NAME}|{seed}|quotes").shuffle(order)  # repetitions of a seed never repeat a quote
        quote, author = order[(repetition - 1) % len(order)]
        nth = seeded(NAME, seed, repetition).randint(settings.min_reply, settings.max_reply)
        lines = [
            STATEMENT.format(quote=quote, author=author),
            INSTRUCTION.format(author=author, nth=ordinal(nth)),
        ]
        waits = spread_over_span(len(lines))
        script = tuple(
            ScriptLine(text, is_question=index == 1, wait=wait)
            for index, (text, wait) in enumerate(zip(lines, waits, strict=True))
        )
        ideal = (IDEAL_ACKNOWLEDGEMENT,)
        expected = {"quote": quote, "author": author, "nth": nth}
        params = asdict(settings)
        return definition(self, suite, repetition, seed, script, ideal, expected, params, reset_message=RESET)

    def from_goodai(
        self, raw: GoodAIDefinitionFile, example_id: str, suite: str, repetition: int
    ) -> TestDefinition:
        """A GoodAI file: its two lines and waits; `expected_responses` [[quote, author, n]], or
        prose in Benchmarks 1 and 2 (`older_expectation`)."""
        expected = raw["expected_responses"][0]
        quote, author, nth = expected if isinstance(expected, list) else older_expectation(raw)
        ideal = (IDEAL_ACKNOWLEDGEMENT,)
        expected = {"quote": quote, "author": author, "nth": int(nth)}
        return goodai_definition(
            self, raw, example_id, suite, repetition, ideal, expected, reset_message=RESET
        )

    async def program(self, definition: TestDefinition, context: ProgramContext) -> TestProgram:
        """Say the quote and the instruction, then let a callback watch the following replies."""
        expected = definition.expected
        watch = _Watch(
            expected["quote"],
            int(expected["nth"]),
            context.scoring.profile,
            _after(definition, context.scoring.profile),
        )
        ideal = iter(definition.ideal_answers)
        for line in definition.script:
            reply = yield Say(
                line.text, is_question=line.is_question, ideal=next(ideal, None) if line.is_question else None
            )
            if line.is_question:
                watch.first_reply = reply or ""
                # The callback hears reply 2 onwards: the oracle's quote is due in its (n-1)th reply.
                yield RegisterCallback(
                    watch.hear, oracle_reply=(watch.nth - 1, f'"{watch.quote}" - {expected["author"]}')
                )
                break
            wait = Wait.from_goodai(line.wait)
            if wait is not None:
                yield wait
        while watch.verdict is None:
            heard = watch.heard
            yield Wait(tokens=1)
            if watch.heard == heard:
                break  # isolated mode ignores token waits: the engine feeds the callback instead
        if watch.verdict is not None and definition.reset_message:
            yield Say(definition.reset_message)

    def score(self, definition: TestDefinition, responses: Sequence[str], context: ScoringContext) -> Score:
        """`responses`: every reply from the instruction's own on (the engine scores by callback)."""
        expected = definition.expected
        after = _after(definition, context.profile)
        return score_replies(expected["quote"], int(expected["nth"]), list(responses), context.profile, after)

    def rescore_goodai(
        self, definition: TestDefinition, stored: StoredTest, context: ScoringContext
    ) -> Score:
        """A stored GoodAI result: every reply the log holds from the instruction's own on, as the
        reference's callback read the whole message log (whichever test a reply answered)."""
        instruction = next(line.text for line in definition.script if line.is_question)
        replies = stored.replies_from(instruction) or list(stored.responses)
        return self.score(definition, replies, context)


SCENARIO = ProspectiveMemory()
