"""A local HTTP server speaking the OpenAI and Anthropic wire formats, for offline tests.

Tests drive the real SDK clients against it, so what is checked is what would go over the wire.
By default every request succeeds with a deterministic reply ("echo: <last user message>"); a
test scripts failures, delays or custom replies with `queue()`, and asserts on what the client
sent through `requests`.  Routes map (method, path) to a handler, so other clients (the judge)
can reuse the server by adding their own.
"""

from __future__ import annotations

import hashlib
import json
import random
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

MODEL_ID = "fake-model"


@dataclass
class RecordedRequest:
    method: str
    path: str  # without the query string
    headers: dict[str, str]  # keys lower-cased
    body: Any  # decoded JSON, or None
    at: float = field(default_factory=time.monotonic)  # when it arrived


@dataclass
class Scripted:
    """What to do with one upcoming request instead of the normal reply.

    `body=None` with a 2xx status means: the route's normal reply, using `text` if given.
    """

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = None
    delay: float = 0.0
    text: str | None = None
    path: str | None = None  # only requests to this path consume it; None: any path
    drop: bool = False  # close the connection without answering
    truncate: int | None = (
        None  # send only this many bytes of the body (its full length announced), then close
    )


Handler = Callable[[RecordedRequest, str], Any]
Faults = Callable[[RecordedRequest], "Scripted | None"]  # a fault for this request, or None: answer it
_BREAK = "x-scripted-break"  # carries a drop or truncation from `_respond` to the request handler


def last_user_text(body: Any) -> str:
    """The text of the newest user turn, whatever content shape the client used."""
    for message in reversed((body or {}).get("messages", [])):
        if message.get("role") == "user":
            return content_text(message.get("content"))
    return ""


def content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content or [] if isinstance(part, dict))


def word_count(body: Any) -> int:
    """The server's stand-in for a tokenizer: deterministic, so tests can assert exact usage."""
    texts = [content_text(m.get("content")) for m in (body or {}).get("messages", [])]
    texts.append(content_text((body or {}).get("system", "")))
    return sum(len(text.split()) for text in texts)


def chat_completion(model: str, text: str, usage: dict[str, int] | None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
                "logprobs": None,
            }
        ],
    }
    if usage is not None:
        body["usage"] = usage
    return body


def anthropic_message(model: str, text: str, usage: dict[str, int] | None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
    }
    if usage is not None:
        body["usage"] = usage
    return body


def _openai_chat(request: RecordedRequest, text: str) -> Any:
    prompt, completion = word_count(request.body), len(text.split())
    usage = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
    return chat_completion(request.body.get("model", MODEL_ID), text, usage)


def _anthropic_messages(request: RecordedRequest, text: str) -> Any:
    usage = {"input_tokens": word_count(request.body), "output_tokens": len(text.split())}
    return anthropic_message(request.body.get("model", MODEL_ID), text, usage)


def _openai_models(request: RecordedRequest, text: str) -> Any:
    return {"object": "list", "data": [{"id": MODEL_ID, "object": "model", "owned_by": "test"}]}


class LLMServer:
    """The server plus its script and request log; use as a context manager or via `llm_server`."""

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self.routes: dict[tuple[str, str], Handler] = {
            ("GET", "/v1/models"): _openai_models,
            ("POST", "/v1/chat/completions"): _openai_chat,
            ("POST", "/v1/messages"): _anthropic_messages,
        }
        self._script: list[Scripted] = []
        self.faults: Faults | None = None  # consulted for every request nothing was queued for
        self.latency = 0.0  # seconds every answer takes (a scripted delay adds to it)
        self.in_flight = 0
        self.most_in_flight = 0  # the most requests it was answering at once
        # Answers to POSTs wait until this many requests have been in flight at once (then none
        # waits): a test of concurrency sees it however slowly a busy machine sends the requests.
        self.together = 0
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self._stopping = threading.Event()
        self._httpd = _HTTPServer(("127.0.0.1", 0), _RequestHandler)
        self._httpd.owner = self
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.01}, name="llm-server", daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def openai_url(self) -> str:
        return f"{self.url}/v1"

    def queue(
        self,
        status: int = 200,
        *,
        headers: dict[str, str] | None = None,
        body: Any = None,
        delay: float = 0.0,
        text: str | None = None,
        path: str | None = None,
        times: int = 1,
        drop: bool = False,
        truncate: int | None = None,
    ) -> None:
        """Script the next `times` matching requests (first queued, first used)."""
        with self._lock:
            for _ in range(times):
                self._script.append(
                    Scripted(status, dict(headers or {}), body, delay, text, path, drop, truncate)
                )

    def requests_to(self, path: str) -> list[RecordedRequest]:
        return [request for request in self.requests if request.path == path]

    def start(self) -> LLMServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes handlers sleeping on a scripted delay
        with self._arrived:
            self._arrived.notify_all()  # ... or waiting for company
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join()

    def __enter__(self) -> LLMServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def _next_script(self, path: str) -> Scripted | None:
        with self._lock:
            for index, scripted in enumerate(self._script):
                if scripted.path in (None, path):
                    return self._script.pop(index)
        return None

    def _respond(self, request: RecordedRequest) -> tuple[int, dict[str, str], Any]:
        with self._arrived:
            self.requests.append(request)
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
            self._arrived.notify_all()
            if request.method == "POST":  # a probe of the server (GET /models) is answered at once
                self._arrived.wait_for(
                    lambda: self.most_in_flight >= self.together or self._stopping.is_set(), timeout=60
                )
        try:
            return self._respond_now(request)
        finally:
            with self._lock:
                self.in_flight -= 1

    def _respond_now(self, request: RecordedRequest) -> tuple[int, dict[str, str], Any]:
        queued = self._next_script(request.path) or (
            self.faults(request) if self.faults is not None else None
        )
        scripted = queued or Scripted()
        delay = scripted.delay + (
            self.latency if queued is None else 0.0
        )  # a scripted answer comes at its own pace
        if delay:
            self._stopping.wait(delay)
        if scripted.drop or scripted.truncate is not None:
            status, headers, body = self._answer(
                request, Scripted(status=scripted.status, body=scripted.body, text=scripted.text)
            )
            return status, {**headers, _BREAK: scripted}, body  # type: ignore[dict-item]
        return self._answer(request, scripted)

    def _answer(self, request: RecordedRequest, scripted: Scripted) -> tuple[int, dict[str, str], Any]:
        if scripted.body is not None or scripted.status >= 300:
            body = scripted.body
            if body is None:
                body = {"error": {"type": "scripted_error", "message": f"scripted HTTP {scripted.status}"}}
            return scripted.status, scripted.headers, body
        handler = self.routes.get((request.method, request.path))
        if handler is None:
            error = {"type": "not_found", "message": f"no route {request.method} {request.path}"}
            return 404, {}, {"error": error}
        text = scripted.text if scripted.text is not None else f"echo: {last_user_text(request.body)}"
        return scripted.status, scripted.headers, handler(request, text)


@dataclass
class Exchange:
    """One request a `RecordingProxy` passed on, and what the real server answered."""

    request: RecordedRequest
    status: int
    body: Any


class RecordingProxy(LLMServer):
    """Passes every request on to a real server and keeps both sides, to check what a run recorded.

    `reply_tokens` caps every completion the server is asked for at that many tokens: a small
    model on two cores writes a few dozen tokens a second and often rambles to the cap it is
    given (1,024 for an agent's reply), and what the real-model tests check is the wiring, not
    the length of its answers.
    """

    def __init__(self, upstream: str, *, reply_tokens: int | None = None) -> None:
        super().__init__()
        self.upstream = upstream.rstrip("/")
        self.reply_tokens = reply_tokens
        self.exchanges: list[Exchange] = []
        self._in_flight = 0
        self._last_arrival = time.monotonic()

    def wait_idle(self, seconds: float = 300, quiet: float = 1.0) -> None:
        """Until every request passed on has its answer and none has come for `quiet` seconds: a
        request a killed client sent just before it died may still wait to be accepted, and is only
        counted once its handler runs."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and (
            self._in_flight or time.monotonic() - self._last_arrival < quiet
        ):
            time.sleep(0.1)

    def _respond(self, request: RecordedRequest) -> tuple[int, dict[str, str], Any]:
        with self._lock:
            self._in_flight += 1
            self._last_arrival = time.monotonic()
        try:
            return self._forward(request)
        finally:
            with self._lock:
                self._in_flight -= 1

    def _forward(self, request: RecordedRequest) -> tuple[int, dict[str, str], Any]:
        body = request.body
        if self.reply_tokens is not None and isinstance(body, dict):
            body = {
                **body,
                **{
                    key: min(int(body[key]), self.reply_tokens)
                    for key in ("max_tokens", "max_completion_tokens")
                    if body.get(key)
                },
            }
        data = None if body is None else json.dumps(body).encode()
        forwarded = urllib.request.Request(
            self.upstream + request.path,
            data=data,
            method=request.method,
            headers={"Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(forwarded, timeout=600) as response:
                status, raw = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, raw = error.code, error.read()
        body = json.loads(raw) if raw else None
        with self._lock:
            self.requests.append(request)
            self.exchanges.append(Exchange(request, status, body))
        return status, {}, body

    def completions(self) -> list[Exchange]:
        """The chat completions that succeeded."""
        return [e for e in self.exchanges if e.request.path.endswith("/chat/completions") and e.status == 200]


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # a handler may still be sleeping on a delay the client gave up on
    owner: LLMServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Clients that time out close the socket; the late write failing is expected, not news."""


class _RequestHandler(BaseHTTPRequestHandler):
    server: _HTTPServer

    def do_GET(self) -> None:
        self._handle()

    def do_POST(self) -> None:
        self._handle()

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the per-request stderr line."""

    def _handle(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        request = RecordedRequest(
            method=self.command,
            path=self.path.split("?", 1)[0],
            headers={key.lower(): value for key, value in self.headers.items()},
            body=json.loads(raw) if raw else None,
        )
        status, headers, body = self.server.owner._respond(request)
        scripted = headers.pop(_BREAK, None)
        if isinstance(scripted, Scripted) and scripted.drop:
            self.close_connection = True
            return
        payload, content_type = _encode(body)
        given = next((name for name in headers if name.lower() == "content-type"), None)
        if given is not None:  # a scripted type wins: JSON announced, a body that is not
            content_type = headers.pop(given)
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if isinstance(scripted, Scripted) and scripted.truncate is not None:
            self.wfile.write(payload[: scripted.truncate])
            self.close_connection = True
            return
        self.wfile.write(payload)


def _encode(body: Any) -> tuple[bytes, str]:
    """JSON for data; str and bytes bodies go out verbatim, to imitate servers that break format."""
    if isinstance(body, bytes):
        return body, "application/octet-stream"
    if isinstance(body, str):
        return body.encode(), "text/plain; charset=utf-8"
    return json.dumps(body).encode(), "application/json"


@pytest.fixture
def llm_server() -> Iterator[LLMServer]:
    with LLMServer() as server:
        yield server


CUT_JSON = (
    '{"id": "chatcmpl-1", "object": "chat.completion", "choices": [{"index": 0, "message": {"content": "cu'
)
FAULT_KINDS: dict[str, Scripted] = {
    "429": Scripted(429, headers={"retry-after": "1"}),
    "500": Scripted(500),
    "503-html": Scripted(503, body="<html><body><h1>503 Service Temporarily Unavailable</h1></body></html>"),
    "cut-json": Scripted(200, headers={"Content-Type": "application/json"}, body=CUT_JSON),
    "no-choices": Scripted(
        200, body={"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "m", "choices": []}
    ),
    "reset": Scripted(drop=True),
    "cut-body": Scripted(truncate=20),
}


class SeededFaults:
    """A provider that fails a share of requests, each the same way wherever it comes in a run.

    Whether a request fails, and how, is drawn from the seed and the request itself (its body),
    not from its arrival: conversations running at once in another order meet the same faults.
    Only the first `per_request` attempts at one request may fail, so a client that retries more
    often than that always gets through.  `stall` (seconds) adds a kind that answers too late.
    """

    def __init__(
        self,
        rate: float,
        seed: int,
        *,
        per_request: int = 2,
        stall: float | None = None,
        path: str = "/v1/chat/completions",
    ) -> None:
        self.rate = rate
        self.seed = seed
        self.per_request = per_request
        self.path = path
        self.kinds = dict(FAULT_KINDS)
        if stall is not None:
            self.kinds["stall"] = Scripted(delay=stall)
        self.injected: dict[str, int] = {}  # kind -> how many were served
        self._attempts: dict[str, int] = {}
        self._lock = threading.Lock()

    def __call__(self, request: RecordedRequest) -> Scripted | None:
        if request.path != self.path:
            return None
        key = hashlib.sha256(json.dumps(request.body, sort_keys=True).encode()).hexdigest()
        with self._lock:
            attempt = self._attempts.get(key, 0)
            self._attempts[key] = attempt + 1
        if attempt >= self.per_request:
            return None
        draw = random.Random(f"{self.seed}|{key}|{attempt}")
        if draw.random() >= self.rate:
            return None
        kind = draw.choice(sorted(self.kinds))
        with self._lock:
            self.injected[kind] = self.injected.get(kind, 0) + 1
        return self.kinds[kind]
