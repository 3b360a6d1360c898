"""The concurrency controller against simulated providers: it settles near what each can serve.

The providers are simulated on simulated time (`tests/support/virtual_time.py`): each test plays the
same sequence of events on any machine, however busy, and takes milliseconds.  The same controller
against a real server in a real run is `tests/bench/bench_concurrency_auto.py`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_memorybench.models.concurrency import AUTO_CEILING, AdaptiveLimit
from pytest_memorybench.runner.folder import remembered_levels, write_levels
from tests.support.llm_server import LLMServer
from tests.support.runs import results_in
from tests.support.slot_server import SlotServer, SlottedRoute, drive
from tests.support.virtual_time import VirtualTime


@pytest.fixture
def clock() -> VirtualTime:
    return VirtualTime()


def test_one_slot_settles_at_one_and_is_no_slower_than_one_at_a_time(clock: VirtualTime) -> None:
    server = SlotServer(slots=1, contention=0.2)
    limit = AdaptiveLimit("one slot", clock=clock)
    auto = drive(server, 120, clock=clock, limit=limit)
    # every trial of two is taken back (the run may end during one)
    assert {change.level for change in limit.changes if change.why == "no gain"} == {1}, limit.changes
    assert max(change.level for change in limit.changes) == 2
    one = drive(SlotServer(slots=1, contention=0.2), 120, clock=clock, fixed=1)
    assert auto <= 1.1 * one, (auto, one)


def test_four_slots_settle_at_four(clock: VirtualTime) -> None:
    limit = AdaptiveLimit("four slots", clock=clock)
    drive(SlotServer(slots=4), 400, clock=clock, limit=limit)
    assert limit.level in (4, 5) and limit.settled, limit.changes  # 5: a probe one up, on trial
    assert [change.level for change in limit.changes[:5]] == [1, 2, 4, 8, 4]


def test_a_server_that_serves_any_number_is_driven_to_the_ceiling_and_never_past_it(
    clock: VirtualTime,
) -> None:
    server = SlotServer(slots=None)
    limit = AdaptiveLimit("unlimited", ceiling=12, clock=clock)
    drive(server, 300, clock=clock, limit=limit)
    assert limit.level == 12 and server.most_at_once == limit.most_in_flight == 12


def test_a_rate_limit_pushes_the_level_back_to_about_its_rate(clock: VirtualTime) -> None:
    server = SlotServer(slots=None, service=0.05, rate=100)  # 100 a second: five requests of 50 ms at once
    limit = AdaptiveLimit("rate limited", clock=clock)
    drive(server, 600, clock=clock, limit=limit)
    assert 3 <= limit.level <= 7, limit.changes  # a saw-tooth around five
    assert any(change.why == "pushed back" for change in limit.changes)
    # held at a fixed 12, four would be refused for each one served
    assert server.refused < 0.2 * server.served


def test_a_window_the_callers_do_not_fill_decides_nothing(clock: VirtualTime) -> None:
    limit = AdaptiveLimit("two callers", clock=clock)
    drive(SlotServer(slots=None), 100, clock=clock, clients=2, limit=limit)
    assert limit.level <= 4 and limit.most_in_flight == 2  # raised to 4 once, never found wanting


@pytest.mark.parametrize("ceiling", [1, 3])
def test_the_ceiling_bounds_the_level(clock: VirtualTime, ceiling: int) -> None:
    limit = AdaptiveLimit("bounded", ceiling=ceiling, clock=clock)
    drive(SlotServer(slots=None), 60, clock=clock, limit=limit)
    assert limit.most_in_flight == limit.level == ceiling


def test_a_remembered_level_is_the_start_and_is_probed_one_step_at_a_time(clock: VirtualTime) -> None:
    limit = AdaptiveLimit("four slots", start=4, clock=clock)
    drive(SlotServer(slots=4), 200, clock=clock, limit=limit)
    assert limit.changes[0].as_list() == [0.0, 4, None, "remembered"]
    assert limit.changes[1].level == 5 and max(change.level for change in limit.changes) <= 6  # never 8
    assert AdaptiveLimit("capped", start=40, ceiling=6).level == 6


# -- through the plugin --------------------------------------------------------------------------

pytest_plugins = ["pytester"]
RUN = ("--memorybench", "-p", "no:cacheprovider", "-p", "no:randomly", "--span=isolated")


def _concurrency(folder: Path) -> dict[str, Any]:
    return results_in(folder)["run"]["concurrency"]


@pytest.fixture
def served() -> Iterator[LLMServer]:
    with LLMServer() as server:
        yield server


def test_auto_is_the_default_and_measures_an_endpoint_from_one(
    pytester: pytest.Pytester, served: LLMServer
) -> None:
    """Where auto settles against a real server in a real run depends on the machine's speed: that
    is `tests/bench/bench_concurrency_auto.py`'s to measure (and the controller's rules are the
    simulated tests above).  Here: auto is on, measures the endpoint from one, says where it ended,
    and the server never sees more requests at once than the level let through."""
    route = served.routes[("POST", "/v1/chat/completions")] = SlottedRoute(1, 0.02, contention=0.2)
    result = pytester.runpytest(
        *RUN, f"--agent=openai:model@{served.openai_url}", "-k", "colours or name_list", "--mb-output=run"
    )
    result.stdout.fnmatch_lines(
        [
            "memorybench: agent * | concurrency auto | *",
            "concurrency auto *at *(openai@http://127.0.0.1:*/v1: *)",  # "settled at" once settled
        ]
    )
    (provider,) = _concurrency(pytester.path / "run")["providers"]
    assert provider["changes"][0] == [0.0, 1, None, "start"], provider
    levels = [change[1] for change in provider["changes"]]
    assert provider["level"] == levels[-1] and max(levels) <= AUTO_CEILING, provider
    assert route.most_at_once <= provider["most_in_flight"] <= max(levels), (route.most_at_once, provider)
    assert json.loads((pytester.path / "run" / "levels.json").read_text()) == {
        provider["provider"]: provider["level"]
    }


def test_the_next_run_starts_where_auto_ended_and_never_above_max_requests(
    pytester: pytest.Pytester, served: LLMServer
) -> None:
    """A run beside one that ended at level 5 starts at 5; with `--mb-max-requests=2`, at 2, and the
    server never sees more than 2 at once.  (The level a run ends at is its own measurement: the
    levels.json it leaves is checked above.)"""
    route = served.routes[("POST", "/v1/chat/completions")] = SlottedRoute(None, 0.02)
    agent = f"--agent=openai:model@{served.openai_url}"
    pytester.runpytest(*RUN, agent, "-k", "colours", "--mb-output=runs/first")
    (first,) = _concurrency(pytester.path / "runs" / "first")["providers"]
    write_levels(pytester.path / "runs" / "first", {"providers": [{**first, "level": 5}]})

    pytester.runpytest(*RUN, agent, "-k", "colours", "--mb-output=runs/second")
    (second,) = _concurrency(pytester.path / "runs" / "second")["providers"]
    assert second["changes"][0] == [0.0, 5, None, "remembered"]

    route.most_at_once = 0
    pytester.runpytest(
        *RUN, agent, "-k", "colours or name_list", "--mb-max-requests=2", "--mb-output=runs/capped"
    )
    (capped,) = _concurrency(pytester.path / "runs" / "capped")["providers"]
    assert capped["changes"][0] == [0.0, 2, None, "remembered"]  # never above the provider's limit
    assert max(change[1] for change in capped["changes"]) <= 2 and capped["level"] <= 2, capped
    assert route.most_at_once <= capped["most_in_flight"] <= 2, (route.most_at_once, capped)


def test_your_own_agent_is_measured_as_a_provider(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SLOW_AGENT_SECONDS", "0.01")
    pytester.runpytest(*RUN, "--agent=tests.bench.slow_agent:make_agent", "-k", "colours", "--mb-output=run")
    (provider,) = _concurrency(pytester.path / "run")["providers"]
    assert provider["provider"] == "agent tests.bench.slow_agent:make_agent", provider
    assert provider["changes"][0] == [0.0, 1, None, "start"] and provider["most_in_flight"] >= 1, provider


def test_a_fixed_number_is_kept_and_recorded(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(
        *RUN, "--agent=recall", "--mb-concurrency=2", "-k", "colours", "--mb-output=run"
    )
    result.stdout.fnmatch_lines(["memorybench: agent recall | * | concurrency 2 | *"])
    assert _concurrency(pytester.path / "run") == {"mode": "fixed", "conversations": 2}


def test_a_bad_concurrency_is_one_line(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*RUN, "--agent=recall", "--mb-concurrency=lots")
    assert result.ret == 4
    result.stderr.fnmatch_lines(
        ["ERROR: --mb-concurrency lots must be auto or from 1 to 256 conversations at once"]
    )


def test_levels_are_read_from_the_run_resumed_or_the_newest_one_beside_a_new_run(tmp_path: Path) -> None:
    first, broken = tmp_path / "first", tmp_path / "broken"
    first.mkdir()
    broken.mkdir()
    write_levels(
        first, {"mode": "auto", "providers": [{"provider": "p", "level": 8}, {"provider": "p", "level": 6}]}
    )
    (broken / "levels.json").write_text("{")  # newer, and unreadable: passed over
    assert json.loads((first / "levels.json").read_text()) == {"p": 6}  # the lowest of two workers'
    assert remembered_levels(tmp_path / "next", resumed=False) == {"p": 6}
    assert remembered_levels(first, resumed=True) == {"p": 6}
    assert remembered_levels(tmp_path / "never-ran", resumed=True) == {}
    write_levels(tmp_path, {"mode": "fixed", "conversations": 4})  # a fixed level measures nothing
    assert not (tmp_path / "levels.json").exists()
