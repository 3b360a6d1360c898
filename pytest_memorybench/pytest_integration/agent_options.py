"""The agent under test and what it may ask of its provider: `--agent` and the options that shape it.

The spec forms in `--agent`'s help come from the agents' registry, as do its error messages; the
options are read and checked in `runner/settings.py`.
"""

from __future__ import annotations

import pytest

from pytest_memorybench.agents.registry import spec_forms
from pytest_memorybench.pytest_integration.keys import option_group


def pytest_addoption(parser: pytest.Parser) -> None:
    """The agent's options, in the plugin's group."""
    group = option_group(parser)
    _the_agent(group)
    _what_it_may_ask(group)


def _the_agent(group: pytest.OptionGroup) -> None:
    """The agent and the models and memory it is built from."""
    group.addoption(
        "--agent",
        dest="mb_agent",
        metavar="SPEC",
        help=f"agent under test: {spec_forms()}",
    )
    group.addoption(
        "--mb-context",
        dest="mb_context",
        type=int,
        metavar="N",
        help="context budget in tokens for the built-in LLM adapters (default: the model's)",
    )
    group.addoption(
        "--mb-memory-model",
        dest="mb_memory_model",
        metavar="SPEC",
        help=(
            "a second model for a memory system's own work (extraction, summaries, ratings), e.g."
            " openai:gpt-4.1-nano (default: the answering model)"
        ),
    )
    group.addoption(
        "--mb-embedder",
        dest="mb_embedder",
        default="lexical",
        metavar="lexical|wordllama|openai:MODEL[@URL]",
        help="what memory systems rank their memories with (default: lexical, BM25)",
    )
    group.addoption(
        "--mb-k",
        dest="mb_k",
        type=int,
        metavar="K",
        help="the hits a memory store's every answer gets, the same for every store (default: 10)",
    )
    group.addoption(
        "--mb-context-tokens",
        dest="mb_context_tokens",
        type=int,
        metavar="N",
        help=(
            "cap the memory each answer of a memory store or system is given at N tokens (hits kept best"
            " first), beside --mb-k: the equal terms (default: 4,000 for stores, the model's window for"
            " systems)"
        ),
    )
    group.addoption(
        "--mb-thinking",
        dest="mb_thinking",
        type=int,
        metavar="TOKENS",
        help="extended thinking budget for an anthropic:MODEL agent (at least 1024)",
    )
    group.addoption(
        "--mb-timeout",
        dest="mb_timeout",
        type=float,
        default=600.0,
        metavar="SECONDS",
        help="longest wait for one agent reply (default: 600)",
    )


def _what_it_may_ask(group: pytest.OptionGroup) -> None:
    """How much of its provider the run may use at once, and what it may spend."""
    group.addoption(
        "--mb-concurrency",
        dest="mb_concurrency",
        default="auto",
        metavar="N|auto",
        help=(
            "drive up to N conversations at once in each process, each with its own agent; auto: as many as"
            " the provider's measured throughput rewards (default: auto; 1: one after the other)"
        ),
    )
    group.addoption(
        "--mb-max-requests",
        dest="mb_max_requests",
        type=int,
        metavar="N",
        help=(
            "at most N requests in flight to one model provider, agent and judge together (default: no limit)"
        ),
    )
    group.addoption(
        "--mb-rpm",
        dest="mb_rpm",
        type=float,
        metavar="N",
        help="at most N requests a minute to one model provider (default: no limit)",
    )
    group.addoption(
        "--mb-tpm",
        dest="mb_tpm",
        type=float,
        metavar="N",
        help="at most N input tokens a minute to one model provider (default: no limit)",
    )
    group.addoption(
        "--mb-price",
        dest="mb_price",
        action="append",
        metavar="MODEL=IN,OUT",
        help=(
            "price of a model missing from the built-in table, USD per million input and output tokens;"
            " repeatable"
        ),
    )
    group.addoption(
        "--mb-max-cost",
        dest="mb_max_cost",
        type=float,
        metavar="USD",
        help="skip conversations that would take agent and judge spending past USD",
    )
