"""`CachedJudge`: the one client every judge call goes through.

It renders the task's prompt, asks the backend, extracts and validates the JSON, and keeps score
of what it cost.  Around that:

* **Cache.**  Verdicts are stored in SQLite (WAL mode, one short transaction per write) under a
  sha256 key of everything that can change a verdict: the backend (provider, model, base URL,
  temperature, max tokens), the full system and user text, the task's `scorer`, the client's
  `scorer_version` and `CACHE_VERSION` (bumped when validation changes what is stored).  xdist
  workers share the file; each process opens its own connection.  Only valid verdicts are stored.
  A cache the client cannot read or write (locked too long, read-only, corrupt) costs a warning and
  a fresh call, never a failed test.
* **Concurrency.**  At most `max_concurrency` backend calls are in flight per event loop, shared by
  all callers of this client.
* **Re-asking.**  A reply that is not valid JSON in the task's schema is re-asked, showing the model
  its reply and what was wrong, up to `max_attempts` calls in all; then the verdict carries
  `error="judge-unparseable: <reason>"`.  Transient failures (429, 5xx, timeouts, dropped
  connections, replies that are no answer) are retried inside the backend; when those retries run
  out the verdict carries `error="judge-error: <line>"`.  `judge()` never raises for a bad reply or
  a failing server, except one that refuses every request (`ProviderRefused`: a rejected key, an
  unknown model), which no verdict can come from.
* **Accounting.**  `stats.usage.calls` counts backend calls (each re-ask is one; transient retries inside
  the backend are not), `cache_hits`, tokens (the server's counts, else estimated), `cost_usd`
  from `models/prices.py`, `unparseable` verdicts, and `prompt_hashes[kind]`.

The backend is either an LLM backend from `backends.py` or a judge that answers tasks itself (the
`local` judge).  `build_judge` gives the local judge no cache: it is deterministic and instant, and a
cache would only hide changes to its code.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from pytest_memorybench.core.errors import AgentError, ProviderRefused, describe_exception
from pytest_memorybench.core.json_reply import extract_json
from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.judges.base import JUDGE_ERROR, UNPARSEABLE, JudgeStats, JudgeTask, JudgeVerdict
from pytest_memorybench.judges.prompts import check_payload, prompt_key, render, task_prompt_hash
from pytest_memorybench.judges.replies import validate
from pytest_memorybench.judges.schemas import schema_for
from pytest_memorybench.models.llm import Completion, Turn, token_usage
from pytest_memorybench.models.provider_pool import price_for

CACHE_VERSION = 1
MAX_REASON = 160  # characters of an error reason kept in a verdict

log = logging.getLogger(__name__)


@runtime_checkable
class TextBackend(Protocol):
    """What `backends.py` backends offer the client."""

    name: str
    model: str | None

    def identity(self) -> JsonObject: ...

    async def resolve_model(self) -> None: ...

    async def complete(
        self, system: str, turns: list[Turn], schema: JsonObject | None = None, name: str = "verdict"
    ) -> tuple[Completion, float]: ...


class CachedJudge:
    """A `Judge` over a backend, with an on-disk cache, bounded concurrency and re-asking."""

    def __init__(
        self,
        backend: Any,
        *,
        cache_path: Path | None,
        max_concurrency: int = 4,
        max_attempts: int = 3,
        scorer_version: str = "",
        lock_timeout: float = 30.0,
    ) -> None:
        if max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1")
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self.backend = backend
        self.max_concurrency = max_concurrency
        self.max_attempts = max_attempts
        self.scorer_version = scorer_version
        self._is_llm = isinstance(backend, TextBackend)
        self.stats = JudgeStats(  # only an LLM backend names a model; a local judge's rules have a version
            model=backend.model if self._is_llm else None, version=getattr(backend, "version", None) or None
        )
        self.cache = JudgeCache(cache_path, timeout=lock_timeout) if cache_path is not None else None
        self._semaphore: asyncio.Semaphore | None = None
        self._semaphore_loop: asyncio.AbstractEventLoop | None = None

    @property
    def name(self) -> str:
        return str(self.backend.name)

    @property
    def is_llm(self) -> bool:
        return self._is_llm

    async def judge(self, task: JudgeTask, *, repeat: int = 0) -> JudgeVerdict:
        """The verdict; ValueError only if the task's payload lacks a field its kind needs.

        `repeat` > 0 asks an LLM judge the same task again as a verdict of its own (its own cache
        entry); a judge that answers by itself is deterministic and answers every repeat alike.
        """
        if self.is_llm:
            return await self._judge_with_llm(task, repeat)
        return await self._judge_with_judge(task)

    async def aclose(self) -> None:
        closer = getattr(self.backend, "aclose", None)
        if closer is not None:
            await closer()
        if self.cache is not None:
            self.cache.close()

    # -- an LLM backend -------------------------------------------------------------------------

    async def _judge_with_llm(self, task: JudgeTask, repeat: int = 0) -> JudgeVerdict:
        system, user = render(task.kind, task.payload)
        self.stats.prompt_hashes[prompt_key(task.kind, task.payload)] = task_prompt_hash(
            task.kind, task.payload
        )
        try:
            await self.backend.resolve_model()
        except ProviderRefused:
            raise  # no verdict can come from this judge: the caller stops
        except AgentError as exc:
            return self._failed(task, exc)
        key = self.cache_key(task, system, user, repeat)
        cached = await self._lookup(key, task)
        if cached is not None:
            return cached

        turns: list[Turn] = [{"role": "user", "content": user}]
        reason = ""
        for attempt in range(1, self.max_attempts + 1):
            try:
                async with self._limit():
                    completion, _ = await self.backend.complete(
                        system, turns, schema_for(task.kind), task.kind
                    )
            except ProviderRefused:
                self.stats.usage.calls += 1
                raise  # no verdict can come from this judge: the caller stops
            except Exception as exc:  # noqa: BLE001 - AgentError after retries, or a backend bug
                self.stats.usage.calls += 1
                return self._failed(task, exc)
            self._account(completion, system, turns)
            self.stats.model = self.backend.model
            self.stats.output_form = getattr(self.backend, "form", None)
            try:
                data = validate(task.kind, extract_json(completion.text), task.payload)
            except ValueError as exc:
                reason = _one_line(str(exc))
                log.info(
                    "%s: %s reply unusable (attempt %d of %d): %s",
                    self.name,
                    task.kind,
                    attempt,
                    self.max_attempts,
                    reason,
                )
                turns = [
                    *turns[:1],
                    {"role": "assistant", "content": completion.text or "(empty)"},
                    {"role": "user", "content": _reask(reason)},
                ]
                continue
            await self._store(key, task, data, completion.text)
            return JudgeVerdict(task.kind, data)
        self.stats.unparseable += 1
        return JudgeVerdict(task.kind, None, error=f"{UNPARSEABLE}: {reason}")

    def cache_key(self, task: JudgeTask, system: str, user: str, repeat: int = 0) -> str:
        """sha256 of everything that can change this task's verdict (and which repeat it is)."""
        material: JsonObject = {"repeat": repeat} if repeat else {}
        material |= {
            "cache_version": CACHE_VERSION,
            "backend": self.backend.identity(),
            "kind": task.kind,
            "system": system,
            "user": user,
            "scorer": task.scorer,
            "scorer_version": self.scorer_version,
        }
        return _sha256(material)

    def _account(self, completion: Completion, system: str, turns: list[Turn]) -> None:
        input_tokens, output_tokens = token_usage(completion, system, turns)
        self.stats.usage.calls += 1
        self.stats.usage.input_tokens += input_tokens
        self.stats.usage.output_tokens += output_tokens
        price = price_for(self.backend.model)
        if price is not None:
            self.stats.usage.cost_usd += price.cost(input_tokens, output_tokens)

    # -- a judge that answers by itself (local) -------------------------------------------------

    async def _judge_with_judge(self, task: JudgeTask) -> JudgeVerdict:
        check_payload(task.kind, task.payload)
        version = getattr(self.backend, "version", "")
        self.stats.prompt_hashes[prompt_key(task.kind, task.payload)] = str(version)
        self.stats.version = str(version) or None
        key = _sha256(
            {
                "cache_version": CACHE_VERSION,
                "backend": {"name": self.name, "version": version},
                "task": task.fingerprint(),
                "scorer_version": self.scorer_version,
            }
        )
        cached = await self._lookup(key, task)
        if cached is not None:
            return cached
        self.stats.usage.calls += 1
        try:
            verdict = await self.backend.judge(task)
            if verdict.error is not None:
                if verdict.error.startswith(UNPARSEABLE):
                    self.stats.unparseable += 1
                return JudgeVerdict(task.kind, None, error=verdict.error)
            data = validate(task.kind, verdict.data, task.payload)
        except Exception as exc:  # noqa: BLE001 - a judge bug must not fail the test run
            return self._failed(task, exc)
        await self._store(key, task, data, None)
        return JudgeVerdict(task.kind, data)

    # -- shared ---------------------------------------------------------------------------------

    def _limit(self) -> asyncio.Semaphore:
        """The semaphore of the running loop (pytest-asyncio may run each test in a new loop)."""
        loop = asyncio.get_running_loop()
        if self._semaphore is None or self._semaphore_loop is not loop:
            self._semaphore = asyncio.Semaphore(self.max_concurrency)
            self._semaphore_loop = loop
        return self._semaphore

    def _failed(self, task: JudgeTask, exc: BaseException) -> JudgeVerdict:
        line = str(exc) if isinstance(exc, AgentError) else describe_exception(exc)
        log.warning("%s: %s task failed: %s", self.name, task.kind, line)
        return JudgeVerdict(task.kind, None, error=f"{JUDGE_ERROR}: {_one_line(line, 300)}")

    async def _lookup(self, key: str, task: JudgeTask) -> JudgeVerdict | None:
        if self.cache is None:
            return None
        data = await asyncio.to_thread(self.cache.get, key)
        if data is None:
            return None
        try:
            data = validate(task.kind, data, task.payload)
        except ValueError:
            return None  # stored by an older, laxer version: ask again
        self.stats.cache_hits += 1
        return JudgeVerdict(task.kind, data, cached=True)

    async def _store(self, key: str, task: JudgeTask, data: JsonObject, raw: str | None) -> None:
        if self.cache is not None:
            await asyncio.to_thread(
                self.cache.put,
                key,
                task.kind,
                data,
                raw=raw,
                judge=self.name,
                prompt=self.stats.prompt_hashes.get(prompt_key(task.kind, task.payload), ""),
            )


class JudgeCache:
    """Verdicts on disk, keyed by hash; safe for several processes sharing one file."""

    def __init__(self, path: Path, *, timeout: float = 30.0) -> None:
        self.path = Path(path)
        self.timeout = timeout
        self._connection: sqlite3.Connection | None = None
        self._pid: int | None = None
        self._lock = threading.Lock()
        self._warned = False

    def get(self, key: str) -> JsonObject | None:
        try:
            with self._lock:
                row = self._connect().execute("SELECT data FROM verdicts WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error as exc:
            self._warn(exc)
            return None
        if row is None:
            return None
        try:
            data = json.loads(row[0])
        except ValueError:
            return None
        return data if isinstance(data, dict) else None

    def put(
        self,
        key: str,
        kind: str,
        data: JsonObject,
        *,
        raw: str | None = None,
        judge: str = "",
        prompt: str = "",
    ) -> None:
        row = (
            key,
            kind,
            json.dumps(data, ensure_ascii=False, sort_keys=True),
            raw,
            judge,
            prompt,
            time.time(),
        )
        try:
            with self._lock:
                connection = self._connect()
                with connection:  # one short transaction, committed at once: an interrupted run keeps it
                    connection.execute(
                        "INSERT OR REPLACE INTO verdicts (key, kind, data, raw, judge, prompt_hash, created) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?)",
                        row,
                    )
        except sqlite3.Error as exc:
            self._warn(exc)

    def __len__(self) -> int:
        with self._lock:
            return int(self._connect().execute("SELECT COUNT(*) FROM verdicts").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            if self._connection is not None and self._pid == os.getpid():
                self._connection.close()
            self._connection = None

    def _connect(self) -> sqlite3.Connection:
        # A connection must not cross a fork: a child process opens its own.
        if self._connection is None or self._pid != os.getpid():
            self.path.parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(self.path, timeout=self.timeout, check_same_thread=False)
            try:
                _set_wal(connection, self.timeout)
                connection.execute("PRAGMA synchronous=NORMAL")
                with connection:
                    connection.execute(
                        "CREATE TABLE IF NOT EXISTS verdicts (key TEXT PRIMARY KEY, kind TEXT NOT NULL, "
                        "data TEXT NOT NULL, raw TEXT, judge TEXT, prompt_hash TEXT, created REAL)"
                    )
            except sqlite3.Error:
                connection.close()
                raise
            self._connection, self._pid = connection, os.getpid()
        return self._connection

    def _warn(self, exc: sqlite3.Error) -> None:
        if not self._warned:
            self._warned = True
            log.warning("judge cache %s unusable, judging without it: %s", self.path, describe_exception(exc))


def _set_wal(connection: sqlite3.Connection, timeout: float) -> None:
    """WAL mode (readers never wait for the writer), set once per file and kept by SQLite.

    Switching needs an exclusive lock, and SQLite may refuse it at once instead of waiting when
    another process creates the file at the same moment, so it is retried until `timeout`.
    """
    deadline = time.monotonic() + timeout
    while True:
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError:
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.01)


def _sha256(material: JsonObject) -> str:
    text = json.dumps(material, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _one_line(text: str, limit: int = MAX_REASON) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _reask(reason: str) -> str:
    return (
        f"That reply could not be used: {reason}. Answer the same request again with only the JSON object "
        "in the format asked for."
    )
