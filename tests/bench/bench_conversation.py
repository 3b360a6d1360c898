"""Benchmarks of the conversation engine: token efficiency, saving mode, harness cost, xdist.

    python3 tests/bench/bench_conversation.py [--quick]

Prints a report and writes the numbers to tests/bench/results/latest.json (git-ignored).  Parts
1-3 drive `Conversation` directly on the Colours scenario (3 repetitions, seed 0), with two
zero-latency agents: `ok`, which has no `observe` and replies "ok" to everything (so filler costs
real reply calls), and `observe`, which replies "ok" but takes filler through `observe` (saving
mode).  Spans: 8k (reference), 32k and 120k (`--quick` skips 120k).

1. Token efficiency.  ratio = conversation tokens / (repetitions x span), the `span_ratio` of
   `ConversationStats`.  Target <= 1.10 (GoodAI's reference reached 1.26 at 32k).  Also shown:
   each test's span tokens (first line to question) as a % of the span, the filler messages and
   the reply calls.  The `ok` agent's one-token reply falls short of the JSON answer list the
   filler was sized for, so it needs more (smaller) filler messages than `observe` does.
2. Saving mode.  With `observe`, filler must cost no reply at all: reply calls must equal the
   intro plus the tests' own lines.  "filler replies" = reply calls - (intro + test lines).
3. Harness overhead.  Wall time of `Conversation.run()` (median of 3, `time.perf_counter`) per
   agent turn (reply + observe calls) and per 100k conversation tokens; then the share of wall
   time the harness would be with an agent taking 100 ms per reply:
   overhead / (overhead + 100 ms x reply calls).  Target <= 1 %.  The token counter in use
   (`default_counter().name`) is reported, since it dominates the cost.
4. xdist speed-up (skipped by `--quick`).  The real pytest command on tests/bench/suites/
   colours8.yaml (8 Colours repetitions at 32k) with `--mb-conversations 4` and the latency-bound
   agent tests/bench/slow_agent.py (SLOW_AGENT_SECONDS per reply, default 0.5), once with `-n 0`
   and once with `-n 4 --dist loadgroup`.  speed-up = wall(-n 0) / wall(-n 4); target >= 3.2x.
   The lower bound of the -n 4 wall time is the slowest conversation's agent seconds; what is
   left above it is mostly worker start-up, measured as the wall time of
   `pytest --co -q -p no:cacheprovider tests/test_spans.py` (median of 3), paid by 4 workers at
   once on os.cpu_count() cores.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pytest_memorybench.agents.protocol import AgentAdapter
from pytest_memorybench.conversation.channel import AgentChannel
from pytest_memorybench.conversation.clock import SimulatedClock
from pytest_memorybench.conversation.events import EventLog
from pytest_memorybench.conversation.filler import TriviaSource
from pytest_memorybench.conversation.scheduler import Conversation, ConversationStats, ScheduledTest
from pytest_memorybench.conversation.tokens import default_counter
from pytest_memorybench.records import TestDefinition, TestOutcome
from pytest_memorybench.scenarios import ScoringContext
from pytest_memorybench.scenarios.ltm.colours import SCENARIO

ROOT = Path(__file__).resolve().parents[2]
BENCH = Path(__file__).resolve().parent
RESULTS = BENCH / "results"
SUITE = BENCH / "suites" / "colours8.yaml"

REPETITIONS = 3
TIMED_RUNS = 3
SPANS = {"8k": 8_000, "32k": 32_000, "120k": 120_000}
QUICK_SPANS = ("8k", "32k")
AGENT_REPLY_SECONDS = 0.100  # the hypothetical agent of the overhead share
XDIST_CONVERSATIONS = 4
TARGETS = {"span_ratio_max": 1.10, "filler_replies_with_observe": 0, "harness_share_max": 0.01, "speedup_min": 3.2}


# -- parts 1-3: one conversation driven directly ---------------------------------------------------


class OkAgent:
    """Zero latency, no `observe`: every message, filler included, costs a reply call."""

    def __init__(self) -> None:
        self.replies = 0
        self.observes = 0

    async def reply(self, message: Any) -> str:
        self.replies += 1
        return "ok"


class ObservingAgent(OkAgent):
    """Zero latency with `observe`: the conversation runs in saving mode."""

    async def observe(self, messages: Any) -> None:
        self.observes += 1


AGENTS = {"ok": OkAgent, "observe": ObservingAgent}


@dataclass
class Drive:
    stats: ConversationStats
    outcomes: list[TestOutcome]
    replies: int
    observes: int
    seconds: float


def definitions() -> list[TestDefinition]:
    return [SCENARIO.generate("bench", {}, 0, repetition) for repetition in range(1, REPETITIONS + 1)]


async def drive(span: int, agent: OkAgent, log_dir: Path) -> Drive:
    """Build one Conversation as run.py's `_drive` does and time `run()` alone."""
    tests = [ScheduledTest(f"bench::{d.test_id}", d) for d in definitions()]
    log = EventLog(log_dir / "events.jsonl")
    channel = AgentChannel(
        AgentAdapter(agent, "bench"), group="bench", counter=default_counter(), clock=SimulatedClock(), log=log
    )
    conversation = Conversation(tests, channel, span=span, scoring=ScoringContext(), filler=TriviaSource(0))
    started = time.perf_counter()
    outcomes = await conversation.run()
    seconds = time.perf_counter() - started
    log.close()
    return Drive(conversation.stats, list(outcomes.values()), agent.replies, agent.observes, seconds)


def measure_conversation(span_name: str, agent_name: str) -> dict[str, Any]:
    """Drive the conversation TIMED_RUNS times; counts come from the last run, time is the median."""
    span = SPANS[span_name]
    runs = []
    for _ in range(TIMED_RUNS):
        with tempfile.TemporaryDirectory() as log_dir:
            runs.append(asyncio.run(drive(span, AGENTS[agent_name](), Path(log_dir))))
    if len({run.stats.tokens for run in runs}) != 1:
        raise RuntimeError(f"{span_name}/{agent_name}: token counts differ between identical runs")
    last, seconds = runs[-1], statistics.median(run.seconds for run in runs)
    test_lines = sum(len(d.script) + bool(d.reset_message) for d in definitions())
    turns = last.replies + last.observes
    return {
        "span": span_name,
        "agent": agent_name,
        "tokens": last.stats.tokens,
        "span_ratio": last.stats.span_ratio,
        "span_tokens": [outcome.span_tokens for outcome in last.outcomes],
        "span_percent": [round(100 * outcome.span_tokens / span, 1) for outcome in last.outcomes],
        "overruns": sum(outcome.overrun for outcome in last.outcomes),
        "filler_messages": last.stats.filler_messages,
        "saved_filler_messages": last.stats.saved_filler_messages,
        "filler_tokens_planned": last.stats.filler_tokens,
        "reply_calls": last.replies,
        "observe_calls": last.observes,
        "filler_reply_calls": last.replies - (1 + test_lines),  # 1: the intro
        "seconds_median": round(seconds, 4),
        "seconds_all": [round(run.seconds, 4) for run in runs],
        "ms_per_turn": round(1000 * seconds / turns, 3),
        "ms_per_100k_tokens": round(1000 * seconds * 100_000 / last.stats.tokens, 1),
        "harness_share_at_100ms": round(seconds / (seconds + AGENT_REPLY_SECONDS * last.replies), 4),
    }


# -- part 4: the real pytest command, with and without xdist --------------------------------------


def timed_command(args: list[str], env: dict[str, str] | None = None) -> tuple[float, subprocess.CompletedProcess[str]]:
    started = time.perf_counter()
    done = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    return time.perf_counter() - started, done


def pytest_startup_seconds() -> float:
    """Wall time of a pytest process that only collects a small file: what each worker pays."""
    command = [sys.executable, "-m", "pytest", "--co", "-q", "-p", "no:cacheprovider", "tests/test_spans.py"]
    return statistics.median(timed_command(command)[0] for _ in range(TIMED_RUNS))


def run_benchmark(workers: int, agent_seconds: float) -> dict[str, Any]:
    xdist = ["-n", str(workers)] + (["--dist", "loadgroup"] if workers else [])
    with tempfile.TemporaryDirectory() as output:
        command = [
            sys.executable, "-m", "pytest", "--memorybench", "--mb-suite", str(SUITE.relative_to(ROOT)),
            "--agent", "tests.bench.slow_agent:make_agent", "--mb-conversations", str(XDIST_CONVERSATIONS),
            "-p", "no:cacheprovider", "-q", "--mb-output", output, *xdist,
        ]  # fmt: skip
        wall, done = timed_command(command, env={**os.environ, "SLOW_AGENT_SECONDS": str(agent_seconds)})
        results_path = Path(output) / "results.json"
        if not results_path.is_file():
            raise RuntimeError(f"pytest -n {workers} wrote no results.json (exit {done.returncode}):\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
        results = json.loads(results_path.read_text(encoding="utf-8"))
    per_conversation = conversation_agent_seconds(results)
    return {
        "workers": workers,
        "exit_code": done.returncode,
        "wall_seconds": round(wall, 2),
        "passed": f"{results['totals']['passed']}/{results['totals']['max']}",
        "agent_calls": results["totals"]["agent_calls"],
        "agent_seconds": results["totals"]["agent_seconds"],
        "conversation_agent_seconds": per_conversation,
    }


def conversation_agent_seconds(results: dict[str, Any]) -> dict[str, float]:
    """Agent seconds per conversation: its items' usage plus its intro and filler replies."""
    seconds: dict[str, float] = defaultdict(float)
    for item in results["items"]:
        seconds[item["conversation"]] += item["usage"]["seconds"]
    for conversation in results["conversations"]:
        seconds[conversation["group"]] += conversation["overhead_usage"]["seconds"]
    return {group: round(value, 2) for group, value in sorted(seconds.items())}


def measure_xdist() -> dict[str, Any]:
    agent_seconds = float(os.environ.get("SLOW_AGENT_SECONDS", "0.5"))
    startup = pytest_startup_seconds()
    serial, parallel = run_benchmark(0, agent_seconds), run_benchmark(XDIST_CONVERSATIONS, agent_seconds)
    slowest = max(parallel["conversation_agent_seconds"].values())
    return {
        "slow_agent_seconds": agent_seconds,
        "cpu_count": os.cpu_count(),
        "pytest_startup_seconds": round(startup, 2),
        "serial": serial,
        "parallel": parallel,
        "speedup": round(serial["wall_seconds"] / parallel["wall_seconds"], 2),
        "parallel_floor_seconds": slowest,
        "parallel_above_floor_seconds": round(parallel["wall_seconds"] - slowest, 2),
        "speedup_bound_with_one_startup": round(serial["wall_seconds"] / (slowest + startup), 2),
    }


# -- the report ------------------------------------------------------------------------------------


def verdict(ok: bool) -> str:
    return "OK  " if ok else "MISS"


def print_conversations(rows: list[dict[str, Any]]) -> None:
    print(f"\n1. Token efficiency: tokens / ({REPETITIONS} x span), target <= {TARGETS['span_ratio_max']:.2f} (GoodAI: 1.26 at 32k)")
    print(f"   {'span':>5} {'agent':>8} {'tokens':>8} {'ratio':>6}      per-test span % of span    overruns  filler msgs (saved)  planned filler tok")
    for row in rows:
        percents = " ".join(f"{p:5.1f}" for p in row["span_percent"])
        print(
            f"   {row['span']:>5} {row['agent']:>8} {row['tokens']:>8} {row['span_ratio']:>6.3f} "
            f"{verdict(row['span_ratio'] <= TARGETS['span_ratio_max'])} {percents:>24} {row['overruns']:>10} "
            f"{row['filler_messages']:>10} ({row['saved_filler_messages']:>3}) {row['filler_tokens_planned']:>18}"
        )
    print("\n2. Saving mode: reply calls spent on filler (= replies - intro - test lines); target 0 with observe")
    print(f"   {'span':>5} {'agent':>8} {'replies':>8} {'observes':>9} {'filler replies':>15}")
    for row in rows:
        check = verdict(row["filler_reply_calls"] == 0) if row["agent"] == "observe" else "    "
        print(f"   {row['span']:>5} {row['agent']:>8} {row['reply_calls']:>8} {row['observe_calls']:>9} {row['filler_reply_calls']:>15} {check}")
    print(f"\n3. Harness overhead (zero-latency agent, median of {TIMED_RUNS}; counter {default_counter().name})")
    print(f"   share = overhead / (overhead + {AGENT_REPLY_SECONDS * 1000:.0f} ms x replies), target <= {TARGETS['harness_share_max']:.0%}")
    print(f"   {'span':>5} {'agent':>8} {'wall s':>8} {'turns':>6} {'ms/turn':>8} {'ms/100k tok':>12} {'share @100ms':>13}")
    for row in rows:
        turns = row["reply_calls"] + row["observe_calls"]
        share = row["harness_share_at_100ms"]
        print(
            f"   {row['span']:>5} {row['agent']:>8} {row['seconds_median']:>8.3f} {turns:>6} {row['ms_per_turn']:>8.2f} "
            f"{row['ms_per_100k_tokens']:>12.1f} {share:>12.2%} {verdict(share <= TARGETS['harness_share_max'])}"
        )


def print_xdist(xdist: dict[str, Any]) -> None:
    print(f"\n4. xdist speed-up: colours8.yaml (8 x Colours, 32k), --mb-conversations {XDIST_CONVERSATIONS}, slow agent {xdist['slow_agent_seconds']} s/reply")
    for run in (xdist["serial"], xdist["parallel"]):
        groups = ", ".join(f"{group} {seconds:.1f}" for group, seconds in run["conversation_agent_seconds"].items())
        print(
            f"   -n {run['workers']}: wall {run['wall_seconds']:7.2f} s   agent {run['agent_seconds']:7.2f} s in {run['agent_calls']} calls   "
            f"passed {run['passed']}   exit {run['exit_code']}\n          agent s per conversation: {groups}"
        )
    print(f"   speed-up -n 4 over -n 0: {xdist['speedup']:.2f}x  {verdict(xdist['speedup'] >= TARGETS['speedup_min'])} (target >= {TARGETS['speedup_min']}x)")
    print(
        f"   limits: the -n 4 run cannot beat its slowest conversation ({xdist['parallel_floor_seconds']:.1f} s of agent time);\n"
        f"   it took {xdist['parallel_above_floor_seconds']:.1f} s more.  One pytest start-up with the installed plugins\n"
        f"   (pytest --co tests/test_spans.py) takes {xdist['pytest_startup_seconds']:.2f} s; -n 4 starts a controller and 4 workers\n"
        f"   on {xdist['cpu_count']} cores, so their imports and collection compete for the CPU and the harness's own\n"
        f"   filler building and token counting runs in 4 processes at once.  Even with a single start-up the\n"
        f"   bound is {xdist['speedup_bound_with_one_startup']:.2f}x; serial time has one start-up, parallel time pays it per worker."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip the xdist part and the 120k span")
    quick = parser.parse_args().quick
    counter = default_counter()  # load the encoding before anything is timed
    print(f"pytest-memorybench conversation benchmark ({'quick' if quick else 'full'}): python {platform.python_version()}, "
          f"{os.cpu_count()} CPUs, token counter {counter.name}")
    spans = QUICK_SPANS if quick else tuple(SPANS)
    rows = [measure_conversation(span, agent) for span in spans for agent in AGENTS]
    print_conversations(rows)
    xdist = None if quick else measure_xdist()
    if xdist is not None:
        print_xdist(xdist)
    report = {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "mode": "quick" if quick else "full",
        "python": platform.python_version(),
        "cpu_count": os.cpu_count(),
        "token_counter": counter.name,
        "targets": TARGETS,
        "conversations": rows,
        "xdist": xdist,
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / ".gitignore").write_text("*\n", encoding="utf-8")
    (RESULTS / "latest.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"\nnumbers: {(RESULTS / 'latest.json').relative_to(ROOT)}")


if __name__ == "__main__":
    main()
