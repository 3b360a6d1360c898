"""Benchmark: SmolLM2's answer time by the model server's thread count, alone and beside a busy core.

    python3 tests/bench/bench_model_threads.py [--rounds 2] [--asks 4]

Why it exists: the real-model tests run on one xdist worker while the other worker runs CPU-bound
tests.  llama.cpp's threads meet at a barrier on every token, so a server given every core waits on
its thread whose core the other worker holds.  For each of 1 and all of the machine's threads (taken
in turn, `--rounds` times), a fresh server answers `--asks` questions over a 40-fact prompt (64 tokens
each), first with the machine otherwise idle, then with one busy loop beside it (what the other
worker does).  It prints the seconds of each answer and their sum.  Needs the local-llm extra.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import multiprocessing.synchronize
import time
import urllib.request

from pytest_memorybench.local_model import machine_threads, server_command, start_server
from tests.support.local_model import free_port

FACTS = " ".join(f"Fact {i}: box {i} holds {i * 7} red marbles." for i in range(40))


def _spin(stop: multiprocessing.synchronize.Event) -> None:
    while not stop.is_set():
        pass


def answer_seconds(threads: int, asks: int) -> list[float]:
    port = free_port()
    with start_server(server_command(port, threads=threads), f"http://127.0.0.1:{port}/v1") as server:
        seconds = []
        for ask in range(asks):
            body = {
                "model": "x",
                "messages": [{"role": "user", "content": f"{FACTS} What does box {ask} hold?"}],
                "max_tokens": 64,
                "temperature": 0,
            }
            request = urllib.request.Request(
                f"{server.url}/chat/completions",
                json.dumps(body).encode(),
                {"Content-Type": "application/json"},
            )
            started = time.perf_counter()
            with urllib.request.urlopen(request, timeout=600) as reply:
                reply.read()
            seconds.append(time.perf_counter() - started)
        return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--asks", type=int, default=4)
    options = parser.parse_args()
    counts = sorted({1, machine_threads()})
    for busy in (False, True):
        stop = multiprocessing.Event()
        spinner = multiprocessing.Process(target=_spin, args=(stop,), daemon=True) if busy else None
        if spinner:
            spinner.start()
        try:
            for _ in range(options.rounds):
                for threads in counts:
                    seconds = answer_seconds(threads, options.asks)
                    shown = " ".join(f"{s:5.2f}" for s in seconds)
                    print(
                        f"{'one core busy' if busy else 'idle':>13}  threads {threads}:"
                        f"  {shown}  sum {sum(seconds):6.2f} s",
                        flush=True,
                    )
        finally:
            stop.set()
            if spinner:
                spinner.join()


if __name__ == "__main__":
    main()
