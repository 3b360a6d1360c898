"""`episodic.book`: the episodic-memory benchmark of Huet et al. (ICLR 2025) as one probe scenario.

A book of events is given to the agent, then each selected question is asked as an independent
probe (on a fork of the agent when it has one).  The book is generated from the seed (`book.py`,
the `template` writer) unless `data_path` (`--mb-data episodic=PATH`) names a book on disk: the
authors' published data or a book saved by our writers (`loader.py`; the `llm` writer saves there).

Parameters (suite `params`):
  chapters       events in a generated book: 20 (the paper's short book), 200 (long), 2000
  universe_size  N_universe, 100; distribution geometric | uniform; p the geometric parameter, 0.1
  start_date, end_date   the universe's date range, ISO dates (the paper's 2024-01-01 … 2026-12-31)
  per_bin        questions kept per (template, bin), the paper's N_target = 5
  delivery       chapters: one message per chapter (default); document: the whole book in one
                 message, for in-context baselines
  data_path      a book folder to run instead of generating one

Items: `episodic::q0137[t12-(t,s,*,*)-entities]` — question number, template id, cue, trace (and
get when not `all`).  Markers: the cue (`cue_t_s`), the trace (`entities`, `full_details`, …), the
get (`all`, `latest`, `chronological`), the bin (`bin0`, `bin1`, `bin2`, `bin3_5`, `bin6plus`) and
`empty` for empty-answer questions.  The category, `<get>/<bin>`, feeds the summary metrics
(`scoring.py`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import lru_cache
from typing import Any

from pytest_memorybench.contract.probes import ProbeContext, probe_definition
from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.core.load_report import LoadReport
from pytest_memorybench.core.records import Message, TestDefinition
from pytest_memorybench.scenarios.episodic.book import Book, BookPlan, generated_book
from pytest_memorybench.scenarios.episodic.events import DISTRIBUTIONS
from pytest_memorybench.scenarios.episodic.loader import load_book
from pytest_memorybench.scenarios.episodic.questions import (
    BIN_MARKERS,
    Question,
    book_questions,
)
from pytest_memorybench.scenarios.episodic.scoring import score_question, summarize
from pytest_memorybench.scenarios.episodic.templates import TRACE_FEATURE, TRACE_MARKERS
from pytest_memorybench.scenarios.params import at_least, read_params

NAME = "episodic.book"
SKILLS = ("episodic",)
DELIVERIES = ("chapters", "document")
START = datetime(2025, 1, 6, 9, 0)  # the simulated clock of the delivery (not the story's dates)
EMPTY_ANSWER = "There is no such event in the book: it is not mentioned anywhere."
HEADERS = {
    "chapters": (
        "Here is a book, chapter by chapter. Read it closely: I will ask you questions about it afterwards."
    ),
    "document": "Here is a book. Read it closely: I will ask you questions about it afterwards.",
}


@dataclass(frozen=True)
class EpisodicParams:
    """The book's size and shape, its data path when published, and the questions asked."""

    chapters: int = 20
    universe_size: int = 100
    distribution: str = "geometric"
    p: float = 0.1
    start_date: str = "2024-01-01"
    end_date: str = "2026-12-31"
    per_bin: int = 5
    delivery: str = "chapters"
    data_path: str = ""

    def __post_init__(self) -> None:
        at_least("chapters", self.chapters, 1)
        at_least("per_bin", self.per_bin, 1)
        if self.delivery not in DELIVERIES:
            raise ValueError(f"delivery must be one of {', '.join(DELIVERIES)}, got {self.delivery!r}")
        if self.distribution not in DISTRIBUTIONS:
            raise ValueError(
                f"distribution must be one of {', '.join(DISTRIBUTIONS)}, got {self.distribution!r}"
            )
        if not 0 < self.p < 1:
            raise ValueError(f"p must be strictly between 0 and 1, got {self.p}")
        for name in ("start_date", "end_date"):
            try:
                date.fromisoformat(getattr(self, name))
            except ValueError:
                raise ValueError(
                    f"{name} must be an ISO date such as 2024-01-01, got {getattr(self, name)!r}"
                ) from None
        if date.fromisoformat(self.start_date) > date.fromisoformat(self.end_date):
            raise ValueError(f"start_date {self.start_date} is after end_date {self.end_date}")

    def plan(self, seed: int) -> BookPlan:
        return BookPlan(
            seed,
            self.chapters,
            self.universe_size,
            self.distribution,
            self.p,
            date.fromisoformat(self.start_date),
            date.fromisoformat(self.end_date),
        )


@dataclass(frozen=True)
class Prepared:
    """A book and its selected questions, ready to become a context."""

    book: Book
    questions: tuple[Question, ...]
    context_id: str
    report: LoadReport | None = None  # a book on disk: what its folder held, and what could not be used


@lru_cache(maxsize=8)
def prepare(settings: EpisodicParams, seed: int) -> Prepared:
    """The book and questions of a run: generated, or loaded from `data_path` (cached per process)."""
    if settings.data_path:
        loaded = load_book(settings.data_path)
        questions = (
            loaded.questions
            if loaded.questions is not None
            else tuple(book_questions(loaded.book, seed, settings.per_bin))
        )
        return Prepared(loaded.book, tuple(questions), f"book-{loaded.folder.name}", loaded.report)
    book = generated_book(settings.plan(seed))
    return Prepared(book, tuple(book_questions(book, seed, settings.per_bin)), f"book{settings.chapters}")


def probe_id(number: int, question: Question) -> str:
    get = "" if question.get == "all" else f"-{question.get}"
    trace = TRACE_MARKERS.get(question.retrieval_type, "other")
    return f"q{number:04d}[t{question.template:02d}-{question.cue}-{trace}{get}]"


def markers(question: Question) -> tuple[str, ...]:
    letters = [letter for letter in question.cue.strip("()").split(",") if letter != "*"]
    found = [
        "cue_" + "_".join(letters),
        TRACE_MARKERS.get(question.retrieval_type, "other_trace"),
        question.get,
        BIN_MARKERS[question.bin],
    ]
    return tuple(found + (["empty"] if question.empty else []))


def full_chapters(question: Question, book: Book) -> list[str]:
    """The chapter texts a "Full event details" answer is judged against."""
    return [book.body(int(item.rsplit(" ", 1)[-1])) for item in question.answer]


def ideal_answer(question: Question, book: Book) -> str:
    """What a perfect memory answers: the calibration oracle says exactly this."""
    if question.empty:
        return EMPTY_ANSWER
    if question.retrieval_type == "Full event details":
        return "\n\n".join(full_chapters(question, book))
    if len(question.answer) == 1:
        return question.answer[0]
    if question.get == "chronological":
        return "\n".join(f"{number}. {item}" for number, item in enumerate(question.answer, 1))
    return "\n".join(f"- {item}" for item in question.answer)


def expected(question: Question, book: Book) -> dict[str, Any]:
    """The ground truth a scorer needs, JSON-ready (definitions are saved in the run folder)."""
    record: dict[str, Any] = {
        "template": question.template,
        "cue": question.cue,
        "cue_completed": question.cue_completed,
        "retrieval_type": question.retrieval_type,
        "get": question.get,
        "answer": list(question.answer),
        "chapters": list(question.chapters),
        "n_chapters": question.n_chapters,
        "bin": question.bin,
        "strategy": question.strategy,
        "changed": list(question.changed),
    }
    if question.retrieval_type == "Full event details" and not question.empty:
        record["judge_answer"] = full_chapters(question, book)
    values = trace_values(question.retrieval_type, book)
    if values:
        record["candidates"] = list(values)
    return record


@lru_cache(maxsize=32)  # per book (by identity) and trace: every question of a trace shares it
def trace_values(retrieval_type: str, book: Book) -> tuple[str, ...]:
    """Every value the book gives for a kind of trace (all its places, say), in book order.

    An LLM judge reads an answer for the items it gives, however they are worded; the offline
    local judge finds items only in lists, unless it is told which names to look for in prose
    (`scoring.judged.score_items`).  Without them, a chapter quoted in reply to an empty-answer
    question would count as "no item given" and earn the abstention credit.
    """
    if retrieval_type == "Other entities":
        return tuple(dict.fromkeys(name for truth in book.truths for name in truth.post_entities))
    feature = TRACE_FEATURE.get(retrieval_type)
    if feature is None:
        return ()
    return tuple(dict.fromkeys(truth.event.feature(feature) for truth in book.truths))


def book_turns(book: Book, delivery: str) -> Iterator[Message]:
    """The book as conversation turns: a chapter each, or all of it at once."""
    if delivery == "document":
        yield Message(book.document(), START)
        return
    for offset, truth in enumerate(book.truths):
        yield Message(
            book.heading_and_body(truth.chapter), START + timedelta(minutes=offset), id=truth.chapter
        )


class EpisodicBook:
    """`episodic.*`: a book delivered chapter by chapter, then cue-based questions."""

    name = NAME
    skills = SKILLS

    def contexts(self, suite: str, params: Mapping[str, Any], seed: int) -> list[ProbeContext]:
        settings = read_params(EpisodicParams, NAME, params)
        prepared = prepare(settings, seed)
        book = prepared.book
        definitions = tuple(
            probe_definition(
                suite=suite,
                scenario=NAME,
                seed=seed,
                context=prepared.context_id,
                probe_id=probe_id(number, question),
                question=question.text,
                ideal_answer=ideal_answer(question, book),
                expected=expected(question, book),
                category=f"{question.get}/{question.bin}",
                skills=SKILLS,
                markers=markers(question),
                params={"delivery": settings.delivery},
                index=number,
            )
            for number, question in enumerate(prepared.questions)
        )
        if not definitions:
            raise usage_error(f"scenario {NAME}: the book gives no questions")
        return [
            ProbeContext(
                prepared.context_id,
                definitions,
                lambda: book_turns(book, settings.delivery),
                header=HEADERS[settings.delivery],
                report=prepared.report,
            )
        ]

    def evidence_ids(self, definition: TestDefinition) -> list[int]:
        """The chapters the answer comes from, when each chapter is a message of its own."""
        if definition.params.get("delivery") != "chapters":
            return []  # one message holds the whole book: retrieving it says nothing
        return list((definition.expected or {}).get("chapters") or ())

    def score(self, definition: TestDefinition, responses: Sequence[str], context: ScoringContext) -> Any:
        return score_question(definition, responses, context)

    def summarize(self, records: Sequence[Mapping[str, Any]]) -> JsonObject:
        return summarize(records)


SCENARIO = EpisodicBook()

__all__ = ["SCENARIO", "EpisodicBook", "EpisodicParams", "prepare"]
