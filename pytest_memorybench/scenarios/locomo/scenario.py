"""`locomo.conversations`: LoCoMo's ten long conversations, each question a pytest item.

One context per conversation: its sessions are delivered in order, every turn dated on the
simulated clock at its session's date and time, with its speaker's name (the first speaker's
turns as the user's, the second's as the assistant's, so an agent hears both sides) and a shared
photo as its caption.  Then each question is asked as an independent probe.  Items are named
`<sample_id>::<category>[<index>]` (the index in the sample's `qa` list, as the audit counts),
marked with their category (`-m temporal`), and carry it as their summary category.

Where the conversations come from:
  * `data_path` (`--mb-data locomo=PATH`): the published `locomo10.json`, or `conversations`
    of it ("conv-26,conv-30");
  * otherwise `generated` conversations of our generator (`generator.py`), and one skipped item
    saying where the published data is.
`audit_path` (`--mb-data locomo_audit=PATH`): the audit's `errors.json`; it is what the `audited`
profile scores against (generated conversations carry their own).
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from functools import partial
from typing import Any

from typing_extensions import NotRequired, TypedDict

from pytest_memorybench.contract.probes import ProbeContext, probe_definition
from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.core.load_report import LoadTally
from pytest_memorybench.core.readers import reading
from pytest_memorybench.core.records import Message, Role, Score, TestDefinition
from pytest_memorybench.scenarios.locomo.audit import AUDIT_URL, Correction, corrections_from, load_audit
from pytest_memorybench.scenarios.locomo.ceiling import Ceiling, ceilings
from pytest_memorybench.scenarios.locomo.data import (
    ADVERSARIAL,
    CATEGORIES,
    DOWNLOAD,
    NOT_MENTIONED,
    Question,
    Sample,
    load_samples,
    samples_from,
    turn_number,
)
from pytest_memorybench.scenarios.locomo.generator import generate_sample
from pytest_memorybench.scenarios.locomo.plus import (
    COGNITIVE,
    Stitched,
    conversation_for,
    criterion,
    generated_items,
    load_plus,
    stitch,
)
from pytest_memorybench.scenarios.locomo.scoring import score_cognitive, score_reply
from pytest_memorybench.scenarios.locomo.summary import summarize
from pytest_memorybench.scenarios.params import at_least, read_params
from pytest_memorybench.scoring.profiles import AUDITED, PAPER, PROFILES

NAME = "locomo.conversations"
TURN_GAP = timedelta(seconds=30)
ANSWER_STYLE = "Answer with a short phrase, using words from the conversation where you can."
NEEDS_AUDIT = (
    "the audited profile scores against the LoCoMo audit's corrected answers: download errors.json from "
    f"{AUDIT_URL} and pass --mb-data locomo_audit=PATH"
)


@dataclass(frozen=True)
class LocomoParams:
    """Where LoCoMo's data and audit are and which samples run, or how many conversations to generate."""

    data_path: str = ""
    audit_path: str = ""
    conversations: str = ""  # published data: which samples, e.g. "conv-26,conv-30" (all when empty)
    generated: int = 1  # without data: how many conversations of our generator
    sessions: int = 6  # generated conversations: sessions each
    plus_path: str = ""  # LoCoMo-Plus's locomo_plus.json: category 6 stitched into the conversations
    plus_pairing: str = "cycle"  # which conversation an item goes into: cycle (unified_input.py) or random
    plus_generated: int = 8  # generated conversations: cue / trigger pairs of our own (0: none)

    def __post_init__(self) -> None:
        at_least("generated", self.generated, 1)
        at_least("sessions", self.sessions, 4)
        at_least("plus_generated", self.plus_generated, 0, 1000)
        if self.plus_pairing not in ("cycle", "random"):
            raise ValueError(f"plus_pairing must be cycle or random, got {self.plus_pairing!r}")


class LocomoConversations:
    """`locomo.*`: LoCoMo's conversations as probe contexts and their questions as items."""

    name = NAME
    skills = tuple(CATEGORIES.values())
    profiles = PROFILES
    data_params = {"locomo_audit": "audit_path", "locomo_plus": "plus_path"}

    def contexts(self, suite: str, params: Mapping[str, Any], seed: int) -> list[ProbeContext]:
        settings = read_params(LocomoParams, NAME, params)
        if settings.data_path:
            tally = LoadTally()
            samples = load_samples(settings.data_path)
            tally.held("conversations", len(samples))
            tally.held("questions", sum(len(sample.questions) for sample in samples))
            wanted = {part.strip() for part in settings.conversations.split(",") if part.strip()}
            if wanted:
                unknown = wanted - {sample.sample_id for sample in samples}
                if unknown:
                    raise usage_error(
                        f"scenario {NAME}: conversations: no sample {sorted(unknown)[0]!r} in"
                        f" {settings.data_path}"
                    )
                left_out = f"questions of conversations not chosen (conversations: {settings.conversations})"
                for sample in samples:
                    if sample.sample_id not in wanted:
                        tally.note(left_out, sample.sample_id, len(sample.questions))
                samples = [sample for sample in samples if sample.sample_id in wanted]
            audit = _audit(settings.audit_path, samples) if settings.audit_path else None
            if audit is not None:
                tally.held("audit findings", len(audit))
            contexts = [_context(suite, seed, sample, audit, "published", tally) for sample in samples]
            contexts += _cognitive(suite, seed, settings, samples, "published", tally)
            report = tally.report()
            return [replace(context, report=report) for context in contexts]
        generated = [
            generate_sample(seed, number, settings.sessions) for number in range(1, settings.generated + 1)
        ]
        audit = corrections_from([finding for _, findings in generated for finding in findings])
        conversations = samples_from([raw for raw, _ in generated])
        contexts = [_context(suite, seed, sample, audit, "generated") for sample in conversations]
        contexts += _cognitive(suite, seed, settings, conversations, "generated")
        missing = probe_definition(
            suite=suite, scenario=NAME, seed=seed, context="locomo10", probe_id="locomo10::published",
            question="", ideal_answer="", expected=None, category="published",
        )  # fmt: skip
        contexts.append(ProbeContext("locomo10", (replace(missing, skip_reason=DOWNLOAD),), lambda: iter(())))
        return contexts

    def evidence_ids(self, definition: TestDefinition) -> list[int]:
        return list((definition.expected or {}).get("evidence_ids") or ())

    def excluded(self, definition: TestDefinition, profile: str) -> str | None:
        """Under `audited`: questions the audit found unanswerable sit out; without an audit, all do."""
        expected = definition.expected
        if profile != AUDITED or not isinstance(expected, dict) or expected.get("category") == ADVERSARIAL:
            return None
        if not expected.get("audited"):
            return NEEDS_AUDIT
        audit = expected.get("audit")
        if audit and audit.get("unanswerable"):
            return f"left out under the audited profile: the audit finds it unanswerable ({audit['answer']})"
        return None

    def score(
        self, definition: TestDefinition, responses: Sequence[str], context: ScoringContext
    ) -> Awaitable[Score]:
        if definition.category == COGNITIVE:
            return score_cognitive(definition, responses, context)
        return score_reply(definition, responses, context)

    def summarize(self, records: Sequence[Mapping[str, Any]]) -> JsonObject:
        return summarize(records)

    def ceilings(self, records: Sequence[Mapping[str, Any]], profile: str) -> dict[str, Ceiling]:
        return ceilings(records, profile)


def _audit(path: str, samples: Sequence[Sample]) -> dict[tuple[int, int], tuple[str, Correction]]:
    """The audit's corrections, checked against the questions they correct (an audit of another
    release of the data would correct the wrong questions)."""
    with reading(f"LoCoMo audit {path}", "give the audit's errors.json"):
        audit = load_audit(path)
    questions = {(sample.index, q.index): q.question for sample in samples for q in sample.questions}
    indexes = {sample.index for sample in samples}
    for (sample, index), (text, _) in audit.items():
        if sample in indexes and " ".join(questions.get((sample, index), "").split()) != " ".join(
            text.split()
        ):
            raise usage_error(
                f"LoCoMo audit {path}: locomo_{sample}_qa{index} is about {text!r}, not a question of this "
                "locomo10.json at that place; give the audit of this release of the data"
            )
    return audit


def _context(
    suite: str,
    seed: int,
    sample: Sample,
    audit: dict[tuple[int, int], tuple[str, Correction]] | None,
    source: str,
    tally: LoadTally | None = None,
) -> ProbeContext:
    a, b = sample.speakers
    header = (
        f"Here is a conversation between {a} and {b} over several sessions, each message dated. "
        "Remember it; I will ask you about it later."
    )
    if tally is not None:
        _check_evidence(sample, tally)
    probes = tuple(_definition(suite, seed, sample, question, audit, source) for question in sample.questions)
    return ProbeContext(sample.sample_id, probes, lambda: _turns(sample), header=header)


def _cognitive(
    suite: str,
    seed: int,
    settings: LocomoParams,
    conversations: Sequence[Sample],
    source: str,
    tally: LoadTally | None = None,
) -> list[ProbeContext]:
    """Category 6: each LoCoMo-Plus item (or, on generated conversations, each pair of our own)
    stitched into its conversation, a context of its own asked its trigger."""
    if settings.plus_path:
        with reading(f"LoCoMo-Plus data {settings.plus_path}", "give LoCoMo-Plus's data/locomo_plus.json"):
            items = load_plus(settings.plus_path, tally)
        origin = "published"
    elif source == "generated":
        items, origin = generated_items(settings.plus_generated), "generated"
    else:
        return []
    contexts = []
    for number, item in enumerate(items):
        sample = conversation_for(number, conversations, settings.plus_pairing, seed)
        with reading(f"LoCoMo-Plus data {settings.plus_path or '(generated)'}"):
            stitched = stitch(item, number, sample)
        header = (
            f"Here is a conversation between {sample.speakers[0]} and {sample.speakers[1]} over several"
            " sessions, each message dated. Remember it; we will talk again later."
        )
        definition = probe_definition(
            suite=suite,
            scenario=NAME,
            seed=seed,
            context=f"{sample.sample_id}+{stitched.id}",
            probe_id=f"{sample.sample_id}::{stitched.id}::{COGNITIVE}",
            question=stitched.trigger,
            ideal_answer=_oracle_reply(stitched),
            expected={
                "category": 6,
                "cue": stitched.cue,
                "criterion": criterion(stitched),
                "time_gap": item.time_gap,
                "evidence_ids": list(stitched.cue_ids),
            },
            category=COGNITIVE,
            skills=(COGNITIVE,),
            markers=(COGNITIVE,),
            params={
                "source": origin,
                "sample": sample.sample_id,
                "asked_at": stitched.query_time.isoformat(),
            },
        )
        contexts.append(
            ProbeContext(
                f"{sample.sample_id}+{stitched.id}", (definition,), partial(_turns, stitched.sample), header
            )
        )
    return contexts


def _oracle_reply(stitched: Stitched) -> str:
    """What the calibration oracle says: a reply that keeps the cue in mind."""
    point = stitched.item.criterion or stitched.cue
    return f"Remembering what you told me before ({point}): {stitched.cue}"


def _turns(sample: Sample) -> Iterator[Message]:
    first = sample.speakers[0]
    for session in sample.sessions:
        for position, turn in enumerate(session.turns):
            text = f"{turn.speaker}: {turn.text}"
            if turn.caption:
                text += f" [shares {turn.caption}]"
            role: Role = "user" if turn.speaker == first else "assistant"
            yield Message(
                text,
                session.when + position * TURN_GAP,
                role,
                turn.id,
                f"session_{session.number}",
                turn.speaker,
            )


class Expected(TypedDict):
    """What a LoCoMo question's scorer compares with (a definition's `expected`)."""

    question: str
    category: int
    answer: str | None
    evidence_ids: list[int]  # the turns it cites, as `Message.id`s
    audited: bool  # whether the run read an audit (then `audit` is its finding, if it has one)
    audit: NotRequired[JsonObject]  # the audit's correction (`audit.Correction.to_json`)
    adversarial_answer: NotRequired[str | None]  # category 5: the plausible answer the conversation lacks
    absent_option: NotRequired[str]  # category 5: the letter of "not mentioned" in the choice asked


def _definition(
    suite: str,
    seed: int,
    sample: Sample,
    q: Question,
    audit: dict[tuple[int, int], tuple[str, Correction]] | None,
    source: str,
) -> TestDefinition:
    category = q.category_name
    expected = Expected(
        question=q.question,
        category=q.category,
        answer=q.answer,
        evidence_ids=_evidence_numbers(q.evidence),
        audited=audit is not None,
    )
    params: JsonObject = {"source": source, "sample": sample.sample_id, "qa": q.index}
    ideal_by_profile: dict[str, str] = {}
    if q.category == ADVERSARIAL:
        # The paper's code poses it as a choice between the plausible answer and "not mentioned";
        # the order is drawn per question from the seed.
        options = [q.adversarial_answer or q.answer or "", NOT_MENTIONED]
        random.Random(f"locomo|{seed}|{sample.sample_id}|{q.index}").shuffle(options)
        letter = "ab"[options.index(NOT_MENTIONED)]
        question = f"{q.question} Choose one: (a) {options[0]} (b) {options[1]}."
        expected["adversarial_answer"], expected["absent_option"] = q.adversarial_answer, letter
        ideal = NOT_MENTIONED
    else:
        question = f"{q.question} {ANSWER_STYLE}"
        ideal = str(q.answer)
        if q.category == 3 and ";" in ideal:  # the paper's code scores category 3 on the gold before its ";"
            ideal_by_profile[PAPER] = ideal.split(";")[0].strip()
        finding = (audit or {}).get((sample.index, q.index))
        if finding is not None:
            correction = finding[1]
            expected["audit"] = correction.to_json()
            if correction.changes_answer:
                ideal_by_profile[AUDITED] = correction.answer
            if correction.evidence:
                params["evidence_by_profile"] = {AUDITED: _evidence_numbers(correction.evidence)}
    if ideal_by_profile:
        params["ideal_by_profile"] = ideal_by_profile
    return probe_definition(
        suite=suite,
        scenario=NAME,
        seed=seed,
        context=sample.sample_id,
        probe_id=f"{sample.sample_id}::{category}[{q.index}]",
        question=question,
        ideal_answer=ideal,
        expected=expected,
        category=category,
        skills=(category,),
        markers=(category,),
        params=params,
        index=q.index + 1,
    )


def _evidence_numbers(evidence: Sequence[str]) -> list[int]:
    """The turns a question cites, as `Message.id`s; ids written together ("D8:6; D9:17") are
    split, and the data's two that are no turn id ("D", "D:11:26") left out (`_check_evidence`
    counts them in the loader's report)."""
    numbers = []
    for part in _evidence_parts(evidence):
        try:
            numbers.append(turn_number(part))
        except ValueError:
            continue
    return numbers


def _evidence_parts(evidence: Sequence[str]) -> list[str]:
    return [part for item in evidence for part in item.replace(";", " ").split()]


def _check_evidence(sample: Sample, tally: LoadTally) -> None:
    """Count the evidence ids of a sample's questions that are no turn id (left out of recall), and
    those naming a turn the conversation does not have (kept, as LoCoMo's code keeps them: no
    agent can retrieve them)."""
    turns = {turn.id for session in sample.sessions for turn in session.turns}
    for question in sample.questions:
        for part in _evidence_parts(question.evidence):
            where = f"{sample.sample_id} qa {question.index} {part!r}"
            try:
                number = turn_number(part)
            except ValueError:
                tally.note("evidence ids that are no turn id, left out of recall", where)
                continue
            if number not in turns:
                tally.note(
                    "evidence ids naming a turn the conversation does not have, kept (never retrievable)",
                    where,
                )


SCENARIO = LocomoConversations()

__all__ = ["NAME", "SCENARIO", "LocomoConversations", "LocomoParams"]
