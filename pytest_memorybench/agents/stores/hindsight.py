"""`hindsight`: Vectorize's Hindsight memory through its official client, a memory bank per conversation.

    hindsight(url=http://localhost:8888):openai:gpt-4o-mini     a Hindsight server you run
    hindsight(url=https://api.hindsight.vectorize.io):openai:…  its cloud (key from HINDSIGHT_API_KEY)
    hindsight(profile=vendor,url=…):openai:…                    as Vectorize's own harness (AMB) runs it

Each conversation is a Hindsight bank named after the namespace, made on its first add.  Each
`add`, one session of the benchmark's history, is one item of `aretain_batch`: the session's lines
(each with one speaker label, `Message.labelled`) as its content, the session's time as its
`timestamp` (what Hindsight dates the facts it extracts by, their `mentioned_at`), and a
`document_id` made from the namespace and the
session's first message, so a retried add replaces rather than repeats.  The retain runs
asynchronously (`retain_async`, as AMB retains) and answers with an operation id; `wait` polls each
operation until Hindsight says `completed` (`failed` is an ERROR), for as long as ingestion takes,
bounded only by `--mb-timeout` (AMB's first BEAM-10M result was an empty bank because its poll gave
up early).  Search is Hindsight's `recall` of the bank, within `max_tokens` (the run's memory cap
unless set) at its `budget`, as of the question's date (`query_timestamp`); each fact is a hit dated
by when it was said (`mentioned_at`), with when it happened (`occurred_start` … `occurred_end`)
added to its text where that is another day.  `stored()` lists the bank's memories; `clear`
deletes the bank.  The server's version (`/version`) is recorded with the run.  Hindsight extracts
facts with its own model, which the run does not see.
Tested with hindsight-client 1.1.0 against a loopback server of the endpoints it calls
(tests/support/hindsight_server.py), not against Hindsight itself.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pytest_memorybench.agents.deadlines import sdk_timeout
from pytest_memorybench.agents.mechanisms.settings import one_of, positive, require
from pytest_memorybench.agents.spec import MEMORY_TOKENS
from pytest_memorybench.agents.stores.dates import iso_utc, parsed_time
from pytest_memorybench.agents.stores.hosted import Unprocessed, refused, require_package
from pytest_memorybench.agents.stores.store_protocol import BuiltinStore, Hit
from pytest_memorybench.core.records import Message

if TYPE_CHECKING:
    from pytest_memorybench.agents.spec import AgentOptions, AgentSpec

KEY_VARIABLE = "HINDSIGHT_API_KEY"
LOCAL = "http://localhost:8888"
LIST_ALL = 1000  # the listing's page size
_DONE, _FAILED = "completed", "failed"
VENDOR_CHUNK_TOKENS = 16_384  # AMB's max_chunk_tokens for LoCoMo and LongMemEval


@dataclass(frozen=True)
class HindsightSettings:
    """Recall's `budget` and `max_tokens` (0: the run's memory cap), whether the bank consolidates
    observations (`observations`: empty for Hindsight's default), whether recall adds the facts'
    source chunks (`chunks`), the server's URL, and how often `wait` asks after an operation."""

    budget: str = "mid"
    max_tokens: int = 0
    observations: str = ""
    chunks: bool = False
    url: str = LOCAL
    poll: float = 0.5

    def __post_init__(self) -> None:
        one_of("budget", self.budget, ("low", "mid", "high"))
        one_of("observations", self.observations, ("", "true", "false"))
        require(self.max_tokens >= 0, f"max_tokens must be 0 or more, got {self.max_tokens}")
        positive(poll=self.poll)


class HindsightStore:
    """The client behind the store protocol, the banks it made and the operations `wait` has to see."""

    def __init__(
        self, settings: HindsightSettings, key: str | None, budget: int, timeout: float | None
    ) -> None:
        self.settings = settings
        self.timeout = sdk_timeout(timeout)
        self.key = key
        self.budget = settings.max_tokens or budget
        self.unprocessed = Unprocessed(settings.poll)
        self._banks: set[str] = set()
        self._client: Any = None
        self.server_version: str | None = None

    async def add(self, messages: list[Message], namespace: str) -> None:
        client = self._hindsight()
        if self.server_version is None:  # recorded with the run, as the service says it
            version = await self._call(client.aget_version)
            self.server_version = f"hindsight-api {version.api_version}"
        if namespace not in self._banks:
            options: dict[str, Any] = {}
            if self.settings.observations:
                options["enable_observations"] = self.settings.observations == "true"
            await self._call(client.acreate_bank, namespace, name=namespace, **options)
            self._banks.add(namespace)
        item = {
            "content": "\n".join(message.labelled() for message in messages),
            "timestamp": iso_utc(messages[0].timestamp),
            "context": "a conversation",
            "document_id": f"{namespace}-{messages[0].session or ''}-{messages[0].id or 0}",
        }
        answer = await self._call(client.aretain_batch, bank_id=namespace, items=[item], retain_async=True)
        if answer.var_async:
            if not answer.operation_id:
                raise RuntimeError(f"Hindsight retained bank {namespace} asynchronously with no operation id")
            self.unprocessed.add(namespace, answer.operation_id)

    async def wait(self, namespace: str) -> None:
        operations = self._hindsight().operations

        async def done(operation: str) -> bool:
            status = await self._call(
                operations.get_operation_status, bank_id=namespace, operation_id=operation
            )
            if status.status == _FAILED:
                raise RuntimeError(
                    f"Hindsight could not retain into bank {namespace} (operation {operation}:"
                    f" {status.error_message or 'failed'})"
                )
            return bool(status.status == _DONE)

        await self.unprocessed.await_each(namespace, done)

    async def search(self, query: str, namespace: str, k: int, asked_at: datetime | None = None) -> list[Hit]:
        if namespace not in self._banks:
            return []
        options: dict[str, Any] = {}
        if asked_at is not None:
            options["query_timestamp"] = asked_at.strftime("%Y-%m-%dT%H:%M:%S")
        if self.settings.chunks:
            options |= {"include_chunks": True, "max_chunk_tokens": VENDOR_CHUNK_TOKENS}
        found = await self._call(
            self._hindsight().arecall,
            bank_id=namespace,
            query=query,
            budget=self.settings.budget,
            max_tokens=self.budget,
            **options,
        )
        chunks, shown = found.chunks or {}, set()
        hits = []
        for result in found.results:
            hit = _hit(result)
            chunk = chunks.get(result.chunk_id) if result.chunk_id not in shown else None
            if chunk is not None and chunk.text:  # its source chunk, the first time one is shown (as AMB)
                shown.add(result.chunk_id)
                hit = Hit(f"{hit.text}\n> {chunk.text}", hit.score, hit.timestamp)
            hits.append(hit)
        return hits

    async def stored(self, namespace: str) -> list[str]:
        if namespace not in self._banks:
            return []
        texts: list[str] = []
        while True:
            page = await self._call(
                self._hindsight().alist_memories, bank_id=namespace, limit=LIST_ALL, offset=len(texts)
            )
            texts += [item.text or "" for item in page.items]
            if not page.items or len(texts) >= page.total:
                return texts

    async def clear(self, namespace: str) -> None:
        from hindsight_client_api.exceptions import NotFoundException

        self.unprocessed.forget(namespace)
        try:
            await self._call(self._hindsight().adelete_bank, namespace)
        except NotFoundException:
            pass  # a bank never made: already clear
        self._banks.discard(namespace)

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()

    def _hindsight(self) -> Any:
        if self._client is None:
            from hindsight_client import Hindsight

            self._client = Hindsight(
                base_url=self.settings.url, api_key=self.key, max_attempts=1, timeout=self.timeout
            )
        return self._client

    @staticmethod
    async def _call(method: Any, *args: Any, **kwargs: Any) -> Any:
        """A call of the client; a refused key as PermissionError, which the harness does not retry."""
        import aiohttp
        from hindsight_client_api.exceptions import ForbiddenException, UnauthorizedException

        try:
            return await method(*args, **kwargs)
        except (UnauthorizedException, ForbiddenException) as exc:
            raise refused("Hindsight", exc.status, KEY_VARIABLE) from None
        except aiohttp.ClientResponseError as exc:  # the bank's creation, which the client makes itself
            if exc.status in (401, 403):
                raise refused("Hindsight", exc.status, KEY_VARIABLE) from None
            raise


def _hit(result: Any) -> Hit:
    """A recalled fact, dated by when it was said; when it happened, where that is another day."""
    said = parsed_time(result.mentioned_at)
    start, end = parsed_time(result.occurred_start), parsed_time(result.occurred_end)
    text = result.text
    if start is not None and (
        said is None or start.date() != said.date() or (end and end.date() != said.date())
    ):
        span = f"{start:%Y-%m-%d}" + (f" to {end:%Y-%m-%d}" if end and end.date() != start.date() else "")
        text = f"{text} (happened {span})"
    return Hit(text, None, said)


def _make(settings: HindsightSettings, options: AgentOptions, model: AgentSpec) -> HindsightStore:
    require_package("hindsight", "hindsight_client")
    return HindsightStore(
        settings,
        os.environ.get(KEY_VARIABLE) or None,
        options.memory_tokens or MEMORY_TOKENS,
        options.timeout,
    )


HINDSIGHT = BuiltinStore(HindsightSettings, _make)
