"""A real MemMachine server (memmachine-server 0.4.0) for the memmachine store's tests, from a venv of its
own (it needs Python 3.12) named by MEMORYBENCH_MEMMACHINE_VENV; without it the tests that use it skip.

It runs with nothing outside this machine: every store on SQLite in a temporary folder (its episodes,
sessions and segments; its long-term and profile vectors in its plain-SQLite vector store, since
sqlite-vec needs a Python built with loadable extensions), its embedder and language model the
scripted model server's (OpenAI's API, 64-dimensional embeddings), and the `identity` reranker
(MemMachine's BM25 reranker needs NLTK's stopwords, which its installer downloads and this machine
cannot).  Its profile extraction starts at one waiting message (`ingestion_trigger_messages: 1`).
The server is stopped afterwards.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.support.local_model import free_port, running
from tests.support.memory_model import EMBEDDING_DIMENSIONS

VENV_VARIABLE = "MEMORYBENCH_MEMMACHINE_VENV"
START_SECONDS = 180.0


def _configuration(folder: Path, port: int, model_url: str) -> str:
    """MemMachine's cfg.yml (its `Configuration` model's sections) for a server on SQLite and the
    scripted model."""
    sqlite = {
        "main_db": ("sqlite", folder / "memmachine.sqlite"),
        "event_vectors": ("sqlite_vector_store", folder / "event_vectors.sqlite"),
        "profile_vectors": ("sqlite_vector_store", folder / "profile_vectors.sqlite"),
    }
    databases = "".join(
        f"    {name}:\n      provider: {provider}\n      config:\n        path: {path}\n"
        for name, (provider, path) in sqlite.items()
    )
    return f"""\
logging:
  path: {folder / "memmachine.log"}
  level: info
server:
  host: 127.0.0.1
  port: {port}
episode_store:
  database: main_db
session_manager:
  database: main_db
episodic_memory:
  long_term_memory:
    backend: event
    embedder: scripted_embedder
    reranker: identity_reranker
    vector_store: event_vectors
    segment_store: main_db
  short_term_memory:
    llm_model: scripted_model
semantic_memory:
  llm_model: scripted_model
  embedding_model: scripted_embedder
  storage_backend: vector_store
  feature_store: main_db
  vector_collection: profile_vectors
  config_database: main_db
  ingestion_trigger_messages: 1
resources:
  databases:
{databases}  embedders:
    scripted_embedder:
      provider: openai
      config:
        model: scripted
        api_key: local
        base_url: {model_url}
        dimensions: {EMBEDDING_DIMENSIONS}
  language_models:
    scripted_model:
      provider: openai-chat-completions
      config:
        model: fake-model
        api_key: local
        base_url: {model_url}
  rerankers:
    identity_reranker:
      provider: identity
"""


@contextmanager
def memmachine_service(model_url: str) -> Iterator[str]:
    """A started MemMachine server's URL, its models at `model_url`; skipped without its venv."""
    venv = os.environ.get(VENV_VARIABLE)
    if not venv:
        pytest.skip(
            f"no MemMachine server: set {VENV_VARIABLE} to a venv with memmachine-server (.ci/run makes one)"
        )
    folder = Path(tempfile.mkdtemp(prefix="memorybench-memmachine-"))
    port = free_port()
    config = folder / "cfg.yml"
    config.write_text(_configuration(folder, port, model_url))
    env = {**os.environ, "MEMORY_CONFIG": str(config), "HOME": str(folder)}
    url = f"http://127.0.0.1:{port}"
    command = [str(Path(venv, "bin", "memmachine-server"))]
    try:
        with running("MemMachine", command, folder, env, f"{url}/api/v2/health", START_SECONDS):
            yield url
    finally:
        shutil.rmtree(folder, ignore_errors=True)
