"""A real EverOS server (everos 1.5.1, open source) for the everos store's tests, from the environment
named by MEMORYBENCH_EVEROS_VENV (Python 3.12 or later; .ci/run shares memU's); without it the tests
that use it skip.

It runs with nothing outside this machine: its memory root (SQLite, LanceDB, Markdown) in a temporary
folder made by `everos init`, its language model and embedder the scripted model server's (OpenAI's
API; its embedding column 64 wide, as the scripted embeddings are), and tiktoken's `o200k_base`
(which EverOS counts tokens with and tiktoken would download) from the folder MEMORYBENCH_EVEROS_TIKTOKEN
names, as tiktoken caches it (.ci/run takes it from the litellm wheel, which ships it).  The server
is stopped afterwards.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.support.local_model import free_port, running
from tests.support.memory_model import EMBEDDING_DIMENSIONS

VENV_VARIABLE = "MEMORYBENCH_EVEROS_VENV"
TIKTOKEN_VARIABLE = "MEMORYBENCH_EVEROS_TIKTOKEN"
O200K_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
START_SECONDS = 180.0


def _models(model_url: str) -> dict[str, str]:
    """EverOS's settings for its models (`EVEROS_<SECTION>__<KEY>`, its config/default.toml)."""
    return {
        "EVEROS_LLM__MODEL": "fake-model",
        "EVEROS_LLM__API_KEY": "local",
        "EVEROS_LLM__BASE_URL": model_url,
        "EVEROS_EMBEDDING__MODEL": "scripted",
        "EVEROS_EMBEDDING__API_KEY": "local",
        "EVEROS_EMBEDDING__BASE_URL": model_url,
        "EVEROS_EMBEDDING__DIM": str(EMBEDDING_DIMENSIONS),
    }


def _tiktoken() -> str:
    """The folder holding o200k_base as tiktoken caches it (its URL's sha1 as its name)."""
    folder = os.environ.get(TIKTOKEN_VARIABLE, "")
    if not folder or not (Path(folder) / hashlib.sha1(O200K_URL.encode()).hexdigest()).is_file():
        pytest.skip(f"no o200k_base for EverOS's token counts: set {TIKTOKEN_VARIABLE} (.ci/run makes one)")
    return folder


@contextmanager
def everos_service(model_url: str) -> Iterator[str]:
    """A started EverOS server's URL, its models at `model_url`; skipped without its environment."""
    venv = os.environ.get(VENV_VARIABLE)
    if not venv or not Path(venv, "bin", "everos").is_file():
        pytest.skip(
            f"no EverOS server: set {VENV_VARIABLE} to an environment with everos (.ci/run makes one)"
        )
    tiktoken = _tiktoken()
    folder = Path(tempfile.mkdtemp(prefix="memorybench-everos-"))
    port = free_port()
    env = {
        **os.environ,
        **_models(model_url),
        "HOME": str(folder),
        "EVEROS_ROOT": str(folder / "root"),
        "TIKTOKEN_CACHE_DIR": tiktoken,
    }
    everos = str(Path(venv, "bin", "everos"))
    url = f"http://127.0.0.1:{port}"
    try:
        subprocess.run([everos, "init"], env=env, cwd=folder, check=True, capture_output=True)
        with running(
            "EverOS",
            [everos, "server", "start", "--port", str(port)],
            folder,
            env,
            f"{url}/health",
            START_SECONDS,
        ):
            yield url
    finally:
        shutil.rmtree(folder, ignore_errors=True)
