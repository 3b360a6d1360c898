"""A JSON HTTP server on 127.0.0.1 for the hosted products' loopback servers: the routing is theirs,
the sockets, threads and fault injection are here.

A product's state implements `route(request)` and returns (status, payload), and says which of
the harness's namespaces a request touches and whether it adds messages (what the shared tests
check); `serve(state)` runs it and sets `state.url`.  Every request is recorded; `faults` holds
status codes to answer the next authorised requests with (a 429 carries `Retry-After: 0`, so an
SDK that honours it retries at once).
"""

from __future__ import annotations

import json
import threading
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit


class EventStream(list[Any]):
    """A payload sent as Server-Sent Events (`data: JSON` an item), as streaming endpoints answer."""


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]  # lower-cased names
    body: Any
    repeated: dict[str, list[str]] = field(default_factory=dict)  # every value of each query parameter


@dataclass
class LoopbackState(ABC):
    """What every product's server keeps: its key, the requests, the faults to inject, its URL and a
    lock."""

    key: str = ""
    faults: list[int] = field(default_factory=list)
    requests: list[Request] = field(default_factory=list)
    url: str = ""
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def base_url(self) -> str:
        """Where the SDK is pointed: the server's URL, below the prefix some APIs have."""
        return self.url

    @abstractmethod
    def authorised(self, request: Request) -> bool:
        """Whether the request carries the key, as the product checks it."""

    @abstractmethod
    def route(self, request: Request) -> tuple[int, Any]:
        """The product's answer to an authorised request: (status, body)."""

    @abstractmethod
    def namespace(self, request: Request) -> str | None:
        """The harness's namespace a request touches (a product's container, user, …), if any."""

    @abstractmethod
    def adds(self, request: Request) -> bool:
        """Whether the request hands the product messages to remember."""

    def answer(self, request: Request) -> tuple[int, Any]:
        with self._lock:
            self.requests.append(request)
            if not self.authorised(request):
                return 401, self.error("Unauthorized", "Invalid API key")
            if self.faults:
                status = self.faults.pop(0)
                return status, self.error(
                    "Too many requests" if status == 429 else "Server error", "injected"
                )
            return self.route(request)

    def error(self, title: str, message: str) -> Any:
        """An error's body, in the product's shape where its SDK parses one."""
        return {"detail": message, "error": title, "message": message}

    def paths(self, method: str | None = None) -> list[str]:
        """The paths requested, in order (those of one method when given)."""
        return [r.path for r in self.requests if method in (None, r.method)]


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass

    def _serve(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        parts = urlsplit(self.path)
        query = parse_qs(parts.query)
        request = Request(
            self.command,
            parts.path,
            {name: values[-1] for name, values in query.items()},
            {name.lower(): value for name, value in self.headers.items()},
            _body(raw),
            query,
        )
        status, payload = self.server.state.answer(request)
        streamed = isinstance(payload, EventStream)
        if streamed:
            data = "".join(f"data: {json.dumps(item)}\n\n" for item in payload).encode()
        elif status == 204:  # No Content: a body would be read as the next response's start
            data = b""
        else:
            data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "text/event-stream" if streamed else "application/json")
        self.send_header("content-length", str(len(data)))
        if status == 429:
            self.send_header("retry-after", "0")
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _serve


def _body(raw: bytes) -> Any:
    """A request's JSON; a form's text as it came (an OAuth token request, Vertex AI's)."""
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return raw.decode()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    state: LoopbackState


@contextmanager
def serve(state: LoopbackState) -> Iterator[None]:
    """`state` answering on a free port of 127.0.0.1 (its `url` set) until the block ends."""
    httpd = _Server(("127.0.0.1", 0), _Handler)
    httpd.state = state
    host, port = httpd.server_address[:2]
    state.url = f"http://{host}:{port}"
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield
    finally:
        httpd.shutdown()
        httpd.server_close()
