"""A loopback endpoint of the AWS Bedrock AgentCore Memory operations its SDK (bedrock-agentcore
1.25.0, over botocore) calls, for its tests; boto3 is pointed at it as it reads an endpoint from the
environment (AWS_ENDPOINT_URL_BEDROCK_AGENTCORE and …_CONTROL, `agentcore_environment`).

    POST   /memories/{memoryId}/events                                  CreateEvent
    POST   /memories/{memoryId}/retrieve                                RetrieveMemoryRecords
    POST   /memories/{memoryId}/memoryRecords                           ListMemoryRecords
    POST   /memories/{memoryId}/memoryRecords/batchDelete               BatchDeleteMemoryRecords
    POST   /memories/{memoryId}/actor/{actorId}/sessions                ListSessions
    POST   /memories/{memoryId}/actor/{actorId}/sessions/{sessionId}    ListEvents
    DELETE /memories/{memoryId}/actor/{actorId}/sessions/{sessionId}/events/{eventId}   DeleteEvent
    POST   /memories/{memoryId}/extractionJobs                          ListMemoryExtractionJobs
    GET    /memories/{memoryId}/details                                 GetMemory (the control plane)

Every rule is botocore's service model (botocore/data/bedrock-agentcore/2024-02-28/service-2.json
and bedrock-agentcore-control's), read from the installed botocore, not written out here:
  - a request is routed by its operation's `http` method and `requestUri`; its URI, query and body
    members are checked against the operation's input shape: required members present, no member
    the shape lacks, each value of its type, within its `min` / `max`, matching its `pattern`
    (anchored) and among its `enum` (botocore's own client checks only types, required members and
    minimums: the rest is the service's to refuse, with a 400 ValidationException);
  - every answer is checked against the operation's output shape the same way (a wrong fake fails);
  - the request is signed (SigV4) with the server's access key id, for the operation's signing name
    and the server's region, else 403 UnrecognizedClientException (the signature itself is not
    verified); errors carry `__type` and `message`, as rest-json services answer;
  - `namespace` and `namespacePath` are not both given (bedrock_agentcore/_utils/namespace.py), a
    namespace path is a prefix of a record's namespace, an exact namespace equals one;
  - a repeated CreateEvent `clientToken` returns the first event and adds nothing (the model marks
    it `idempotencyToken`);
  - ListMemoryExtractionJobs lists jobs whose status is FAILED (the model's only status).
What stands in for AgentCore's strategies: each conversational message an event holds (a line
"Conversation date: …" apart) becomes a record in each strategy's namespace, dated by the event's
time (`timestamp`: "the time of the source content", the model's documentation); records appear
one listing after another, `extract_polls` listings after their event, as extraction finishes in
the background.  Retrieval ranks records by the words they share with the query.  `failing` makes
the extraction of the next events fail (a FAILED job for their actor).
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

import pytest

from tests.support.loopback import LoopbackState, Request, serve

MEMORY_ID = "memorybench_memory-a1b2c3d4e5"
REGION = "us-east-1"
SEMANTIC = ("facts-f1a2b3c4d5", "SEMANTIC", "/strategies/{memoryStrategyId}/actors/{actorId}/")
SUMMARY = (
    "summary-s1a2b3c4d5",
    "SUMMARIZATION",
    "/strategies/{memoryStrategyId}/actors/{actorId}/sessions/{sessionId}/",
)
_WORD = re.compile(r"[a-z0-9]+")
_DATE_LINE = "Conversation date: "
_ERRORS = {400: "ValidationException", 403: "UnrecognizedClientException", 404: "ResourceNotFoundException"}


def _models() -> list[Any]:
    import botocore.session

    session = botocore.session.get_session()
    return [session.get_service_model(name) for name in ("bedrock-agentcore", "bedrock-agentcore-control")]


def problems(shape: Any, value: Any, where: str) -> list[str]:
    """What in `value` the model's `shape` refuses (empty: nothing)."""
    kind = shape.type_name
    if kind == "structure":
        if not isinstance(value, dict):
            return [f"{where} must be an object"]
        found = [f"{where}.{name} is required" for name in shape.required_members if name not in value]
        found += [
            f"{where}.{name} is no member of {shape.name}" for name in value if name not in shape.members
        ]
        for name, member in shape.members.items():
            if name in value:
                found += problems(member, value[name], f"{where}.{name}")
        return found
    if kind == "list":
        if not isinstance(value, list):
            return [f"{where} must be a list"]
        return _range(shape, len(value), where) + [
            problem
            for n, item in enumerate(value)
            for problem in problems(shape.member, item, f"{where}[{n}]")
        ]
    if kind == "map":
        return [] if isinstance(value, dict) else [f"{where} must be an object"]
    if kind == "string":
        if not isinstance(value, str):
            return [f"{where} must be a string"]
        found = _range(shape, len(value), where)
        pattern = shape.metadata.get("pattern")
        if pattern and not re.fullmatch(pattern, value):
            found.append(f"{where} {value!r} does not match {pattern}")
        if shape.enum and value not in shape.enum:
            found.append(f"{where} {value!r} is not one of {shape.enum}")
        return found
    if kind in ("integer", "long"):
        ok = isinstance(value, int) and not isinstance(value, bool)
        return _range(shape, value, where) if ok else [f"{where} must be an integer"]
    if kind in ("double", "float", "timestamp"):
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        return [] if ok else [f"{where} must be a number"]
    if kind == "boolean":
        return [] if isinstance(value, bool) else [f"{where} must be a boolean"]
    return []


def _range(shape: Any, size: int, where: str) -> list[str]:
    low, high = shape.metadata.get("min"), shape.metadata.get("max")
    if low is not None and size < low:
        return [f"{where} is below its minimum {low}"]
    if high is not None and size > high:
        return [f"{where} is above its maximum {high}"]
    return []


@dataclass(frozen=True)
class Route:
    operation: Any
    method: str
    path: re.Pattern[str]


@functools.cache
def _routes() -> list[Route]:
    routes = []
    for model in _models():
        for name in model.operation_names:
            operation = model.operation_model(name)
            uri = operation.http["requestUri"].split("?")[0]
            pattern = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(uri))
            routes.append(Route(operation, operation.http["method"], re.compile(pattern)))
    return routes


@dataclass
class Record:
    id: str
    text: str
    strategy: str
    namespace: str
    said: float
    actor: str
    ready_at: int  # the listing after which it can be found


@dataclass
class AgentCoreServer(LoopbackState):
    key: str = "AKIAMEMORYBENCHTEST1"
    strategies: list[tuple[str, str, str]] = field(default_factory=lambda: [SEMANTIC])
    extract_polls: int = 1  # listings before an event's first record appears
    failing: bool = False
    events: dict[tuple[str, str], list[dict[str, Any]]] = field(default_factory=dict)  # (actor, session)
    records: list[Record] = field(default_factory=list)
    failed: dict[str, list[str]] = field(default_factory=dict)  # actor -> the events it failed on
    tokens: dict[str, dict[str, Any]] = field(default_factory=dict)  # clientToken -> its event
    listings: int = 0
    _ids: Iterator[int] = field(default_factory=itertools.count)

    def authorised(self, request: Request) -> bool:
        return True  # checked in `route`, to answer as AWS does (403 and its error type)

    def namespace(self, request: Request) -> str | None:
        found = re.search(r"/actor/([^/]+)", request.path)
        if found:
            return found.group(1)
        body = request.body or {}
        if "actorId" in body:
            return str(body["actorId"])
        path = body.get("namespacePath") or body.get("namespace") or ""
        found = re.search(r"/actors/([^/]+)", path)
        return found.group(1) if found else None

    def adds(self, request: Request) -> bool:
        return request.method == "POST" and request.path.endswith("/events")

    def error(self, title: str, message: str) -> Any:
        kind = "ThrottledException" if "many" in title else "ServiceException"
        return {"__type": kind, "message": message}

    def operation(self, request: Request) -> str | None:
        """The operation a request calls, by the model's routes."""
        for route in _routes():
            if route.method == request.method and route.path.fullmatch(request.path):
                return str(route.operation.name)
        return None

    def route(self, request: Request) -> tuple[int, Any]:
        for route in _routes():
            matched = route.path.fullmatch(request.path)
            if route.method == request.method and matched:
                break
        else:
            return 404, {"__type": "UnknownOperationException", "message": f"no route {request.path}"}
        operation = route.operation
        credential = re.search(
            r"Credential=([^/]+)/\d{8}/([^/]+)/([^/]+)/", request.headers.get("authorization", "")
        )
        if not credential or credential.groups() != (self.key, REGION, operation.service_model.signing_name):
            return _error(403, "The security token included in the request is invalid.")
        params: dict[str, Any] = dict(request.body or {})
        params |= {name: unquote(value) for name, value in matched.groupdict().items()}
        for name, member in operation.input_shape.members.items():
            where = member.serialization.get("name", name)
            if member.serialization.get("location") == "querystring" and where in request.query:
                params[name] = request.query[where]
        refused = problems(operation.input_shape, params, operation.name)
        if "namespace" in params and "namespacePath" in params:
            refused.append("namespace and namespacePath are mutually exclusive")
        if refused:
            return _error(400, "; ".join(refused))
        if params["memoryId"] != MEMORY_ID:
            return _error(404, f"Memory {params['memoryId']} not found")
        status, answer = getattr(self, "_" + _snake(operation.name))(params)
        if status < 300:
            wrong = problems(operation.output_shape, answer, operation.name) if operation.output_shape else []
            assert not wrong, f"the fake answered outside the model: {wrong}"
        return status, answer

    def _create_event(self, params: dict[str, Any]) -> tuple[int, Any]:
        token = params.get("clientToken")
        if token in self.tokens:
            return 201, {"event": self.tokens[token]}
        actor, session = params["actorId"], params.get("sessionId") or "default"
        event = {
            "memoryId": MEMORY_ID,
            "actorId": actor,
            "sessionId": session,
            "eventId": f"{int(params['eventTimestamp'] * 1000)}#{next(self._ids):08x}",
            "eventTimestamp": params["eventTimestamp"],
            "payload": params["payload"],
        }
        self.events.setdefault((actor, session), []).append(event)
        if token:
            self.tokens[token] = event
        if self.failing:
            self.failed.setdefault(actor, []).append(event["eventId"])
            return 201, {"event": event}
        texts = [
            part["conversational"]["content"]["text"]
            for part in params["payload"]
            if "conversational" in part
            and not part["conversational"]["content"]["text"].startswith(_DATE_LINE)
        ]
        for strategy, _, template in self.strategies:
            namespace = (
                template.replace("{memoryStrategyId}", strategy)
                .replace("{actorId}", actor)
                .replace("{sessionId}", session)
            )
            for n, text in enumerate(texts):
                ready = self.listings + self.extract_polls + n  # one listing after another
                self.records.append(
                    Record(
                        _record_id(text, namespace),
                        text,
                        strategy,
                        namespace,
                        params["eventTimestamp"],
                        actor,
                        ready,
                    )
                )
        return 201, {"event": event}

    def _found(self, params: dict[str, Any]) -> list[Record]:
        exact, prefix = params.get("namespace"), params.get("namespacePath")
        return [
            record
            for record in self.records
            if record.ready_at <= self.listings
            and (record.namespace == exact if exact else record.namespace.startswith(prefix or ""))
        ]

    def _retrieve_memory_records(self, params: dict[str, Any]) -> tuple[int, Any]:
        criteria = params["searchCriteria"]
        asked = set(_WORD.findall(criteria["searchQuery"].lower()))
        scored = [
            (len(asked & set(_WORD.findall(record.text.lower()))) / max(1, len(asked)), record)
            for record in self._found(params)
        ]
        ranked = sorted((pair for pair in scored if pair[0] > 0), key=lambda pair: -pair[0])
        ranked = ranked[: min(criteria.get("topK", 20), params.get("maxResults", 100))]
        return 200, {"memoryRecordSummaries": [_summary(record, score) for score, record in ranked]}

    def _list_memory_records(self, params: dict[str, Any]) -> tuple[int, Any]:
        self.listings += 1
        found = self._found(params)
        start, size = int(params.get("nextToken") or 0), params.get("maxResults", 20)
        page: dict[str, Any] = {"memoryRecordSummaries": [_summary(r) for r in found[start : start + size]]}
        if start + size < len(found):
            page["nextToken"] = str(start + size)
        return 200, page

    def _batch_delete_memory_records(self, params: dict[str, Any]) -> tuple[int, Any]:
        ids = {record["memoryRecordId"] for record in params["records"]}
        done = [{"memoryRecordId": r.id, "status": "SUCCEEDED"} for r in self.records if r.id in ids]
        self.records = [record for record in self.records if record.id not in ids]
        return 200, {"successfulRecords": done, "failedRecords": []}

    def _list_sessions(self, params: dict[str, Any]) -> tuple[int, Any]:
        sessions = [
            {"sessionId": session, "actorId": actor, "createdAt": events[0]["eventTimestamp"]}
            for (actor, session), events in self.events.items()
            if actor == params["actorId"] and events
        ]
        return 200, {"sessionSummaries": sessions}

    def _list_events(self, params: dict[str, Any]) -> tuple[int, Any]:
        events = self.events.get((params["actorId"], params["sessionId"]), [])
        if not params.get("includePayloads", True):
            events = [{**event, "payload": []} for event in events]
        return 200, {"events": events[: params.get("maxResults", 20)]}

    def _delete_event(self, params: dict[str, Any]) -> tuple[int, Any]:
        key = (params["actorId"], params["sessionId"])
        kept = [event for event in self.events.get(key, []) if event["eventId"] != params["eventId"]]
        if len(kept) == len(self.events.get(key, [])):
            return _error(404, f"Event {params['eventId']} not found")
        self.events[key] = kept
        return 200, {"eventId": params["eventId"]}

    def _list_memory_extraction_jobs(self, params: dict[str, Any]) -> tuple[int, Any]:
        wanted = (params.get("filter") or {}).get("actorId")
        jobs = [
            {
                "jobID": f"job-{hashlib.sha256(actor.encode()).hexdigest()[:12]}",
                "status": "FAILED",
                "failureReason": "extraction failed (injected)",
                "actorId": actor,
                "messages": {"messagesList": [{"eventId": event, "messageIndex": 0} for event in events]},
            }
            for actor, events in sorted(self.failed.items())
            if wanted in (None, actor)
        ]
        return 200, {"jobs": jobs}

    def _get_memory(self, params: dict[str, Any]) -> tuple[int, Any]:
        now = time.time()
        strategies = [
            {
                "strategyId": strategy,
                "name": strategy.split("-")[0],
                "type": kind,
                "namespaces": [template],
                "namespaceTemplates": [template],
                "status": "ACTIVE",
            }
            for strategy, kind, template in self.strategies
        ]
        memory = {
            "arn": f"arn:aws:bedrock-agentcore:{REGION}:123456789012:memory/{MEMORY_ID}",
            "id": MEMORY_ID,
            "name": "memorybench_memory",
            "eventExpiryDuration": 30,
            "status": "ACTIVE",
            "createdAt": now,
            "updatedAt": now,
            "strategies": strategies,
        }
        return 200, {"memory": memory}


def _summary(record: Record, score: float | None = None) -> dict[str, Any]:
    summary = {
        "memoryRecordId": record.id,
        "content": {"text": record.text},
        "memoryStrategyId": record.strategy,
        "namespaces": [record.namespace],
        "createdAt": time.time(),
        "timestamp": record.said,
    }
    return summary | ({"score": score} if score is not None else {})


def _record_id(text: str, namespace: str) -> str:
    return "mem-" + hashlib.sha256(f"{namespace}\n{text}\n{time.time_ns()}".encode()).hexdigest()[:40]


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _error(status: int, message: str) -> tuple[int, Any]:
    return status, {"__type": _ERRORS[status], "message": message}


@contextmanager
def agentcore_server(**options: Any) -> Iterator[AgentCoreServer]:
    """A running endpoint on 127.0.0.1 (its `url` set), stopped on leaving."""
    state = AgentCoreServer(**options)
    with serve(state):
        yield state


def agentcore_environment(server: AgentCoreServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """boto3 pointed at the server, with its key and region, and no profile of this machine's."""
    for variable in ("AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent/aws-config")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/aws-credentials")
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", server.key)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "memorybench-test-secret")
    monkeypatch.setenv("AWS_REGION", REGION)  # the SDK reads it
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)  # boto3 reads it
    monkeypatch.setenv("AWS_ENDPOINT_URL_BEDROCK_AGENTCORE", server.url)
    monkeypatch.setenv("AWS_ENDPOINT_URL_BEDROCK_AGENTCORE_CONTROL", server.url)
