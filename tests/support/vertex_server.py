"""A loopback server of the Vertex AI endpoints Memory Bank's SDK (google-cloud-aiplatform 2.7.0,
`vertexai.Client(...).aio.agent_engines.memories`) calls, and of the OAuth token endpoint its
credentials refresh at, for the `vertex` tests.

    POST   /token                                           a service account's JWT for an access token
    GET    /v1beta1/{engine}                                the Agent Engine (its Memory Bank config)
    POST   /v1beta1/{engine}/memories:generate              an operation that generates memories
    GET    /v1beta1/{engine}/operations/{id}                an operation: done or not, its error
    POST   /v1beta1/{engine}/memories:retrieve              a scope's memories, by similarity or all
    GET    /v1beta1/{engine}/memories?filter=&pageSize=&pageToken=   memories, a page
    POST   /v1beta1/{engine}/memories:purge                 an operation that deletes the filtered

The rules, each from where it is written:
  - the token endpoint takes a service account's JWT grant (`grant_type=urn:ietf:params:oauth:
    grant-type:jwt-bearer`, `assertion`: a JWT whose `iss` is the account's email and `aud` the
    token URI, form-encoded) and answers `access_token` and `expires_in`; an account it does not
    know is HTTP 400 `invalid_grant`, which google-auth raises as RefreshError
    (google/oauth2/service_account.py `_make_authorization_grant_assertion`, whose `aud` is Google's
    token endpoint whatever the key file's `token_uri`, where the grant is sent; google/oauth2/
    _client.py `jwt_grant`; the error is OAuth's `{"error", "error_description"}`);
  - every API request carries `Authorization: Bearer TOKEN` of a token it issued, else HTTP 401
    `UNAUTHENTICATED`; an error is a `google.rpc.Status` in `{"error": {code, message, status}}`,
    which google-genai raises as ClientError with that code (google/genai/errors.py, APIError);
  - an engine the server does not hold is HTTP 404 `NOT_FOUND`; its resource is a ReasoningEngine
    whose `contextSpec.memoryBankConfig` names the generation and embedding models
    (vertexai/_genai/types/common.py, ReasoningEngineContextSpecMemoryBankConfig);
  - a request body is the request message in proto3 JSON: each field in its lowerCamel or its
    original snake_case name, and an unknown field refused with HTTP 400 `INVALID_ARGUMENT`
    ("Invalid JSON payload received. Unknown name"), as Google's JSON front ends refuse it;
  - a generate takes one source (`directContentsSource`, `vertexSessionSource` or
    `directMemoriesSource`) and, with direct contents, a `scope` of strings; each event's content
    has a role (`user` or `model`) and text parts; `metadata` values are MemoryMetadataValues
    (`stringValue`, `doubleValue`, `boolValue`, `timestampValue`, an RFC 3339 time) and
    `metadataMergeStrategy` one of MemoryMetadataMergeStrategy's (the SDK's GenerateMemoriesRequest*
    and GenerateAgentEngineMemoriesConfig models);
  - a generate and a purge answer a long-running Operation (`name`, `done`; once done, `response`
    or `error`), read back at its name (google.longrunning.Operation; the SDK's
    AgentEngineGenerateMemoriesOperation); memories a generate makes are found once it is done;
  - a retrieve needs a `scope` and matches memories whose scope is exactly it; by
    `similaritySearchParams` (`searchQuery` required, `topK` at most 100, 3 when unset) each hit
    has a `distance` (smaller is nearer) and no page token; by `simpleRetrievalParams` or none, pages
    (RetrieveMemoriesRequest*, RetrieveMemoriesResponse);
  - a list and a purge filter by `scope.KEY="VALUE"` (AIP-160, Memory Bank's documented scope
    filter); a purge without `force` deletes nothing (PurgeAgentEngineMemories' `force`).
What stands in for Memory Bank's model: each event's text is a fact (a line that only gives the
conversation's date is context, no fact), consolidated with an equal fact of the scope (updated,
its metadata merged as the request's strategy says), else created; the similarity is the share of
the query's words a fact holds.
"""

from __future__ import annotations

import base64
import functools
import itertools
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest

from tests.support.loopback import LoopbackState, Request, serve

# The SDK's modules the store imports, protobuf-backed: loaded before a test's pytester (the
# `loaded_first` mark, tests/conftest.py), as the same process cannot import them twice.
SDK_MODULES = ("vertexai", "vertexai._genai.agent_engines", "vertexai._genai.memories")
LOADED_FIRST = pytest.mark.loaded_first(*SDK_MODULES)

API = "/v1beta1/"
PROJECT, LOCATION = "memorybench-test", "us-central1"
ENGINE = f"projects/{PROJECT}/locations/{LOCATION}/reasoningEngines/4242"
GENERATION = f"projects/{PROJECT}/locations/{LOCATION}/publishers/google/models/gemini-2.5-flash"
EMBEDDING = f"projects/{PROJECT}/locations/{LOCATION}/publishers/google/models/text-embedding-005"
_WORD = re.compile(r"[a-z0-9]+")
_DATE_ONLY = re.compile(r"^[^.]*\bsaid on \d{4}-\d{2}-\d{2}\b")
_SCOPE_FILTER = re.compile(r'^scope\.(\w+)="([^"]*)"$')
_GENERATE = {
    "direct_contents_source", "vertex_session_source", "direct_memories_source", "scope",
    "disable_consolidation", "revision_labels", "revision_expire_time", "revision_ttl",
    "disable_memory_revisions", "metadata", "metadata_merge_strategy", "allowed_topics",
}  # fmt: skip
_RETRIEVE = {"scope", "similarity_search_params", "simple_retrieval_params", "filter", "filter_groups"}
_PURGE = {"filter", "filter_groups", "force", "memory_revisions_policy"}
_METADATA_VALUES = {"string_value", "double_value", "bool_value", "timestamp_value"}
_MERGE = {"METADATA_MERGE_STRATEGY_UNSPECIFIED", "OVERWRITE", "MERGE", "REQUIRE_EXACT_MATCH"}
_ROLES = {"user", "model"}
_JWT_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer"
_AUDIENCE = "https://oauth2.googleapis.com/token"  # google-auth's assertions name it, whatever the token URI


def snake(name: str) -> str:
    """A proto3 JSON name as its field's: `topK` and `top_k` are the same field."""
    return re.sub(r"(?<!^)([A-Z])", lambda m: "_" + m.group(1).lower(), name)


def fields(message: Any) -> dict[str, Any]:
    return {snake(key): value for key, value in (message or {}).items()}


class Refused(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


@dataclass
class Operation:
    name: str
    apply: Any  # what it does once done
    polls: int = 0
    done: bool = False
    failed: bool = False
    response: dict[str, Any] = field(default_factory=dict)


@dataclass
class VertexServer(LoopbackState):
    key: str = "memorybench@memorybench-test.iam.gserviceaccount.com"  # the service account it knows
    process_polls: int = 1  # operation reads before a generate is done
    failing: bool = False  # generates from now on fail
    engines: dict[str, dict[str, Any]] = field(default_factory=dict)
    memories: list[dict[str, Any]] = field(default_factory=list)
    operations: dict[str, Operation] = field(default_factory=dict)
    tokens: set[str] = field(default_factory=set)
    _ids: Iterator[int] = field(default_factory=itertools.count)

    def __post_init__(self) -> None:
        self.engines.setdefault(ENGINE, _engine(ENGINE))

    @property
    def token_uri(self) -> str:
        return f"{self.url}/token"

    def authorised(self, request: Request) -> bool:
        if request.path == "/token":
            return True
        bearer = request.headers.get("authorization", "").removeprefix("Bearer ")
        return bearer in self.tokens

    def error(self, title: str, message: str) -> Any:
        status = {"Unauthorized": ("UNAUTHENTICATED", 401), "Too many requests": ("RESOURCE_EXHAUSTED", 429)}
        code, number = status.get(title, ("INTERNAL", 500))
        return {"error": {"code": number, "message": message, "status": code}}

    def namespace(self, request: Request) -> str | None:
        body = fields(request.body if isinstance(request.body, dict) else {})
        if "scope" in body:
            return str(dict(body["scope"]).get("user_id"))
        found = _SCOPE_FILTER.match(str(body.get("filter") or request.query.get("filter") or ""))
        return found.group(2) if found else None

    def adds(self, request: Request) -> bool:
        return request.method == "POST" and request.path.endswith("/memories:generate")

    def route(self, request: Request) -> tuple[int, Any]:
        try:
            return 200, self._route(request)
        except Refused as refused:
            if request.path == "/token":  # OAuth 2.0's error (RFC 6749 5.2), not an API's
                return refused.status, {"error": refused.code, "error_description": refused.message}
            return refused.status, {
                "error": {"code": refused.status, "message": refused.message, "status": refused.code}
            }

    def _route(self, request: Request) -> Any:
        if request.path == "/token":
            return self._token(request)
        path = request.path.removeprefix(API)
        resource, _, verb = path.partition(":")
        if "/operations/" in resource and request.method == "GET":
            return self._operation(resource)
        engine = resource.removesuffix("/memories")
        if engine not in self.engines:
            raise Refused(404, "NOT_FOUND", f"ReasoningEngine {engine} not found")
        if request.method == "GET" and resource == engine:
            return self.engines[engine]
        if request.method == "POST" and verb == "generate":
            return self._generate(engine, fields(request.body))
        if request.method == "POST" and verb == "retrieve":
            return self._retrieve(engine, fields(request.body))
        if request.method == "GET" and resource.endswith("/memories") and not verb:
            return self._list(engine, request.query)
        if request.method == "POST" and verb == "purge":
            return self._purge(engine, fields(request.body))
        raise Refused(404, "NOT_FOUND", f"no route {request.method} {request.path}")

    def _token(self, request: Request) -> Any:
        form = {name: values[-1] for name, values in parse_qs(str(request.body or "")).items()}
        claims = _claims(form.get("assertion", "")) if form.get("grant_type") == _JWT_GRANT else {}
        if claims.get("iss") != self.key or claims.get("aud") != _AUDIENCE:
            raise Refused(400, "invalid_grant", "Invalid JWT Signature.")
        token = f"ya29.test-{next(self._ids)}"
        self.tokens.add(token)
        return {"access_token": token, "expires_in": 3599, "token_type": "Bearer"}

    def _generate(self, engine: str, body: dict[str, Any]) -> Any:
        _known("GenerateMemoriesRequest", body, _GENERATE)
        sources = [key for key in body if key.endswith("_source")]
        if len(sources) != 1:
            raise Refused(400, "INVALID_ARGUMENT", f"exactly one source must be set, got {sources}")
        if sources != ["direct_contents_source"]:
            raise Refused(400, "INVALID_ARGUMENT", f"{sources[0]} is not served here")
        scope = _scope(body)
        metadata = _metadata(body.get("metadata"))
        strategy = str(body.get("metadata_merge_strategy") or "METADATA_MERGE_STRATEGY_UNSPECIFIED")
        if strategy not in _MERGE:
            raise Refused(400, "INVALID_ARGUMENT", f"Invalid value at 'metadata_merge_strategy': {strategy}")
        texts = []
        for event in fields(body["direct_contents_source"]).get("events") or []:
            content = fields(fields(event).get("content"))
            if content.get("role") not in _ROLES or not content.get("parts"):
                raise Refused(
                    400, "INVALID_ARGUMENT", "an event's content needs a role (user, model) and parts"
                )
            texts += [str(fields(part).get("text") or "") for part in content["parts"]]
        facts = [text for text in texts if text.strip() and not _DATE_ONLY.match(text)]

        def apply() -> dict[str, Any]:
            return {
                "generatedMemories": [self._consolidate(engine, scope, f, metadata, strategy) for f in facts]
            }

        return self._start(engine, apply, failing=self.failing)

    def _consolidate(
        self, engine: str, scope: dict[str, str], fact: str, metadata: dict[str, Any], strategy: str
    ) -> dict[str, Any]:
        for memory in self._in(engine, scope):
            if memory["fact"] == fact:
                memory["metadata"] = metadata if strategy == "OVERWRITE" else memory["metadata"] | metadata
                return {"memory": {"name": memory["name"]}, "action": "UPDATED"}
        name = f"{engine}/memories/{next(self._ids)}"
        self.memories.append(
            {"name": name, "fact": fact, "scope": scope, "metadata": metadata, "engine": engine}
        )
        return {"memory": {"name": name}, "action": "CREATED"}

    def _start(self, engine: str, apply: Any, failing: bool = False) -> Any:
        name = f"{engine}/operations/{next(self._ids)}"
        self.operations[name] = Operation(name, apply, failed=failing)
        return {"name": name, "done": False}

    def _operation(self, name: str) -> Any:
        operation = self.operations.get(name)
        if operation is None:
            raise Refused(404, "NOT_FOUND", f"Operation {name} not found")
        operation.polls += 1
        if not operation.done and operation.polls >= self.process_polls:
            operation.done = True
            if not operation.failed:
                operation.response = operation.apply()
        answer: dict[str, Any] = {"name": name, "done": operation.done}
        if operation.done and operation.failed:
            answer["error"] = {"code": 13, "message": "memory generation failed (injected)"}
        elif operation.done:
            answer["response"] = operation.response
        return answer

    def _retrieve(self, engine: str, body: dict[str, Any]) -> Any:
        _known("RetrieveMemoriesRequest", body, _RETRIEVE)
        scope = _scope(body)
        found = self._in(engine, scope)
        if "similarity_search_params" in body:
            params = fields(body["similarity_search_params"])
            _known("SimilaritySearchParams", params, {"search_query", "top_k"})
            if not params.get("search_query"):
                raise Refused(400, "INVALID_ARGUMENT", "search_query is required")
            top_k = min(int(params.get("top_k") or 3), 100)
            asked = set(_WORD.findall(str(params["search_query"]).lower()))
            distance = {
                memory["name"]: 1
                - len(asked & set(_WORD.findall(memory["fact"].lower()))) / (len(asked) or 1)
                for memory in found
            }
            ranked = sorted(found, key=lambda memory: distance[memory["name"]])[:top_k]
            return {
                "retrievedMemories": [{"memory": _public(m), "distance": distance[m["name"]]} for m in ranked]
            }
        params = fields(body.get("simple_retrieval_params"))
        _known("SimpleRetrievalParams", params, {"page_size", "page_token"})
        return _page(found, params.get("page_size"), params.get("page_token"), "retrievedMemories")

    def _list(self, engine: str, query: dict[str, str]) -> Any:
        _known("ListMemories", fields(query), {"filter", "page_size", "page_token"})
        found = [m for m in self.memories if m["engine"] == engine and _matches(m, query.get("filter"))]
        return _page(found, query.get("pageSize"), query.get("pageToken"), "memories")

    def _purge(self, engine: str, body: dict[str, Any]) -> Any:
        _known("PurgeMemoriesRequest", body, _PURGE)
        doomed = [m for m in self.memories if m["engine"] == engine and _matches(m, body.get("filter"))]

        def apply() -> dict[str, Any]:
            if body.get("force"):
                self.memories = [m for m in self.memories if m not in doomed]
            return {"purgeCount": str(len(doomed))}

        started = self._start(engine, apply)
        return self._operation(started["name"]) if self.process_polls <= 1 else started

    def _in(self, engine: str, scope: dict[str, str]) -> list[dict[str, Any]]:
        return [m for m in self.memories if m["engine"] == engine and m["scope"] == scope]


def _claims(assertion: str) -> dict[str, Any]:
    """A JWT's claims (its payload), or none where it is no JWT."""
    try:
        payload = assertion.split(".")[1]
        return dict(json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))))
    except (IndexError, ValueError):
        return {}


def _engine(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "displayName": "memorybench",
        "contextSpec": {
            "memoryBankConfig": {
                "generationConfig": {"model": GENERATION},
                "similaritySearchConfig": {"embeddingModel": EMBEDDING},
            }
        },
    }


def _known(message: str, body: dict[str, Any], known: set[str]) -> None:
    unknown = sorted(set(body) - known)
    if unknown:
        raise Refused(
            400,
            "INVALID_ARGUMENT",
            f"Invalid JSON payload received. Unknown name \"{unknown[0]}\" at '{message}':"
            " Cannot find field.",
        )


def _scope(body: dict[str, Any]) -> dict[str, str]:
    scope = body.get("scope")
    if not isinstance(scope, dict) or not scope or not all(isinstance(v, str) for v in scope.values()):
        raise Refused(400, "INVALID_ARGUMENT", "scope is required: a map of strings")
    return dict(scope)


def _metadata(metadata: Any) -> dict[str, Any]:
    checked: dict[str, Any] = {}
    for key, value in (metadata or {}).items():
        value = fields(value)
        if len(value) != 1 or not set(value) <= _METADATA_VALUES:
            raise Refused(
                400, "INVALID_ARGUMENT", f"metadata {key!r} needs one of {sorted(_METADATA_VALUES)}"
            )
        if "timestamp_value" in value:
            try:
                datetime.fromisoformat(str(value["timestamp_value"]).replace("Z", "+00:00"))
            except ValueError:
                raise Refused(400, "INVALID_ARGUMENT", f"metadata {key!r}: not an RFC 3339 time") from None
            value = {"timestampValue": value["timestamp_value"]}
        checked[key] = value
    return checked


def _matches(memory: dict[str, Any], condition: str | None) -> bool:
    if not condition:
        return True
    found = _SCOPE_FILTER.match(condition)
    if found is None:
        raise Refused(400, "INVALID_ARGUMENT", f"Unsupported filter: {condition}")
    return memory["scope"].get(found.group(1)) == found.group(2)


def _public(memory: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in memory.items() if key != "engine"}


def _page(found: list[dict[str, Any]], size: Any, token: Any, key: str) -> Any:
    start, count = int(token or 0), min(int(size or 3), 100)
    page: dict[str, Any] = {key: [_public(m) for m in found[start : start + count]]}
    if start + count < len(found):
        page["nextPageToken"] = str(start + count)
    return page


@functools.cache
def _private_key() -> str:
    """A service account's RSA key, made once (making one takes a while on a busy machine)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return pem.decode()


def use_credentials(server: VertexServer, folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Application Default Credentials as a service account's key file gives them (a key made here),
    their token granted by the loopback server; the project in GOOGLE_CLOUD_PROJECT."""
    adc = folder / "service-account.json"
    account = {
        "type": "service_account",
        "project_id": PROJECT,
        "private_key_id": "test-key",
        "private_key": _private_key(),
        "client_email": server.key,
        "client_id": "1234",
        "token_uri": server.token_uri,
    }
    adc.write_text(json.dumps(account))
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(adc))
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", PROJECT)
    monkeypatch.delenv("GOOGLE_CLOUD_LOCATION", raising=False)


@contextmanager
def vertex_server(**options: Any) -> Iterator[VertexServer]:
    """A running server on 127.0.0.1 (its `url` set), stopped on leaving."""
    state = VertexServer(**options)
    with serve(state):
        yield state
