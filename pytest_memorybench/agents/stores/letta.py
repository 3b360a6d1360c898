"""`letta`: a Letta agent per conversation, on a Letta server you run (or Letta Cloud), that answers
the questions itself.

    letta:openai:gpt-4o-mini                     the server at LETTA_BASE_URL, else localhost:8283
    letta(ingest=messages):openai:gpt-4o-mini    the agent reads every message and keeps what it will
    letta(model=anthropic/claude-sonnet-4-5):…   a model handle the server has (its providers' keys)
    letta(url=https://api.letta.com):…           Letta Cloud, the key from LETTA_API_KEY

A Letta agent is a MemGPT-style agent: core memory blocks in its prompt, its message history
(recall memory) and an archival memory it searches with its own tools.  A namespace is one agent
(named after the namespace), made on the first call; `clear` deletes it.  Unlike the other stores,
the agent answers: every user message the harness would answer is sent to it
(`agents.messages.create`), and its reply is the answer, so what it recalls is its own doing.
What the harness hands it to remember (`add`) goes where `ingest` says:

- `archival` (the default): every message becomes an archival passage dated with its simulated
  time (`created_at`), with no model call, as every other store is given every message;
- `messages`: the messages the agent has not seen are sent to it as turns, `batch` a call, and it
  decides what to keep (core memory edits, archival inserts), one agent step a call.  The exchanges
  it answered are in its history already and are not sent again.

`search` is the archival memory's own search (`archival-memory/search`, `top_k` = k), the same one
the agent's `archival_memory_search` tool runs; it is what evidence recall reads.  With
`ingest=messages` archival memory holds only what the agent chose to archive, so the health check
does not require its sentence to be found.

The agent's model is the MODEL_SPEC's, reached through Letta's `llm_config` (an openai:MODEL[@URL]
spec: OpenAI's API or any compatible server the Letta server can reach), unless `model` names one
of the server's handles (`provider/model`); its embedder likewise is `--mb-embedder` or the
MODEL_SPEC's server (`embedding_config`, `embedding_dim` wide) unless `embedding` names a handle.
The tokens the agent spends (its `usage`) are charged to the run: writing with
`ingest=messages`, reading when it answers.  A question of the conversation (GoodAI's suites) is
part of the agent's history once asked, as in use.  A probe's question (LoCoMo, LongMemEval, the
other probe suites), whose answer must not depend on the questions asked before it, is asked in a
fork of the agent's conversation (`conversations.fork`: the same in-context messages, a conversation
of its own), deleted once answered; what the agent writes into its memory blocks or archive while
answering stays, as Letta gives no way to roll that back.  The harness never sends to one agent
twice at once (Letta answers a second send with 409 while it processes the first).  Letta keeps
real time, not the conversation's simulated time: its messages are stamped when sent, and only
archival passages carry the simulated date (sent in UTC).  So every question goes after a system
message with the question's simulated date ("The current date is …") and the suite's answering
instructions where the suite has them (LoCoMo's short phrase, LongMemEval's as-of date), what the
harness's own prompt tells a model it answers for.

Tested with letta-client 1.12.1 against a loopback server of the endpoints it calls
(tests/support/letta_server.py), and with a Letta 0.16.8 server on SmolLM2 (the real-model test).
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pytest_memorybench.agents.deadlines import sdk_timeout
from pytest_memorybench.agents.mechanisms.settings import one_of, positive
from pytest_memorybench.agents.stores.dates import in_utc, parsed_time
from pytest_memorybench.agents.stores.endpoints import openai_endpoints
from pytest_memorybench.agents.stores.hosted import refused, require_package
from pytest_memorybench.agents.stores.store_protocol import BuiltinStore, Hit
from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.core.records import Message, Usage

if TYPE_CHECKING:
    from pytest_memorybench.agents.spec import AgentOptions, AgentSpec

_PAGE = 100  # passages a page when listing them
KEY_VARIABLE = "LETTA_API_KEY"
URL_VARIABLE = "LETTA_BASE_URL"
LOCAL_SERVER = "http://localhost:8283"
OPENAI_API = "https://api.openai.com/v1"
PERSONA = (
    "I am an assistant with a long-term memory. I keep what the user tells me about themselves and"
    " their plans, and I answer from what I remember, saying so when I do not know."
)


@dataclass(frozen=True)
class LettaSettings:
    """Where the server is, where added messages go (`ingest`), the messages a call carries, and the
    model and embedder the agent uses (the server's handles, or the MODEL_SPEC's)."""

    url: str = ""
    ingest: str = "archival"
    batch: int = 30
    model: str = ""
    embedding: str = ""
    context_window: int = 32768
    embedding_dim: int = 1536

    def __post_init__(self) -> None:
        one_of("ingest", self.ingest, ("archival", "messages"))
        positive(batch=self.batch, context_window=self.context_window, embedding_dim=self.embedding_dim)


@dataclass(frozen=True)
class Answered:
    """The last exchange an agent took part in, which `add` is then handed and must not resend."""

    question: str
    reply: str


class LettaStore:
    """A Letta agent per namespace, behind the store protocol, answering natively."""

    def __init__(self, settings: LettaSettings, agent_config: JsonObject, timeout: float | None) -> None:
        from letta_client import Letta

        self.settings = settings
        self.url = settings.url or os.environ.get(URL_VARIABLE) or LOCAL_SERVER
        self.client = Letta(
            base_url=self.url, api_key=os.environ.get(KEY_VARIABLE) or None, timeout=sdk_timeout(timeout)
        )
        self.agent_config = agent_config
        self.usage = Usage()
        # The health check must find its sentence only where every message is archived.
        self.keeps_every_message = settings.ingest == "archival"
        self._agents: dict[str, str] = {}
        self._answered: dict[str, Answered] = {}
        self._lock = threading.Lock()

    @property
    def messages_per_add(self) -> int:
        """A passage a call, or `batch` messages a step: the harness makes the calls, so a retry
        re-sends only the one that failed."""
        return 1 if self.settings.ingest == "archival" else self.settings.batch

    def add(self, messages: list[Message], namespace: str) -> None:
        agent = self._agent(namespace)
        if self.settings.ingest == "archival":
            (message,) = messages
            self._call(
                self.client.agents.passages.create,
                agent,
                text=f"{message.role}: {message.text}",
                created_at=in_utc(message.timestamp),
            )
            return
        unseen = self._unseen(messages, self._answered.pop(namespace, None))
        if unseen:
            self._step(agent, [{"role": m.role, "content": m.text} for m in unseen])

    def answer(self, question: str, namespace: str, instructions: str = "") -> str:
        """The agent's answer to `question`, after a system message of `instructions` (the question's
        simulated date and the suite's instructions, as the harness's prompt gives a model them)."""
        replies = self._step(self._agent(namespace), _asked(question, instructions))
        reply = "\n".join(replies)
        self._answered[namespace] = Answered(question, reply)
        return reply

    def answer_aside(self, question: str, namespace: str, instructions: str = "") -> str:
        """A probe's question in a fork of the agent's conversation (Letta's own fork: the same
        in-context messages, a new conversation), deleted afterwards: the question and its answer
        never enter the history the next question sees."""
        agent = self._agent(namespace)
        fork = self._call(self.client.conversations.fork, "default", agent_id=agent)
        try:
            sent = self._call(
                self.client.conversations.messages.create, fork.id, messages=_asked(question, instructions)
            )
            return "\n".join(self._replies(list(sent)))
        finally:
            self._call(self.client.conversations.delete, fork.id)

    def search(self, query: str, namespace: str, k: int) -> list[Hit]:
        agent = self._agents.get(namespace)
        if agent is None:
            return []  # nothing was ever added here
        found = self._call(self.client.agents.passages.search, agent, query=query, top_k=k)
        return [Hit(item.content, None, parsed_time(item.timestamp)) for item in found.results[:k]]

    def stored(self, namespace: str) -> list[str]:
        """Every archival passage of the namespace's agent, a page of `_PAGE` at a time."""
        agent = self._agents.get(namespace)
        texts: list[str] = []
        after: str | None = None
        while agent is not None:
            page = self._call(
                self.client.agents.passages.list,
                agent,
                limit=_PAGE,
                ascending=True,
                **({"after": after} if after else {}),
            )
            texts += [passage.text for passage in page]
            if len(page) < _PAGE:
                break
            after = page[-1].id
        return texts

    def clear(self, namespace: str) -> None:
        from letta_client import NotFoundError

        with self._lock:
            agent = self._agents.pop(namespace, None)
            self._answered.pop(namespace, None)
        if agent is not None:
            try:
                self._call(self.client.agents.delete, agent)
            except NotFoundError:
                pass  # already gone

    def close(self) -> None:
        self.client.close()

    def _agent(self, namespace: str) -> str:
        with self._lock:
            if namespace not in self._agents:
                made = self._call(
                    self.client.agents.create,
                    name=namespace,
                    memory_blocks=[{"label": "persona", "value": PERSONA}, {"label": "human", "value": ""}],
                    tags=["memorybench"],
                    **self.agent_config,
                )
                self._agents[namespace] = made.id
            return self._agents[namespace]

    def _step(self, agent: str, turns: list[dict[str, str]]) -> list[str]:
        """Send `turns` to the agent; the texts of its replies, its tokens counted."""
        response = self._call(self.client.agents.messages.create, agent, messages=turns)
        return self._replies([*response.messages, response.usage])

    def _replies(self, messages: list[Any]) -> list[str]:
        """The texts of the agent's replies among the messages of a step (or a stream's chunks), its
        usage counted."""
        for spent in (m for m in messages if getattr(m, "message_type", None) == "usage_statistics"):
            self.usage.add(
                Usage(spent.prompt_tokens or 0, spent.completion_tokens or 0, calls=spent.step_count or 1)
            )
        return [
            _text(message.content)
            for message in messages
            if getattr(message, "message_type", None) == "assistant_message"
        ]

    @staticmethod
    def _unseen(messages: list[Message], answered: Answered | None) -> list[Message]:
        """`messages` without the exchange the agent answered itself (its question and its reply)."""
        if answered is None:
            return messages
        seen = {("user", answered.question), ("assistant", answered.reply)}
        return [m for m in messages if (m.role, m.text) not in seen]

    def _call(self, method: Any, *args: Any, **kwargs: Any) -> Any:
        """A call of the SDK (which retries 429s and 5xxs itself); a refused key as PermissionError,
        which the harness does not retry, a server that is not there said as such, and one that did
        not answer in time not mistaken for one (the SDK's timeout is a kind of connection error)."""
        from letta_client import (
            APIConnectionError,
            APITimeoutError,
            AuthenticationError,
            PermissionDeniedError,
        )

        try:
            return method(*args, **kwargs)
        except (AuthenticationError, PermissionDeniedError) as exc:
            raise refused("Letta", exc.status_code, KEY_VARIABLE) from None
        except APITimeoutError:
            raise TimeoutError(
                f"the Letta server at {self.url} gave no answer within {self.client.timeout} s"
            ) from None
        except APIConnectionError:
            raise ConnectionError(
                f"no Letta server answers at {self.url}: start one (`letta server`, or Letta's Docker"
                f" image) or give letta(url=…) or {URL_VARIABLE}"
            ) from None


def _asked(question: str, instructions: str) -> list[dict[str, str]]:
    """The messages of a question: the harness's instructions as a system message (Letta's messages
    take the system role), then the question as the user asks it."""
    told = [{"role": "system", "content": instructions}] if instructions else []
    return [*told, {"role": "user", "content": question}]


def _text(content: Any) -> str:
    """An assistant message's content: a string, or parts with text."""
    if isinstance(content, str):
        return content
    return "".join(str(getattr(part, "text", "") or "") for part in content or ())


def agent_config(settings: LettaSettings, options: AgentOptions, model: AgentSpec) -> JsonObject:
    """The agent's model and embedder: the server's handles where the settings name them, else the
    MODEL_SPEC's (and `--mb-embedder`'s) OpenAI-compatible endpoints as Letta's configs."""
    config: JsonObject = {}
    if settings.model:
        config["model"] = settings.model
    if settings.embedding:
        config["embedding"] = settings.embedding
    if settings.model and settings.embedding:
        return config
    if model.kind != "openai":
        raise usage_error(
            f"--agent letta:{model.text}: give the server's handles, letta(model=PROVIDER/MODEL,"
            "embedding=PROVIDER/MODEL), or an openai:MODEL[@URL] spec, which Letta reaches as an"
            " OpenAI-compatible endpoint"
        )
    llm, embedder = openai_endpoints("letta", "Letta", model, options)
    if not settings.model:
        config["llm_config"] = {
            "model": llm.model,
            "model_endpoint_type": "openai",
            "model_endpoint": llm.base_url or OPENAI_API,
            "context_window": settings.context_window,
        }
    if not settings.embedding:
        config["embedding_config"] = {
            "embedding_model": embedder.model,
            "embedding_endpoint_type": "openai",
            "embedding_endpoint": embedder.base_url or OPENAI_API,
            "embedding_dim": settings.embedding_dim,
        }
    return config


def _make(settings: LettaSettings, options: AgentOptions, model: AgentSpec) -> LettaStore:
    require_package("letta", "letta_client")
    return LettaStore(settings, agent_config(settings, options, model), options.timeout)


LETTA = BuiltinStore(LettaSettings, _make)
