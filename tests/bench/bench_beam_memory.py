"""Memory benchmark: peak RSS while a BEAM chat streams through an agent, 100K versus 1M tokens.

    python3 tests/bench/bench_beam_memory.py [--sizes 100K,1M] [--modes generated,file,transcript,recall]
    [--seed 0] python3 tests/bench/bench_beam_memory.py --sizes 10M --modes generated,file   # flat up to 10M
    too

The BEAM issue's target: streaming a generated 1M-token chat through an agent stays under 1 GB
of peak resident memory and is flat in the chat's length (100K and 1M about the same).  Each
measurement runs in a fresh Python process (peak RSS = that process's `ru_maxrss`), which imports
the plugin, loads the token encoding, then runs a `ProbeSession` over the chat's context (all 20
probing questions asked and scored with the local judge).  "base" is the RSS after that set-up,
before the chat streams; "peak - base" is what streaming added.

Modes, per size:
  generated   the generator's chat, written batch by batch as it streams (no file);
  file        the same chat saved first in BEAM's repository layout (`chats/<size>/1/chat.json`)
              and streamed back through the loader's JSON reader;
  transcript  the file again, to an agent without `observe`: dated transcript messages via reply;
  recall      the file again, to the `recall` baseline, which keeps every message and builds a
              BM25 index over them: its memory is the agent's own and grows with the chat, as any
              agent that stores what it reads must (shown for contrast).
The first three use a "sink" agent that counts what it receives and keeps nothing, so what they
measure is the harness.  Finding the conversation (`SCENARIO.contexts`) reads the saved chat through
once to check it, as a run's collection does; that pass is inside the measurement too.  Results go
to tests/bench/results/beam_memory.json (not to be committed).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
RESULTS = Path(__file__).resolve().parent / "results" / "beam_memory.json"
MODES = ("generated", "file", "transcript", "recall")


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux


def _current_rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


class Sink:
    """Takes every message and keeps only counts; abstains on questions; forks to a new sink."""

    def __init__(self) -> None:
        self.messages = 0
        self.characters = 0

    async def observe(self, messages: Any) -> None:
        for message in messages:
            self.messages += 1
            self.characters += len(message.text)

    async def reply(self, message: Any) -> str:
        self.characters += len(message.text)
        return "I don't know."

    async def fork(self) -> Sink:
        return Sink()


class TranscriptSink:
    """The same without `observe`, so the chat arrives as packed transcripts through reply."""

    def __init__(self) -> None:
        self.characters = 0

    async def reply(self, message: Any) -> str:
        self.characters += len(message.text)
        return "ok"


def child(mode: str, size: str, seed: int, data: str | None) -> dict[str, Any]:
    """One measurement, in this (fresh) process."""
    sys.path.insert(0, str(ROOT))
    from pytest_memorybench.agents.agent_protocol import AgentAdapter
    from pytest_memorybench.agents.reference.extractive import ExtractiveAgent
    from pytest_memorybench.contract.clock import SimulatedClock
    from pytest_memorybench.contract.scenario import ScoringContext
    from pytest_memorybench.conversation.channel import AgentChannel
    from pytest_memorybench.conversation.events import EventLog
    from pytest_memorybench.conversation.probing import ProbeSession
    from pytest_memorybench.conversation.stats import ScheduledTest
    from pytest_memorybench.core.tokens import default_counter
    from pytest_memorybench.judges.local import LocalJudge
    from pytest_memorybench.scenarios import get_scenario
    from pytest_memorybench.scenarios.beam.scenario import SCENARIO

    counter = default_counter()
    counter.count("warm up the encoding")
    params = {"data_path": data} if data else {"tokens": size}
    (context,) = SCENARIO.contexts("beam", params, seed)
    agent = {"recall": ExtractiveAgent, "transcript": TranscriptSink}.get(mode, Sink)()
    base = _current_rss_mb()
    with tempfile.TemporaryDirectory() as folder:
        log = EventLog(Path(folder) / "events.jsonl")
        channel = AgentChannel(
            AgentAdapter(agent, mode),
            group=f"beam::{context.id}",
            counter=counter,
            clock=SimulatedClock(datetime(2024, 1, 1)),
            log=log,
        )
        tests = [ScheduledTest(f"beam::{d.test_id}", d) for d in context.probes]
        session = ProbeSession(
            context, tests, channel, scoring=ScoringContext(judge=LocalJudge()), scenario_of=get_scenario
        )
        started = time.perf_counter()
        outcomes = asyncio.run(session.run())
        seconds = time.perf_counter() - started
        log.close()
    return {
        "mode": mode,
        "size": size,
        "counter": counter.name,
        "tokens": session.stats.tokens,
        "turns": session.delivery.turns,
        "probes": len(outcomes),
        "seconds": round(seconds, 2),
        "base_mb": round(base, 1),
        "peak_mb": round(_rss_mb(), 1),
        "added_mb": round(_rss_mb() - base, 1),
    }


def _run_child(mode: str, size: str, seed: int, data: Path | None) -> dict[str, Any]:
    command = [sys.executable, __file__, "--child", mode, "--sizes", size, "--seed", str(seed)]
    if data is not None:
        command += ["--data", str(data)]
    done = subprocess.run(command, capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100K,1M")
    parser.add_argument("--modes", default=",".join(MODES), help="which of " + ", ".join(MODES))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--child", choices=MODES)
    parser.add_argument("--data")
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.sizes, args.seed, args.data)))
        return
    modes = [mode.strip() for mode in args.modes.split(",") if mode.strip()]
    unknown = sorted(set(modes) - set(MODES))
    if unknown:
        parser.error(f"unknown mode {unknown[0]!r}; choose from {', '.join(MODES)}")

    sys.path.insert(0, str(ROOT))
    from pytest_memorybench.core.spans import parse_span
    from pytest_memorybench.scenarios.beam.generator import plan_chat
    from pytest_memorybench.scenarios.beam.writer import write_repository

    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for size in args.sizes.split(","):
            tokens = parse_span(size).tokens
            assert tokens is not None
            started = time.perf_counter()
            chat = write_repository(plan_chat(tokens, args.seed), Path(folder) / size) / "chat.json"
            written = time.perf_counter() - started
            print(
                f"{size}: wrote {chat.stat().st_size / 1e6:.1f} MB chat.json in {written:.1f} s", flush=True
            )
            for mode in modes:
                row = _run_child(mode, size, args.seed, None if mode == "generated" else chat.parent)
                row["file_mb"] = round(chat.stat().st_size / 1e6, 1)
                rows.append(row)
                print(
                    f"  {mode:<10} {row['tokens']:>10,} tokens {row['turns']:>6,} messages  "
                    f"base {row['base_mb']:>6.1f} MB  peak {row['peak_mb']:>6.1f} MB  "
                    f"(+{row['added_mb']:.1f})  {row['seconds']:>6.1f} s",
                    flush=True,
                )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"seed": args.seed, "rows": rows}, indent=2) + "\n", encoding="utf-8")
    peaks: dict[str, float] = {}
    for row in rows:
        if row["mode"] != "recall":
            peaks[row["size"]] = max(peaks.get(row["size"], 0.0), row["peak_mb"])
    if peaks:
        by_size = ", ".join(f"{size} {peak:.0f} MB" for size, peak in peaks.items())
        print(f"harness peak RSS per size: {by_size} (target <= 1024 MB, flat in chat length)")
    print(f"results: {RESULTS}")


if __name__ == "__main__":
    main()
