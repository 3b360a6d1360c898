"""`--mb-estimate`: the bill before the run, checked against a run on a server that bills like an API."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from pytest_memorybench.core.tokens import default_counter
from pytest_memorybench.models.llm import MESSAGE_OVERHEAD
from tests.support.judge_server import JudgeServer
from tests.support.llm_server import LLMServer, RecordedRequest, chat_completion, content_text
from tests.support.runs import first_by_default, results_in

RUN = ("--memorybench", "-p", "no:cacheprovider", "-p", "no:randomly")
REPLY_TOKENS = 40


@pytest.fixture(autouse=True)
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def test_the_estimate_prints_the_bill_without_a_key_or_a_run_folder(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*RUN, "--mb-estimate", "--agent=openai:gpt-4o", "--span=32k")
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        [
            "memorybench estimate: agent openai:gpt-4o | span ltm=32k | seed 0 | nothing is called*",
            "*= memorybench estimate =*",
            "openai:gpt-4o · context 128,000 tokens · replies of 50 tokens · span ltm=32k",
            "suite*tests*calls*delivered*billed in*billed out*cost",
            "ltm*30*$*",
            "total*30*$*",
            "judge local: * tasks, answered offline (no calls, no cost)",
            "the same run on other models*",
            "  gpt-4o-mini*$0.15 / $0.60*128,000*$*",
            "*no tests ran*",
        ]
    )
    assert not (pytester.path / ".memorybench").exists()


def test_selection_applies_to_the_estimate(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*RUN, "--mb-estimate", "--agent=openai:gpt-4o", "--span=8k", "-k", "colours")
    result.stdout.fnmatch_lines(["ltm*3*$*"])


def test_the_estimate_counts_every_call_a_jury_repeats_and_band_make(pytester: pytest.Pytester) -> None:
    with JudgeServer() as server:
        judges = (
            f"--mb-jury=local,openai:fake-model@{server.openai_url}",
            "--mb-judge-repeats=3",
            "--mb-judge-band",
        )
        locomo = ("--mb-suite=locomo", "--mb-profile=official", "--agent=recall", "-k", "not cognitive")
        # the judge is shown each reply: the estimate's are about as long as recall's
        estimated = pytester.runpytest(*RUN, *locomo, *judges, "--mb-estimate", "--mb-estimate-reply=15")
        pytester.runpytest(*RUN, *locomo, *judges, "--mb-output=run")
    line = next(line for line in estimated.stdout.lines if line.startswith("judge jury of 2: local, openai"))
    tasks, calls, tokens_in = re.findall(r"([\d.,]+k?) (?:tasks|calls|tokens in)", line)
    tasks, calls, tokens_in = _count(tasks), _count(calls), _count(tokens_in)
    [_, llm] = results_in(pytester.path / "run")["run"]["judge_panel"]["juror_stats"]
    assert calls == llm["calls"] == server.verdicts == tasks * 3 * 3, line  # repeats × rubrics
    assert abs(tokens_in - llm["input_tokens"]) <= 0.1 * llm["input_tokens"]
    assert "no price known" in line


def billing_like_an_api(request: RecordedRequest, text: str) -> Any:
    """A chat server's bill: every message it is sent, in tokens, plus a few for each message."""
    counter = default_counter()
    reply = "Noted." + " ok" * (REPLY_TOKENS - counter.count("Noted."))
    messages = request.body.get("messages", [])
    prompt = sum(
        counter.count(content_text(message.get("content"))) + MESSAGE_OVERHEAD for message in messages
    )
    completion = counter.count(reply)
    return chat_completion(
        "fake-model",
        reply,
        {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
    )


@pytest.mark.parametrize("span", first_by_default(["isolated", "4k"]))
def test_the_estimate_is_within_ten_percent_of_the_billed_run(
    pytester: pytest.Pytester, llm_server: LLMServer, span: str
) -> None:
    llm_server.routes[("POST", "/v1/chat/completions")] = billing_like_an_api
    agent = f"--agent=openai:fake-model@{llm_server.openai_url}"
    selection = ("-k", "colours or name_list or shopping or sallyanne")
    ran = pytester.runpytest(*RUN, agent, f"--span={span}", *selection, "--mb-output=run")
    billed = results_in(pytester.path / "run")["totals"]
    estimated = pytester.runpytest(
        *RUN, "--mb-estimate", agent, f"--span={span}", *selection, f"--mb-estimate-reply={REPLY_TOKENS}"
    )
    total = next(line for line in estimated.stdout.lines if line.startswith("total "))
    calls, _delivered, billed_in, billed_out = total.split()[2:6]
    assert int(calls) == billed["agent_calls"], ran.stdout.str()
    assert abs(_count(billed_in) - billed["agent_tokens_in"]) <= 0.1 * billed["agent_tokens_in"]
    assert abs(_count(billed_out) - billed["agent_tokens_out"]) <= 0.1 * billed["agent_tokens_out"]


def billing_memory_work(request: RecordedRequest, text: str) -> Any:
    """The billing server, answering a memory's JSON requests with JSON, as the estimate assumes."""
    reply = billing_like_an_api(request, text)
    if "JSON" in content_text(request.body["messages"][-1].get("content")):
        message = reply["choices"][0]["message"]
        message["content"] = json.dumps({"note": message["content"]})
    return reply


@pytest.mark.parametrize("mechanism", first_by_default(["rag", "light", "scm"]))
def test_a_memory_systems_estimate_counts_its_own_calls_as_the_run_does(
    pytester: pytest.Pytester, llm_server: LLMServer, mechanism: str
) -> None:
    llm_server.routes[("POST", "/v1/chat/completions")] = billing_memory_work
    ran, billed, estimated = _billed_and_estimated(
        pytester, f"{mechanism}:openai:fake-model@{llm_server.openai_url}"
    )
    total = next(line for line in estimated.stdout.lines if line.startswith("total "))
    calls, _delivered, billed_in = total.split()[2:5]
    assert int(calls) == billed["memory"]["write"]["calls"] + billed["memory"]["read"]["calls"], (
        ran.stdout.str()
    )
    assert abs(_count(billed_in) - billed["agent_tokens_in"]) <= 0.1 * billed["agent_tokens_in"]
    memory = next(line for line in estimated.stdout.lines if line.startswith("memory: "))
    assert (
        f"write {billed['memory']['write']['calls']:,} calls" in memory
        and f"read {billed['memory']['read']['calls']:,} calls" in memory
    )


def _billed_and_estimated(
    pytester: pytest.Pytester, agent: str
) -> tuple[pytest.RunResult, dict[str, Any], pytest.RunResult]:
    """A memory's run of colours and name_list at 4k (its output and billed totals), then its estimate."""
    selection = ("--span=4k", "-k", "colours or name_list")
    ran = pytester.runpytest(*RUN, f"--agent={agent}", *selection, "--mb-output=run")
    billed = results_in(pytester.path / "run")["totals"]
    estimated = pytester.runpytest(
        *RUN, "--mb-estimate", f"--agent={agent}", *selection, f"--mb-estimate-reply={REPLY_TOKENS}"
    )
    return ran, billed, estimated


def _count(text: str) -> float:
    """ "9.5M", "12k", "943": a count as the table prints it."""
    scale = {"M": 1e6, "k": 1e3}.get(text[-1], 1)
    return float(text.rstrip("Mk")) * scale


def test_a_bad_reply_length_is_one_line(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*RUN, "--mb-estimate", "--agent=openai:gpt-4o", "--mb-estimate-reply=0")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["ERROR: --mb-estimate-reply 0 must be a positive number of tokens"])


def test_an_agent_that_cannot_load_is_one_line_before_any_estimate(pytester: pytest.Pytester) -> None:
    """No key or server is needed for an estimate, but a spec the run could not load is no plan."""
    result = pytester.runpytest(*RUN, "--mb-estimate", "--agent=nope:make", "--span=8k")
    assert result.ret == 4
    result.stderr.fnmatch_lines(
        ["ERROR: --agent 'nope:make': 'nope' is no model prefix (openai, anthropic), *store or module*"]
    )
    assert "memorybench estimate" not in result.stdout.str()


def test_a_memory_stores_estimate_bills_the_answers_over_k_hits_as_the_run_does(
    pytester: pytest.Pytester, llm_server: LLMServer
) -> None:
    """The store is the run's own `bm25`: the estimate's stand-in store finds what it finds, so the
    answering model's bill matches; a product's answers cost what its k hits take."""
    llm_server.routes[("POST", "/v1/chat/completions")] = billing_like_an_api
    ran, billed, estimated = _billed_and_estimated(
        pytester, f"bm25:openai:fake-model@{llm_server.openai_url}"
    )
    total = next(line for line in estimated.stdout.lines if line.startswith("total "))
    calls, _delivered, billed_in = total.split()[2:5]
    assert int(calls) == billed["agent_calls"], ran.stdout.str()
    assert abs(_count(billed_in) - billed["agent_tokens_in"]) <= 0.1 * billed["agent_tokens_in"]
