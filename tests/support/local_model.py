"""The `model_server` fixture: SmolLM2 served by llama-cpp-python on a free loopback port.

It starts the server as `python -m pytest_memorybench.local_model` does, checked with one token:
without the `local-llm` extra the tests that use it skip; with a build that cannot answer they
fail with the start-up check's one line (cause and fix), never one dropped connection per test.
"""

from __future__ import annotations

import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import pytest

from pytest_memorybench.local_model import (
    LocalModelBroken,
    LocalModelUnavailable,
    server_command,
    start_server,
)

# What the real-model tests let SmolLM2 write in one completion (through `RecordingProxy`): enough
# for a judge's JSON verdict.
REPLY_TOKENS = 160
# What a conversation's reply or a memory mechanism's call may write where the check is that a run
# survives and records what a real model sends back (JSON cut short included), not what it says:
# SmolLM2 writes to whatever cap it is given, and its writing is most of the group's time.
SHORT_REPLY_TOKENS = 64


@pytest.fixture(scope="module")
def model_server() -> Iterator[str]:
    """The checked local-model server's OpenAI base URL."""
    yield from serving()


@pytest.fixture(scope="module")
def embedding_server() -> Iterator[str]:
    """The same, serving `/v1/embeddings` too (the memory systems' endpoint embedder)."""
    yield from serving(embeddings=True)


def serving(*, embeddings: bool = False) -> Iterator[str]:
    port = free_port()
    try:
        command = server_command(port, embeddings=embeddings)
    except LocalModelUnavailable as missing:
        pytest.skip(str(missing))
    except LocalModelBroken as broken:
        pytest.fail(str(broken), pytrace=False)
    try:
        server = start_server(command, f"http://127.0.0.1:{port}/v1")
    except LocalModelBroken as broken:
        pytest.fail(str(broken), pytrace=False)
    with server:
        yield server.url


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def running(
    product: str, command: list[str], folder: Path, env: Mapping[str, str], health_url: str, seconds: float
) -> Iterator[None]:
    """A server this test starts in `folder` (its output in `folder/server.log`), once it answers
    `health_url`; stopped afterwards."""
    with (folder / "server.log").open("wb") as log:
        server = subprocess.Popen(command, cwd=folder, env=dict(env), stdout=log, stderr=subprocess.STDOUT)
        try:
            wait_until_healthy(product, health_url, server, folder / "server.log", seconds)
            yield
        finally:
            server.terminate()
            server.wait(30)


def wait_until_healthy(
    product: str, health_url: str, server: subprocess.Popen[bytes], log: Path, seconds: float = 180.0
) -> None:
    """Until a server this test started answers its health URL; the test fails in one line when the
    server exits first (its log's last line) or does not answer within `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.poll() is not None:
            last = log.read_text(errors="replace").strip().splitlines()[-1:]
            pytest.fail(f"the {product} server exited with code {server.returncode}: {last}", pytrace=False)
        try:
            with urllib.request.urlopen(health_url, timeout=5):
                return
        except OSError:
            time.sleep(1)
    pytest.fail(f"the {product} server did not answer at {health_url} in {seconds:.0f} s", pytrace=False)
