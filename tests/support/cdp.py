"""A headless Chromium driven over the DevTools protocol on a pipe: load a page, run script, read it.

`--remote-debugging-pipe` speaks the protocol on file descriptors 3 (to the browser) and 4 (from
it), NUL-separated JSON, so a test needs neither a WebSocket library nor a free port.  Enough of
the protocol for the reports' browser tests: open a page, wait for a condition, evaluate
expressions as a user's clicks and typing would.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking")


class Browser:
    def __init__(self, binary: str, profile: Path) -> None:
        to_browser, self._commands = os.pipe()
        self._replies, from_browser = os.pipe()

        def wire() -> None:  # in the child: the pipes become fds 3 and 4 (copies first: either may be 3 or 4)
            reading, writing = os.dup(to_browser), os.dup(from_browser)
            os.dup2(reading, 3)
            os.dup2(writing, 4)

        self.process = subprocess.Popen(
            [binary, *FLAGS, f"--user-data-dir={profile}", "--remote-debugging-pipe", "about:blank"],
            preexec_fn=wire,  # noqa: PLW1509  (a test's own child, no threads involved)
            pass_fds=(3, 4),  # kept open after `wire` (subprocess closes the others)
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_browser)
        os.close(from_browser)
        self._buffer = b""
        self._next = 0
        self.session = ""

    def call(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> Any:
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        chosen = self.session if session is None else session
        if chosen:
            message["sessionId"] = chosen
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read()
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def _read(self) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            chunk = os.read(self._replies, 1 << 20)
            if not chunk:
                raise RuntimeError("the browser closed the pipe")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\0", 1)
        result: dict[str, Any] = json.loads(line)
        return result

    def open(self, url: str) -> None:
        """A new page at `url`, which later calls talk to."""
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.call("Page.navigate", {"url": url})

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression[:80]}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 60.0) -> Any:
        """Evaluate `expression` until it is truthy; its value."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                value = self.evaluate(expression)
            except RuntimeError:
                value = None
            if value:
                return value
            time.sleep(0.1)
        raise TimeoutError(f"not true after {timeout:.0f} s: {expression}")

    def choose(self, select_id: str, value: str) -> None:
        """Pick `value` in the page's <select id=select_id>, as a reader would (its change event fires)."""
        self.evaluate(
            f"""{{ const select = document.getElementById({json.dumps(select_id)});
                 select.value = {json.dumps(value)};
                 select.dispatchEvent(new Event("change")); }}"""
        )

    def close(self) -> None:
        try:
            self.call("Browser.close", session="")
        except (RuntimeError, OSError):
            pass
        finally:
            self.process.wait(timeout=30)
            os.close(self._commands)
            os.close(self._replies)
