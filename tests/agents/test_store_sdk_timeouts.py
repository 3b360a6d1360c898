"""Every store's SDK waits as long as `--mb-timeout` allows (and a second), not its own default.

Letta's, Supermemory's, Zep's, Honcho's, EverMemOS's and Memobase's 60 s, Hindsight's and Mem0's
300 s and the Redis server's client's 30 s cut a slow server short of what the user allowed, and the
retry that followed sent a write again while the server was still making it.  Read from each SDK's
client as it will make its requests; a store whose SDK is not installed is skipped.  Letta's resent
step is checked end to end in test_stores_letta; Mem0's client in test_stores_hosted, since making
it asks the server.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from pytest_memorybench.agents.spec import AgentOptions, parse_agent_spec
from pytest_memorybench.agents.stores.store_build import store_client

MODEL = "openai:fake-model@http://127.0.0.1:9/v1"
URL = "url=http://127.0.0.1:9"


def _httpx_read(client: Any) -> float:
    return float(client.timeout.read)


# store spec, its SDK's module, and the timeout the SDK's client will give its requests
STORES: dict[str, tuple[str, str, Callable[[Any], float]]] = {
    "letta": (f"letta({URL})", "letta_client", lambda store: float(store.client.timeout)),
    "supermemory": (
        "supermemory",
        "supermemory",
        lambda store: _httpx_read(store.client._client_wrapper.httpx_client.httpx_client),
    ),
    "zep": (
        "zep",
        "zep_cloud",
        lambda store: _httpx_read(store.client._client_wrapper.httpx_client.httpx_client),
    ),
    "memobase": (f"memobase({URL})", "memobase", lambda store: _httpx_read(store.client.client)),
    "hindsight": (f"hindsight({URL})", "hindsight_client", lambda store: float(store._hindsight()._timeout)),
    "redis-ams": (
        f"redis-ams({URL})",
        "agent_memory_client",
        lambda store: _httpx_read(store.client._client),
    ),
    "memmachine": (f"memmachine({URL})", "memmachine_client", lambda store: float(store.client.timeout)),
    "honcho": (f"honcho({URL})", "honcho", lambda store: _httpx_read(store._honcho("conv-a")._http._client)),
    "evermemos": (f"evermemos({URL})", "evermemos", lambda store: float(store._evermemos().timeout)),
}


@pytest.mark.parametrize("name", sorted(STORES))
@pytest.mark.parametrize("mb_timeout, expected", [(900.0, 901.0), (None, 601.0)])
def test_the_sdk_waits_as_long_as_mb_timeout(
    name: str, mb_timeout: float | None, expected: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec, module, sdk_timeout = STORES[name]
    pytest.importorskip(module)
    for variable in ("SUPERMEMORY_API_KEY", "ZEP_API_KEY", "MEMOBASE_API_KEY"):
        monkeypatch.setenv(variable, "test-key")  # the hosted services' keys: no request is made
    store = store_client(parse_agent_spec(f"{spec}:{MODEL}"), AgentOptions(timeout=mb_timeout)).store
    assert sdk_timeout(store) == expected
