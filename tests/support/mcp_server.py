"""Whether the reference MCP memory server starts here (the mcp SDK, Node's npx, npm's package), and the
spec that starts it without npx once it has.

pytester points HOME at each test's own folder, and npx keeps the packages it fetched under HOME: a
server npx started in a test found an empty cache there and fetched the package again (12 s of
every MCP test but a worker's first).  The check starts it once with the real HOME, and the tests'
runs start that copy with Node itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
import shlex
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

HOME = Path.home()  # the real one: this module is imported at collection, before any pytester


@contextlib.contextmanager
def _real_home() -> Iterator[None]:
    saved = os.environ.get("HOME")
    os.environ["HOME"] = str(HOME)
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("HOME", None)
        else:
            os.environ["HOME"] = saved


@functools.cache
def _start_problem() -> str | None:
    try:
        import mcp  # noqa: F401
    except ImportError:
        return "the mcp package is not installed (the mcp extra)"
    if shutil.which("npx") is None:
        return "npx (Node.js) is not on PATH"
    from pytest_memorybench.agents.stores.mcp import McpSettings, McpStore

    store = McpStore(McpSettings())

    async def start() -> None:
        try:
            await asyncio.wait_for(store.clear("probe"), 180)
        finally:
            await store.aclose()

    try:
        with _real_home():
            asyncio.run(start())
    except Exception as exc:  # noqa: BLE001 - no network to npm, or no Node: skipped, not failed
        return f"the reference MCP memory server does not start here: {exc}"
    return None


def require_reference_mcp_server() -> None:
    """Skip the test unless the reference server starts (checked once per process, as a user's run
    starts it: by npx)."""
    problem = _start_problem()
    if problem is not None:
        pytest.skip(problem)


def reference_store(settings: str = "") -> str:
    """The `mcp` store's spec for the reference server, started by Node itself from where npx put the
    package when `require_reference_mcp_server` started it; npx's command, the default, where it is
    not found."""
    from pytest_memorybench.agents.stores.mcp import REFERENCE_SERVER

    package, _, version = shlex.split(REFERENCE_SERVER)[-1].rpartition("@")
    for manifest in sorted(HOME.glob(f".npm/_npx/*/node_modules/{package}/package.json")):
        try:
            found = json.loads(manifest.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        entry = manifest.parent / str(found.get("bin", {}).get("mcp-server-memory", ""))
        if found.get("version") == version and entry.is_file() and shutil.which("node"):
            settings = f"command=node {entry}" + (f",{settings}" if settings else "")
            break
    return f"mcp({settings})" if settings else "mcp"
