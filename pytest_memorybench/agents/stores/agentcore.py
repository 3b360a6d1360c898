"""`agentcore`: AWS Bedrock AgentCore Memory through its official SDK, an actor per conversation.

    agentcore(memory_id=MEMORY_ID):openai:gpt-4o-mini                 a memory you made, with a strategy
    agentcore(memory_id=…,namespace_path=/facts/{actorId}/):openai:…  where your strategy writes
    agentcore(profile=vendor,memory_id=…):openai:…                    as Redis's harness runs it

AgentCore keeps a memory resource you provision (with one or more strategies, semantic, summary,
user preference, episodic) and, in it, events per actor and session.  Each conversation is an
actor named after the namespace; each session of the benchmark's history is an AgentCore session.
By default each message is one event (`create_event`) at the message's simulated time, its role
USER or ASSISTANT; `event=session` makes a session one event at the session's time, opened by a
"Conversation date:" line (as Redis's harness sends it).  A retried add is not doubled: each event
carries a client token made from what it holds, which AgentCore takes once.  The strategies extract
long-term records from the events in the background, and no call says when they are done: `wait`
lists the actor's records every `poll` seconds until some exist and they stop changing for
`settle` seconds (Redis's harness waits so, on the count), bounded by `--mb-timeout`; an extraction
job AgentCore reports FAILED for the actor is an ERROR.  Search is `retrieve_memory_records` (top
k, at most 100, AgentCore's cap) under each namespace the actor's records are written to: by
default read from the memory's strategies (their namespace templates, `{actorId}` and
`{memoryStrategyId}` filled in, cut before `{sessionId}`), else `namespace_path`.  Each record is a
hit dated by the time of the source it came from (its `timestamp`), with its score.  `stored()`
lists the records; `clear` deletes the actor's events and records.  Credentials and region come
from the environment as boto3 reads them (AWS_PROFILE, AWS_ACCESS_KEY_ID, AWS_REGION, …; the
endpoint too: AWS_ENDPOINT_URL_BEDROCK_AGENTCORE).  AgentCore extracts with its own models, which
the run does not see.  Tested with bedrock-agentcore 1.25.0 (botocore 1.44.8, API 2024-02-28)
against a loopback endpoint that checks each request against botocore's service model
(tests/support/agentcore_server.py), not against AWS.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pytest_memorybench.agents.mechanisms.settings import one_of, positive, require
from pytest_memorybench.agents.stores.dates import in_utc, parsed_time
from pytest_memorybench.agents.stores.hosted import refused, require_package
from pytest_memorybench.agents.stores.store_protocol import BuiltinStore, Hit
from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.core.records import Message

if TYPE_CHECKING:
    from pytest_memorybench.agents.spec import AgentOptions, AgentSpec

CREDENTIALS = "AWS credentials (AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)"
MOST_HITS = 100  # the service's topK and maxResults cap (botocore's model)
MOST_QUERY = 10_000  # searchQuery's longest (the model)
MOST_TEXT = 100_000  # a message's longest (the model)
EVENT_MESSAGES = 99  # a payload holds 100 messages (the model): the date line and 99
LIST_ALL = 1_000_000
_ID = re.compile(r"[^a-zA-Z0-9_-]")  # what an actor or session id may not hold (the model's pattern)
_REFUSED = {
    "UnrecognizedClientException",
    "InvalidSignatureException",
    "AccessDeniedException",
    "ExpiredTokenException",
    "InvalidClientTokenId",
}
_ROLES = {"user": "USER", "assistant": "ASSISTANT"}


@dataclass(frozen=True)
class AgentCoreSettings:
    """The memory resource (its id), where its strategies write an actor's records (empty: read
    from the memory's strategies), what one event holds (`message` or `session`), the region
    (empty: boto3's), how often `wait` lists the records and how long they must stay unchanged."""

    memory_id: str = ""
    namespace_path: str = ""
    event: str = "message"
    region: str = ""
    poll: float = 5.0
    settle: float = 30.0

    def __post_init__(self) -> None:
        one_of("event", self.event, ("message", "session"))
        positive(poll=self.poll, settle=self.settle)
        require(
            not self.namespace_path or "{actorId}" in self.namespace_path,
            "namespace_path must hold {actorId} (each conversation is an actor),"
            f" got {self.namespace_path!r}",
        )


class AgentCoreStore:
    """The SDK's session manager (data plane) and memory client (the memory's strategies, its
    extraction jobs) behind the store protocol."""

    def __init__(self, settings: AgentCoreSettings) -> None:
        from bedrock_agentcore.memory import MemoryClient, MemorySessionManager
        from botocore.config import Config

        self.settings = settings
        region = settings.region or None
        # One attempt a call: the harness retries, with its own back-off, and counts the tries.
        self.manager = MemorySessionManager(
            settings.memory_id,
            region_name=region,
            boto_client_config=Config(retries={"total_max_attempts": 1}),
        )
        self.client = MemoryClient(region_name=self.manager.region_name)
        self.messages_per_add = 1 if settings.event == "message" else EVENT_MESSAGES
        self.server_version = f"bedrock-agentcore API {_api_version()}"
        self._paths: list[str] | None = None
        self._added: set[str] = set()
        self._lock = threading.Lock()

    def add(self, messages: list[Message], namespace: str) -> None:
        first = messages[0]
        # A message's text is 1 to 100,000 characters (the model): an empty one is no turn.
        turns = [(m.text[:MOST_TEXT], _ROLES.get(m.role, "USER")) for m in messages if m.text.strip()]
        if not turns:
            return
        if self.settings.event == "session":
            turns.insert(0, (f"Conversation date: {first.timestamp:%Y-%m-%d %H:%M}", "USER"))
        payload = [{"conversational": {"content": {"text": text}, "role": role}} for text, role in turns]
        unit = first.session if first.session is not None else f"{first.timestamp:%Y%m%d}"
        said = (namespace, unit, first.id, f"{first.timestamp:%Y-%m-%dT%H:%M:%S.%f}", turns)
        token = hashlib.sha256(repr(said).encode()).hexdigest()
        self._call(
            self.manager.create_event,
            memory_id=self.settings.memory_id,
            actor_id=actor(namespace),
            session_id=_identifier(f"session-{unit}"),
            event_timestamp=in_utc(first.timestamp),
            payload=payload,
            client_token=token,
        )
        with self._lock:
            self._added.add(namespace)

    async def wait(self, namespace: str) -> None:
        """Until the actor's records exist and stop changing for `settle` seconds; a failed
        extraction job for the actor is an error.  Async, so the harness's timeout ends it."""
        with self._lock:
            if namespace not in self._added:
                return
        last, since = None, time.monotonic()
        while True:
            await asyncio.to_thread(self._failed_extraction, namespace)
            records = await asyncio.to_thread(self._records, namespace)
            seen = sorted((record["memoryRecordId"], _text(record)) for record in records)
            if seen != last:
                last, since = seen, time.monotonic()
            elif seen and time.monotonic() - since >= self.settings.settle:
                with self._lock:
                    self._added.discard(namespace)
                return
            await asyncio.sleep(self.settings.poll)

    def search(self, query: str, namespace: str, k: int) -> list[Hit]:
        hits: list[Hit] = []
        for path in self._namespace_paths(namespace):
            found = self._call(
                self.manager.search_long_term_memories,
                query[:MOST_QUERY],
                namespace_path=path,
                top_k=max(1, min(k, MOST_HITS)),
                max_results=max(1, min(k, MOST_HITS)),
            )
            hits += [
                Hit(_text(record), record.get("score"), parsed_time(record.get("timestamp")))
                for record in found
            ]
        # Several strategies' namespaces: their records by score, the best k (AgentCore scores them alike).
        return sorted(hits, key=lambda hit: -(hit.score or 0.0))[: max(1, k)]

    def stored(self, namespace: str) -> list[str]:
        return [_text(record) for record in self._records(namespace)]

    def clear(self, namespace: str) -> None:
        """The actor's events, session by session, and its records."""
        who = actor(namespace)
        try:
            sessions = self._call(self.manager.list_actor_sessions, who)
        except MissingMemory:
            return  # the memory is the user's to make; an add says so, a clear has nothing to do
        for session in sessions:
            events = self._call(
                self.manager.list_events,
                who,
                session["sessionId"],
                max_results=LIST_ALL,
                include_payload=False,
            )
            for event in events:
                self._call(self.manager.delete_event, who, session["sessionId"], event["eventId"])
        ids = [{"memoryRecordId": record["memoryRecordId"]} for record in self._records(namespace)]
        for start in range(0, len(ids), MOST_HITS):
            self._call(
                self.manager.batch_delete_memory_records,
                memory_id=self.settings.memory_id,
                records=ids[start : start + MOST_HITS],
            )
        with self._lock:
            self._added.discard(namespace)

    def _records(self, namespace: str) -> list[Any]:
        records: dict[str, Any] = {}
        for path in self._namespace_paths(namespace):
            for record in self._call(
                self.manager.list_long_term_memory_records, namespace_path=path, max_results=LIST_ALL
            ):
                records[record["memoryRecordId"]] = record
        return list(records.values())

    def _namespace_paths(self, namespace: str) -> list[str]:
        """Where the actor's records are: `namespace_path`, else each strategy's namespace template
        with the strategy and the actor filled in, cut before any other variable (`{sessionId}`)."""
        who = actor(namespace)
        if self.settings.namespace_path:
            return [self.settings.namespace_path.replace("{actorId}", who)]
        if self._paths is None:
            self._paths = self._strategy_paths()
        return [path.replace("{actorId}", who) for path in self._paths]

    def _strategy_paths(self) -> list[str]:
        strategies = self._call(self.client.get_memory_strategies, self.settings.memory_id)
        if not strategies:
            raise usage_error(
                f"--agent agentcore:…: memory {self.settings.memory_id} has no strategy, so AgentCore keeps"
                " no long-term records; add one (semantic, summary, …) or use another memory"
            )
        paths = []
        for strategy in strategies:
            for template in strategy.get("namespaceTemplates") or strategy.get("namespaces") or []:
                if "{actorId}" not in template:
                    raise usage_error(
                        f"--agent agentcore:…: strategy {strategy['strategyId']} writes to {template!r},"
                        " which names no {actorId}, so conversations would share records; give"
                        " namespace_path="
                    )
                path = template.replace("{memoryStrategyId}", strategy["strategyId"])
                paths.append(path.split("{sessionId}")[0])
        return sorted(set(paths))

    def _failed_extraction(self, namespace: str) -> None:
        answer = self._call(
            self.client.list_memory_extraction_jobs,
            memory_id=self.settings.memory_id,
            filter={"actorId": actor(namespace), "status": "FAILED"},
        )
        for job in answer.get("jobs", []):
            raise RuntimeError(
                f"AgentCore could not extract the records of actor {actor(namespace)}"
                f" (job {job.get('jobID')}: {job.get('failureReason') or 'failed'})"
            )

    def _call(self, method: Any, *args: Any, **kwargs: Any) -> Any:
        """A call of the SDK; refused credentials, and a memory the service does not have, as
        PermissionError, which the harness does not retry."""
        from botocore.exceptions import ClientError, NoCredentialsError

        try:
            return method(*args, **kwargs)
        except NoCredentialsError:
            raise PermissionError(f"AWS Bedrock AgentCore: no credentials found; set {CREDENTIALS}") from None
        except ClientError as exc:
            error = exc.response.get("Error", {})
            if error.get("Code") in _REFUSED:
                status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", error.get("Code"))
                raise refused("AWS Bedrock AgentCore", status, CREDENTIALS) from None
            if error.get("Code") == "ResourceNotFoundException" and "emory" in str(error.get("Message")):
                raise MissingMemory(
                    f"AWS Bedrock AgentCore has no memory {self.settings.memory_id} in"
                    f" {self.manager.region_name} ({error.get('Message')}): give memory_id= of a memory"
                    " you made there, with a strategy"
                ) from None
            raise


class MissingMemory(PermissionError):
    """The memory `memory_id` names is not in the region: the user's to make, never retried."""


def actor(namespace: str) -> str:
    """The AgentCore actor of a namespace (its id as the service's pattern allows)."""
    return _identifier(namespace)


def _identifier(text: str) -> str:
    return _ID.sub("-", text)[:100] or "x"


def _api_version() -> str:
    """The service API's version botocore's model describes (AgentCore reports none of its own)."""
    import botocore.session

    return str(botocore.session.get_session().get_service_model("bedrock-agentcore").api_version)


def _text(record: Any) -> str:
    return str((record.get("content") or {}).get("text") or "")


def _make(settings: AgentCoreSettings, options: AgentOptions, model: AgentSpec) -> AgentCoreStore:
    require_package("agentcore", "bedrock_agentcore")
    if not settings.memory_id:
        raise usage_error(
            "--agent agentcore:…: give memory_id=… of an AgentCore memory with a strategy"
            " (agentcore(memory_id=MEMORY_ID):MODEL_SPEC); docs/stores.md says how to make one"
        )
    import boto3

    if boto3.Session().get_credentials() is None:
        raise usage_error(f"--agent agentcore:…: set {CREDENTIALS} as boto3 reads them (the store is hosted)")
    return AgentCoreStore(settings)


AGENTCORE = BuiltinStore(AgentCoreSettings, _make)
