"""The judge panel from the command line: a run judged by a jury asked three times, what its results,
terminal and report say, re-judging a finished run without its agent, and bad options in one line."""

from __future__ import annotations

import json

import pytest

from tests.support.judge_server import JudgeServer
from tests.support.runs import QUIET, report_items, results_in, run_benchmark

LOCOMO = ("--mb-suite=locomo", "--mb-profile=official", *QUIET)


@pytest.fixture(autouse=True)
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def test_a_jury_asked_three_times_reports_each_juror_its_stability_and_the_band(
    pytester: pytest.Pytester,
) -> None:
    with JudgeServer(flip=0.3, seed=2) as noisy:
        juror = f"openai:fake-model@{noisy.openai_url}"
        run = run_benchmark(
            pytester,
            "--agent=recall",
            *LOCOMO,
            f"--mb-jury=local,{juror}",
            "--mb-judge-repeats=3",
            "--mb-judge-band",
        )
    judging = run.results["totals"]["judging"]
    assert set(judging["jury"]["scores"]) == {"local", juror}
    assert judging["repeats"][juror]["scores"] and len(judging["repeats"][juror]["scores"]) == 3
    assert "local" not in judging["repeats"]  # the local judge is deterministic: asked once
    assert set(judging["band"]) == {"strict", "official", "generous"}
    panel = run.results["run"]["judge_panel"]
    assert (panel["jurors"], panel["repeats"], panel["band"]) == (["local", juror], 3, True)
    assert run.results["run"]["judge"] == f"jury of 2: local, {juror} ×3"
    judged = [item for item in run.results["items"] if item.get("judging")]
    assert judged and all(set(item["judging"]["jurors"]) == {"local", juror} for item in judged)
    output = run.outcome.stdout.str()
    assert f"judge jury of 2: local, {juror} ×3 · rubric band |" in output
    assert "judge stability: " in output and "Fleiss' kappa" in output and "rubric band: strict" in output
    assert "judge stability" in (run.folder / "report.html").read_text()
    assert any((item["judging"] or "").startswith("rubrics strict") for item in report_items(run.folder))
    votes = [
        json.loads(line)
        for line in (run.folder / "events.jsonl").read_text().splitlines()
        if '"judge_call"' in line
    ]
    assert votes and all(len(vote["votes"]["official"]) == 2 for vote in votes)


def test_a_finished_run_is_judged_again_by_another_jury_without_its_agent(pytester: pytest.Pytester) -> None:
    first = run_benchmark(
        pytester, "--agent=recall", *LOCOMO, "-k", "not adversarial and not cognitive", folder="first"
    )
    with JudgeServer(always=True) as lenient:
        again = run_benchmark(
            pytester,
            f"--mb-replay={first.folder}",
            "-k",
            "not adversarial and not cognitive",
            f"--mb-jury=local,openai:fake-model@{lenient.openai_url},openai:other@{lenient.openai_url}",
            folder="again",
        )
    before = {item["nodeid"]: item for item in first.results["items"]}
    for item in again.results["items"]:
        assert (
            item["responses"] == before[item["nodeid"]]["responses"]
        )  # the replies recorded, not asked anew
    assert again.results["totals"]["agent_calls"] == 0
    jury = again.results["totals"]["judging"]["jury"]
    assert jury["scores"]["local"] == pytest.approx(first.results["suites"]["locomo"]["mean"] or 0, abs=0.2)
    assert all(score == 1.0 for name, score in jury["scores"].items() if name != "local")
    assert again.results["totals"]["mean"] == 1.0  # two lenient jurors outvote the local judge
    assert results_in(first.folder)["run"]["judge"] == "local"  # the first run's folder is left as it was


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--mb-jury=local"], "--mb-jury 'local': give two or more judges separated by commas, e.g."),
        (["--mb-jury=local,local"], "--mb-jury names local twice: a juror asked again is --mb-judge-repeats"),
        (
            ["--mb-jury=local,gpt4"],
            "--mb-jury 'gpt4' is not a judge; judges: local, local-semantic, openai:MODEL",
        ),
        (
            ["--judge=openai:gpt-4o", "--mb-jury=local,openai:gpt-4o"],
            "--judge openai:gpt-4o and --mb-jury both",
        ),
        (["--mb-judge-repeats=0"], "--mb-judge-repeats 0 must be from 1 to 25"),
        (["--mb-jury=local,openai:gpt-4o-mini"], "--judge openai:gpt-4o-mini: OPENAI_API_KEY is not set"),
    ],
)
def test_bad_panel_options_are_one_line(pytester: pytest.Pytester, options: list[str], message: str) -> None:
    result = pytester.runpytest("--memorybench", "--agent=recall", *LOCOMO, *options)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {message}*"])
    assert "Traceback" not in result.stderr.str()
