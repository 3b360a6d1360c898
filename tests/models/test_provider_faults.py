"""A provider's fault is not a memory failure.

The real OpenAI client talks to the fake server (tests/support/llm_server.py), which fails
requests the ways providers do.  Transient faults are retried until the run scores as a
fault-free one, item by item; a refusal no retry mends stops the run at once with one line; a
conversation the provider keeps failing gives ERROR items that no mean counts, a gate that
refuses to judge and says how to retry, and `--mb-resume` retries exactly those.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.llm_server import LLMServer, RecordedRequest, Scripted, SeededFaults
from tests.support.runs import results_in

pytestmark = pytest.mark.e2e

RUN = ("-p", "no:randomly", "-p", "no:cacheprovider", "--memorybench", "--span=isolated")
CHAT = "/v1/chat/completions"


def agent(server: LLMServer) -> str:
    return f"--agent=openai:fake-model@{server.openai_url}"


def results(folder: Path) -> dict[str, Any]:
    return results_in(folder)


def scores(folder: Path) -> dict[str, float | None]:
    return {item["nodeid"]: item["score"] for item in results(folder)["items"]}


def test_transient_faults_at_a_rate_score_as_a_fault_free_run(
    pytester: pytest.Pytester, llm_server: LLMServer
) -> None:
    """A fifth of the requests fail (429 with Retry-After, 500, 503 with an HTML page, a 200 whose
    JSON is cut short or has no choices, a reset, a body cut mid-way, a stall past the timeout)
    under 16 conversations at once: every item scores as in the fault-free run."""
    clean = pytester.runpytest_subprocess(*RUN, agent(llm_server), "--mb-concurrency=16", "--mb-output=clean")
    assert clean.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), clean.stdout.str()
    faults = llm_server.faults = SeededFaults(rate=0.2, seed=11, stall=4.0)
    faulty = pytester.runpytest_subprocess(
        *RUN, agent(llm_server), "--mb-concurrency=16", "--mb-timeout=2", "--mb-output=faulty", timeout=600
    )
    assert faulty.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), faulty.stdout.str()
    assert set(faults.injected) == set(faults.kinds), f"every kind of fault was met: {faults.injected}"
    assert sum(faults.injected.values()) >= 20, faults.injected
    assert scores(pytester.path / "faulty") == scores(pytester.path / "clean")
    totals = results(pytester.path / "faulty")["totals"]
    assert totals["errors"] == 0 and totals["mean"] == results(pytester.path / "clean")["totals"]["mean"]
    assert "errored" not in faulty.stdout.str()


def test_a_provider_that_refuses_stops_the_run_at_once_with_one_line(
    pytester: pytest.Pytester, llm_server: LLMServer
) -> None:
    llm_server.faults = lambda request: (
        Scripted(401, body={"error": {"message": "Incorrect API key provided"}})
        if request.path == CHAT
        else None
    )
    result = pytester.runpytest_subprocess(*RUN, agent(llm_server), "--mb-output=run")
    assert result.ret == pytest.ExitCode.INTERRUPTED, result.stdout.str()
    assert len(llm_server.requests_to(CHAT)) <= 4, (
        "one request per conversation in flight, none retried or sent after"
    )
    result.stdout.fnmatch_lines(
        [
            (
                "interrupted: resume with pytest --memorybench --mb-resume=run (0 of 30 tests have results;"
                " openai:fake-model@*:"
                " the API key was rejected (HTTP 401 Unauthorized); check OPENAI_API_KEY or api_key=; not"
                " retried, so the run stops before more is spent (a refusal no retry mends))*"
            ),
        ]
    )
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


def test_a_conversation_the_provider_keeps_failing_is_errors_a_gate_refuses_and_a_resume_recovers(
    pytester: pytest.Pytester, llm_server: LLMServer
) -> None:
    selection = ("-k", "colours or name_list")
    clean = pytester.runpytest_subprocess(*RUN, agent(llm_server), *selection, "--mb-output=clean")
    assert clean.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), clean.stdout.str()
    definition = json.loads(
        (pytester.path / "clean" / "definitions" / "ltm" / "name_list[rep2].json").read_text()
    )
    marker = definition["script"][0]["text"]  # in every request of that conversation, and of no other

    def outage(request: RecordedRequest) -> Scripted | None:
        if request.path == CHAT and marker in json.dumps(request.body):
            return Scripted(503, headers={"retry-after": "0"}, body="<html>upstream down</html>")
        return None

    llm_server.faults = outage
    broken = pytester.runpytest_subprocess(
        *RUN, agent(llm_server), *selection, "--mb-min-score=0", "--mb-output=run"
    )
    passed, failed = outcomes(pytester.path / "clean", but="ltm::name_list[rep2]")
    broken.assert_outcomes(passed=passed, failed=failed, errors=1)
    output = broken.stdout.str()
    broken.stdout.fnmatch_lines(
        [
            "*_ ERROR at setup of ltm::name_list?rep2? _*",
            (
                "openai:fake-model@*: gave up after 6 attempts: HTTP 503 Service Unavailable (conversation"
                " stopped during this test)"
            ),
            "suite / scenario    mean strict       95% CI  passed  err tokens   secs    cost",
            "  name_list  * * */2    1 *",
            (
                "1 item errored (provider 1): no score, left out of every mean but the strict one;"
                " --mb-resume=run retries them"
            ),
            (
                "gate FAILED: 1 of 6 items errored (provider): nothing to compare; --mb-resume=run retries"
                " them (allow some with --mb-max-errors N or P%)"
            ),
            "ERROR ltm::name_list?rep2? - Failed: openai:fake-model@*",
        ]
    )
    assert "Traceback" not in output
    run = results(pytester.path / "run")
    expected = scores(pytester.path / "clean")
    assert scores(pytester.path / "run") == {**expected, "ltm::name_list[rep2]": None}
    others = [score for nodeid, score in expected.items() if nodeid != "ltm::name_list[rep2]"]
    assert run["totals"]["mean"] == pytest.approx(sum(others) / 5) and run["totals"]["max"] == 5
    assert run["totals"]["errors"] == 1 and run["scenarios"]["ltm.name_list"]["errors"] == 1
    assert not run["gate"]["passed"]

    allowed = pytester.runpytest_subprocess(
        *RUN, agent(llm_server), *selection, "--mb-min-score=0", "--mb-max-errors=20%", "--mb-output=allowed"
    )
    allowed.stdout.fnmatch_lines(
        [
            "note: 1 of 6 items errored (provider), within --mb-max-errors 20%: compared the 5 that scored",
            "gate passed*",
        ]
    )

    llm_server.faults = None  # the provider is back
    resumed = pytester.runpytest_subprocess(
        *RUN, agent(llm_server), *selection, "--mb-resume=run", "--mb-min-score=0"
    )
    assert resumed.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), resumed.stdout.str()
    assert scores(pytester.path / "run") == expected
    assert results(pytester.path / "run")["gate"]["passed"]


def outcomes(folder: Path, *, but: str) -> tuple[int, int]:
    """Passed and failed items of a run, leaving out one."""
    items = [item for item in results(folder)["items"] if item["nodeid"] != but]
    return sum(item["passed"] for item in items), sum(not item["passed"] for item in items)


def test_a_provider_that_is_down_stops_the_run_after_three_conversations_in_a_row(
    pytester: pytest.Pytester, llm_server: LLMServer
) -> None:
    """500 to every chat request: three conversations fail after their retries, then the run stops in
    one line with the --mb-resume that goes on later, instead of retrying each of the 30 in turn."""
    llm_server.faults = lambda request: (
        Scripted(500, headers={"retry-after": "0"}, body={"error": {"message": "upstream down"}})
        if request.path == CHAT
        else None
    )
    result = pytester.runpytest_subprocess(*RUN, agent(llm_server), "--mb-concurrency=1", "--mb-output=run")
    assert result.ret == pytest.ExitCode.INTERRUPTED, result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "interrupted: resume with pytest --memorybench --mb-resume=run (3 of 30 tests have results; 3"
            " conversations in a row*"
        ]
    )
    asked = {json.dumps(request.body["messages"][-1]) for request in llm_server.requests_to(CHAT)}
    assert len(asked) <= 3, "no conversation after the third was started"
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
