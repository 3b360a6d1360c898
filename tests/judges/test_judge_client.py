"""The judge client: prompts, JSON repair, validation, cache, retries, concurrency and specs.

LLM backends run through the real OpenAI and Anthropic SDK clients against the local server.
"""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from pytest_memorybench.core.errors import ProviderRefused, UsageError
from pytest_memorybench.core.json_reply import extract_json
from pytest_memorybench.judge_check.command import run_judge_check
from pytest_memorybench.judges import prompts
from pytest_memorybench.judges.backends import AnthropicJudgeBackend, JudgeBackend, OpenAIJudgeBackend
from pytest_memorybench.judges.base import TASK_KINDS, JudgeTask
from pytest_memorybench.judges.client import CachedJudge, JudgeCache
from pytest_memorybench.judges.local import VERSION, LocalJudge
from pytest_memorybench.judges.prompts import Prompt, prompt_hash, render
from pytest_memorybench.judges.replies import validate
from pytest_memorybench.judges.schemas import schema_for
from pytest_memorybench.judges.spec import build_judge, parse_judge_spec
from pytest_memorybench.models.prices import price_for
from tests.support.llm_server import FAULT_KINDS, LLMServer, anthropic_message

SECRET = "sk-test-0123456789abcdef"
FAST = {"timeout": 5.0, "max_attempts": 3, "min_wait": 0.01, "max_wait": 0.1}
CHAT = "/v1/chat/completions"
MESSAGES = "/v1/messages"
REFERS = '{"refers": true, "expected_is_number": false, "numbers_match": null, "reason": "same colour"}'
TASK = JudgeTask(
    "reference",
    {"question": "What is my favourite colour?", "expected": "blue", "answer": "It is blue."},
    scorer="ltm.colours",
)

Factory = Callable[..., CachedJudge]


@pytest.fixture(autouse=True)
def no_keys_in_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)


@pytest_asyncio.fixture
async def make(llm_server: LLMServer, tmp_path: Path) -> AsyncIterator[Factory]:
    """Builds judges pointed at the server, sharing one cache file unless told otherwise."""
    made: list[CachedJudge] = []

    def factory(
        provider: str = "openai",
        model: str = "fake-model",
        *,
        cache: Path | None = tmp_path / "cache.sqlite",
        max_concurrency: int = 4,
        max_attempts: int = 3,
        **settings: Any,
    ) -> CachedJudge:
        options = {"api_key": SECRET, **FAST, **settings}
        backend: JudgeBackend
        if provider == "openai":
            backend = OpenAIJudgeBackend(model, base_url=llm_server.openai_url, **options)
        else:
            backend = AnthropicJudgeBackend(model, base_url=llm_server.url, **options)
        judge = CachedJudge(
            backend, cache_path=cache, max_concurrency=max_concurrency, max_attempts=max_attempts
        )
        made.append(judge)
        return judge

    yield factory
    for judge in made:
        await judge.aclose()


# The judge's client against each provider's wire format, served by the same loopback server.
EACH_PROVIDER = pytest.mark.parametrize("provider", ["openai", "anthropic"])


def judge_requests(server: LLMServer) -> list[Any]:
    return [request for request in server.requests if request.path in (CHAT, MESSAGES)]


# -- a verdict ---------------------------------------------------------------------------------------


@pytest.mark.asyncio
@EACH_PROVIDER
async def test_verdict_is_parsed_validated_and_accounted(
    make: Factory, llm_server: LLMServer, provider: str
) -> None:
    llm_server.queue(text=REFERS)
    judge = make(provider)
    verdict = await judge.judge(TASK)
    assert verdict.ok and not verdict.cached
    assert verdict.data == {
        "refers": True,
        "expected_is_number": False,
        "numbers_match": None,
        "reason": "same colour",
    }
    [request] = judge_requests(llm_server)
    system, user = render("reference", TASK.payload)
    if provider == "openai":
        assert request.body["messages"] == [
            {"role": "system", "content": system},
            {"role": "user", "content": user},
        ]
        assert request.body["temperature"] == 0
    else:
        assert request.body["system"] == system
        assert request.body["messages"] == [{"role": "user", "content": user}]
        assert "temperature" not in request.body
    assert "It is blue." in user and "blue" in user
    # The server counts words: everything sent in, the reply out.
    assert judge.stats.usage.calls == 1
    assert judge.stats.usage.input_tokens == len(system.split()) + len(user.split())
    assert judge.stats.usage.output_tokens == len(REFERS.split())
    assert judge.stats.usage.cost_usd == 0  # an unknown model is free
    assert judge.stats.prompt_hashes == {"reference": prompt_hash("reference")}
    assert (
        judge.name
        == f"{provider}:fake-model@{llm_server.openai_url if provider == 'openai' else llm_server.url}"
    )


@pytest.mark.asyncio
async def test_known_judge_models_are_priced(make: Factory, llm_server: LLMServer) -> None:
    llm_server.queue(text=REFERS)
    judge = make(model="gpt-4o-mini")
    await judge.judge(TASK)
    price = price_for("gpt-4o-mini")
    assert price is not None
    assert judge.stats.usage.cost_usd == pytest.approx(
        price.cost(judge.stats.usage.input_tokens, judge.stats.usage.output_tokens)
    )
    assert judge.stats.usage.cost_usd > 0


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "reply",
    [
        f"```json\n{REFERS}\n```",
        (
            'Here is my verdict:\n{"refers": true, "expected_is_number": false, "numbers_match": null,}\nHope'
            " it helps."
        ),
        "{'refers': True, 'expected_is_number': False, 'numbers_match': None, 'reason': 'it's blue'}",
        '{"refers": "yes", "expected_is_number": "no"}',
    ],
    ids=["code-fence", "prose-and-trailing-comma", "python-literals", "lenient-booleans"],
)
async def test_slightly_malformed_replies_are_repaired(
    make: Factory, llm_server: LLMServer, reply: str
) -> None:
    llm_server.queue(text=reply)
    judge = make()
    verdict = await judge.judge(TASK)
    assert verdict.ok, verdict.error
    assert (
        verdict.data is not None and verdict.data["refers"] is True and verdict.data["numbers_match"] is None
    )
    assert judge.stats.usage.calls == 1


# -- the cache -----------------------------------------------------------------------------------------


@pytest.mark.asyncio
@EACH_PROVIDER
async def test_second_identical_task_comes_from_the_cache(
    make: Factory, llm_server: LLMServer, provider: str
) -> None:
    llm_server.queue(text=REFERS)
    judge = make(provider)
    first, second = await judge.judge(TASK), await judge.judge(TASK)
    assert not first.cached and second.cached
    assert second.data == first.data
    assert len(judge_requests(llm_server)) == 1
    assert (judge.stats.usage.calls, judge.stats.cache_hits) == (1, 1)
    assert judge.stats.prompt_hashes == {"reference": prompt_hash("reference")}
    # A new client on the same file (another worker, a later run) finds it too.
    fresh = make(provider)
    assert (await fresh.judge(TASK)).cached
    assert len(judge_requests(llm_server)) == 1


@pytest.mark.asyncio
async def test_cache_key_changes_with_model_prompt_and_scorer(
    make: Factory, llm_server: LLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    llm_server.queue(text=REFERS, times=10)
    judge = make()
    await judge.judge(TASK)
    assert (await judge.judge(TASK)).cached

    other_scorer = JudgeTask(TASK.kind, TASK.payload, scorer="episodic.items")
    assert not (await judge.judge(other_scorer)).cached
    assert not (await make(model="other-model").judge(TASK)).cached
    assert not (await make("anthropic").judge(TASK)).cached
    changed_payload = JudgeTask(TASK.kind, {**TASK.payload, "answer": "Blue!"}, scorer=TASK.scorer)
    assert not (await judge.judge(changed_payload)).cached
    reworded = Prompt(
        prompts.PROMPTS["reference"].system + " Be brief.",
        prompts.PROMPTS["reference"].template,
        prompts.PROMPTS["reference"].fields,
    )
    monkeypatch.setitem(prompts.PROMPTS, "reference", reworded)
    assert not (await judge.judge(TASK)).cached
    assert len(judge_requests(llm_server)) == 6


def test_cache_key_covers_parameters(tmp_path: Path) -> None:
    system, user = render("reference", TASK.payload)

    def key(**options: Any) -> str:
        backend = OpenAIJudgeBackend("m", base_url="http://127.0.0.1:9/v1", **options)
        return CachedJudge(backend, cache_path=None, **{}).cache_key(TASK, system, user)

    assert key() == key()
    assert key() != key(max_output_tokens=99)
    other_url = OpenAIJudgeBackend("m", base_url="http://127.0.0.1:8/v1")
    assert key() != CachedJudge(other_url, cache_path=None).cache_key(TASK, system, user)
    versioned = CachedJudge(
        OpenAIJudgeBackend("m", base_url="http://127.0.0.1:9/v1"), cache_path=None, scorer_version="2"
    )
    assert key() != versioned.cache_key(TASK, system, user)


@pytest.mark.asyncio
async def test_without_a_cache_path_nothing_is_stored(make: Factory, llm_server: LLMServer) -> None:
    llm_server.queue(text=REFERS, times=2)
    judge = make(cache=None)
    assert not (await judge.judge(TASK)).cached
    assert not (await judge.judge(TASK)).cached
    assert len(judge_requests(llm_server)) == 2


# -- retries and failures --------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_rate_limit_is_retried_after_the_wait_the_server_asks(
    make: Factory, llm_server: LLMServer
) -> None:
    llm_server.queue(429, headers={"retry-after-ms": "80"})
    llm_server.queue(text=REFERS)
    judge = make(min_wait=0.001)
    started = time.perf_counter()
    verdict = await judge.judge(TASK)
    assert verdict.ok
    assert time.perf_counter() - started >= 0.08
    assert len(judge_requests(llm_server)) == 2
    assert judge.stats.usage.calls == 1  # transient retries happen inside one call


@pytest.mark.asyncio
@EACH_PROVIDER
async def test_server_error_is_retried(make: Factory, llm_server: LLMServer, provider: str) -> None:
    llm_server.queue(500)
    llm_server.queue(text=REFERS)
    verdict = await make(provider).judge(TASK)
    assert verdict.ok
    assert len(judge_requests(llm_server)) == 2


@pytest.mark.asyncio
async def test_a_failing_server_gives_a_judge_error_verdict_not_cached(
    make: Factory, llm_server: LLMServer
) -> None:
    llm_server.queue(500, times=3)
    judge = make()
    verdict = await judge.judge(TASK)
    assert verdict.data is None and not verdict.ok
    assert verdict.error == (
        f"judge-error: openai:fake-model@{llm_server.openai_url}: gave up after 3 attempts: "
        "HTTP 500 Internal Server Error: scripted HTTP 500"
    )
    llm_server.queue(text=REFERS)
    assert (await judge.judge(TASK)).ok  # the failure was not cached
    assert len(judge_requests(llm_server)) == 4


@pytest.mark.asyncio
async def test_rejected_key_is_not_retried_nor_shown(make: Factory, llm_server: LLMServer) -> None:
    llm_server.queue(401, body={"error": {"type": "authentication_error", "message": f"bad key {SECRET}"}})
    with pytest.raises(
        ProviderRefused, match="API key was rejected"
    ) as refused:  # no verdict can come: the run stops
        await make().judge(TASK)
    assert SECRET not in str(refused.value)
    assert len(judge_requests(llm_server)) == 1


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", sorted(FAULT_KINDS))
async def test_a_judge_call_rides_out_every_transient_fault(
    make: Factory, llm_server: LLMServer, kind: str
) -> None:
    """The judge's backend is the agents' adapter: the same retries for the same faults."""
    scripted = FAULT_KINDS[kind]
    llm_server.queue(**{**scripted.__dict__, "headers": {**scripted.headers, "retry-after": "0"}})
    llm_server.queue(text=REFERS)
    verdict = await make().judge(TASK)
    assert verdict.ok, verdict.error
    assert len(judge_requests(llm_server)) == 2


@pytest.mark.asyncio
async def test_unparseable_reply_is_reasked_then_reported_not_cached(
    make: Factory, llm_server: LLMServer
) -> None:
    llm_server.queue(text="I think the answer refers to blue.", times=3)
    judge = make(max_attempts=3)
    verdict = await judge.judge(TASK)
    assert verdict.data is None
    assert verdict.error == "judge-unparseable: no JSON object in the reply"
    assert (judge.stats.usage.calls, judge.stats.unparseable) == (3, 1)
    requests = judge_requests(llm_server)
    assert len(requests) == 3
    # A re-ask shows the model its reply and what was wrong with it.
    messages = requests[1].body["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[2]["content"] == "I think the answer refers to blue."
    assert "no JSON object in the reply" in messages[3]["content"]
    llm_server.queue(text=REFERS)
    assert not (await judge.judge(TASK)).cached  # unparseable verdicts are not stored
    assert len(judge_requests(llm_server)) == 4


@pytest.mark.asyncio
async def test_schema_invalid_reply_is_reasked_until_valid(make: Factory, llm_server: LLMServer) -> None:
    task = JudgeTask(
        "items",
        {
            "question": "Which events?",
            "retrieval_type": "events",
            "ground_truth": ["Hackathon", "Book Fair"],
            "answer": "A hackathon.",
        },
    )
    llm_server.queue(text='{"identified": ["hackathon"], "matching": [1]}')
    llm_server.queue(text='{"identified": ["hackathon"], "matching": [1, 0]}')
    judge = make()
    verdict = await judge.judge(task)
    assert verdict.data == {"identified": ["hackathon"], "matching": [1, 0]}
    assert judge.stats.usage.calls == 2 and judge.stats.unparseable == 0
    reask = judge_requests(llm_server)[1].body["messages"][-1]["content"]
    assert "'matching' has 1 scores for 2 ground-truth items" in reask


@pytest.mark.asyncio
async def test_empty_reply_is_unparseable(make: Factory, llm_server: LLMServer) -> None:
    llm_server.queue(text="", times=2)
    verdict = await make(max_attempts=2).judge(TASK)
    assert verdict.error == "judge-unparseable: the reply is empty"


# -- concurrency ---------------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_concurrent_calls_are_bounded(make: Factory, llm_server: LLMServer) -> None:
    changed = threading.Condition()
    in_flight = {"now": 0, "most": 0}
    answer = llm_server.routes[("POST", CHAT)]

    def slow_answer(request: Any, text: str) -> Any:  # runs in the server's thread for the request
        with changed:
            in_flight["now"] += 1
            in_flight["most"] = max(in_flight["most"], in_flight["now"])
            changed.notify_all()
            # the first waits for a second to arrive, however slowly the machine sends it
            changed.wait_for(lambda: in_flight["most"] >= 2, timeout=30)
        try:
            time.sleep(0.05)  # long enough for a third to arrive, were the bound not kept
            return answer(request, text)
        finally:
            with changed:
                in_flight["now"] -= 1

    llm_server.routes[("POST", CHAT)] = slow_answer
    llm_server.queue(text='{"equivalent": true}', times=6)
    judge = make(max_concurrency=2)
    tasks = [JudgeTask("equivalence", {"first": f"fact {i}", "second": "fact"}) for i in range(6)]
    verdicts = await asyncio.gather(*(judge.judge(task) for task in tasks))
    assert all(verdict.ok for verdict in verdicts)
    assert in_flight["most"] == 2


# -- several processes share a cache file -------------------------------------------------------------------

WRITER = textwrap.dedent("""
    import asyncio, sys
    from pathlib import Path
    from pytest_memorybench.judges.base import JudgeTask
    from pytest_memorybench.judges.client import CachedJudge
    from pytest_memorybench.judges.local import LocalJudge

    async def main(path, worker, count):
        judge = CachedJudge(LocalJudge(), cache_path=Path(path), lock_timeout=20)
        for i in range(count):
            for first in (f"{worker} fact {i}", f"shared fact {i}"):
                await judge.judge(JudgeTask("equivalence", {"first": first, "second": "x"}, scorer="mp"))
        print(judge.stats.usage.calls + judge.stats.cache_hits)

    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
    """)


@pytest.mark.asyncio
async def test_processes_share_one_cache_file(tmp_path: Path) -> None:
    path, count = tmp_path / "shared" / "judge-cache.sqlite", 40
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), worker, str(count)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for worker in ("w1", "w2")
    ]
    for writer in writers:
        out, err = writer.communicate(timeout=60)
        assert writer.returncode == 0, err
        assert out.strip() == str(2 * count), err
        assert "unusable" not in err, err  # no lock timeouts, no skipped writes
    cache = JudgeCache(path)
    assert len(cache) == 3 * count  # each worker's own entries plus the shared ones, once
    cache.close()
    judge = CachedJudge(LocalJudge(), cache_path=path)
    verdict = await judge.judge(JudgeTask("equivalence", {"first": "w2 fact 7", "second": "x"}, scorer="mp"))
    assert verdict.cached and verdict.ok
    assert (judge.stats.usage.calls, judge.stats.cache_hits) == (0, 1)
    await judge.aclose()


def test_an_unusable_cache_file_means_judging_without_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "cache.sqlite"
    path.write_text("this is not a database")
    judge = CachedJudge(LocalJudge(), cache_path=path)
    verdict = asyncio.run(judge.judge(TASK))
    assert verdict.ok and not verdict.cached
    assert "judge cache" in caplog.text and "unusable" in caplog.text


# -- the local judge through the client
# ------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_local_spec_builds_an_uncached_local_judge(tmp_path: Path) -> None:
    judge = build_judge("local", cache_path=tmp_path / "cache.sqlite")
    assert judge.name == "local" and judge.cache is None
    verdict = await judge.judge(TASK)
    assert verdict.data is not None and verdict.data["refers"] is True
    assert (judge.stats.usage.calls, judge.stats.cache_hits) == (1, 0)
    assert judge.stats.prompt_hashes == {"reference": VERSION}
    assert not (tmp_path / "cache.sqlite").exists()


@pytest.mark.asyncio
async def test_a_bad_payload_is_the_callers_bug() -> None:
    with pytest.raises(ValueError, match="needs payload field"):
        await build_judge("local", cache_path=None).judge(JudgeTask("reference", {"answer": "x"}))


# -- specs
# -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind", "model", "url"),
    [
        ("local", "local", None, None),
        (" openai:gpt-4o-mini ", "openai", "gpt-4o-mini", None),
        ("openai:llama3@http://localhost:8000/v1/", "openai", "llama3", "http://localhost:8000/v1"),
        ("anthropic:claude-haiku-4-5", "anthropic", "claude-haiku-4-5", None),
        ("http://localhost:11434/v1", "openai", None, "http://localhost:11434/v1"),
    ],
)
def test_judge_specs_parse(text: str, kind: str, model: str | None, url: str | None) -> None:
    spec = parse_judge_spec(text)
    assert (spec.kind, spec.model, spec.base_url) == (kind, model, url)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("gemini:pro", "^--judge 'gemini:pro': unknown judge prefix 'gemini'; judges: local, "),
        (
            "opnai:gpt-4o",
            "^--judge 'opnai:gpt-4o': unknown judge prefix 'opnai'; did you mean openai\\? \\(judges: ",
        ),
        ("gpt-4o", "^--judge 'gpt-4o' is not a judge; judges: local, "),
        ("locl", "^--judge 'locl' is not a judge; did you mean local\\? \\(judges: local, "),
        ("", "^--judge is empty"),
        ("openai:", "^--judge 'openai:': expected openai:MODEL"),
        (
            "openai:gpt-4o",
            "^--judge openai:gpt-4o: OPENAI_API_KEY is not set; export it, or point the judge at",
        ),
        ("anthropic:claude-haiku-4-5", "^--judge anthropic:claude-haiku-4-5: ANTHROPIC_API_KEY is not set"),
    ],
)
def test_bad_judge_specs_are_usage_errors(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(UsageError, match=message) as excinfo:
        build_judge(text, cache_path=tmp_path / "cache.sqlite")
    assert "\n" not in str(excinfo.value)


def test_a_key_in_the_environment_or_a_url_is_enough(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    assert build_judge("openai:gpt-4o-mini", cache_path=None).name == "openai:gpt-4o-mini"
    assert (
        build_judge("anthropic:x@http://127.0.0.1:9", cache_path=None).name
        == "anthropic:x@http://127.0.0.1:9"
    )


def test_credentials_in_a_url_are_masked_in_the_name() -> None:
    judge = build_judge("openai:m@http://user:pw@127.0.0.1:9/v1", cache_path=None)
    assert judge.name == "openai:m@http://***@127.0.0.1:9/v1"
    assert (
        parse_judge_spec("openai:m@http://user:pw@127.0.0.1:9/v1").display
        == "openai:m@http://***@127.0.0.1:9/v1"
    )


@pytest.mark.asyncio
async def test_bare_url_judge_discovers_its_model(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.queue(text=REFERS, path=CHAT)
    judge = build_judge(llm_server.openai_url, cache_path=tmp_path / "c.sqlite", min_wait=0.01, max_wait=0.1)
    try:
        verdict = await judge.judge(TASK)
        assert verdict.ok
        assert [request.path for request in llm_server.requests] == ["/v1/models", CHAT]
        assert llm_server.requests[-1].body["model"] == "fake-model"
        assert judge.name == f"openai:fake-model@{llm_server.openai_url}"
        assert (await judge.judge(TASK)).cached
    finally:
        await judge.aclose()


@pytest.mark.asyncio
async def test_bare_url_without_models_is_a_judge_error(llm_server: LLMServer) -> None:
    llm_server.queue(body={"object": "list", "data": []}, path="/v1/models")
    judge = build_judge(llm_server.openai_url, cache_path=None)
    try:
        verdict = await judge.judge(TASK)
        assert verdict.error is not None and verdict.error.startswith("judge-error: ")
        assert "lists no models" in verdict.error
    finally:
        await judge.aclose()


# -- structured output ------------------------------------------------------------------------------------

# What llama-cpp-python's server (0.3.36) answers to the json_schema form: a validation error, as HTTP 500.
LLAMA_REFUSAL = {
    "error": {
        "message": "1 validation error: ('body', 'response_format', 'type') Input should be "
        "'text' or 'json_object'",
        "type": "internal_server_error",
    }
}


@pytest.mark.asyncio
async def test_openai_judges_ask_for_the_tasks_json_schema(make: Factory, llm_server: LLMServer) -> None:
    llm_server.queue(text=REFERS)
    verdict = await make().judge(TASK)
    assert verdict.ok
    [request] = judge_requests(llm_server)
    assert request.body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "reference", "schema": schema_for("reference")},
    }
    reason = request.body["response_format"]["json_schema"]["schema"]["properties"]["reason"]
    assert reason == {"type": "string", "maxLength": 200}  # a small model must not write until max_tokens


@pytest.mark.asyncio
async def test_a_server_that_refuses_a_form_gets_the_next_and_the_run_remembers_it(
    make: Factory, llm_server: LLMServer
) -> None:
    llm_server.queue(500, body=LLAMA_REFUSAL)
    llm_server.queue(text=REFERS, times=2)
    judge = make(cache=None)
    first = await judge.judge(TASK)
    second = await judge.judge(JudgeTask("reference", {**TASK.payload, "answer": "Blue."}, "ltm.colours"))
    assert first.ok and second.ok
    formats = [request.body.get("response_format") for request in judge_requests(llm_server)]
    assert formats == [
        {"type": "json_schema", "json_schema": {"name": "reference", "schema": schema_for("reference")}},
        {"type": "json_object", "schema": schema_for("reference")},
        {"type": "json_object", "schema": schema_for("reference")},  # learnt once, not asked again
    ]
    assert judge.backend.form == "json_object+schema" and judge.stats.usage.calls == 2


@pytest.mark.asyncio
async def test_a_server_that_takes_no_form_gets_plain_text_and_other_errors_stay_errors(
    make: Factory, llm_server: LLMServer
) -> None:
    for form in ("json_schema", "json_object"):
        llm_server.queue(
            400,
            body={"error": {"message": f"response_format {form} is not supported"}},
            times=1 + (form == "json_object"),
        )
    llm_server.queue(text=REFERS)
    judge = make(cache=None)
    assert (await judge.judge(TASK)).ok
    assert "response_format" not in judge_requests(llm_server)[-1].body and judge.backend.form == "text"
    llm_server.queue(400, body={"error": {"message": "maximum context length exceeded"}})
    with pytest.raises(ProviderRefused, match="context length"):  # refused, and not for its form
        await judge.judge(JudgeTask("reference", {**TASK.payload, "answer": "Navy."}, "ltm.colours"))


@pytest.mark.asyncio
async def test_anthropic_judges_answer_through_a_tool_with_the_schema(
    make: Factory, llm_server: LLMServer
) -> None:
    verdict_data = {"refers": True, "expected_is_number": False, "numbers_match": None, "reason": "blue"}
    body = anthropic_message("fake-model", "", {"input_tokens": 10, "output_tokens": 5})
    body["content"] = [{"type": "tool_use", "id": "toolu_1", "name": "reference", "input": verdict_data}]
    llm_server.queue(body=body)
    verdict = await make("anthropic").judge(TASK)
    assert verdict.ok and verdict.data == {**verdict_data, "reason": "blue"}
    [request] = judge_requests(llm_server)
    assert request.body["tools"] == [
        {"name": "reference", "description": "Record the verdict.", "input_schema": schema_for("reference")}
    ]
    assert request.body["tool_choice"] == {"type": "tool", "name": "reference"}


def test_a_judge_check_with_mostly_unusable_verdicts_says_so_and_exits_1(llm_server: LLMServer) -> None:
    """Two cases of each kind (`sample`): every verdict of the whole set goes the same way, three
    calls each (the local judge's check of the whole set: tests/pytest_integration/test_user_tests.py)."""
    llm_server.queue(text="I think so.", times=5000)  # every verdict's attempts
    lines: list[str] = []
    status = run_judge_check(f"openai:fake-model@{llm_server.openai_url}", None, lines.append, sample=2)
    assert status == 1
    assert lines[0].startswith("[memorybench] judged ") and lines[-2].startswith("agreement 0%")
    unusable = re.match(r"ERROR: (\d+) of (\d+) verdicts of openai:fake-model@", lines[-1])
    assert unusable and unusable[1] == unusable[2] and int(unusable[1]) > 10, lines[-1]
    assert "judge-unparseable" in lines[-1]
    assert len(llm_server.requests_to("/v1/chat/completions")) == 3 * int(unusable[1]), "three tries each"


# -- prompts, JSON repair, validation
# ----------------------------------------------------------------------------


def test_every_kind_has_a_prompt_with_a_stable_short_hash() -> None:
    hashes = {kind: prompt_hash(kind) for kind in TASK_KINDS}
    assert all(re.fullmatch(r"[0-9a-f]{12}", value) for value in hashes.values())
    assert len(set(hashes.values())) == len(TASK_KINDS)
    assert prompt_hash("nugget") == prompt_hash("nugget")


PAYLOADS: dict[str, dict[str, Any]] = {
    "reference": {"question": "Q?", "expected": "E", "answer": "A"},
    "sentence": {"answer": "A", "sentence": "S"},
    "directions": {"answer": "A", "places": ["Park", "Library"]},
    "restaurant": {"reply": "R", "menu": ["Soup"], "drinks": ["Tea"]},
    "items": {"question": "Q?", "retrieval_type": "events", "ground_truth": ["x", "y"], "answer": "A"},
    "order": {"predicted": ["p"], "ground_truth": ["x", "y"]},
    "nugget": {"question": "Q?", "nugget": "N", "answer": "A"},
    "equivalence": {"first": "F", "second": "S"},
    "interpretation": {"statement": "S", "keywords": ["k1", "k2"], "answer": "A"},
    "answer": {"question": "Q?", "expected": "E", "answer": "A", "rule": "days"},
}


@pytest.mark.parametrize("kind", TASK_KINDS)
def test_prompts_render_every_field_and_ask_for_json_only(kind: str) -> None:
    system, user = render(kind, PAYLOADS[kind])
    assert "JSON" in system
    assert not re.search(r"\$[a-z_]", user)  # every placeholder filled
    for value in PAYLOADS[kind].values():
        for part in value if isinstance(value, list) else [value]:
            assert part in user


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1}', {"a": 1}),
        ('```json\n{"a": [1, 2,],}\n```', {"a": [1, 2]}),
        ("Sure! {'a': 'it\\'s', 'b': None, 'c': True} Done.", {"a": "it's", "b": None, "c": True}),
        ("{'reason': 'I don't know', 'ok': False}", {"reason": "I don't know", "ok": False}),
        ('Steps [1] and [2]; answer: {"x": "[not a list]"}', {"x": "[not a list]"}),
        ('[{"origin": "A"}]', [{"origin": "A"}]),
        ('{"text": "line one\nline two"}', {"text": "line one\nline two"}),
    ],
)
def test_json_is_extracted_and_repaired(text: str, expected: Any) -> None:
    assert extract_json(text) == expected


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "the reply is empty"),
        ("no braces here", "no JSON object in the reply"),
        ('{"a": 1, "b": [2, 3', "the JSON in the reply is malformed"),
    ],
)
def test_json_that_cannot_be_mended_says_why(text: str, reason: str) -> None:
    with pytest.raises(ValueError, match=f"^{reason}$"):
        extract_json(text)


@pytest.mark.parametrize(
    ("kind", "data", "payload", "expected"),
    [
        (
            "reference",
            {"refers": "true", "expected_is_number": 0, "numbers_match": False, "explanation": " ok  "},
            None,
            {"refers": True, "expected_is_number": False, "numbers_match": None, "reason": "ok"},
        ),
        ("sentence", {"present": False, "extracted": "x"}, None, {"present": False, "extracted": None}),
        (
            "directions",
            [{"origin": "park", "kilometers": "3", "direction": "N", "destination": "Library"}],
            {"places": ["Park", "Library"]},
            {"hops": [{"origin": "Park", "kilometers": 3, "direction": "north", "destination": "Library"}]},
        ),
        (
            "restaurant",
            {"dishes": ["soup", "soup"], "drinks": [], "other": ""},
            {"menu": ["Soup"], "drinks": []},
            {"dishes": ["Soup"], "drinks": [], "other": None},
        ),
        (
            "items",
            {"identified": ["x"], "matching": [1.0, "0.5", {"y": 0}]},
            {"ground_truth": ["x", "y", "y"]},
            {"identified": ["x"], "matching": [1, 0.5, 0]},
        ),
        (
            "order",
            {"predicted_indexes": [1, "-1", 0.0]},
            {"predicted": ["a", "b", "c"], "ground_truth": ["x", "y"]},
            {"predicted_indexes": [1, -1, 0]},
        ),
        ("nugget", {"score": 1.0, "reason": "fine"}, None, {"score": 1, "reason": "fine"}),
        ("equivalence", {"equivalent": "no"}, None, {"equivalent": False}),
    ],
)
def test_validation_normalises(kind: str, data: Any, payload: Any, expected: dict[str, Any]) -> None:
    assert validate(kind, data, payload) == expected


@pytest.mark.parametrize(
    ("kind", "data", "payload", "reason"),
    [
        ("reference", {"refers": True}, None, "missing field 'expected_is_number'"),
        (
            "reference",
            {"refers": "maybe", "expected_is_number": False},
            None,
            "'refers' must be true or false",
        ),
        ("sentence", ["present"], None, "expected a JSON object, got a list"),
        (
            "directions",
            {"hops": [{"origin": "A", "kilometers": 2, "direction": "up", "destination": "B"}]},
            None,
            "hop 0: direction 'up' is not north, south, east or west",
        ),
        (
            "directions",
            {"hops": [{"origin": "A", "kilometers": 2.5, "direction": "east", "destination": "B"}]},
            None,
            "hop 0: 'kilometers' must be a whole number",
        ),
        ("restaurant", {"dishes": "Soup", "drinks": []}, None, "'dishes' must be a list"),
        ("items", {"identified": [], "matching": [1, 0.7]}, None, r"matching\[1\] must be 0, 0.5 or 1"),
        (
            "items",
            {"identified": [], "matching": [1]},
            {"ground_truth": ["a", "b"]},
            "'matching' has 1 scores for 2 ground-truth items",
        ),
        ("order", {"predicted_indexes": [0, -2]}, None, r"predicted_indexes\[1\] must be an integer >= -1"),
        (
            "order",
            {"predicted_indexes": [0, 5]},
            {"predicted": ["a", "b"], "ground_truth": ["x"]},
            "index 5 is past the 1-item ground truth",
        ),
        ("order", {"predicted_indexes": [0]}, {"predicted": ["a", "b"]}, "'predicted_indexes' has 1 entries"),
        ("nugget", {"score": 2}, None, "score must be 0, 0.5 or 1"),
        ("equivalence", {}, None, "missing field 'equivalent'"),
    ],
)
def test_validation_rejects_with_a_reason(kind: str, data: Any, payload: Any, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        validate(kind, data, payload)


def test_cache_rows_are_json(tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path / "c.sqlite")
    cache.put("k", "nugget", {"score": 0.5}, raw='{"score": 0.5}', judge="openai:m", prompt="abc")
    assert cache.get("k") == {"score": 0.5} and cache.get("missing") is None
    cache.close()
    reopened = JudgeCache(tmp_path / "c.sqlite")
    assert reopened.get("k") == {"score": 0.5}  # committed at once: survives the writer
    reopened.close()
