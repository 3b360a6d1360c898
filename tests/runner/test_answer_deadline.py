"""`--mb-answer-deadline S` in whole runs: an answer that took longer scores 0 and says why, every
run records its answers' times and the accuracy each latency budget allows, and a replay holds a
finished run to a deadline from the times its log kept, without the agent.

No assertion waits on the clock: the slow agent sleeps longer than the deadline, so its answers
are late however busy the machine; any other answer is checked against its own recorded time."""

from __future__ import annotations

import pytest

from tests.pytest_integration.test_plugin import colours_only  # noqa: F401  (autouse: a Colours-only ltm)
from tests.support.runs import QUIET, run_benchmark, usage_error_line

ISOLATED = ("--span=isolated",)
DEADLINE = 0.25
SLEEP = 0.4  # longer than the deadline

# Answers every question with the last statement it was told (right on Colours), and takes SLEEP
# seconds over the questions of its second conversation.
SLOW_SECOND_AGENT = f"""
import time
import pytest

class SlowSecond:
    def __init__(self):
        self.last, self.conversations = "", 0
    def reply(self, message):
        if "?" in message.text:
            if self.conversations == 2:
                time.sleep({SLEEP})
            return self.last
        self.last = message.text
        return "ok"
    def reset(self):
        self.last, self.conversations = "", self.conversations + 1

@pytest.fixture(scope="session")
def memorybench_agent():
    return SlowSecond()
"""


def _held_to_the_deadline(items: list[dict]) -> int:
    """Checks every item against its own answer time; returns how many were late."""
    late = 0
    for item in items:
        seconds = item["answer_seconds"]
        assert seconds is not None, item["nodeid"]
        if seconds > DEADLINE:
            late += 1
            assert item["score"] == 0.0 and not item["passed"]
            assert item["reasons"][0] == (
                f"late: answered in {seconds:.3g} s, over the {DEADLINE:g} s answer deadline"
                " (--mb-answer-deadline); on time it would have scored 1"
            )
        else:
            assert item["score"] == 1.0, item["reasons"]
    return late


def test_a_late_answer_scores_zero_with_the_reason(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(SLOW_SECOND_AGENT)
    run = run_benchmark(pytester, *ISOLATED, f"--mb-answer-deadline={DEADLINE}", *QUIET)
    results = run.results
    slow = [item for item in results["items"] if (item["answer_seconds"] or 0) >= SLEEP]
    assert len(slow) == 1, "the second conversation's answer slept"
    late = _held_to_the_deadline(results["items"])
    assert late >= 1 and results["totals"]["mean"] == pytest.approx(1 - late / 3)
    assert results["run"]["answer_deadline"] == DEADLINE
    budget = results["totals"]["latency_budget"]
    assert (budget["deadline"], budget["late"], budget["items"]) == (DEADLINE, late, 3)
    assert results["suites"]["ltm"]["latency_budget"]["late"] == late
    run.outcome.stdout.fnmatch_lines(
        [
            "accuracy within 1 / 3 / 5 / 30 / 200 s: *",
            "LAFS 1-200 s: * item by item, * as one point at mean answer *",
            f"answer deadline {DEADLINE:g} s: {late} of 3 answers came later and scored 0",
        ]
    )
    page = (run.folder / "report.html").read_text(encoding="utf-8")
    assert "<title>accuracy within a latency budget</title>" in page and "answer deadline 0.25 s" in page


def test_a_replay_holds_a_finished_run_to_a_deadline_from_its_logged_times(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(SLOW_SECOND_AGENT)
    first = run_benchmark(pytester, *ISOLATED, *QUIET, folder="run")
    assert first.results["totals"]["mean"] == 1.0 and "answer_deadline" not in first.results["run"]
    times = {item["nodeid"]: item["answer_seconds"] for item in first.results["items"]}
    assert first.results["totals"]["latency_budget"]["accuracy"][-1] == 1.0

    replayed = run_benchmark(pytester, "--mb-replay=run", f"--mb-answer-deadline={DEADLINE}", *QUIET)
    assert {item["nodeid"]: item["answer_seconds"] for item in replayed.results["items"]} == times, (
        "the times come from the log: the replay calls no agent"
    )
    late = _held_to_the_deadline(replayed.results["items"])
    assert late >= 1 and replayed.results["totals"]["mean"] == pytest.approx(1 - late / 3)


@pytest.mark.parametrize("value", ["0", "-2", "100000"])
def test_a_deadline_that_is_no_time_is_one_line(pytester: pytest.Pytester, value: str) -> None:
    result = pytester.runpytest(
        "--memorybench", "--agent=oracle", *ISOLATED, f"--mb-answer-deadline={value}", *QUIET
    )
    assert f"--mb-answer-deadline {float(value):g} must be a number of seconds above 0" in usage_error_line(
        result
    )
