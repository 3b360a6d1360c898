"""What a real API needs of concurrent conversations: requests in flight and rates bounded per provider,
one pause for everyone after a 429, a cost cap that holds, and a judge cache that stays whole.

The real OpenAI client talks to the local fake server (tests/support/llm_server.py), which counts the
requests it answers at once and when each arrived."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from pytest_memorybench.judges.client import JudgeCache
from pytest_memorybench.models.limits import ProviderGate, RateLimits
from pytest_memorybench.models.prices import Price
from pytest_memorybench.models.provider_pool import ProviderPool, price_for, serve, serving
from tests.support.llm_server import LLMServer, last_user_text, word_count
from tests.support.runs import QUIET, results_in
from tests.support.virtual_time import VirtualTime

pytest_plugins = ["pytester"]

RUN = (
    *QUIET,
    "--memorybench",
    "--span=isolated",
    "-k",
    "colours or name_list",
    "--mb-concurrency=4",
)
CHAT = "/v1/chat/completions"


def agent(server: LLMServer) -> str:
    return f"--agent=openai:fake-model@{server.openai_url}"


def test_concurrent_conversations_share_the_providers_request_limit(
    pytester: pytest.Pytester, llm_server: LLMServer
) -> None:
    llm_server.latency = 0.05  # were a limit not kept, more would meet at the server
    llm_server.together = 4  # the first answers wait until four are in flight, however slowly they come
    pytester.runpytest(*RUN, agent(llm_server), "--mb-output=free")
    assert llm_server.most_in_flight == 4, "four conversations, four requests at once"
    llm_server.most_in_flight, llm_server.together = 0, 2
    pytester.runpytest(*RUN, agent(llm_server), "--mb-max-requests=2", "--mb-output=limited")
    assert llm_server.most_in_flight == 2
    free = results_in(pytester.path / "free")["items"]
    limited = results_in(pytester.path / "limited")["items"]
    assert [item["score"] for item in free] == [item["score"] for item in limited] and len(free) == 6


def test_a_429_is_waited_out_and_retried_once(pytester: pytest.Pytester, llm_server: LLMServer) -> None:
    """The wiring: the server's Retry-After reaches the run's gate and the refused request is sent
    again once, after it.  That the pause holds every conversation is the gate's, on simulated
    time below (how many requests a real run has on their way then depends on the machine)."""
    llm_server.latency = 0.05
    llm_server.queue(429, headers={"retry-after": "1"}, path=CHAT)
    result = pytester.runpytest(*RUN, agent(llm_server), "--mb-output=run")
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), result.stdout.str()
    chats = llm_server.requests_to(CHAT)
    refused, *rest = chats
    retried = next(request for request in rest if request.body == refused.body)
    assert retried.at - refused.at >= 1.0, "sent again after the Retry-After, not before"
    assert len(chats) > 4
    totals = results_in(pytester.path / "run")["totals"]
    assert totals["agent_calls"] == len(chats) - 1, "the refused request was retried, once"


def test_a_429_pauses_every_caller_of_the_gate_once() -> None:
    """Four conversations on one gate, the first request refused with Retry-After 1 s: only the
    requests already on their way reach the provider during the pause, and each conversation
    goes on after it (on simulated time: the same events on any machine)."""
    clock = VirtualTime()
    gate = ProviderGate(RateLimits(), clock=clock)
    arrivals: list[float] = []

    async def provider() -> bool:
        """False: a 429 (to the first request, 10 ms later); True: an answer, 0.2 s later."""
        arrivals.append(clock.now())
        refuse = len(arrivals) == 1
        await asyncio.sleep(0.01 if refuse else 0.2)
        return not refuse

    async def conversation() -> None:
        for _ in range(3):
            while True:
                async with gate.request(10):
                    answered = await provider()
                if answered:
                    break
                gate.pause(1.0)  # as models/llm.py does with the server's Retry-After

    async def everyone() -> None:
        await asyncio.gather(*(conversation() for _ in range(4)))

    clock.run(everyone())
    refused, *rest = arrivals
    during = [at for at in rest if at < refused + 1.0]
    assert during == [refused] * 3, "only the three other conversations' first requests, sent with it"
    assert len(rest) == 12 and min(at for at in rest if at not in during) >= refused + 1.0


def test_the_cost_cap_holds_across_concurrent_conversations(
    pytester: pytest.Pytester, llm_server: LLMServer
) -> None:
    """Each call is checked against the budget before it is made: only the calls already in flight
    (at most one per conversation) can take the run past it."""
    llm_server.latency = 0.05
    cap = 0.5
    result = pytester.runpytest(
        *RUN,
        agent(llm_server),
        "--mb-price=fake-model=1000,2000",
        f"--mb-max-cost={cap}",
        "-rs",
        "--mb-output=run",
    )
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), (
        result.stdout.str()
    )  # the echo fails
    totals = results_in(pytester.path / "run")["totals"]

    def cost(request: object) -> float:
        reply = f"echo: {last_user_text(request.body)}"  # type: ignore[attr-defined]
        return (word_count(request.body) * 1000 + len(reply.split()) * 2000) / 1e6  # type: ignore[attr-defined]

    costs = [cost(request) for request in llm_server.requests_to(CHAT)]
    assert sum(costs) == pytest.approx(totals["cost_usd"]), "every request paid for is in the results"
    assert cap - max(costs) < totals["cost_usd"] <= cap + 4 * max(costs), (
        "stopped at the cap, give or take the calls in flight"
    )
    result.stdout.fnmatch_lines([f"SKIPPED * --mb-max-cost ${cap:.2f}*"])


def test_a_cap_reached_before_any_test_ends_still_records_what_was_spent(
    pytester: pytest.Pytester, llm_server: LLMServer
) -> None:
    """Every test skipped for the budget: the money spent on the way is still in results.json."""
    result = pytester.runpytest(
        *RUN, agent(llm_server), "--mb-price=fake-model=1000,2000", "--mb-max-cost=0.05", "--mb-output=run"
    )
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    result.stdout.fnmatch_lines(["*6 skipped*"])
    results = results_in(pytester.path / "run")
    assert results["items"] == []
    assert results["totals"]["agent_calls"] == len(llm_server.requests_to(CHAT)) > 0
    assert results["totals"]["cost_usd"] > 0.05


def test_a_gate_keeps_its_limit_and_its_pause() -> None:
    clock = VirtualTime()

    async def scenario() -> tuple[int, float]:
        gate = ProviderGate(RateLimits(max_in_flight=2), clock=clock)

        async def call() -> None:
            async with gate.request(10):
                await asyncio.sleep(0.02)

        await asyncio.gather(*(call() for _ in range(8)))
        gate.pause(0.3)
        started = clock.now()
        await call()
        return gate.most_in_flight, clock.now() - started

    most, waited = clock.run(scenario())
    assert most == 2 and waited == pytest.approx(0.32)  # the pause, then the call


def test_requests_a_minute_hold_back_the_next_request() -> None:
    async def scenario() -> bool:
        gate = ProviderGate(RateLimits(requests_per_minute=3))
        for _ in range(3):
            async with gate.request(1):
                pass
        fourth = asyncio.ensure_future(gate.request(1).__aenter__())
        await asyncio.sleep(19)
        held = not fourth.done()
        await asyncio.sleep(2)
        return held and fourth.done()

    assert VirtualTime().run(scenario()), "three a minute: the fourth waits about 20 s"


def test_tokens_a_minute_never_wait_for_ever_on_one_large_request() -> None:
    async def scenario() -> None:
        gate = ProviderGate(RateLimits(tokens_per_minute=100))
        async with gate.request(10_000):  # more than a minute's worth: let through once the bucket is full
            pass

    VirtualTime().run(asyncio.wait_for(scenario(), 5))


def test_agents_and_judges_of_one_endpoint_share_one_gate() -> None:
    limits = RateLimits(max_in_flight=3)
    pool = ProviderPool()
    assert pool.gate_for("openai", "http://a/v1", limits) is pool.gate_for("openai", "http://a/v1", limits)
    assert pool.gate_for("openai", "http://b/v1", limits) is not pool.gate_for(
        "openai", "http://a/v1", limits
    )


def test_a_run_s_pool_serves_while_it_runs_and_keeps_nothing_after() -> None:
    """Each run measures its providers in a pool of its own: a limit or listener one run made is
    never the next run's."""
    limits = RateLimits(adaptive=True)
    outside = serving()
    first = ProviderPool({"openai@default": 4})
    restore = serve(first)
    heard: list[int] = []
    first.on_level_change(lambda: heard.append(1))
    gate = serving().gate_for("openai", None, limits)
    assert gate.adaptive is first.limit_for("openai@default")
    assert gate.adaptive.level == 4  # where the run before it ended
    gate.adaptive.push_back()
    assert heard
    first.close()
    restore()
    assert serving() is outside
    second = ProviderPool()
    assert second.limit_for("openai@default").level == 1
    assert second.gate_for("openai", None, limits) is not gate


def test_the_judge_cache_stays_whole_under_concurrent_writes(tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path / "cache.sqlite")

    def write(worker: int) -> None:
        for index in range(50):
            cache.put(f"{worker}-{index}", "qa", {"correct": index % 2 == 0, "worker": worker})

    threads = [threading.Thread(target=write, args=(worker,)) for worker in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(
        cache.get(f"{w}-{i}") == {"correct": i % 2 == 0, "worker": w} for w in range(8) for i in range(50)
    )


def test_a_runs_prices_are_its_own() -> None:
    """`--mb-price` prices the run that was given it, not the runs after it in the same process."""
    pool = ProviderPool(prices={"acme-chat": Price(1.0, 3.0)})
    restore = serve(pool)
    try:
        assert price_for("acme-chat-2026-01-01") == Price(1.0, 3.0)
        assert price_for("gpt-4o-mini") is not None  # the known table stays beside it
    finally:
        pool.close()
        restore()
    assert price_for("acme-chat") is None
