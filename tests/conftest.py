"""Shared test set-up."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import importlib
import importlib.metadata
import os
import pkgutil
import warnings
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import numpy  # noqa: F401
import pytest

from pytest_memorybench.agents.lexical import stopwords
from pytest_memorybench.core.tokens import default_counter

# Libraries with compiled parts that load once per process (numpy refuses a second load).  The
# plugin imports them on first use, and pytester's in-process inner runs take away the modules a
# run imported when it ends; so they are loaded here, before any inner run: numpy, bm25s with
# scipy.sparse, tiktoken and its encoding.
stopwords()
default_counter()


class _InstalledOnce(importlib.metadata.Distribution):
    """An installed distribution whose metadata, entry points and file list are read once.

    Every in-process inner run starts pytest anew, and pytest, pluggy and pytest-metadata each ask
    every installed distribution for its entry points, files or metadata at start-up: with the
    stores' extras installed (220-odd distributions), 1,800 entry-point files parsed for each
    inner run, about a third of a small run's time.  What is installed does not change while the
    tests run; what the inner runs load from it is the same as before.
    """

    def __init__(self, installed: importlib.metadata.Distribution) -> None:
        self._installed = installed
        self._texts: dict[str, str | None] = {}

    def read_text(self, filename: str) -> str | None:
        if filename not in self._texts:
            self._texts[filename] = self._installed.read_text(filename)
        return self._texts[filename]

    def locate_file(self, path: Any) -> Any:
        return self._installed.locate_file(path)

    @functools.cached_property
    def metadata(self) -> Any:
        return super().metadata

    @functools.cached_property
    def entry_points(self) -> importlib.metadata.EntryPoints:
        return super().entry_points

    @functools.cached_property
    def files(self) -> list[importlib.metadata.PackagePath] | None:
        return super().files


def _distributions_read_once() -> None:
    installed = [_InstalledOnce(found) for found in importlib.metadata.distributions()]
    look_up = importlib.metadata.distributions

    def distributions(**search: Any) -> Iterator[importlib.metadata.Distribution]:
        return look_up(**search) if search else iter(installed)

    importlib.metadata.distributions = distributions


_distributions_read_once()


@pytest.hookimpl(tryfirst=True)  # before the runner's own, which sets up the fixtures
def pytest_runtest_setup(item: pytest.Item) -> None:
    """The modules a test's `loaded_first` mark names, imported before its fixtures, pytester among
    them.  pytester takes away the modules a test imported when it ends, and a protobuf-backed SDK
    cannot be imported twice in one process: its messages are already in protobuf's descriptor
    pool, and the second import fails ("duplicate file name google/cloud/aiplatform_v1/...").
    Loaded before pytester looks, they stay for the worker's later tests.  Too slow to load for
    every worker (3 s for Vertex AI's), so only for the tests that use them."""
    for mark in item.iter_markers("loaded_first"):
        with warnings.catch_warnings():  # an SDK's own deprecations at import, not the test's to see
            warnings.simplefilter("ignore")
            for name in mark.args:
                with contextlib.suppress(ImportError):
                    importlib.import_module(name)


# Plugins a test's own pytest runs (inner runs and processes of their own) leave out; see below.
UNUSED_PLUGINS = "-p no:hypothesispytest -p no:langsmith_plugin"


@pytest.fixture
def pytester(pytester: pytest.Pytester, _heap_frozen: None) -> pytest.Pytester:
    """Inner runs get an ini file setting pytest-asyncio's loop scope, as ours does: without one,
    pytest-asyncio warns in every inner run, and pytest 9.2 shows those warnings in ours.  They
    also leave out hypothesis's plugin (our fuzz tests need hypothesis, the inner runs do not): it
    imports hypothesis in every session's summary, 0.6 s for each inner run in a subprocess,
    and LangSmith's (the langmem extra's), which imports its testing kit at start-up."""
    pytester.makeini(f"[pytest]\nasyncio_default_fixture_loop_scope = function\naddopts = {UNUSED_PLUGINS}\n")
    return pytester


@pytest.fixture(scope="session", autouse=True)
def _pytest_in_a_subprocess_without_unused_plugins() -> Iterator[None]:
    """A pytest the tests start in a process of its own (the docs' commands, shards, interrupted
    runs) leaves out the same two plugins as the inner runs: LangSmith's alone took 0.8 s of the
    2 s its start-up takes with every extra installed, for each of the slow tests' hundred-odd
    processes.  The tests' own session has begun by now, and keeps both."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTEST_ADDOPTS", f"{os.environ.get('PYTEST_ADDOPTS', '')} {UNUSED_PLUGINS}".strip())
        yield


@pytest.fixture(scope="session")
def _heap_frozen(_http_clients_loaded: None, _package_loaded: None) -> None:
    """What the worker has loaded by now (every module, the SDKs, the collected items), set aside
    from the garbage collector (`gc.freeze`): pytest collects garbage in full as each inner run
    ends, and a full pass over the worker's 300,000 objects took 0.15 to 0.3 s, once or twice for
    every one of the thousand-odd inner runs.  What the tests make afterwards is collected as
    usual."""
    gc.collect()
    gc.freeze()


# What the stores import on first use (agents/stores/*.py), where their extras are installed.
STORE_SDKS = (
    "mcp",
    "mcp.client.stdio",
    "mem0",
    "mem0.memory.main",
    "letta_client",
    "supermemory",
    "zep_cloud",
)
# What the scorers import on first use (`core.heavy`): imported anew by every inner run that
# scores with them, scipy.stats and nltk took a second or two each time, some twenty times in the
# default run.
SCORER_LIBRARIES = ("scipy.stats", "nltk.stem.porter", "rouge_score.rouge_scorer")


@pytest.fixture(scope="session")
def _package_loaded() -> None:
    """Every module of the package, imported before any in-process inner run.

    pytester's in-process runs take away the modules a run imported when it ends, while the modules
    loaded before it stay.  A module the plugin imports on first use (a scenario, the scheduler's
    actions) would then be imported anew by the next run and hold classes of its own: the
    scheduler, loaded once, no longer recognised a scenario program's `Say` as its own, and the
    jokes, prospective-memory and restaurant tests of a later run in the same worker ended
    without a word (issue 59: "one run's state never leaks into the next").  A process that runs
    pytest twice keeps its modules; only the tests' inner runs need this.  Modules of extras that
    are not installed, and command-line entry points, are left out.  The stores' SDKs, which the
    package imports on first use, are loaded here too: the MCP SDK imported anew by each run (with
    anyio's subprocesses) made a later run's store check take 13 s, not 0.4.
    """
    import pytest_memorybench

    with warnings.catch_warnings():  # an extra's own deprecations at import, not the test's to see
        warnings.simplefilter("ignore")
        names = [
            module.name
            for module in pkgutil.walk_packages(pytest_memorybench.__path__, "pytest_memorybench.")
        ]
        for name in [*names, *STORE_SDKS, *SCORER_LIBRARIES]:
            if name.endswith((".cli", ".__main__")):
                continue
            with contextlib.suppress(ImportError):
                importlib.import_module(name)


@pytest.fixture(scope="session")
def _http_clients_loaded() -> None:
    """One request through each SDK before any in-process inner run.

    pytester's in-process runs take the modules they import away again when they end.  The HTTP
    stack imports parts of itself on its first connection (anyio's backend, the transport's error
    mapping); if that first connection is made inside an inner run, the next one imports them anew,
    the SDK no longer recognises the transport's errors as its own, and a dropped connection
    surfaces raw instead of as the connection error every retry rule expects.
    """
    from pytest_memorybench.core.records import Message
    from pytest_memorybench.models.anthropic import AnthropicAgent
    from pytest_memorybench.models.openai import OpenAIChatAgent
    from tests.support.llm_server import LLMServer

    async def ask(server: LLMServer) -> None:
        fast = {"min_wait": 0.01, "max_wait": 0.01}
        for agent in (
            OpenAIChatAgent("m", base_url=server.openai_url, **fast),
            AnthropicAgent("m", base_url=server.url, **fast),
        ):
            await agent.reply(Message("hello", datetime.now()))
            await agent.aclose()

    with LLMServer() as server:
        server.queue(drop=True, path="/v1/chat/completions")  # the error path too
        asyncio.run(ask(server))
