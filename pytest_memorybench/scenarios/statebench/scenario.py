"""`statebench.timelines`: StateBench's timelines, each a context, each of its queries an item.

A timeline's conversation turns are delivered in order, dated by their `ts`; each query is asked
at its place in the timeline (after the turns before it), so a later query sees more.  The item's
category and marker is the timeline's track.  Where the timelines come from:

- `--mb-data statebench=PATH`: a release file (`dev.jsonl`, ...) or a folder holding one
  `<split>.jsonl` (`split`, default `dev`), read as its harness reads it (`data.py`);
- without data, our generator's timelines, `generated` of each track (`generator.py`).

Scoring is StateBench's deterministic judge (`verdict.py`): the item scores 1 when its decision is
right; the must-mention hits, the violations by kind and the negated and skipped phrases are the
item's details, and `summarize` gives its decision accuracy (the `*_maintain` guardrails apart),
SFRR, the leakage and fabrication rates and the rest.  Profile `paper` judges by the 2.x rules
(negation-aware), profile `official` by the 1.0.2 code that scored its v1.0 leaderboard
(docs/profiles.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_memorybench.contract.probes import ProbeContext, probe_definition
from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.core.load_report import LoadReport, LoadTally
from pytest_memorybench.core.records import Message, Role, Score, TestDefinition
from pytest_memorybench.scenarios.params import at_least, read_params
from pytest_memorybench.scenarios.statebench.data import (
    KINDS,
    SPLITS,
    Phrase,
    Timeline,
    Truth,
    read_timelines,
    state_text,
    timeline,
)
from pytest_memorybench.scenarios.statebench.fallback import ask_judge
from pytest_memorybench.scenarios.statebench.generator import TRACKS, timeline_rows
from pytest_memorybench.scenarios.statebench.rubric import MODERN, V1
from pytest_memorybench.scenarios.statebench.summary import summarize
from pytest_memorybench.scenarios.statebench.verdict import judge, track_kind
from pytest_memorybench.scoring.profiles import PAPER

NAME = "statebench.timelines"
REFUSAL = "abstention"  # the skill of a query whose right decision is "no": an abstaining reply reads so
HEADER = "Here is our conversation so far, in order. Keep track of what is current; I will ask about it."


@dataclass(frozen=True)
class StateBenchParams:
    """Where the release is and which split, or how many generated timelines of each track."""

    data_path: str = ""
    split: str = "dev"
    generated: int = 2  # without data: timelines of each track
    state: bool = False  # also deliver the initial state as a first message
    limit: int = 0  # published data: at most this many timelines (0: all)
    judge_fallback: bool = False  # ask the run's judge where StateBench asks its LLM (fallback.py)

    def __post_init__(self) -> None:
        at_least("generated", self.generated, 1, 100)
        at_least("limit", self.limit, 0)
        if self.split not in SPLITS:
            raise ValueError(f"split must be one of {', '.join(SPLITS)}, got {self.split!r}")


class StateBenchTimelines:
    """Every query of every timeline, asked at its place."""

    name = NAME
    skills = (*TRACKS, REFUSAL)

    def contexts(self, suite: str, params: Mapping[str, Any], seed: int) -> list[ProbeContext]:
        settings = read_params(StateBenchParams, NAME, params)
        tally = LoadTally()
        if settings.data_path:
            found: list[Timeline] = []
            for read in read_timelines(settings.data_path, settings.split, tally):
                if settings.limit and len(found) >= settings.limit:
                    tally.note("timelines past limit, not asked", read.id)
                    continue
                found.append(read)
            source, report = "published", tally.report()
        else:
            rows = timeline_rows(seed, settings.generated)
            found = [made for row in rows if (made := timeline(row, tally, str(row["id"]))) is not None]
            source, report = "generated", None
        return [_context(suite, seed, item, source, settings, report) for item in found]

    def summarize(self, records: Sequence[Mapping[str, Any]]) -> JsonObject:
        return summarize(records)

    def superseded(self, definition: TestDefinition) -> list[str]:
        """The forbidden phrases of kind `superseded` (a phrase's own kind, else its track's, as the
        verdict reads them for SFRR): the general stale-fact rate's values (`contract/stale.py`),
        asserted by our negation-aware rule beside StateBench's own SFRR."""
        expected = definition.expected
        track = str(expected["track"])
        kinds = ((str(p["text"]), str(p["kind"])) for p in expected["must_not_mention"])
        found = (
            text for text, kind in kinds if (kind if kind != "other" else track_kind(track)) == "superseded"
        )
        return list(dict.fromkeys(found))

    async def score(
        self, definition: TestDefinition, responses: Sequence[str], context: ScoringContext
    ) -> Score:
        expected = definition.expected
        truth = Truth(
            str(expected["decision"]),
            tuple(_phrase_of(phrase) for phrase in expected["must_mention"]),
            tuple(_phrase_of(phrase) for phrase in expected["must_not_mention"]),
        )
        rules = MODERN if context.profile == PAPER else V1
        reply = responses[-1] if responses else ""
        verdict = judge(truth, reply, str(expected["track"]), rules)
        settled: list[str] = []
        if definition.params.get("judge_fallback") and context.judge is not None:
            question = str(definition.params["question"])
            settled = await ask_judge(context.judge, verdict, truth, question, reply)
        read = "none found" if verdict.decision is None else f"read {verdict.decision!r}"
        outcome = "right" if verdict.decision_correct else "wrong"
        reasons = [f"decision {outcome}: expected {truth.decision!r}, {read}"]
        if verdict.missed:
            reasons.append(f"must mention, not said: {', '.join(verdict.missed)}")
        for kind in KINDS:
            if verdict.violations.get(kind):
                reasons.append(f"said what it must not ({kind}): {', '.join(verdict.violations[kind])}")
        if verdict.negated:
            reasons.append(f"named only to reject it (no violation): {', '.join(verdict.negated)}")
        return Score(1.0 if verdict.decision_correct else 0.0, (*reasons, *settled), verdict.details())


def _phrase_of(raw: Any) -> Phrase:
    return Phrase(str(raw["text"]), str(raw["kind"]), bool(raw["negation_exempt"]))


def _phrase(phrase: Phrase) -> JsonObject:
    return {"text": phrase.text, "kind": phrase.kind, "negation_exempt": phrase.negation_exempt}


def _context(
    suite: str, seed: int, item: Timeline, source: str, settings: StateBenchParams, report: LoadReport | None
) -> ProbeContext:
    state, fallback = settings.state, settings.judge_fallback
    opening = 1 if state else 0
    definitions = tuple(
        probe_definition(
            suite=suite,
            scenario=NAME,
            seed=seed,
            context=item.id,
            probe_id=f"{item.id}::q{number}",
            question=query.prompt,
            ideal_answer=". ".join([query.truth.decision, *(p.text for p in query.truth.must_mention)]),
            expected={
                "decision": query.truth.decision,
                "must_mention": [_phrase(p) for p in query.truth.must_mention],
                "must_not_mention": [_phrase(p) for p in query.truth.must_not_mention],
                "track": item.track,
            },
            category=item.track,
            skills=(item.track, *((REFUSAL,) if query.truth.decision.strip().lower() == "no" else ())),
            markers=(item.track,),
            params={
                "source": source,
                "question": query.prompt,
                "asked_at": query.when.isoformat(),
                "ask_at": query.after + opening,
                "domain": item.domain,
                **({"judge_fallback": True} if fallback else {}),
            },
            index=number,
        )
        for number, query in enumerate(item.queries, 1)
    )
    return ProbeContext(item.id, definitions, _stream(item, state), header=HEADER, report=report)


def _stream(item: Timeline, state: bool) -> Callable[[], Iterator[Message]]:
    def turns() -> Iterator[Message]:
        offset = 0
        if state and item.turns:
            offset = 1
            yield Message(state_text(item.initial_state), item.turns[0].when, "user", 0, item.id)
        for number, turn in enumerate(item.turns):
            role: Role = "assistant" if turn.speaker == "assistant" else "user"
            yield Message(turn.text, turn.when, role, number + offset, item.id)

    return turns


SCENARIO = StateBenchTimelines()

__all__ = ["NAME", "SCENARIO", "StateBenchParams", "StateBenchTimelines"]
