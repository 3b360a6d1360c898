"""Benchmark of `--mb-concurrency auto` against fixed levels, on three kinds of provider.

    python tests/bench/bench_concurrency_auto.py [--service 0.3]

A fake OpenAI-compatible server on 127.0.0.1 answers every request after a fixed service time:
  one slot    one request at a time, each slower by 10 % for every request queued behind it (the
              llama.cpp case: requests queue and compete for the same cores);
  unlimited   any number at once;
and a Python agent (`tests/bench/slow_agent.py`) that waits the service time for each reply:
  agent       your own agent, measured as a provider of its own.
The suite is LTM at `--span=isolated` without ChapterBreak (30 conversations, 179 replies); each
run is a fresh `python -m pytest` process, timed wall to wall, at `--mb-concurrency` 1, 4, 16, 32
and auto (the default), with the level auto ended at.  Auto runs twice: `auto` in a runs folder of
its own (it climbs from one), `auto again` beside that first run (it starts at the level the first
ended at, as a user's next run does).  Each cell's ratio is to the best fixed level's time;
`--repeat N` runs each level N times and shows the median.  The README's table comes from here.

Last, it checks where auto ended in a real run (the unit tests decide the controller's rules on
simulated time; where a real run settles depends on the machine, so it is checked here, on a
quiet one): at most 2 against one slot, 8 or more against the unlimited server, 4 or more for the
agent; it exits 1 when one is not.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.support.llm_server import LLMServer  # noqa: E402
from tests.support.runs import QUIET  # noqa: E402
from tests.support.slot_server import SlottedRoute  # noqa: E402

SERVERS = {"one slot": (1, 0.1), "unlimited": (None, 0.0), "agent": (None, 0.0)}  # slots, contention
AGENT = "tests.bench.slow_agent:make_agent"
EXPECTED = {  # where auto must end, on a quiet machine
    "one slot": ("at most 2", lambda level: level <= 2),
    "unlimited": ("8 or more", lambda level: level >= 8),
    "agent": ("4 or more", lambda level: level >= 4),
}
LEVELS = ("1", "4", "16", "32", "auto", "auto again")


def timed(agent: str, level: str, runs: Path) -> tuple[float, str]:
    """Seconds of one run at `level`, and the level(s) auto ended at; an `again` run goes in `runs`
    beside the run before it, any other in a folder of its own."""
    again = level.endswith(" again")
    with tempfile.TemporaryDirectory() as scratch:
        folder = runs if again else Path(scratch)
        run = folder / (f"again-{time.monotonic_ns()}" if again else "run")
        command = [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            *QUIET,
            "--memorybench",
            f"--agent={agent}",
            "--span=isolated",
            "-k",
            "not chapterbreak",
            f"--mb-concurrency={level.removesuffix(' again')}",
            f"--mb-output={run}",
        ]
        started = time.perf_counter()
        subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
        seconds = time.perf_counter() - started
        providers = json.loads((run / "results.json").read_text())["run"]["concurrency"].get("providers", [])
        if level == "auto":  # the next `auto again` starts from this run's level
            shutil.rmtree(runs, ignore_errors=True)
            shutil.copytree(run, runs / "first")
    return seconds, ",".join(str(provider["level"]) for provider in providers)


def _median(runs: list[tuple[float, str]]) -> tuple[float, str]:
    """The run of median time (this machine's neighbours make single runs vary by a quarter)."""
    return sorted(runs)[len(runs) // 2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--service", type=float, default=0.4, help="seconds a request takes to serve")
    parser.add_argument("--levels", default=",".join(LEVELS), help="comma-separated --mb-concurrency values")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each level; the median is shown")
    parser.add_argument("servers", nargs="*", default=list(SERVERS), help="one slot, unlimited, agent")
    args = parser.parse_args()
    print(f"service {args.service} s a request; wall seconds (time against the best fixed level)")
    levels = args.levels.split(",")
    print(f"{'server':<10}" + "".join(f"{level:>18}" for level in levels))
    wrong = []
    for name in args.servers:
        slots, contention = SERVERS[name]
        with LLMServer() as server, tempfile.TemporaryDirectory() as runs:
            server.routes[("POST", "/v1/chat/completions")] = SlottedRoute(slots, args.service, contention)
            os.environ["SLOW_AGENT_SECONDS"] = str(args.service)
            agent = AGENT if name == "agent" else f"openai:model@{server.openai_url}"
            times = {
                level: _median([timed(agent, level, Path(runs) / "runs") for _ in range(args.repeat)])
                for level in levels
            }
        best = min((seconds for level, (seconds, _) in times.items() if level.isdigit()), default=None)
        row = [
            f"{seconds:6.1f}"
            + (f" ({seconds / best:4.2f})" if best else "")
            + (f" @{ended}" if ended else "")
            for seconds, ended in times.values()
        ]
        print(f"{name:<10}" + "".join(f"{cell:>18}" for cell in row))
        if "auto" in times:
            wanted, holds = EXPECTED[name]
            ended = [int(level) for level in times["auto"][1].split(",")]
            if not all(holds(level) for level in ended):
                wrong.append(f"{name}: auto ended at {times['auto'][1]}, expected {wanted}")
    for line in wrong:
        print(f"CHECK FAILED {line}")
    sys.exit(1 if wrong else 0)


if __name__ == "__main__":
    main()
