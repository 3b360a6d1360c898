"""A loopback server of the Hindsight endpoints its client (hindsight-client 1.1.0) calls, for its tests.

    PUT    /v1/default/banks/{bank}                              make (or update) a bank
    POST   /v1/default/banks/{bank}/memories                     retain items: at once, or as an operation
    GET    /v1/default/banks/{bank}/operations/{operation}       an operation's status
    POST   /v1/default/banks/{bank}/memories/recall              the facts most like the query
    GET    /v1/default/banks/{bank}/memories/list?limit=&offset= the bank's facts, a page
    GET    /version                                              the API's version and features
    DELETE /v1/default/banks/{bank}                              the bank and its facts; 404 for none

The rules, each from the client's generated models and API (hindsight_client_api, 1.1.0):
  - a request carries `Authorization: Bearer KEY` when the server has a key (the client sets it as
    its default header; `Hindsight(api_key=…)`), else 401;
  - a retain's body is a `RetainRequest` (`items`, `async`, `document_tags`, `operation_id`), each
    item a `MemoryItem` whose `content` is required and whose other fields are the model's
    (models/retain_request.py, models/memory_item.py): an unknown field is refused with 422;
  - an asynchronous retain answers `async: true` with an `operation_id` (models/retain_response.py),
    whose status reads `pending` until done, then `completed` or `failed` (the statuses AMB's
    harness polls for); its facts are recalled only once it completed;
  - a recall's `budget` is `low`, `mid` or `high` (models/budget.py), its results `RecallResult`s
    with `mentioned_at` and `occurred_start` / `occurred_end` (models/recall_result.py), within its
    `max_tokens`;
  - a listing is `ListMemoryUnitsResponse` (`items`, `total`, `limit`, `offset`).
What stands in for Hindsight's model: each line of an item's content is a fact (its role prefix
kept), mentioned at the item's `timestamp`; a line that says "yesterday" happened the day before.
A recall ranks facts by the words they share with the query (Hindsight: semantic, keyword,
temporal and graph arms, reranked), and tokens are counted as words.  `failing` makes the next
operations fail.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from tests.support.loopback import LoopbackState, Request, serve

PREFIX = "/v1/default/banks/"
_WORD = re.compile(r"[a-z0-9]+")
_ITEM_FIELDS = {
    "content", "timestamp", "context", "metadata", "document_id", "entities", "resolve_entities", "tags",
    "observation_scopes", "strategy", "update_mode",
}  # fmt: skip
_RETAIN_FIELDS = {"items", "async", "document_tags", "operation_id"}
VERSION = "1.1.0"
_FEATURES = (
    "observations", "mcp", "worker", "bank_config_api", "bank_llm_health", "file_upload_api",
    "document_export_api", "document_import_api", "audit_log", "llm_trace", "store_document_text",
)  # fmt: skip


@dataclass
class Operation:
    facts: list[dict[str, Any]]
    polls: int = 0
    failed: bool = False


@dataclass
class HindsightServer(LoopbackState):
    key: str = "hs-test-key"
    process_polls: int = 1  # status reads before an operation completes
    failing: bool = False  # operations from now on fail
    banks: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # bank -> its facts
    operations: dict[str, Operation] = field(default_factory=dict)
    pending: dict[str, str] = field(default_factory=dict)  # operation -> its bank, until it ends
    _ids: Iterator[int] = field(default_factory=itertools.count)

    def authorised(self, request: Request) -> bool:
        return request.headers.get("authorization") == f"Bearer {self.key}"

    def namespace(self, request: Request) -> str | None:
        return request.path.removeprefix(PREFIX).split("/")[0] if request.path.startswith(PREFIX) else None

    def adds(self, request: Request) -> bool:
        return request.method == "POST" and request.path.endswith("/memories")

    def error(self, title: str, message: str) -> Any:
        return {"detail": message}

    def route(self, request: Request) -> tuple[int, Any]:
        if request.path == "/version":  # models/version_response.py, models/features_info.py
            features = dict.fromkeys(_FEATURES, False)
            return 200, {"api_version": VERSION, "features": features}
        if not request.path.startswith(PREFIX):
            return 404, {"detail": "Not Found"}
        bank, *rest = request.path.removeprefix(PREFIX).split("/")
        method = request.method
        if method == "PUT" and not rest:
            self.banks.setdefault(bank, [])
            disposition = {"skepticism": 3, "literalism": 3, "empathy": 3}
            return 200, {"bank_id": bank, "name": bank, "disposition": disposition, "mission": ""}
        if method == "DELETE" and not rest:
            if bank not in self.banks:
                return 404, {"detail": f"Bank {bank} not found"}
            deleted = len(self.banks.pop(bank))
            return 200, {"success": True, "message": None, "deleted_count": deleted}
        if method == "POST" and rest == ["memories"]:
            return self._retain(bank, request.body)
        if method == "GET" and rest[:1] == ["operations"] and len(rest) == 2:
            return self._status(rest[1])
        if method == "POST" and rest == ["memories", "recall"]:
            return self._recall(bank, request.body)
        if method == "GET" and rest == ["memories", "list"]:
            facts = self.banks.get(bank, [])
            limit, offset = int(request.query.get("limit", 100)), int(request.query.get("offset", 0))
            items = [
                {"id": fact["id"], "text": fact["text"], "mentioned_at": fact["mentioned_at"]}
                for fact in facts
            ]
            page = items[offset : offset + limit]
            return 200, {"items": page, "total": len(items), "limit": limit, "offset": offset}
        return 404, {"detail": f"no route {method} {request.path}"}

    def _retain(self, bank: str, body: dict[str, Any]) -> tuple[int, Any]:
        unknown = set(body) - _RETAIN_FIELDS or {key for item in body["items"] for key in item} - _ITEM_FIELDS
        if unknown or any(not item.get("content") for item in body["items"]):
            return 422, {"detail": f"invalid retain request: {sorted(unknown) or 'an item without content'}"}
        facts = [fact for item in body["items"] for fact in self._facts(item)]
        if not body.get("async"):
            self.banks.setdefault(bank, []).extend(facts)
            return 200, {"success": True, "bank_id": bank, "items_count": len(body["items"]), "async": False}
        operation = f"op-{next(self._ids)}"
        self.operations[operation] = Operation(facts, failed=self.failing)
        self.pending[operation] = bank
        return 200, {
            "success": True,
            "bank_id": bank,
            "items_count": len(body["items"]),
            "async": True,
            "operation_id": operation,
        }

    def _facts(self, item: dict[str, Any]) -> list[dict[str, Any]]:
        said = str(item.get("timestamp") or "")
        day = datetime.fromisoformat(said) if said else None
        facts = []
        chunk = f"chunk-{next(self._ids)}"  # an item's content is one chunk here
        for line in str(item["content"]).splitlines():
            happened = day - timedelta(days=1) if day and "yesterday" in line.lower() else day
            facts.append(
                {
                    "id": f"fact-{next(self._ids)}",
                    "text": line,
                    "type": "world",
                    "mentioned_at": said or None,
                    "occurred_start": happened.isoformat() if happened else None,
                    "occurred_end": happened.isoformat() if happened else None,
                    "document_id": item.get("document_id"),
                    "chunk_id": chunk,
                    "chunk": str(item["content"]),
                }
            )
        return facts

    def _status(self, operation_id: str) -> tuple[int, Any]:
        operation = self.operations.get(operation_id)
        if operation is None:
            return 404, {"detail": f"Operation {operation_id} not found"}
        operation.polls += 1
        status = "pending"
        if operation.polls >= self.process_polls:
            status = "failed" if operation.failed else "completed"
            bank = self.pending.pop(operation_id, None)
            if bank is not None and status == "completed":
                # A retain replaces the facts of a document it retains again (its document_id).
                documents = {fact["document_id"] for fact in operation.facts}
                kept = [fact for fact in self.banks.get(bank, []) if fact["document_id"] not in documents]
                self.banks[bank] = kept + operation.facts
        answer = {"operation_id": operation_id, "status": status}
        if status == "failed":
            answer["error_message"] = "extraction failed (injected)"
        return 200, answer

    def _recall(self, bank: str, body: dict[str, Any]) -> tuple[int, Any]:
        if body.get("budget") not in (None, "low", "mid", "high"):
            return 422, {"detail": "budget must be low, mid or high"}
        asked = set(_WORD.findall(str(body["query"]).lower()))
        ranked = sorted(
            (fact for fact in self.banks.get(bank, []) if asked & set(_WORD.findall(fact["text"].lower()))),
            key=lambda fact: -len(asked & set(_WORD.findall(fact["text"].lower()))),
        )
        results, used = [], 0
        for fact in ranked:
            used += len(fact["text"].split())
            if used > int(body.get("max_tokens") or 4096):
                break
            results.append(fact)
        answer: dict[str, Any] = {
            "results": [{k: v for k, v in fact.items() if k != "chunk"} for fact in results]
        }
        if (body.get("include") or {}).get("chunks") is not None:  # models/include_options.py
            answer["chunks"] = {
                fact["chunk_id"]: {"id": fact["chunk_id"], "text": fact["chunk"], "chunk_index": 0}
                for fact in results
            }
        return 200, answer


@contextmanager
def hindsight_server(**options: Any) -> Iterator[HindsightServer]:
    """A running server on 127.0.0.1 (its `url` set), stopped on leaving."""
    state = HindsightServer(**options)
    with serve(state):
        yield state
