"""A loopback server of EverOS Cloud's v2 memory API as its client (everos-cloud 1.2.0) speaks it, for
the `everos` store's tests of what only the cloud does.

    POST /api/v2/memory/add      messages into a session's buffer (async: 202 and a task id)
    POST /api/v2/memory/flush    the session's buffer extracted into an episode of its user
    POST /api/v2/memory/search   a user's episodes most like a query
    POST /api/v2/memory/get      a page of a user's episodes
    POST /api/v2/memory/delete   a user's memories soft-deleted (the cloud only)
    GET  /api/v2/tasks/{id}      an async write's progress
    GET  /health                 none: the client has no health route (`version` set: the
                                 open-source server's `{"status", "version"}`)

The rules, each from the client's generated models and API docs (everos_cloud/models/*.py and
api/memory_api.py, tasks_api.py, 1.2.0) or, where the cloud and the open-source server share it, the
server's source (everos 1.5.1, entrypoints/api/routes/memorize.py, memory/search/dto.py,
memory/get/dto.py, entrypoints/api/exception_handlers.py):
  - a request carries `Authorization: Bearer KEY` (configuration.py `auth_settings`), else 401 in
    the error envelope `{request_id, error: {code, message}}` (models/error_envelope.py; the
    server's exception_handlers.py); an injected 5xx answers in the same envelope;
  - a body has only its model's fields (`__properties` of AddInput, MessageItem, FlushInput,
    SearchInput, GetInput, DeleteInput): the server forbids unknown ones on search and get
    (`extra="forbid"`), and this server does on every body, so a field the cloud would not read
    is never sent unnoticed; a refused body is a 422 `HTTPValidationError` (`detail`: loc, msg,
    type; models/http_validation_error.py);
  - add: `session_id` 1–128 characters (AddInput's description; memorize.py), `messages` 1 to 500,
    `app_id` / `project_id` at most 128; each message's `sender_id` 1–128 of letters, digits and
    `_.@+-` (memorize.py `_PATH_SAFE_CHARSET`), `role` user, assistant or tool, `timestamp`
    integer milliseconds of at least 10^12 ("a seconds-scale value is rejected with 422",
    message_item.py), `content` a string or a list of text items (content_item.py);
  - add with `async_mode` (its default, true) answers 202 `{request_id, data: {message_count,
    status: "queued"}}` and the messages reach the session's buffer only when its task succeeds;
    `async_mode: false` answers 200 `accumulated` (add_input.py, add_data.py);
  - a task is `{data: TaskItem, request_id}`: `queued`, then `processing` (`process_polls` reads),
    then `success` or `failed` with `error` and `error_code`, `finished_at` set once terminal
    (task_item.py); an unknown id is a 404 `TaskErrorResponse` (tasks_api.py);
  - flush extracts only what the session's buffer holds: "a still-queued async add yields
    `no_extraction`" (flush_input.py, memory_api.py `flush_memory`), answered 200 with no task;
    with messages, 200 `extracted`, one episode for each user sender in the buffer, readable
    through get after `extract_reads` more reads (distillation is asynchronous: add_input.py);
  - search and get take exactly one of `user_id` / `agent_id` (search/dto.py, get/dto.py);
    search's `method` keyword, vector, hybrid or agentic, `top_k` -1 or 1 to 100 (search_input.py);
    get's `memory_type` episode or profile for a user, `page` from 1, `page_size` 1 to 100,
    `sort_by` timestamp or updated_at, `sort_order` asc or desc (get_input.py); every result
    collection present (memory_api.py `search_memory`); an episode as `SearchEpisodeItem` /
    `EpisodeItem` (id, app_id, project_id, user_id, session_id, timestamp ISO 8601, summary,
    subject, episode, type, score);
  - delete needs one of `user_id`, `agent_id`, `session_id` (an empty body: 422), `user_id` and
    `agent_id` not both; it answers `{filters, count}` (delete_data.py), and the user's buffered
    messages go with its episodes.
What stands in for EverOS's models: an episode is its messages' lines (`sender_name: text`), dated by
its first message; its subject and summary are its first line; search ranks episodes by the words
they share with the query.  Scopes (`app_id`, `project_id`) partition everything, as on the cloud.
`failing` makes the next tasks fail.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from tests.support.loopback import LoopbackState, Request, serve

PREFIX = "/api/v2"
ADD, FLUSH, SEARCH, GET, DELETE = (
    f"{PREFIX}/memory/{verb}" for verb in ("add", "flush", "search", "get", "delete")
)
TASKS = f"{PREFIX}/tasks/"
MOST = 100  # top_k's and page_size's cap
MESSAGES_PER_ADD = 500
_WORD = re.compile(r"[a-z0-9]+")
_SAFE_ID = re.compile(r"^[a-zA-Z0-9_.@+-]{1,128}$")
_FIELDS = {
    ADD: {"app_id", "project_id", "session_id", "messages", "async_mode"},
    FLUSH: {"app_id", "project_id", "session_id"},
    SEARCH: {
        "app_id", "project_id", "user_id", "agent_id", "query", "method", "top_k", "radius", "min_score",
        "include_profile", "with_readable_episode", "enable_llm_rerank", "filters",
    },
    GET: {
        "app_id", "project_id", "user_id", "agent_id", "memory_type", "page", "page_size", "sort_by",
        "sort_order", "with_readable_episode", "filters",
    },
    DELETE: {"app_id", "project_id", "user_id", "agent_id", "session_id"},
}  # fmt: skip
_MESSAGE_FIELDS = {"sender_id", "sender_name", "role", "timestamp", "content", "tool_calls", "tool_call_id"}
_METHODS = {"keyword", "vector", "hybrid", "agentic"}


class Invalid(Exception):
    """A body its model refuses: where, and what is wrong (a 422)."""

    def __init__(self, where: str, what: str) -> None:
        super().__init__(what)
        self.where, self.what = where, what


@dataclass
class Task:
    """An async add: its scope and session, its messages, how often it was read, how it ends."""

    scope: tuple[str, str, str]
    messages: list[dict[str, Any]]
    created: str
    reads: int = 0
    failed: bool = False
    done: bool = False


@dataclass
class EverOSCloud(LoopbackState):
    key: str = "eo-test-key"
    process_polls: int = 1  # task reads before it is done
    extract_reads: int = 0  # get reads of a user before a flushed episode is readable
    failing: bool = False  # tasks from now on fail
    version: str = ""  # a /health with this version, as the open-source server has; none else
    buffers: dict[tuple[str, str, str], list[dict[str, Any]]] = field(default_factory=dict)
    episodes: list[dict[str, Any]] = field(default_factory=list)  # extracted, with "_hidden" reads left
    tasks: dict[str, Task] = field(default_factory=dict)
    deleted: list[dict[str, Any]] = field(default_factory=list)  # every delete's body
    _ids: Iterator[int] = field(default_factory=itertools.count)

    def authorised(self, request: Request) -> bool:
        return request.path == "/health" or request.headers.get("authorization") == f"Bearer {self.key}"

    def namespace(self, request: Request) -> str | None:
        body = request.body if isinstance(request.body, dict) else {}
        found = body.get("user_id") or body.get("session_id")
        return str(found) if found else None

    def adds(self, request: Request) -> bool:
        return request.path == ADD

    def error(self, title: str, message: str) -> Any:
        code = "UNAUTHORIZED" if title == "Unauthorized" else "INTERNAL_ERROR"
        return {"request_id": self._id("req"), "error": {"code": code, "message": f"{title}: {message}"}}

    def route(self, request: Request) -> tuple[int, Any]:
        if request.method == "GET" and request.path == "/health" and self.version:
            return 200, {"status": "ok", "version": self.version}
        if request.method == "GET" and request.path.startswith(TASKS):
            return self._task(request.path.removeprefix(TASKS))
        handlers = {
            ADD: self._add,
            FLUSH: self._flush,
            SEARCH: self._search,
            GET: self._get,
            DELETE: self._delete,
        }
        handler = handlers.get(request.path) if request.method == "POST" else None
        if handler is None:
            return 404, {"detail": "Not Found"}
        body = request.body if isinstance(request.body, dict) else {}
        try:
            _known(body, _FIELDS[request.path], "body")
            return handler(body)
        except Invalid as refused:
            detail = [
                {"loc": ["body", *refused.where.split(".")], "msg": refused.what, "type": "value_error"}
            ]
            return 422, {"detail": detail}

    def _add(self, body: dict[str, Any]) -> tuple[int, Any]:
        scope = _session(body)
        messages = body.get("messages")
        if not isinstance(messages, list) or not 1 <= len(messages) <= MESSAGES_PER_ADD:
            raise Invalid("messages", f"1 to {MESSAGES_PER_ADD} messages a call")
        for n, message in enumerate(messages):
            _message(message, f"messages.{n}")
        asynchronous = body.get("async_mode", True)
        if not isinstance(asynchronous, bool):
            raise Invalid("async_mode", "a boolean")
        request_id = self._id("req")
        if not asynchronous:
            self.buffers.setdefault(scope, []).extend(messages)
            return 200, {
                "request_id": request_id,
                "data": {"message_count": len(messages), "status": "accumulated"},
            }
        self.tasks[request_id] = Task(scope, messages, _now(), failed=self.failing)
        return 202, {"request_id": request_id, "data": {"message_count": len(messages), "status": "queued"}}

    def _task(self, task_id: str) -> tuple[int, Any]:
        task = self.tasks.get(task_id)
        if task is None:
            error = {"code": "not_found", "message": f"task {task_id} not found", "type": "NotFound"}
            return 404, {"error": error}
        task.reads += 1
        item: dict[str, Any] = {"id": task_id, "created_at": task.created, "task_type": "memory_add"}
        if task.reads < self.process_polls:
            item["status"] = "queued" if task.reads == 1 else "processing"
        elif task.failed:
            item |= {"status": "failed", "error": "extraction model unavailable (injected)"}
            item |= {"error_code": "EXTERNAL_SERVICE_UNAVAILABLE", "finished_at": _now()}
        else:
            if not task.done:  # its messages join the session's buffer once processed
                task.done = True
                self.buffers.setdefault(task.scope, []).extend(task.messages)
            item |= {"status": "success", "finished_at": _now()}
        return 200, {"data": item, "request_id": self._id("req")}

    def _flush(self, body: dict[str, Any]) -> tuple[int, Any]:
        scope = _session(body)
        buffered = self.buffers.pop(scope, [])
        users = sorted({str(m["sender_id"]) for m in buffered if m["role"] == "user"})
        for user in users:
            lines = [f"{m.get('sender_name') or m['sender_id']}: {_content(m)}" for m in buffered]
            when = datetime.fromtimestamp(min(int(m["timestamp"]) for m in buffered) / 1000, timezone.utc)
            self.episodes.append(
                {
                    "id": self._id("ep"),
                    "app_id": scope[0],
                    "project_id": scope[1],
                    "user_id": user,
                    "session_id": scope[2],
                    "timestamp": when.isoformat(),
                    "sender_ids": sorted({str(m["sender_id"]) for m in buffered}),
                    "summary": lines[0],
                    "subject": lines[0][:40],
                    "episode": "\n".join(lines),
                    "type": "Conversation",
                    "_hidden": self.extract_reads,
                }
            )
        status = "extracted" if users else "no_extraction"
        return 200, {"request_id": self._id("req"), "data": {"status": status}}

    def _search(self, body: dict[str, Any]) -> tuple[int, Any]:
        user = _owner(body)
        query = body.get("query")
        if not isinstance(query, str) or not query:
            raise Invalid("query", "a non-empty string")
        if body.get("method", "hybrid") not in _METHODS:
            raise Invalid("method", f"one of {sorted(_METHODS)}")
        top_k = body.get("top_k", -1)
        if not isinstance(top_k, int) or not (top_k == -1 or 1 <= top_k <= MOST):
            raise Invalid("top_k", "top_k must be -1 or in 1..100")
        _boolean(body, "with_readable_episode", "include_profile", "enable_llm_rerank")
        words = set(_WORD.findall(query.lower()))
        scored = []
        for episode in self._readable(body, user):
            shared = len(words & set(_WORD.findall(episode["episode"].lower())))
            if shared:
                scored.append({**episode, "score": shared / max(1, len(words))})
        found = sorted(scored, key=lambda episode: -episode["score"])[: top_k if top_k > 0 else 10]
        data = {
            "episodes": found,
            "profiles": [],
            "agent_cases": [],
            "agent_skills": [],
            "unprocessed_messages": [],
        }
        return 200, {"request_id": self._id("req"), "data": data}

    def _get(self, body: dict[str, Any]) -> tuple[int, Any]:
        user = _owner(body)
        if body.get("memory_type") not in ("episode", "profile"):
            raise Invalid("memory_type", "a user owns episode and profile")
        page, size = body.get("page", 1), body.get("page_size", 20)
        if not isinstance(page, int) or page < 1 or not isinstance(size, int) or not 1 <= size <= MOST:
            raise Invalid("page_size", "page from 1, page_size 1 to 100")
        if body.get("sort_by", "timestamp") not in ("timestamp", "updated_at"):
            raise Invalid("sort_by", "timestamp or updated_at")
        if body.get("sort_order", "desc") not in ("asc", "desc"):
            raise Invalid("sort_order", "asc or desc")
        _boolean(body, "with_readable_episode")
        every = self._readable(body, user, read=True) if body["memory_type"] == "episode" else []
        every = sorted(every, key=lambda e: e["timestamp"], reverse=body.get("sort_order", "desc") == "desc")
        shown = every[(page - 1) * size : page * size]
        data = {"episodes": shown, "profiles": [], "agent_cases": [], "agent_skills": []}
        return 200, {
            "request_id": self._id("req"),
            "data": data | {"total_count": len(every), "count": len(shown)},
        }

    def _delete(self, body: dict[str, Any]) -> tuple[int, Any]:
        app, project = _scope(body)
        filters = [name for name in ("user_id", "agent_id", "session_id") if body.get(name)]
        if not filters:
            raise Invalid("user_id", "at least one of user_id, agent_id or session_id is required")
        if "user_id" in filters and "agent_id" in filters:
            raise Invalid("agent_id", "user_id and agent_id are mutually exclusive")
        self.deleted.append(body)

        def matches(episode: dict[str, Any]) -> bool:
            return (episode["app_id"], episode["project_id"]) == (app, project) and all(
                episode.get(name) == body[name] for name in filters if name != "agent_id"
            )

        kept = [episode for episode in self.episodes if not matches(episode)]
        count = len(self.episodes) - len(kept)
        self.episodes = kept
        for scope, buffered in list(self.buffers.items()):
            if scope[:2] == (app, project):
                self.buffers[scope] = [m for m in buffered if m["sender_id"] != body.get("user_id")]
        return 200, {"request_id": self._id("req"), "data": {"filters": filters, "count": count}}

    def _readable(self, body: dict[str, Any], user: str, read: bool = False) -> list[dict[str, Any]]:
        """The user's extracted episodes in the body's scope; a get read brings hidden ones nearer."""
        scope = _scope(body)
        mine = [e for e in self.episodes if (e["app_id"], e["project_id"]) == scope and e["user_id"] == user]
        if read:
            for episode in mine:
                episode["_hidden"] = max(0, episode["_hidden"] - 1)
        return [{k: v for k, v in e.items() if k != "_hidden"} for e in mine if not e["_hidden"]]

    def _id(self, kind: str) -> str:
        return f"{kind}-{next(self._ids):08d}"


def _known(body: dict[str, Any], fields: set[str], where: str) -> None:
    unknown = sorted(set(body) - fields)
    if unknown:
        raise Invalid(f"{where}.{unknown[0]}", "Extra inputs are not permitted")


def _scope(body: dict[str, Any]) -> tuple[str, str]:
    app, project = body.get("app_id", "default"), body.get("project_id", "default")
    for name, value in (("app_id", app), ("project_id", project)):
        if not isinstance(value, str) or not 1 <= len(value) <= 128:
            raise Invalid(name, "a string of 1 to 128 characters")
    return app, project


def _session(body: dict[str, Any]) -> tuple[str, str, str]:
    session = body.get("session_id")
    if not isinstance(session, str) or not 1 <= len(session) <= 128:
        raise Invalid("session_id", "session_id: 1 to 128 characters")
    return (*_scope(body), session)


def _owner(body: dict[str, Any]) -> str:
    _scope(body)
    owners = [body.get(name) for name in ("user_id", "agent_id") if body.get(name) is not None]
    if len(owners) != 1:
        raise Invalid("user_id", "exactly one of user_id / agent_id must be provided")
    if body.get("agent_id") is not None:
        raise Invalid("agent_id", "this server keeps users' memories only")
    if not isinstance(owners[0], str) or not 1 <= len(owners[0]) <= 256:
        raise Invalid("user_id", "a string of 1 to 256 characters")
    return owners[0]


def _message(message: Any, where: str) -> None:
    if not isinstance(message, dict):
        raise Invalid(where, "a message object")
    _known(message, _MESSAGE_FIELDS, where)
    if not isinstance(message.get("sender_id"), str) or not _SAFE_ID.match(message["sender_id"]):
        raise Invalid(f"{where}.sender_id", "1 to 128 of letters, digits, _ . @ + -")
    if message.get("role") not in ("user", "assistant", "tool"):
        raise Invalid(f"{where}.role", "user, assistant or tool")
    if message["role"] == "tool" and not message.get("tool_call_id"):
        raise Invalid(f"{where}.tool_call_id", "tool_call_id is required when role is 'tool'")
    stamp = message.get("timestamp")
    if not isinstance(stamp, int) or isinstance(stamp, bool) or stamp < 10**12:
        raise Invalid(f"{where}.timestamp", "a UNIX timestamp in milliseconds")
    if message.get("sender_name") is not None and not isinstance(message["sender_name"], str):
        raise Invalid(f"{where}.sender_name", "a string")
    content = message.get("content")
    items = content if isinstance(content, list) else [{"type": "text", "text": content}]
    if not items or any(
        not isinstance(i, dict) or i.get("type") != "text" or not isinstance(i.get("text"), str)
        for i in items
    ):
        raise Invalid(f"{where}.content", "a string or a list of text items")


def _content(message: dict[str, Any]) -> str:
    content = message["content"]
    return content if isinstance(content, str) else " ".join(item["text"] for item in content)


def _boolean(body: dict[str, Any], *names: str) -> None:
    for name in names:
        if body.get(name) is not None and not isinstance(body[name], bool):
            raise Invalid(name, "a boolean")


def _now() -> str:
    return datetime.now(timezone.utc).isoformat()


@contextmanager
def everos_cloud(**options: Any) -> Iterator[EverOSCloud]:
    """A running server on 127.0.0.1 (its `url` set), stopped on leaving."""
    state = EverOSCloud(**options)
    with serve(state):
        yield state
