"""Benchmark of `--mb-concurrency auto` against fixed levels, on two kinds of provider.

    python tests/bench/bench_concurrency_auto.py [--service 0.3]

A fake OpenAI-compatible server on 127.0.0.1 answers every request after a fixed service time:
  one slot    one request at a time, each slower by 10 % for every request queued behind it (the
              llama.cpp case: requests queue and compete for the same cores);
  unlimited   any number at once.
The suite is LTM at `--span=isolated` without ChapterBreak (30 conversations, 179 replies); each
run is a fresh `python -m pytest` process, timed wall to wall, at `--mb-concurrency` 1, 2, 4, 8,
16 and auto (the default), with the level auto ended at.  The README's table comes from here.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.support.llm_server import LLMServer  # noqa: E402
from tests.support.slot_server import slotted_route  # noqa: E402

SERVERS = {"one slot": (1, 0.1), "unlimited": (None, 0.0)}  # slots, contention
LEVELS = ("1", "2", "4", "8", "16", "auto")


def timed(url: str, level: str) -> tuple[float, str]:
    with tempfile.TemporaryDirectory() as folder:
        command = [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:randomly",
            "--memorybench",
            f"--agent=openai:model@{url}",
            "--span=isolated",
            "-k",
            "not chapterbreak",
            f"--mb-concurrency={level}",
            f"--mb-output={folder}/run",
        ]
        started = time.perf_counter()
        subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
        seconds = time.perf_counter() - started
        providers = json.loads((Path(folder) / "run" / "results.json").read_text())["run"]["concurrency"].get(
            "providers", []
        )
    return seconds, ",".join(str(provider["level"]) for provider in providers)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--service", type=float, default=0.3, help="seconds a request takes to serve")
    parser.add_argument("--levels", default=",".join(LEVELS), help="comma-separated --mb-concurrency values")
    parser.add_argument("servers", nargs="*", default=list(SERVERS), help="one slot, unlimited")
    args = parser.parse_args()
    print(f"service {args.service} s a request; wall seconds (speed-up against 1)")
    levels = args.levels.split(",")
    print(f"{'server':<10}" + "".join(f"{level:>14}" for level in levels))
    for name in args.servers:
        slots, contention = SERVERS[name]
        with LLMServer() as server:
            server.routes[("POST", "/v1/chat/completions")] = slotted_route(slots, args.service, contention)
            row, serial = [], None
            for level in levels:
                seconds, ended = timed(server.openai_url, level)
                serial = serial or seconds
                row.append(f"{seconds:6.1f} ({serial / seconds:3.1f}x)" + (f" @{ended}" if ended else ""))
        print(f"{name:<10}" + "".join(f"{cell:>14}" for cell in row))


if __name__ == "__main__":
    main()
