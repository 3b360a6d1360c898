"""The `letta_service` fixture: a real Letta server (0.16.8) on a loopback port, on PostgreSQL.

The server runs from a venv of its own (tests/support/letta-server.txt; `.ci/run` makes it), named
by MEMORYBENCH_LETTA_VENV; without it the tests that use the fixture skip.  Its database is
pgserver's PostgreSQL in a temporary folder (tests/support/letta_database.py, run by that venv's
Python); both are stopped afterwards.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.local_model import free_port, wait_until_healthy

VENV_VARIABLE = "MEMORYBENCH_LETTA_VENV"
DATABASE_SCRIPT = Path(__file__).with_name("letta_database.py")
START_SECONDS = 180.0


@pytest.fixture(scope="module")
def letta_service() -> Iterator[str]:
    """The started Letta server's URL."""
    venv = os.environ.get(VENV_VARIABLE)
    if not venv:
        pytest.skip(
            f"no Letta server: set {VENV_VARIABLE} to a venv of tests/support/letta-server.txt"
            " (.ci/run makes one)"
        )
    python, letta = Path(venv, "bin", "python"), Path(venv, "bin", "letta")
    folder = Path(tempfile.mkdtemp(prefix="memorybench-letta-"))
    try:
        folder.chmod(0o755)  # PostgreSQL runs as pgserver's own user when we are root
        database = folder / "postgres"
        uri = _run(python, "start", str(database), str(free_port()))
        try:
            yield from _serving(letta, uri, folder)
        finally:
            _run(python, "stop", str(database))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _serving(letta: Path, uri: str, folder: Path) -> Iterator[str]:
    """`letta server` on `uri`'s database, in `folder` (it writes its OpenAPI schema where it starts)."""
    port = free_port()
    env = {**os.environ, "LETTA_PG_URI": uri, "HOME": str(folder)}
    with (folder / "server.log").open("wb") as log:
        server = subprocess.Popen(
            [letta, "server", "--port", str(port)], cwd=folder, env=env, stdout=log, stderr=subprocess.STDOUT
        )
        url = f"http://localhost:{port}"
        try:
            wait_until_healthy("Letta", f"{url}/v1/health/", server, folder / "server.log", START_SECONDS)
            yield url
        finally:
            server.terminate()
            server.wait(30)


def _run(python: Path, *args: str) -> str:
    done = subprocess.run([python, DATABASE_SCRIPT, *args], capture_output=True, text=True, timeout=120)
    if done.returncode:
        pytest.fail(
            f"letta_database.py {args[0]} failed: {done.stderr.strip().splitlines()[-1:]}", pytrace=False
        )
    return done.stdout.partition("\n")[0]  # pgserver logs to stdout at exit, after it
