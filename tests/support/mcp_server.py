"""Whether the reference MCP memory server starts here (the mcp SDK, Node's npx, npm's package)."""

from __future__ import annotations

import asyncio
import functools
import shutil

import pytest


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
        asyncio.run(start())
    except Exception as exc:  # noqa: BLE001 - no network to npm, or no Node: skipped, not failed
        return f"the reference MCP memory server does not start here: {exc}"
    return None


def require_reference_mcp_server() -> None:
    """Skip the test unless the reference server starts (checked once per process)."""
    problem = _start_problem()
    if problem is not None:
        pytest.skip(problem)
