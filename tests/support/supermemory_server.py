"""A loopback server of the Supermemory endpoints its SDK (5.x) calls, for the `supermemory` store's tests.

    POST   /ns/{namespace}/document        accept a document: {"id", "status": "queued"}
    GET    /ns/{namespace}/document/{id}   the document, its `system.status` and `dreamingStatus`
    POST   /ns/{namespace}/search          {"results": [...], "searchTime"}: ranked by shared words
    DELETE /ns/{namespace}                 {"status": "deleted", counts}; 404 for one never used

As the service does, a document is searchable only once processed: it reaches `done` after
`process_polls` reads of it, and its memories form `dream_polls` reads later; a search finds only
what is done (chunks) or dreamt (memories).  With `stalled`, a document's memories never form:
the real service's dreaming can wait on a retry after a failure and still say only `dreaming`.
A plain namespace delete answers `deleted` (SDK 5.0.1's NamespaceDeleted: only a move,
`moveTo`, is `queued`, with its `operationId`).  Every request needs `Authorization:
Bearer KEY` (else 401); faults are injected as `tests.support.loopback` says.  Shapes follow the
SDK's types: what it reads must be there.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from tests.support.loopback import LoopbackState, Request, serve

NOW = "2026-11-27T09:00:00Z"
_WORD = re.compile(r"[a-z0-9]+")


@dataclass
class Document:
    id: str
    content: str
    date: str | None = None  # when the content is from, as the add said
    stalled: bool = False
    metadata: dict[str, Any] = field(default_factory=dict)
    reads: int = 0

    def system(self, process_polls: int, dream_polls: int) -> dict[str, Any]:
        done = self.reads >= process_polls
        dreamt = self.reads >= process_polls + dream_polls and not self.stalled
        return {
            "status": "done" if done else "queued",
            "dreamingStatus": "done" if dreamt else "dreaming",
            "createdAt": NOW,
            "updatedAt": NOW,
        }


@dataclass
class SupermemoryServer(LoopbackState):
    key: str = "sm-test-key"
    process_polls: int = 1
    dream_polls: int = 1
    stalled: bool = False  # documents added from now on never finish dreaming
    # A memory whose line holds a key here tells of an event on that date: Supermemory's temporal
    # context then gives its `eventDate` beside its `documentDate` (SDK 5.0.1, types/memory.py).
    event_dates: dict[str, str] = field(default_factory=dict)
    namespaces: dict[str, list[Document]] = field(default_factory=dict)
    _ids: Iterator[int] = field(default_factory=itertools.count)

    def authorised(self, request: Request) -> bool:
        return request.headers.get("authorization") == f"Bearer {self.key}"

    def route(self, request: Request) -> tuple[int, dict[str, Any]]:
        return self._route(request.method, request.path, request.body)

    def namespace(self, request: Request) -> str | None:
        return request.path.split("/")[2] if request.path.startswith("/ns/") else None

    def adds(self, request: Request) -> bool:
        return request.method == "POST" and request.path.endswith("/document")

    def _route(self, method: str, path: str, body: Any) -> tuple[int, dict[str, Any]]:
        parts = path.strip("/").split("/")
        if len(parts) < 2 or parts[0] != "ns":
            return 404, {"error": f"no route {method} {path}"}
        namespace = parts[1]
        if method == "DELETE" and len(parts) == 2 and namespace not in self.namespaces:
            return 404, {"error": "Namespace not found"}
        documents = self.namespaces.setdefault(namespace, [])
        if method == "POST" and parts[2:] == ["document"]:
            document = Document(
                f"doc_{next(self._ids)}",
                str(body["content"]),
                date=body.get("date"),
                metadata=dict(body.get("metadata") or {}),
                stalled=self.stalled,
            )
            documents.append(document)
            return 200, {"id": document.id, "status": "queued"}
        if method == "GET" and len(parts) == 4 and parts[2] == "document":
            document = next((d for d in documents if d.id == parts[3]), None)
            if document is None:
                return 404, {"error": "Document not found"}
            document.reads += 1
            return 200, {
                "id": document.id,
                "type": "text",
                "content": document.content,
                "metadata": document.metadata,
                "system": document.system(self.process_polls, self.dream_polls),
            }
        if method == "POST" and parts[2:] == ["search"]:
            return 200, {"results": self._search(documents, body), "searchTime": 1.5}
        if method == "DELETE" and len(parts) == 2:
            self.namespaces.pop(namespace, None)
            return 200, {  # "queued" is a move's answer (`moveTo`, with an `operationId`)
                "status": "deleted",
                "namespace": namespace,
                "deletedDocumentsCount": len(documents),
                "deletedMemoriesCount": len(documents),
            }
        return 404, {"error": f"no route {method} {path}"}

    def _search(self, documents: list[Document], body: dict[str, Any]) -> list[dict[str, Any]]:
        """Lines of the processed documents sharing words with the query, most shared first; a line of
        a document whose memories formed is a memory, of one only processed a chunk."""
        query = set(_WORD.findall(str(body["query"]).lower()))
        mode = body.get("searchMode") or "hybrid"
        scored = []
        for document in documents:
            system = document.system(self.process_polls, self.dream_polls)
            kind = (
                "memory"
                if system["dreamingStatus"] == "done"
                else "chunk"
                if system["status"] == "done"
                else ""
            )
            if (
                not kind
                or (mode == "memories" and kind != "memory")
                or (mode == "chunks" and kind != "chunk")
            ):
                continue
            for number, line in enumerate(document.content.splitlines()):
                shared = len(query & set(_WORD.findall(line.lower())))
                if shared:
                    scored.append(
                        (shared / max(len(query), 1), f"{document.id}-{number}", kind, line, document)
                    )
        scored.sort(key=lambda hit: -hit[0])
        limit = int(body.get("limit") or 10)
        return [
            {
                "id": hit_id,
                kind: line,
                # A memory's metadata holds its temporal context (SDK 5.0.1, types/memory.py: "Memory
                # metadata, including temporal context"); a chunk's is its document's.
                "metadata": (
                    {"temporalContext": self._temporal(document, line)}
                    if kind == "memory" and document.date
                    else document.metadata
                ),
                "similarity": round(similarity, 4),
                "isLatest": True,
                "isInference": False,
                "system": {"updatedAt": NOW, "createdAt": NOW},
            }
            for similarity, hit_id, kind, line, document in scored[:limit]
        ]

    def _temporal(self, document: Document, line: str) -> dict[str, Any]:
        """A memory's temporal context: its document's date, and its event's where it names one."""
        event = next((when for key, when in self.event_dates.items() if key in line), None)
        return {"documentDate": document.date, **({"eventDate": event} if event else {})}


@contextmanager
def supermemory_server(**options: Any) -> Iterator[SupermemoryServer]:
    """A running server on 127.0.0.1 (its `url` set), stopped on leaving."""
    state = SupermemoryServer(**options)
    with serve(state):
        yield state
