"""`memobase`: Memobase's user-profile memory through its official SDK, a Memobase user per conversation.

    memobase(url=http://localhost:8019):openai:gpt-4o-mini   a server you run (its token in MEMOBASE_API_KEY)
    memobase:openai:gpt-4o-mini                              Memobase's cloud (MEMOBASE_API_KEY)

Each conversation is a Memobase user, its id the UUID5 of the namespace (Memobase's ids are
UUIDs).  Each `add`, one session of the benchmark's history, is one `ChatBlob`, each message
carrying its simulated time as `created_at` (what Memobase's extraction prints before each message,
`[TIME] NAME: MESSAGE`), inserted and then flushed with `sync=True`: Memobase buffers a user's chats
and extracts profile and events from them when the buffer is flushed, and `sync` returns once that
is done, so the add is the run's ingest time.  Search is Memobase's `context()`: for the question
(`chats`), the user's profile filtered to it and the events most like it, packed by Memobase into
one text within `max_token_size` (the run's memory cap, `--mb-context-tokens`, unless set).  That
is no list of hits, so the store answers with a `Context`: the harness shows it as Memobase wrote
it and caps it by tokens like any hits; k does not apply.  `stored()` lists the profile's and the
events' texts.  `clear` deletes the user.  Memobase extracts with its own model, which the run does
not see.  Tested with memobase 0.0.27 against a loopback server of the endpoints its SDK calls
(tests/support/memobase_server.py), not against a Memobase server.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pytest_memorybench.agents.deadlines import sdk_timeout
from pytest_memorybench.agents.mechanisms.settings import require
from pytest_memorybench.agents.spec import MEMORY_TOKENS
from pytest_memorybench.agents.stores.dates import in_utc
from pytest_memorybench.agents.stores.hosted import api_key, refused
from pytest_memorybench.agents.stores.store_protocol import BuiltinStore, Context
from pytest_memorybench.core.records import Message

if TYPE_CHECKING:
    from pytest_memorybench.agents.spec import AgentOptions, AgentSpec

KEY_VARIABLE = "MEMOBASE_API_KEY"
CLOUD = "https://api.memobase.dev"
_EVENTS = 1_000_000  # `stored()` asks for every event (Memobase's own default is 10)
_ROLES = {"user": "user", "assistant": "assistant"}  # Memobase's chat takes no other role


@dataclass(frozen=True)
class MemobaseSettings:
    """The context's token budget (0: the run's memory cap), Memobase's minimum event similarity
    (below 0: its own default), and another server's URL."""

    max_token_size: int = 0
    event_similarity_threshold: float = -1.0
    url: str = ""

    def __post_init__(self) -> None:
        require(self.max_token_size >= 0, f"max_token_size must be 0 or more, got {self.max_token_size}")
        require(
            self.event_similarity_threshold <= 1.0,
            f"event_similarity_threshold must be at most 1, got {self.event_similarity_threshold:g}",
        )


class MemobaseStore:
    """The SDK's client behind the store protocol."""

    def __init__(self, settings: MemobaseSettings, key: str, budget: int, timeout: float | None) -> None:
        from memobase import MemoBaseClient

        self.settings = settings
        self.budget = settings.max_token_size or budget
        self.client = MemoBaseClient(api_key=key, project_url=settings.url or CLOUD)
        self.client.client.timeout = sdk_timeout(timeout)  # the SDK fixes 60 s; its httpx client takes ours

    def add(self, messages: list[Message], namespace: str) -> None:
        """One session a blob, each message dated; flushed so that Memobase extracts it now."""
        from memobase import ChatBlob

        chats = [
            {
                "role": _ROLES.get(message.role, "user"),
                "content": message.text,
                "created_at": in_utc(message.timestamp).isoformat(),
            }
            for message in messages
        ]
        user = self._call(self.client.get_or_create_user, user_id(namespace))
        self._call(user.insert, ChatBlob(messages=chats), sync=True)
        self._call(user.flush, sync=True)

    def search(self, query: str, namespace: str, k: int) -> Context:
        options: dict[str, Any] = {}
        if self.settings.event_similarity_threshold >= 0:
            options["event_similarity_threshold"] = self.settings.event_similarity_threshold
        user = self.client.get_user(user_id(namespace), no_get=True)
        text = self._call(
            user.context, max_token_size=self.budget, chats=[{"role": "user", "content": query}], **options
        )
        return Context(str(text or ""))

    def stored(self, namespace: str) -> list[str]:
        """The profile's entries and the events' texts (their tips, else their profile changes)."""
        user = self.client.get_user(user_id(namespace), no_get=True)
        profile = [entry.content for entry in self._call(user.profile, max_token_size=1_000_000)]
        events = []
        for event in self._call(user.event, topk=_EVENTS):
            data = event.event_data
            if data is not None:
                events.append(data.event_tip or "; ".join(delta.content for delta in data.profile_delta))
        return profile + [text for text in events if text]

    def clear(self, namespace: str) -> None:
        from memobase.error import ServerError

        try:
            self._call(self.client.delete_user, user_id(namespace))
        except ServerError:
            pass  # a user never made: already clear

    def close(self) -> None:
        self.client.client.close()

    @staticmethod
    def _call(method: Any, *args: Any, **kwargs: Any) -> Any:
        """A call of the SDK; a refused key as PermissionError, which the harness does not retry."""
        import httpx

        try:
            return method(*args, **kwargs)
        except httpx.HTTPStatusError as exc:
            if exc.response.status_code in (401, 403):
                raise refused("Memobase", exc.response.status_code, KEY_VARIABLE) from None
            raise


def user_id(namespace: str) -> str:
    """The Memobase user of a namespace: Memobase's ids are UUIDs, so the namespace's UUID5."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"memorybench:{namespace}"))


def _make(settings: MemobaseSettings, options: AgentOptions, model: AgentSpec) -> MemobaseStore:
    key = api_key("memobase", "Memobase", KEY_VARIABLE, "memobase")
    return MemobaseStore(settings, key, options.memory_tokens or MEMORY_TOKENS, options.timeout)


MEMOBASE = BuiltinStore(MemobaseSettings, _make)
