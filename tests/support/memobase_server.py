"""A loopback server of the Memobase endpoints its SDK (memobase 0.0.27) calls, for the `memobase` tests.

    GET    /api/v1/healthcheck                      no key needed
    POST   /api/v1/users                            {"data", "id"}: a user with that id
    GET    /api/v1/users/{id}                       the user, or errno 404
    DELETE /api/v1/users/{id}                       the user and all it holds, or errno 404
    POST   /api/v1/blobs/insert/{id}?wait_process=  a chat blob into the user's buffer
    POST   /api/v1/users/buffer/{id}/chat?wait_process=   the buffer processed: its memories formed
    GET    /api/v1/users/context/{id}?max_token_size=&chats_str=&event_similarity_threshold=
    GET    /api/v1/users/profile/{id}?max_token_size=
    GET    /api/v1/users/event/{id}?topk=

The rules, each from Memobase's server (memodb-io/memobase, src/server/api/memobase_server):
  - every /api path but the health check needs `Authorization: Bearer KEY`, else HTTP 401 with
    errno 401 (api_layer/middleware.py, AuthMiddleware);
  - a user id in a path is a UUID, else HTTP 422 (api_layer/user.py: `user_id: uuid.UUID = Path`);
  - an error of the application (no such user) is HTTP 200 with `errno` set, which the SDK raises as
    ServerError (api_layer/user.py: `p.to_response`; SDK network.py `unpack_response`);
  - a chat message's role is `user` or `assistant` (models/blob.py, OpenAICompatibleMessage);
  - what is inserted waits in the user's buffer and forms memories only when the buffer is
    processed (controllers/buffer.py): a context read before the flush finds none of it;
  - the context is `en_context_prompt`'s text, its profile section `- topic::sub_topic: content`
    lines and its events section each event's tags then its tip (prompts/chat_context_pack.py,
    controllers/context.py, utils.py `event_str_repr`), events cut to the token budget left after
    the profile (controllers/context.py).
What stands in for Memobase's model: processing makes each message an event whose tip is the
message as Memobase's own prompts print it, `[TIME] NAME: MESSAGE` with the message's `created_at`
(prompts/extract_profile.py), and no profile; the events of a context are those sharing words with
the question's chat, most shared first (Memobase: embedding similarity, top 20), and tokens are
counted as words.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from tests.support.loopback import LoopbackState, Request, serve

NOW = "2026-11-27T09:00:00Z"
PREFIX = "/api/v1"
_WORD = re.compile(r"[a-z0-9]+")
_TOP_EVENTS = 20  # controllers/context.py: search_user_events(..., topk=20)


def _ok(data: Any) -> tuple[int, Any]:
    return 200, {"data": data, "errno": 0, "errmsg": ""}


def _refused(errno: int, message: str) -> tuple[int, Any]:
    return 200, {"data": None, "errno": errno, "errmsg": message}


@dataclass
class MemobaseUser:
    buffer: list[dict[str, Any]] = field(default_factory=list)  # messages inserted, not yet processed
    events: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class MemobaseServer(LoopbackState):
    key: str = "secret"
    users: dict[str, MemobaseUser] = field(default_factory=dict)

    @property
    def base_url(self) -> str:
        return self.url + "/"  # the SDK appends "api/v1"

    def authorised(self, request: Request) -> bool:
        return request.path == f"{PREFIX}/healthcheck" or request.headers.get("authorization") == (
            f"Bearer {self.key}"
        )

    def error(self, title: str, message: str) -> Any:
        return {"data": None, "errno": 401 if title == "Unauthorized" else 500, "errmsg": message}

    def namespace(self, request: Request) -> str | None:
        """The Memobase user a request touches (the UUID5 of the harness's namespace)."""
        parts = request.path.removeprefix(PREFIX).strip("/").split("/")
        return next((part for part in parts if _is_uuid(part)), None)

    def adds(self, request: Request) -> bool:
        return request.method == "POST" and request.path.startswith(f"{PREFIX}/blobs/insert/")

    def route(self, request: Request) -> tuple[int, Any]:
        parts = request.path.removeprefix(PREFIX).strip("/").split("/")
        if parts == ["healthcheck"]:
            return _ok(None)
        method = request.method
        if method == "POST" and parts == ["users"]:
            made = str(request.body.get("id") or uuid.uuid4())
            if not _is_uuid(made):
                return 422, {"detail": [{"loc": ["body", "id"], "msg": "Input should be a valid UUID"}]}
            self.users.setdefault(made, MemobaseUser())
            return _ok({"id": made})
        user_id = parts[1] if parts[0] == "users" and len(parts) == 2 else parts[2] if len(parts) > 2 else ""
        if not _is_uuid(user_id):
            return 422, {"detail": [{"loc": ["path", "user_id"], "msg": "Input should be a valid UUID"}]}
        user = self.users.get(user_id)
        if user is None:
            return _refused(404, f"User {user_id} not found")
        if parts[:1] == ["users"] and len(parts) == 2:
            if method == "GET":
                return _ok({"data": None, "id": user_id, "created_at": NOW, "updated_at": NOW})
            if method == "DELETE":
                del self.users[user_id]
                return _ok(None)
        if method == "POST" and parts[:2] == ["blobs", "insert"]:
            return self._insert(user, request.body)
        if method == "POST" and parts[:2] == ["users", "buffer"] and parts[3:] == ["chat"]:
            self._process(user)
            return _ok(None)
        if method == "GET" and parts[:2] == ["users", "context"]:
            return _ok({"context": self._context(user, request.query)})
        if method == "GET" and parts[:2] == ["users", "profile"]:
            return _ok({"profiles": []})
        if method == "GET" and parts[:2] == ["users", "event"]:
            return _ok({"events": user.events[: int(request.query.get("topk", 10))]})
        return 404, {"detail": "Not Found"}

    def _insert(self, user: MemobaseUser, body: dict[str, Any]) -> tuple[int, Any]:
        if body.get("blob_type") != "chat":
            return 422, {"detail": "only chat blobs here"}
        messages = body["blob_data"]["messages"]
        for message in messages:
            if message.get("role") not in ("user", "assistant") or not isinstance(
                message.get("content"), str
            ):
                return 422, {"detail": [{"loc": ["body", "messages"], "msg": "role user or assistant"}]}
        user.buffer.extend(messages)
        return _ok({"id": str(uuid.uuid4())})

    def _process(self, user: MemobaseUser) -> None:
        """The buffer's messages as events (a stand-in for Memobase's extraction, see above)."""
        for message in user.buffer:
            when = datetime.fromisoformat(message["created_at"]) if message.get("created_at") else None
            stamp = f"[{when:%Y/%m/%d %H:%M}] " if when else ""
            name = message.get("alias") or message["role"]
            user.events.append(
                {
                    "id": str(uuid.uuid4()),
                    "event_data": {
                        "profile_delta": [],
                        "event_tip": f"{stamp}{name}: {message['content']}",
                        "event_tags": None,
                    },
                    "created_at": NOW,
                    "updated_at": NOW,
                }
            )
        user.buffer.clear()

    def _context(self, user: MemobaseUser, query: dict[str, str]) -> str:
        budget = int(query.get("max_token_size", 1000))
        chats = json.loads(query.get("chats_str", "[]"))
        asked = set(_WORD.findall(" ".join(chat["content"] for chat in chats[-3:]).lower()))
        ranked = sorted(
            (
                (len(asked & set(_WORD.findall(tip.lower()))), number, tip)
                for number, event in enumerate(user.events)
                if (tip := event["event_data"]["event_tip"])
            ),
            key=lambda found: (-found[0], -found[1]),
        )
        events, used = [], 0
        for shared, _, tip in ranked[:_TOP_EVENTS]:
            cost = len(f"\n{tip}".split())
            if not shared or used + cost > budget:
                break
            events.append(f"\n{tip}")
            used += cost
        profile = "- "  # controllers/context.py: "- " + "\n- ".join(no profiles)
        return (
            "---\n# Memory\nUnless the user has relevant queries, do not actively mention those memories in"
            f" the conversation.\n## User Current Profile:\n{profile}\n\n## Past Events:\n"
            + "\n".join(events)
            + "\n---\n"
        )


def _is_uuid(text: str) -> bool:
    try:
        uuid.UUID(text)
    except ValueError:
        return False
    return True


@contextmanager
def memobase_server(**options: Any) -> Iterator[MemobaseServer]:
    """A running server on 127.0.0.1 (its `url` set), stopped on leaving."""
    state = MemobaseServer(**options)
    with serve(state):
        yield state
