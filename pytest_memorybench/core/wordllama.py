"""WordLlama, the small embedding model whose weights ship inside its wheel: loaded once, offline.

Two parts of a run use it, both optional (the `embeddings` extra): `--mb-embedder wordllama` ranks
memories with it, and the `local-semantic` judge reads answers by meaning with it.

0.4.0.post1 looks for its tokenizer under `tokenizer/` beside the package, where the wheel has
`tokenizers/`, and would then download it; its cache lookup uses `tokenizers/`, so the package's
own folder given as the cache finds both files with downloads off.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.core.heavy import heavy_import


@functools.lru_cache(maxsize=1)
def _model() -> Any:
    wordllama = heavy_import("wordllama")
    return wordllama.WordLlama.load(cache_dir=Path(str(wordllama.__file__)).parent, disable_download=True)


def wordllama_model(needed_by: str) -> Any:
    """The loaded model; a one-line usage error naming `needed_by` when the package is missing."""
    try:
        return _model()
    except ImportError:
        raise usage_error(
            f"{needed_by}: the wordllama package is not installed; pip install"
            " 'pytest-memorybench[embeddings]'"
        ) from None


def wordllama_version() -> str:
    """The installed package's version (a judge built on it names it in its rules version)."""
    from importlib.metadata import version

    return version("wordllama")
