"""Cost and tokens: every agent and judge call priced, an extensible price table, and `--mb-max-cost`."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.models.prices import PRICES, Price, price_for, register_price
from pytest_memorybench.runner.settings import _prices
from pytest_memorybench.runner.spending import SpendingCap, process_spend
from tests.pytest_integration.test_plugin import LAST_STATEMENT_AGENT, colours_only  # noqa: F401  (autouse: a Colours-only ltm)
from tests.pytest_integration.test_user_tests import JUDGED_SUITE
from tests.support.llm_server import LLMServer
from tests.support.runs import results_in

ISOLATED = ("--memorybench", "--span=isolated", "-p", "no:cacheprovider")

# The last-statement agent at one cent a reply: four replies per isolated Colours test (three
# statements, one question), so each conversation costs $0.04.
PRICED_AGENT = (
    LAST_STATEMENT_AGENT.replace(
        "import pytest\n", "import pytest\nfrom pytest_memorybench.core.records import Usage\n"
    )
    .replace("    def __init__(self):\n", "    def __init__(self):\n        self.usage = Usage()\n")
    .replace(
        "    def reply(self, message):\n",
        "    def reply(self, message):\n        self.usage.input_tokens += 10\n       "
        " self.usage.output_tokens += 2\n        self.usage.cost_usd += 0.01\n",
    )
)


@pytest.mark.parametrize(("cap", "passed", "skipped"), [(0.06, 1, 2), (0.10, 2, 1), (1.0, 3, 0)])
def test_the_cap_skips_conversations_before_they_overspend(
    pytester: pytest.Pytester, cap: float, passed: int, skipped: int
) -> None:
    pytester.makeconftest(PRICED_AGENT)
    result = pytester.runpytest(*ISOLATED, f"--mb-max-cost={cap}", "-rs", "--mb-output=run")
    result.assert_outcomes(passed=passed, skipped=skipped)
    totals = results_in(pytester.path / "run")["totals"]
    assert totals["cost_usd"] == pytest.approx(0.04 * passed) and totals["cost_usd"] <= cap
    assert totals["agent_tokens_in"] == 40 * passed and totals["agent_calls"] == 4 * passed
    if skipped:
        result.stdout.fnmatch_lines(
            [
                (
                    f"--mb-max-cost ${cap:.2f}: {skipped} item(s) skipped to stay within the budget (see"
                    " their skip reasons: pytest -rs)"
                ),
                (
                    f"SKIPPED [[]1[]] ltm::colours[[]rep3[]]: --mb-max-cost ${cap:.2f}: $0.{4 * passed:02d}00"
                    " spent, and this conversation (1 test) would cost about $0.0400 more"
                ),
            ]
        )
    assert result.ret == pytest.ExitCode.OK, "skipping for the budget is not a failure"


def test_a_resumed_run_counts_what_it_spent_before_against_its_budget(pytester: pytest.Pytester) -> None:
    """The budget a resume goes on with is the run's (run.json keeps it), and what the log says the
    run spent counts against it: the conversation it paid for replays, the next would overspend."""
    pytester.makeconftest(PRICED_AGENT)
    first = pytester.runpytest(*ISOLATED, "--mb-max-cost=0.06", "--mb-output=run")
    first.assert_outcomes(passed=1, skipped=2)

    again = pytester.runpytest(*ISOLATED, "--mb-resume=run", "-rs")
    again.assert_outcomes(passed=1, skipped=2)
    again.stdout.fnmatch_lines(["*--mb-max-cost $0.06: $0.0400 spent, and this conversation (1 test)*"])
    assert results_in(pytester.path / "run")["totals"]["cost_usd"] == pytest.approx(0.04)

    raised = pytester.runpytest(*ISOLATED, "--mb-resume=run", "--mb-max-cost=0.10")
    raised.assert_outcomes(passed=2, skipped=1)
    assert results_in(pytester.path / "run")["totals"]["cost_usd"] == pytest.approx(0.08)


def test_a_reached_cap_skips_everything_left(tmp_path: Path) -> None:
    cap = SpendingCap(0.05, tmp_path, "gw0", {"a": 1, "b": 2})
    assert cap.reason_to_skip("a", 0.0, []) is None, "nothing known yet: the first conversation runs"
    assert cap.reason_to_skip("b", 0.02, ["a"]) == (
        "--mb-max-cost $0.05: $0.0200 spent, and this conversation (2 tests) would cost about $0.0400 more"
    ), "0.02 per test so far: two more tests would pass the cap"
    cap.group_sizes["b"] = 1
    assert cap.reason_to_skip("b", 0.02, ["a"]) is None, "one more test fits"
    assert (
        cap.reason_to_skip("b", 0.05, ["a"])
        == "--mb-max-cost $0.05 reached: $0.0500 spent on agent and judge calls"
    )


def test_workers_share_one_budget_through_the_run_folder(tmp_path: Path) -> None:
    first = SpendingCap(0.10, tmp_path, "gw0", {"a": 1, "b": 1})
    second = SpendingCap(0.10, tmp_path, "gw1", {"a": 1, "b": 1})
    first.publish(0.07)
    second.publish(0.01)
    assert second.total(0.01) == pytest.approx(0.08), "its own spend live, the other's as published"
    assert second.reason_to_skip("b", 0.04, ["a"]) is not None, (
        "0.07 + 0.04 spent, and the same again to come"
    )
    (tmp_path / "spending" / "gw2.json").write_text("{half a fil")  # being rewritten: ignored, not fatal
    assert first.total(0.07) == pytest.approx(0.08)
    first.clear()
    assert second.total(0.0) == 0.0


def test_spend_counts_forked_probes_and_the_judge() -> None:
    records = [{"usage": {"cost_usd": 0.03}}, {"usage": {"cost_usd": 0.02}}]
    assert process_spend(0.01, records, overhead_cost=0.01, judge_cost=0.5) == pytest.approx(0.56)
    assert process_spend(0.2, records, overhead_cost=0.01, judge_cost=0.0) == pytest.approx(0.2)


def test_users_extend_the_price_table(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("pytest_memorybench.models.prices.PRICES", dict(PRICES))
    assert price_for("acme-chat-2025-06-01") is None
    register_price("acme-chat", Price(1.0, 3.0))
    assert price_for("acme-chat-2025-06-01") == Price(1.0, 3.0), "dated snapshots match the name"
    assert _prices(["acme-chat=0.5,1.5", "other=0,0"]) == {
        "acme-chat": Price(0.5, 1.5),
        "other": Price(0.0, 0.0),
    }


@pytest.mark.parametrize("value", ["acme", "acme=1", "acme=x,2", "=1,2", "acme=-1,2"])
def test_a_bad_price_is_one_clear_line(value: str) -> None:
    with pytest.raises(
        UsageError, match=r"--mb-price '.*': expected MODEL=INPUT,OUTPUT in USD per million tokens"
    ):
        _prices([value])


def test_a_cap_must_be_positive() -> None:
    from pytest_memorybench.runner.settings import _max_cost

    with pytest.raises(UsageError, match=r"--mb-max-cost 0 must be a positive number of US dollars"):
        _max_cost(0.0)
    assert _max_cost(2.5) == 2.5 and _max_cost(None) is None and SimpleNamespace()


def test_agent_and_judge_calls_are_priced_from_an_extended_table(
    pytester: pytest.Pytester, llm_server: LLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real OpenAI client against a local server: tokens as the server reports them, priced per call."""
    monkeypatch.delenv("PYTEST_ADDOPTS")  # this suite alone
    pytester.makefile(".yaml", judged=JUDGED_SUITE)
    spec = f"openai:fake-model@{llm_server.openai_url}"
    result = pytester.runpytest(
        "--memorybench",
        "--mb-suite=judged.yaml",
        f"--agent={spec}",
        f"--judge={spec}",
        "--mb-price=fake-model=1000,2000",
        "--mb-output=run",
        "-p",
        "no:cacheprovider",
    )
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), result.stderr.str()
    totals = results_in(pytester.path / "run")["totals"]
    items = results_in(pytester.path / "run")["items"]
    assert totals["agent_calls"] == 2 * len(items) > 0 and totals["agent_tokens_in"] > 0, (
        "a statement, a question"
    )
    expected_agent = (totals["agent_tokens_in"] * 1000 + totals["agent_tokens_out"] * 2000) / 1e6
    assert totals["cost_usd"] == pytest.approx(expected_agent, abs=1e-6)
    assert totals["judge_calls"] >= len(items) and totals["judge_tokens_in"] > 0
    expected_judge = (totals["judge_tokens_in"] * 1000 + totals["judge_tokens_out"] * 2000) / 1e6
    assert totals["judge_cost_usd"] == pytest.approx(expected_judge, abs=1e-6)
    result.stdout.fnmatch_lines(
        [
            f"agent: * tokens in, * out, * calls, * s, ${totals['cost_usd']:.4f}",
            f"judge openai:fake-model@*: * calls, 0 cache hits, * tokens, ${totals['judge_cost_usd']:.4f}",
        ]
    )


@pytest.mark.e2e  # two worker processes over the whole LTM suite
def test_under_xdist_each_conversation_is_paid_once_and_the_ledger_is_shared(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`-n 2` alone must keep a conversation on one worker (workers parse `-n` as plain "load"), or
    two workers would each drive, and pay for, the same conversation.  The whole LTM suite, so that
    xdist's load balancing would split a conversation if it could."""
    monkeypatch.delenv("PYTEST_ADDOPTS")
    pytester.makeconftest(PRICED_AGENT)
    common = (
        "--memorybench",
        "--mb-suite=ltm",
        "--span=2k",
        "--mb-conversations=2",
        "-p",
        "no:cacheprovider",
    )
    result = pytester.runpytest(
        *common, "--mb-max-cost=5", "-n", "2", "--mb-output=run", "-k", "not chapterbreak"
    )
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed", 0) + outcomes.get("failed", 0) == 30, (
        "scores do not matter here, only who drove"
    )
    drivers: dict[str, int] = {}
    for log in (pytester.path / "run").glob("events-gw*.jsonl"):
        for line in log.read_text().splitlines():
            event = json.loads(line)
            if event["kind"] == "conversation_begin":
                drivers[event["group"]] = drivers.get(event["group"], 0) + 1
    assert drivers == {"ltm-c1": 1, "ltm-c2": 1}
    results = results_in(pytester.path / "run")
    ledger = {
        path.stem: json.loads(path.read_text())["spent_usd"]
        for path in (pytester.path / "run" / "spending").glob("*.json")
    }
    assert sorted(ledger) == ["gw0", "gw1"]
    assert sum(ledger.values()) == pytest.approx(results["totals"]["cost_usd"]), (
        "every reply, intro and filler included"
    )
    assert results["totals"]["cost_usd"] == pytest.approx(0.01 * results["totals"]["agent_calls"])
