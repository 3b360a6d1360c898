"""What an agent answers with, as a run records it: its answering prompts' hashes, its product's
packages, and the models that answered (not only those asked for)."""

from __future__ import annotations

import asyncio
import importlib.metadata
from datetime import datetime

import pytest

from pytest_memorybench.agents.provenance import answering_prompts, product_versions, text_hash
from pytest_memorybench.agents.spec import parse_agent_spec
from pytest_memorybench.agents.stores import memory
from pytest_memorybench.core.records import Message
from pytest_memorybench.models.llm import SYSTEM_PROMPT
from pytest_memorybench.models.openai import OpenAIChatAgent
from pytest_memorybench.models.provider_pool import ProviderPool, serve
from tests.support.llm_server import LLMServer, RecordedRequest, chat_completion


def test_each_kind_of_agent_records_the_prompts_it_answers_with() -> None:
    assert answering_prompts(parse_agent_spec("recall")) == {}
    assert answering_prompts(parse_agent_spec("openai:gpt-4o-mini")) == {"system": text_hash(SYSTEM_PROMPT)}
    store = answering_prompts(parse_agent_spec("bm25:openai:gpt-4o-mini"))
    assert store["store.answer.locomo"] == text_hash(memory.ANSWER_PROMPTS["locomo"])
    assert set(store) == {
        "system",
        "store.answer.locomo",
        "store.answer.longmemeval",
        "store.told.locomo",
        "store.told.longmemeval",
        "store.MEMORIES_HEADING",
    }
    light = answering_prompts(parse_agent_spec("light:openai:gpt-4o-mini"))
    assert {"light.EXTRACT", "light.NOTES", "model.WORK_SYSTEM", "system"} <= set(light)
    assert not any(name.startswith("store.") for name in light)


def test_a_prompt_changed_changes_its_hash_and_no_other(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = parse_agent_spec("bm25:openai:gpt-4o-mini")
    before = answering_prompts(spec)
    monkeypatch.setitem(memory.ANSWER_PROMPTS, "locomo", memory.ANSWER_PROMPTS["locomo"] + " Be brief.")
    after = answering_prompts(spec)
    assert {name for name in before if before[name] != after[name]} == {"store.answer.locomo"}


def test_a_stores_product_is_recorded_at_its_installed_version() -> None:
    versions = product_versions(parse_agent_spec("mem0:openai:gpt-4o-mini"))
    assert versions["openai"] == importlib.metadata.version("openai")
    assert set(versions) == {"mem0ai", "openai"}
    try:
        assert versions["mem0ai"] == importlib.metadata.version("mem0ai")
    except importlib.metadata.PackageNotFoundError:
        assert versions["mem0ai"] is None  # the extra is not installed: said so, not left out
    assert product_versions(parse_agent_spec("recall")) == {}


def test_the_run_records_the_model_that_answered_beside_the_one_asked_for() -> None:
    def dated(request: RecordedRequest, text: str) -> object:
        return chat_completion("gpt-4o-mini-2024-07-18", text, None)

    async def ask(url: str) -> None:
        agent = OpenAIChatAgent("gpt-4o-mini", base_url=url, min_wait=0.01, max_wait=0.01)
        await agent.reply(Message("hello", datetime(2026, 1, 1)))
        await agent.aclose()

    pool = ProviderPool()
    restore = serve(pool)
    try:
        with LLMServer() as server:
            server.routes[("POST", "/v1/chat/completions")] = dated
            asyncio.run(ask(server.openai_url))
    finally:
        restore()
    assert pool.served_models() == {"openai:gpt-4o-mini": ["gpt-4o-mini-2024-07-18"]}
    assert pool.record(None)["models"] == pool.served_models()
