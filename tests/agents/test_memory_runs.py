"""Memory systems through the plugin: evidence recall in every benchmark, and a killed run resumed.

The scripted model (`tests/support/memory_model.py`) on 127.0.0.1 answers every kind of request
deterministically, so a run and its resumption can be compared score for score.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.scenarios.test_episodic_runs import SUITE as EPISODIC_SUITE
from tests.support.llm_server import LLMServer
from tests.support.memory_model import MemoryModelScript, scripted_memory_server
from tests.support.runs import QUIET, first_by_default, results_in, run_benchmark

pytest_plugins = ["pytester"]


@pytest.fixture
def model() -> Iterator[tuple[LLMServer, MemoryModelScript]]:
    with scripted_memory_server() as served:
        yield served


def test_beam_questions_report_the_recall_of_their_source_messages(
    pytester: pytest.Pytester, model: Any
) -> None:
    server, _ = model
    run = run_benchmark(
        pytester,
        "--mb-suite=beam",
        f"--agent=rag:openai:fake-model@{server.openai_url}",
        "-m",
        "knowledge_update or information_extraction",
    )
    records = run.results["items"]
    assert len(records) == 4 and not [r for r in records if r["error"]], run.outcome.stdout.str()
    recalls = [record["details"]["evidence"] for record in records]
    assert all(r["k"] == 10 and r["evidence"] >= 1 for r in recalls), recalls
    assert sum(r["recalled"] for r in recalls) >= 1, recalls  # the stated values are found by their own words
    assert run.results["totals"]["evidence_recall"]["questions"] == 4
    run.outcome.stdout.fnmatch_lines(["*evidence recall@10: *"])


def test_episodic_questions_count_the_share_of_a_chapter_found(pytester: pytest.Pytester, model: Any) -> None:
    server, _ = model
    pytester.makefile(".yaml", mini=EPISODIC_SUITE)
    run = run_benchmark(
        pytester,
        "--mb-suite=mini.yaml",
        f"--agent=rag(chunk=paragraph):openai:fake-model@{server.openai_url}",
    )
    records = run.results["items"]
    assert records and not [r for r in records if r["error"]], run.outcome.stdout.str()
    for (
        record
    ) in records:  # the category names the bin: how many chapters match (a latest answer: one of them)
        get, matching = record["category"].split("/")
        chapters = min(int(matching), 1) if get == "latest" else int(matching)
        evidence = record["details"].get("evidence")
        assert (evidence["evidence"] if evidence else 0) == chapters, record["test_id"]
    # k paragraphs of ten cannot hold whole chapters: each counts for the share of its paragraphs found
    recalls = [r["details"]["evidence"]["recall"] for r in records if r["details"].get("evidence")]
    assert recalls and all(0 < recall < 1 for recall in recalls), recalls


# -- kill -9 and resume ------------------------------------------------------------------------

KILL_RUN = (
    *QUIET,
    "-n",
    "0",
    "--memorybench",
    "--span=2k",
    "--mb-context=800",
    "-k",
    "colours or name_list or jokes",
)


def _run_until(
    server: LLMServer, script: MemoryModelScript, folder: Path, *args: str, kill_at: int = 0
) -> tuple[int, int]:
    """One run of memorybank in a child process; killed with SIGKILL at its `kill_at`-th model
    request when given.  Returns the exit code and how many model requests it made."""
    command = [
        sys.executable,
        "-m",
        "pytest",
        *KILL_RUN,
        f"--agent=memgpt:openai:fake-model@{server.openai_url}",
        *args,
    ]
    child = subprocess.Popen(command, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    asked = 0

    def counting(request: Any, text: str) -> Any:
        nonlocal asked
        asked += 1
        if asked == kill_at:
            os.kill(child.pid, signal.SIGKILL)
        return script(request, text)

    server.routes[("POST", "/v1/chat/completions")] = counting
    output, _ = child.communicate(timeout=600)
    assert child.returncode in (-9, 0, 1), output.decode()
    return child.returncode, asked


def _scores(folder: Path) -> dict[str, Any]:
    return {
        item["nodeid"]: (item["score"], (item["details"].get("evidence") or {}).get("recall"))
        for item in results_in(folder)["items"]
    }


@pytest.mark.e2e
def test_a_memory_system_killed_mid_run_resumes_to_the_uninterrupted_scores(
    model: Any, tmp_path: Path
) -> None:
    """MemoryBank answers change its memory (recall strengthens) and its days are the simulated
    clock's: the resumed agent is rebuilt from the log with the replies' own times, answering again."""
    server, script = model
    code, total = _run_until(server, script, tmp_path, f"--mb-output={tmp_path / 'whole'}")
    assert code in (0, 1) and total > 20
    expected = _scores(tmp_path / "whole")
    assert len(expected) == 9 and any(recall for _, recall in expected.values())
    for kill_at in (total // 3, 2 * total // 3):
        folder = tmp_path / f"killed-{kill_at}"
        code, asked = _run_until(server, script, tmp_path, f"--mb-output={folder}", kill_at=kill_at)
        assert code == -9 and asked == kill_at
        _run_until(server, script, tmp_path, f"--mb-resume={folder}")
        assert _scores(folder) == expected, kill_at


def test_compare_sets_each_memorys_write_and_read_calls_beside_its_spending(
    pytester: pytest.Pytester, model: Any
) -> None:
    server, _ = model
    for mechanism in ("rag", "light"):
        pytester.runpytest(
            "--memorybench",
            "-p",
            "no:cacheprovider",
            f"--agent={mechanism}:openai:fake-model@{server.openai_url}",
            "--span=2k",
            "-k",
            "colours",
            f"--mb-output={mechanism}",
        )
    calls = {name: results_in(pytester.path / name)["totals"]["memory"] for name in ("rag", "light")}
    assert calls["rag"]["write"]["calls"] == 0 < calls["light"]["write"]["calls"]
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "--mb-compare", "rag", "light", "--mb-markdown=compare.md"
    )
    header = next(line for line in result.stdout.lines if "$/passed" in line)
    assert "write / read" in header
    for letter, name in (("A", "rag"), ("B", "light")):
        row = next(line for line in result.stdout.lines if line.startswith(f"{letter}   ") and "$" in line)
        assert f"{calls[name]['write']['calls']:,} / {calls[name]['read']['calls']:,}" in row, row
    assert "| memory write / read |" in (pytester.path / "compare.md").read_text()


@pytest.mark.parametrize("mechanism", first_by_default(["bm25", "full-context", "rag", "memgpt", "files"]))
def test_every_memory_runs_memoryagentbench_to_the_end(
    pytester: pytest.Pytester, model: Any, mechanism: str
) -> None:
    """Chunks memorised, questions asked on forks of the memory: every item scored, none an error."""
    server, _ = model
    run = run_benchmark(
        pytester, "--mb-suite=memoryagentbench", f"--agent={mechanism}:openai:fake-model@{server.openai_url}"
    )
    totals = run.results["totals"]
    assert totals["max"] == 41 and not totals["errors"], run.outcome.stdout.str()[-3000:]


@pytest.mark.parametrize(
    "sizes",
    [
        pytest.param((2, 4, 10), id="three sizes"),
        pytest.param((2, 4, 10, 20, 50), id="five sizes", marks=pytest.mark.e2e),  # ten whole runs
    ],
)
def test_a_memory_overtaking_full_context_is_marked_on_convomems_scale_curve(
    pytester: pytest.Pytester, model: Any, sizes: tuple[int, ...]
) -> None:
    """Runs of full-context and bm25 at several history sizes, compared: the scale curve is drawn and
    the size where bm25 first scores above full-context (whose window, 1,200 tokens, stops holding
    every conversation) is named."""
    server, _ = model
    suite = (Path(__file__).parents[2] / "suites" / "convomem.yaml").read_text(encoding="utf-8")
    folders = []
    for size in sizes:
        pytester.path.joinpath(f"cm{size}.yaml").write_text(
            suite.replace("conversations: 10", f"conversations: {size}")
        )
        for mechanism in ("full-context", "bm25"):
            folder = f"{mechanism}-{size}"
            pytester.runpytest(
                "--memorybench", f"--mb-suite=cm{size}.yaml", *QUIET, "--mb-context=1200",
                f"--agent={mechanism}:openai:fake-model@{server.openai_url}", f"--mb-output={folder}",
            )  # fmt: skip
            assert not results_in(pytester.path / folder)["totals"]["errors"]
            folders.append(folder)
    compared = pytester.runpytest("--mb-compare", *folders, "--mb-output=cmp", *QUIET)
    compared.stdout.fnmatch_lines(
        [
            f"scale: 2 curve(s) over {', '.join(map(str, sizes))} conversations",
            "  bm25:* overtakes full-context:* at 4 conversations (*)",
        ]
    )
    record = json.loads((pytester.path / "cmp" / "compare.json").read_text())
    assert record["scale"]["unit"] == "conversations in each question's history"
    assert [len(points) for points in record["scale"]["series"].values()] == [len(sizes)] * 2
    figure = (pytester.path / "cmp" / "span.svg").read_text()
    assert "stroke-dasharray" in figure and "overtakes" in figure, "the crossing is marked"
