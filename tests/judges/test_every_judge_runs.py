"""Every judge the registry names, end to end: a small LTM run and a LoCoMo sample judged by it, its
results.json and report.html written, no traceback.

A judge whose own checks pass can still break a run where its figures are gathered (`local-semantic`
once did, at the very end: its embedding model sat where results name the judge's model).  So each
form of `--judge`, and each panel option, runs whole here.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from typing import get_args

import pytest

from pytest_memorybench.judges.spec import SEMANTIC, JudgeKind, parse_judge_spec
from tests.support.judge_server import JudgeServer
from tests.support.llm_server import MODEL_ID
from tests.support.runs import run_benchmark

SUITES = {
    "ltm": ("--span=isolated",),
    # The official profile: LoCoMo's questions judged (J); the paper's profile scores token F1.
    "locomo": ("--mb-suite=locomo", "--mb-profile=official"),
}


@dataclass(frozen=True)
class JudgeCase:
    """Options naming a judge (`{url}` the loopback judge's), and the name results must give it."""

    options: tuple[str, ...]
    named: str
    asks_the_server: bool = True

    def given(self, url: str) -> list[str]:
        return [option.format(url=url) for option in self.options]


CASES = {
    "local": JudgeCase(("--judge=local",), "local", asks_the_server=False),
    SEMANTIC: JudgeCase((f"--judge={SEMANTIC}",), SEMANTIC, asks_the_server=False),
    "openai": JudgeCase(("--judge=openai:judge-model@{url}/v1",), "openai:judge-model@{url}/v1"),
    "anthropic": JudgeCase(("--judge=anthropic:judge-model@{url}",), "anthropic:judge-model@{url}"),
    # A bare URL: results name the model the server said it serves.
    "url": JudgeCase(("--judge={url}/v1",), f"openai:{MODEL_ID}@{{url}}/v1"),
    "jury": JudgeCase(("--mb-jury=local,openai:judge-model@{url}/v1",), "jury of 2: local, openai:"),
    "repeats": JudgeCase(
        ("--judge=openai:judge-model@{url}/v1", "--mb-judge-repeats=3"), "openai:judge-model@{url}/v1 ×3"
    ),
    "band": JudgeCase(("--judge=local", "--mb-judge-band"), "local", asks_the_server=False),
}


def test_the_cases_cover_every_form_of_judge_the_registry_names() -> None:
    forms = {parse_judge_spec(case.given("http://127.0.0.1:1")[0].split("=", 1)[1]) for case in CASES.values()
             if case.options[0].startswith("--judge=")}  # fmt: skip
    assert {spec.kind for spec in forms} == set(get_args(JudgeKind))
    assert {spec.text for spec in forms} >= {"local", SEMANTIC}
    assert any(spec.model is None for spec in forms), "the bare-URL form"
    assert {"jury", "repeats", "band"} <= set(CASES)


@pytest.mark.parametrize("suite", sorted(SUITES))
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_run_judged_by_it_writes_its_results_and_report(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, name: str, suite: str
) -> None:
    if name == SEMANTIC and importlib.util.find_spec("wordllama") is None:
        pytest.skip("local-semantic needs the embeddings extra (wordllama)")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    case = CASES[name]
    with JudgeServer() as server:
        run = run_benchmark(pytester, "--agent=recall", *SUITES[suite], *case.given(server.url))
    output = run.outcome.stdout.str() + run.outcome.stderr.str()
    assert run.outcome.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), output[-2000:]
    assert "Traceback" not in output and "INTERNALERROR" not in output
    assert run.results["run"]["judge"].startswith(case.named.format(url=server.url))
    judged = [item for item in run.results["items"] if item.get("score") is not None]
    assert judged and all("judge-unparseable" not in " ".join(item["reasons"]) for item in judged)
    assert (run.folder / "report.html").read_text(encoding="utf-8").count(run.results["run"]["judge"][:20])
    asked = server.requests_to("/v1/chat/completions") + server.requests_to("/v1/messages")
    assert bool(asked) == case.asks_the_server
    if case.asks_the_server:
        assert run.results["totals"]["judge_calls"] >= 1
