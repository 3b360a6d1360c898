"""The run's judge as a panel: each task asked of every juror, as often as the repeats say, under
every rubric of the band; the scorer gets the majority, and the item keeps what each voice said.

One call of one judge under one rubric decides most published memory scores, and the same answers
move by 5–10 points from one run of a judge to the next, and by tens of points from one grading
prompt to another.  A panel makes that visible in every result:

  repeats  `--mb-judge-repeats N`: an LLM juror is asked each task N times, each a verdict of its
           own (its own cache entry; the temperature the judge is configured with).  The local
           judge is deterministic and is asked once.
  jury     `--mb-jury A,B,C`: every juror asked; the item is scored by the majority of the
           jurors, each juror by the majority of its repeats.
  band     `--mb-judge-band`: the same answers under the strict, official and generous rubrics
           (`rubrics.py`); the headline stays the official rubric's.

A tie goes to the conservative side (`majority_vote.majority`).  An item's scorer runs once on the
majority verdicts, then once more for each view (a rubric, a juror, one repeat of one juror) on
that view's verdicts, read from the ballots already cast: no further call.  `ItemJudging.record()`
is what results.json keeps per item (`judging`); `results/judge_robustness.py` sums it up per run and suite.

With one juror, no repeats and no band the panel is the judge itself, and an item keeps nothing.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.judges.base import JudgeStats, JudgeTask, JudgeVerdict
from pytest_memorybench.judges.majority_vote import decision, dissenting, majority, unanimous
from pytest_memorybench.judges.rubrics import BAND, OFFICIAL, asked_under, read_under

if TYPE_CHECKING:
    from pytest_memorybench.judges.client import CachedJudge


@dataclass(frozen=True)
class Ballot:
    """Every verdict cast on one task: rubric → juror → repeat."""

    kind: str
    verdicts: dict[str, list[list[JudgeVerdict]]]

    def juror(self, rubric: str, juror: int) -> JudgeVerdict:
        """One juror's verdict under a rubric: the majority of its repeats."""
        return majority(self.kind, self.verdicts[rubric][juror])

    def verdict(self, rubric: str = OFFICIAL) -> JudgeVerdict:
        """The panel's verdict under a rubric: the majority of the jurors' verdicts."""
        jurors = self.verdicts[rubric]
        if len(jurors) == 1:
            return self.juror(rubric, 0)
        return majority(self.kind, [self.juror(rubric, index) for index in range(len(jurors))])

    def single(self, juror: int, repeat: int) -> JudgeVerdict:
        """One call of one juror under the official rubric."""
        calls = self.verdicts[OFFICIAL][juror]
        return calls[min(repeat, len(calls) - 1)]

    @property
    def official(self) -> list[JudgeVerdict]:
        """Every official verdict, all jurors' repeats together."""
        return [verdict for calls in self.verdicts[OFFICIAL] for verdict in calls]

    def votes(self) -> dict[str, list[list[Any]]]:
        """What each voice decided, JSON-ready, for the event log."""
        return {
            rubric: [
                [_plain(decision(self.kind, v.data)) if v.data is not None else None for v in calls]
                for calls in jurors
            ]
            for rubric, jurors in self.verdicts.items()
        }


class JudgePanel:
    """The run's judge: jurors × repeats × rubrics behind the `Judge` protocol."""

    def __init__(self, jurors: Sequence[CachedJudge], *, repeats: int = 1, band: bool = False) -> None:
        if not jurors:
            raise ValueError("a panel needs at least one juror")
        if repeats < 1:
            raise ValueError("repeats must be at least 1")
        self.jurors = list(jurors)
        self.repeats = repeats
        self.band = band
        self.tasks = 0  # tasks the scorers asked (each asked of every voice)

    @property
    def name(self) -> str:
        return panel_name([juror.name for juror in self.jurors], self.repeats if self.asks_again else 1)

    @property
    def trivial(self) -> bool:
        """One call of one judge under one rubric: the panel is the judge."""
        return len(self.jurors) == 1 and not self.band and self.calls_of(self.jurors[0]) == 1

    @property
    def asks_again(self) -> bool:
        """Whether any juror is asked a task more than once (an LLM juror, with repeats)."""
        return any(self.calls_of(juror) > 1 for juror in self.jurors)

    def calls_of(self, juror: CachedJudge) -> int:
        """How often a juror is asked each task under each rubric."""
        return self.repeats if juror.is_llm else 1

    @property
    def rubrics(self) -> tuple[str, ...]:
        return BAND if self.band else (OFFICIAL,)

    @property
    def stats(self) -> JudgeStats:
        """Every juror's judging added up; identity fields from the first juror (or all, joined)."""
        merged = JudgeStats()
        for juror in self.jurors:
            merged.add(juror.stats)
        first = self.jurors[0].stats
        merged.prompt_hashes = dict(first.prompt_hashes)
        merged.output_form, merged.version = first.output_form, first.version
        models = [juror.stats.model for juror in self.jurors if juror.stats.model]
        merged.model = ", ".join(dict.fromkeys(models)) or None
        return merged

    def shape(self) -> JsonObject:
        """The panel as results.json's run records it."""
        return {
            "jurors": [juror.name for juror in self.jurors],
            "repeats": self.repeats,
            "band": self.band,
            "juror_stats": [{"name": juror.name, **juror.stats.record()} for juror in self.jurors],
        }

    async def ballot(self, task: JudgeTask) -> Ballot:
        """Every verdict the panel casts on a task; calls the same task would repeat are made once."""
        self.tasks += 1
        asks: dict[tuple[str, int, int], Awaitable[JudgeVerdict]] = {}
        plan: dict[str, list[list[tuple[str, int, int]]]] = {}
        for rubric in self.rubrics:
            asked = asked_under(rubric, task)
            plan[rubric] = []
            for index, juror in enumerate(self.jurors):
                keys = [(asked.fingerprint(), index, repeat) for repeat in range(self.calls_of(juror))]
                for key in keys:
                    if key not in asks:
                        asks[key] = juror.judge(asked, repeat=key[2])
                plan[rubric].append(keys)
        answers = dict(zip(asks, await asyncio.gather(*asks.values()), strict=True))
        verdicts = {
            rubric: [[_read(rubric, answers[key]) for key in keys] for keys in jurors]
            for rubric, jurors in plan.items()
        }
        return Ballot(task.kind, verdicts)

    async def judge(self, task: JudgeTask) -> JudgeVerdict:
        return (await self.ballot(task)).verdict()

    async def aclose(self) -> None:
        for juror in self.jurors:
            await juror.aclose()


@dataclass
class ItemJudging:
    """The judge of one item's scoring: it keeps the ballots cast, and answers as any view of them."""

    panel: JudgePanel
    ask: Callable[[JudgeTask], Awaitable[Ballot]]
    ballots: dict[str, Ballot] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.panel.name

    @property
    def stats(self) -> JudgeStats:
        return self.panel.stats

    async def judge(self, task: JudgeTask) -> JudgeVerdict:
        return (await self.ballot_for(task)).verdict()

    async def ballot_for(self, task: JudgeTask) -> Ballot:
        """The task's ballot: the one already cast, or asked now."""
        ballot = self.ballots.get(task.fingerprint())
        if ballot is None:
            ballot = self.ballots[task.fingerprint()] = await self.ask(task)
        return ballot

    def views(self) -> dict[tuple[str, str], ViewJudge]:
        """(part, name) → a judge answering as that view: each rubric of the band, each juror of a
        jury, each repeat of a juror asked more than once."""
        panel, views = self.panel, {}
        if panel.band:
            for rubric in BAND:
                views[("band", rubric)] = ViewJudge(self, _under(rubric))
        if len(panel.jurors) > 1:
            for index, juror in enumerate(panel.jurors):
                views[("jurors", juror.name)] = ViewJudge(self, _juror(index))
        for index, juror in enumerate(panel.jurors):
            calls = panel.calls_of(juror)
            for repeat in range(calls if calls > 1 else 0):
                views[("repeats", f"{juror.name}#{repeat + 1}")] = ViewJudge(self, _single(index, repeat))
        return views

    def record(self, scores: dict[tuple[str, str], float]) -> JsonObject:
        """What results.json keeps of this item's judging (`results/judge_robustness.py` reads it): the
        ballots' agreement, each juror's dissent from itself, and each view's score (`scores`) by
        its part (`rubrics`, `jurors`: a score each; `repeats`: a score per repeat of a juror)."""
        ballots = list(self.ballots.values())
        record: JsonObject = {
            "tasks": len(ballots),
            "unanimous": sum(unanimous(b.kind, b.official) for b in ballots),
            "votes": sum(sum(v.data is not None for v in b.official) for b in ballots),
            "dissent": sum(dissenting(b.kind, b.official, b.verdict()) for b in ballots),
        }
        repeat_dissent: dict[str, list[int]] = {}
        for index, juror in enumerate(self.panel.jurors):
            if self.panel.calls_of(juror) > 1:  # how often its own calls went against its majority
                calls = [(b.kind, b.verdicts[OFFICIAL][index], b.juror(OFFICIAL, index)) for b in ballots]
                repeat_dissent[juror.name] = [
                    sum(dissenting(kind, votes, chosen) for kind, votes, chosen in calls),
                    sum(sum(v.data is not None for v in votes) for _, votes, _ in calls),
                ]
        if repeat_dissent:
            record["repeat_dissent"] = repeat_dissent
        repeats: dict[str, list[float]] = {}
        views: dict[str, dict[str, float]] = {}
        for (part, name), value in scores.items():  # each part where its first view comes
            if part == "repeats":
                juror_name, _, _ = name.rpartition("#")
                record.setdefault(part, repeats)
                repeats.setdefault(juror_name, []).append(value)
            else:
                record.setdefault(part, views.setdefault(part, {}))
                views[part][name] = value
        return record

    def signature(self, pick: Callable[[Ballot], JudgeVerdict]) -> tuple[Any, ...]:
        """The decisions a view gives this item's tasks: two views alike score alike."""
        return tuple(
            decision(b.kind, verdict.data) if (verdict := pick(b)).data is not None else verdict.error
            for b in self.ballots.values()
        )


@dataclass
class ViewJudge:
    """One view of an item's ballots, as a judge: no call is made for a task already asked."""

    item: ItemJudging
    pick: Callable[[Ballot], JudgeVerdict]

    @property
    def name(self) -> str:
        return self.item.name

    @property
    def stats(self) -> JudgeStats:
        return self.item.stats

    async def judge(self, task: JudgeTask) -> JudgeVerdict:
        return self.pick(await self.item.ballot_for(task))


def panel_name(jurors: Sequence[str], repeats: int) -> str:
    """The judge as results name it: the juror, "×N" with repeats, "jury of N: …" for a jury."""
    base = jurors[0] if len(jurors) == 1 else f"jury of {len(jurors)}: {', '.join(jurors)}"
    return f"{base} ×{repeats}" if repeats > 1 else base


def _under(rubric: str) -> Callable[[Ballot], JudgeVerdict]:
    return lambda ballot: ballot.verdict(rubric)


def _juror(index: int) -> Callable[[Ballot], JudgeVerdict]:
    return lambda ballot: ballot.juror(OFFICIAL, index)


def _single(index: int, repeat: int) -> Callable[[Ballot], JudgeVerdict]:
    return lambda ballot: ballot.single(index, repeat)


def _read(rubric: str, verdict: JudgeVerdict) -> JudgeVerdict:
    if verdict.data is None or rubric == OFFICIAL:
        return verdict
    return dataclasses.replace(verdict, data=read_under(rubric, verdict.kind, verdict.data))


def _plain(value: Any) -> Any:
    return [_plain(part) for part in value] if isinstance(value, tuple) else value
