"""What every driver of a run shares: the event log, the judge, the token counter, the listeners.

Each is made on first use (a run whose scorers need no judge never builds one; `--collect-only`
never loads the token counter) and closed once, by the run.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from functools import cached_property
from typing import TYPE_CHECKING, Any, Protocol

from typing_extensions import TypedDict

from pytest_memorybench.conversation.events import EventLog
from pytest_memorybench.core.tokens import TokenCounter, default_counter
from pytest_memorybench.judges.base import LOCAL_VERSION, JudgeStats
from pytest_memorybench.judges.spec import JudgeSpec, build_judge
from pytest_memorybench.models.concurrency import AUTO_CEILING
from pytest_memorybench.runner.context import RunContext

if TYPE_CHECKING:  # the judges are built when a scorer first asks one
    from pytest_memorybench.judges.client import CachedJudge
    from pytest_memorybench.judges.panel import JudgePanel


class _Limit(TypedDict, total=False):
    max_concurrency: int  # the most calls at once an automatic limit may reach


class Listener(Protocol):
    """Who follows a run as it goes (the controller's terminal): handed every event of the run's log
    as it is written (`kind`, `group`, ...), and the run's notes (`kind: note`)."""

    def __call__(self, event: dict[str, Any]) -> None: ...


class Listeners:
    """The run's listeners: each event goes to every one of them, unless they are muted."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []
        self._muted = False

    def subscribe(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def __call__(self, event: dict[str, Any]) -> None:
        if not self._muted:
            for listener in self._listeners:
                listener(event)

    @contextlib.contextmanager
    def muted(self) -> Iterator[None]:
        """Nobody hears what happens inside (the estimate's replays of tests already counted)."""
        self._muted = True
        try:
            yield
        finally:
            self._muted = False

    def freshness(self) -> list[Callable[[], Coroutine[Any, Any, None]]]:
        """What keeps the listeners fresh while pytest waits on a conversation (a terminal's status)."""
        return [fresh for listener in self._listeners if (fresh := getattr(listener, "keep_fresh", None))]


class RunInstruments:
    """The event log, judge, token counter and listeners of one process's part of a run."""

    def __init__(self, context: RunContext) -> None:
        self.context = context
        self.listeners = Listeners()
        self._log: EventLog | None = None
        self._judge: JudgePanel | None = None

    @cached_property
    def counter(self) -> TokenCounter:
        """The run's token counter, loaded when a conversation first counts (cl100k takes 0.4 s to
        load: `--collect-only` never pays it, and a run loads it in its warm-up thread)."""
        return default_counter()

    @property
    def log(self) -> EventLog:
        if self._log is None:
            worker = self.context.worker
            self._log = EventLog(
                self.context.output / (f"events-{worker}.jsonl" if worker else "events.jsonl")
            )
            self._log.subscribe(self.listeners)  # the log is the run's event stream
        return self._log

    @property
    def judge(self) -> JudgePanel:
        """The run's judge, built on first use (a run whose scorers need none never builds it): the
        `--judge`, or the `--mb-jury`, asked as often and under as many rubrics as the run says."""
        if self._judge is None:
            from pytest_memorybench.judges.panel import JudgePanel

            panel = self.context.settings.panel
            specs = panel.jurors or (self.context.settings.judge,)
            self._judge = JudgePanel(
                [self._juror(spec) for spec in specs], repeats=panel.repeats, band=panel.band
            )
        return self._judge

    def _juror(self, spec: JudgeSpec) -> CachedJudge:
        settings = self.context.settings
        if settings.estimate is not None:
            from pytest_memorybench.judges.estimate_juror import EstimatingJudge

            return EstimatingJudge(spec)  # calls nothing, bills as `spec` would
        # auto: a model judge's endpoint limit decides how many at once (the local judge is CPU)
        auto = settings.concurrency is None and spec.kind != "local"
        limit = _Limit(max_concurrency=AUTO_CEILING) if auto else _Limit()
        return build_judge(
            spec, cache_path=self.context.judge_cache, limits=settings.agent_options.limits, **limit
        )

    def judge_stats(self) -> dict[str, Any]:
        """This process's judging, for results.json (zeros when the judge was never needed)."""
        if self._judge is None:  # never needed: the spec says who would have judged
            spec = self.context.settings.judge
            stats = JudgeStats(
                model=spec.model, version=LOCAL_VERSION if spec.kind == "local" else None
            ).record()
            return {"name": self.context.settings.panel.name_for(self.context.settings.judge), **stats}
        panel = {} if self._judge.trivial else {"panel": self._judge.shape()}
        return {"name": self._judge.name, **self._judge.stats.record(), **panel}

    async def aclose_judge(self) -> None:
        if self._judge is not None:
            await self._judge.aclose()

    def close_log(self) -> None:
        if self._log is not None:
            self._log.close()


async def while_fresh(listeners: Listeners, driving: Awaitable[None]) -> None:
    """`driving`, with the listeners kept fresh (the terminal's status) while pytest waits on it."""
    fresh = listeners.freshness()
    if not fresh:
        return await driving
    loop = asyncio.get_running_loop()
    statuses = [loop.create_task(keep(), name="memorybench:status") for keep in fresh]
    try:
        await driving
    finally:
        for status in statuses:
            status.cancel()
        await asyncio.gather(*statuses, return_exceptions=True)
