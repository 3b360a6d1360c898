"""Benchmark tests as pytest items.

Each planned test becomes a `pytest.Function` under a collector named after its suite, so node ids
read `ltm::colours[rep1]`, `-k` and `-m` select as usual, and the item can request fixtures (a
user's `memorybench_agent` in conftest.py overrides the plugin's).  Skills become markers; the
conversation group becomes an `xdist_group` mark, set at creation so `--dist loadgroup` sees it.

The conversation is the item's set-up, its score the test: an item gets its outcome (driving its
conversation if nobody has yet) in `setup`, and its body checks the score against the threshold.
An item asks for no agent: the run's supply has them (`agents/supply.py`); only when that is a
fixture of the user's does the first item to run hand in its value, which only pytest can make.
So a test whose conversation could not be had (the agent raised or hung, its provider failed
after every retry, the judge could not be asked, the run was cut) is an ERROR, as a broken fixture
is, and only a memory that fell short is a FAILED.
"""

from __future__ import annotations

import textwrap
from typing import Any, cast

import pytest

from pytest_memorybench.core.records import TestOutcome
from pytest_memorybench.pytest_integration.keys import OUTCOME_KEY, PLANNED_KEY, RUN_KEY
from pytest_memorybench.runner.plan import PlannedTest
from pytest_memorybench.runner.run import BenchmarkRun
from pytest_memorybench.runner.spending import SKIP_PREFIX


class SuiteCollector(pytest.Collector):
    """The node a suite's items hang from; its name is the first part of their node ids."""

    def __init__(self, *args: Any, tests: list[PlannedTest], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.tests = tests

    def collect(self) -> list[pytest.Item]:
        return [BenchmarkItem.for_test(self, test) for test in self.tests]


class BenchmarkItem(pytest.Function):
    """A planned test as a pytest function item (so it can request fixtures)."""

    @classmethod
    def for_test(cls, parent: SuiteCollector, test: PlannedTest) -> BenchmarkItem:
        item = cls.from_parent(parent, name=test.definition.test_id, callobj=memorybench_test)
        item.stash[PLANNED_KEY] = test
        item.add_marker(pytest.mark.memorybench)
        for name in dict.fromkeys((*test.definition.skills, *test.definition.markers)):
            _register_marker(parent.config, name)
            item.add_marker(getattr(pytest.mark, name))
        item.add_marker(pytest.mark.xdist_group(name=test.group))
        _parse_structured_id(item)
        return item

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, None, self.nodeid

    def setup(self) -> None:
        """The agent fixture of the user's the run awaits, then this test's outcome: its conversation
        driven if need be."""
        super().setup()
        run = self.config.stash[RUN_KEY]
        request = cast(pytest.FixtureRequest, self.funcargs["request"])
        while run.agents.awaiting is not None:
            run.agents.provide(request.getfixturevalue(run.agents.awaiting))
        if self.config.option.setuponly:
            return  # pytest --setup-only: the fixtures, and no conversation
        test = self.stash[PLANNED_KEY]
        if test.definition.skip_reason:
            pytest.skip(test.definition.skip_reason)
        try:
            outcome = run.outcome(test.key)
        except BaseException:
            self.stash[OUTCOME_KEY] = run.book.outcome(test.key)  # recorded as such; pytest reports the cause
            raise
        if outcome.error is not None and outcome.error.startswith(SKIP_PREFIX):
            pytest.skip(outcome.error)  # the budget ran out during its conversation: never asked, not failed
        self.stash[OUTCOME_KEY] = outcome
        if outcome.error is not None:
            pytest.fail(
                f"{outcome.error}\n(everything before this turn is kept in {run.context.output})",
                pytrace=False,
            )


def _parse_structured_id(item: pytest.Item) -> None:
    """Give the item the structured node id pytest 9.2 reads back from its cache.

    pytest 9.2 keys `--lf`, `--ff` and `--nf` by a structured id, and parses the ids it saved:
    `ltm::colours[rep1]` comes back as `colours` with parameters `rep1`, while an item built by
    name holds `colours[rep1]` with none, so no saved failure ever matches (pytest #15045).  The
    string node id is unchanged; older pytest has no structured id and nothing is done.
    """
    structured = getattr(item, "_id", None)
    parse = getattr(type(structured), "parse", None)
    if parse is not None:
        cast(Any, item)._id = parse(str(structured))  # an attribute of pytest 9.2's items only


def _register_marker(config: pytest.Config, name: str) -> None:
    """Markers come from the suites (abilities, question types), so `--strict-markers` must know them."""
    if name not in {line.split(":", 1)[0].strip() for line in config.getini("markers")}:
        config.addinivalue_line("markers", f"{name}: a memorybench category")


def collect_benchmark(session: pytest.Session, run: BenchmarkRun) -> list[pytest.Item]:
    """Collect every suite of the run the way pytest collects a file, reports included."""
    by_suite: dict[str, list[PlannedTest]] = {}
    for test in run.context.tests.values():
        by_suite.setdefault(test.definition.suite, []).append(test)
    items: list[pytest.Item] = []
    for suite, tests in by_suite.items():
        collector = SuiteCollector.from_parent(session, name=suite, nodeid=suite, tests=tests)
        report = collector.ihook.pytest_make_collect_report(collector=collector)
        collector.ihook.pytest_collectreport(report=report)
        items.extend(node for node in report.result if isinstance(node, pytest.Item))
    return items


def memorybench_test(request: pytest.FixtureRequest) -> None:
    """The body of every benchmark item: its outcome (had in set-up) against its threshold."""
    test = request.node.stash[PLANNED_KEY]
    outcome = request.node.stash[OUTCOME_KEY]
    if not test.passes(outcome):
        pytest.fail(failure_text(test, outcome), pytrace=False)


def failure_text(test: PlannedTest, outcome: TestOutcome) -> str:
    """What a failed item says: its score and threshold, then each question with what was expected and got."""
    questions = outcome.questions
    lines = [f"score {outcome.score.value:.2f} < threshold {test.threshold:.2f}"]
    for index, question in enumerate(questions):
        got = outcome.responses[index] if index < len(outcome.responses) else "(no reply)"
        lines.append(f"question: {question}")
        lines.append(f"expected: {test.definition.ideal_answers[index]}")
        lines.append(f"got:      {_quote(got)}")
    lines.extend(f"reason:   {reason}" for reason in outcome.score.reasons)
    return "\n".join(lines)


def _quote(text: str, width: int = 400) -> str:
    return textwrap.shorten(" ".join(text.split()), width, placeholder=" …") if text.strip() else "(empty)"
