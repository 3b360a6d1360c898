"""What the hosted products' adapters share: the work a service accepted and has still to process,
which `wait` polls until done, and a refused key as the error the harness never retries."""

from __future__ import annotations

import asyncio
import importlib
import os
import threading
import time
from collections.abc import Awaitable, Callable

from pytest_memorybench.core.errors import usage_error


class Unprocessed:
    """The ids a service accepted (documents, events, episodes) and has not yet processed, by
    namespace.  `wait` takes each off only once the service says it is done, so after a failure
    the retried `wait` asks again and fails again, instead of passing over what never indexed."""

    def __init__(self, poll: float) -> None:
        self.poll = poll
        self._ids: dict[str, list[str]] = {}
        self._lock = threading.Lock()

    def add(self, namespace: str, accepted: str) -> None:
        with self._lock:
            self._ids.setdefault(namespace, []).append(accepted)

    def wait(self, namespace: str, done: Callable[[str], bool]) -> None:
        """Poll `done(id)` for each id of the namespace until true; `done` raises for a failure."""
        with self._lock:
            waiting = list(self._ids.get(namespace, ()))
        for accepted in waiting:
            while not done(accepted):
                time.sleep(self.poll)
            with self._lock:
                left = self._ids.get(namespace, [])  # cleared meanwhile: nothing left to take off
                if accepted in left:
                    left.remove(accepted)

    async def await_each(self, namespace: str, done: Callable[[str], Awaitable[bool]]) -> None:
        """`wait` for a product whose client is async: `await done(id)` until true, pausing between."""
        with self._lock:
            waiting = list(self._ids.get(namespace, ()))
        for accepted in waiting:
            while not await done(accepted):
                await asyncio.sleep(self.poll)
            with self._lock:
                left = self._ids.get(namespace, [])
                if accepted in left:
                    left.remove(accepted)

    def forget(self, namespace: str) -> None:
        with self._lock:
            self._ids.pop(namespace, None)


def refused(product: str, status: int | str, variable: str) -> PermissionError:
    """A key the service refused: not retried, and one line before any test (the health check)."""
    return PermissionError(f"{product} refused the key (HTTP {status}): set {variable} to a valid key")


def api_key(store: str, product: str, variable: str, package: str = "") -> str:
    """The key from the environment, once the product's SDK is known to be installed (`package`,
    when given, is imported to find out); one line naming what to do otherwise."""
    if package:
        require_package(store, package)
    key = os.environ.get(variable, "")
    if not key:
        raise usage_error(
            f"--agent {store}:…: set {variable} to your {product} API key (the store is hosted)"
        )
    return key


def require_package(store: str, package: str) -> None:
    """One line naming the extra to install when the product's package (`package`) is missing."""
    try:
        importlib.import_module(package)
    except ImportError:
        raise usage_error(
            f"--agent {store}:…: the {package} package is not installed; pip install"
            f" 'pytest-memorybench[{store}]'"
        ) from None
