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
   (`default_counter().name`) is reported: token counting is a large part of that cost.
   Those runs share one process, so the filler they send (the same seed's trivia, its lines
   already built and counted by an earlier run: conversation/filler.py keeps them) is warm, as
   for every conversation of a pytest process after its first.  The first conversation of a
   process builds and counts its filler itself: "cold" is `run()` timed in a fresh process
   (median of 3 processes, the token encoding loaded before the clock starts), with its share.
   A zero-latency agent leaves the harness no idle time, so the filler prefetch (filler.Prefetch,
   which works while the agent replies) cannot help there.  "real" is the target's own setting:
   a cold conversation with an agent that takes 100 ms per reply and times itself
   (LatentOkAgent); overhead = wall - the agent's time, share = overhead / wall (median of 5).
4. xdist speed-up (skipped by `--quick`).  The real pytest command on tests/bench/suites/
   colours8.yaml (8 Colours repetitions at 32k) with `--mb-conversations 4` and the latency-bound
   agent tests/bench/slow_agent.py (SLOW_AGENT_SECONDS per reply, default 2: latency-bound, as the target
   assumes; at 0.5 s the start-up of five pytest processes on 2 cores dominates), once with `-n 0`
   and once with `-n 4 --dist loadgroup`.  speed-up = wall(-n 0) / wall(-n 4); target >= 3.2x.
   The -n 4 run cannot be faster than its slowest conversation's agent seconds (the floor);
   what it takes above the floor is mostly CPU: every pytest process pays a start-up, measured
   as `pytest --co -q -p no:cacheprovider tests/core/test_spans.py` (median of 3, wall and CPU), and
   -n 4 pays it five times at once (controller + 4 workers).  Each run's CPU seconds (its own
   and its workers', from getrusage) are reported, and how many CPUs the -n 4 run kept busy
   above the floor (its CPU seconds / its wall seconds above the floor).  With all CPUs free
   the speed-up could reach (agent + CPU of -n 0) / (floor + CPU(-n 4) / cpu_count).
   The machine's 1-minute load average is printed too: other work skews every timing here.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timezone
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

# Run as a script, Python puts tests/bench/ first on the path, not the checkout it belongs to.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from pytest_memorybench.agents.agent_protocol import AgentAdapter
from pytest_memorybench.contract.clock import SimulatedClock
from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.conversation.channel import AgentChannel
from pytest_memorybench.conversation.events import EventLog
from pytest_memorybench.conversation.scheduler import Conversation
from pytest_memorybench.conversation.stats import ConversationStats, ScheduledTest
from pytest_memorybench.conversation.trivia import TriviaSource
from pytest_memorybench.core.records import TestDefinition, TestOutcome
from pytest_memorybench.core.tokens import default_counter
from pytest_memorybench.scenarios import get_scenario
from pytest_memorybench.scenarios.ltm.colours import SCENARIO

ROOT = Path(__file__).resolve().parents[2]
BENCH = Path(__file__).resolve().parent
RESULTS = BENCH / "results"
SUITE = BENCH / "suites" / "colours8.yaml"

REPETITIONS = 3
TIMED_RUNS = 3
LATENT_RUNS = 5  # the "real" share is close to the target: more samples steady its median
SPANS = {"8k": 8_000, "32k": 32_000, "120k": 120_000}
QUICK_SPANS = ("8k", "32k")
AGENT_REPLY_SECONDS = 0.100  # the hypothetical agent of the overhead share
XDIST_CONVERSATIONS = 4
TARGETS = {
    "span_ratio_max": 1.10,
    "filler_replies_with_observe": 0,
    "harness_share_max": 0.01,
    "speedup_min": 3.2,
}


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


class LatentOkAgent(OkAgent):
    """`ok` taking AGENT_REPLY_SECONDS per reply, as the overhead target's agent does.

    It times itself, from the call to the moment its wait is over and it answers: that is the
    agent's time as a real one would see it, wake-up of the event loop included.  A prefetch slice
    of the harness running when the wait ends delays that moment, by at most one slice
    (PREFETCH_CHUNK items, ~0.2 ms) per reply, and is then counted as the agent's.
    """

    def __init__(self) -> None:
        super().__init__()
        self.agent_seconds = 0.0

    async def reply(self, message: Any) -> str:
        started = time.perf_counter()
        await asyncio.sleep(AGENT_REPLY_SECONDS)
        self.agent_seconds += time.perf_counter() - started
        return await super().reply(message)


class LatentObservingAgent(LatentOkAgent, ObservingAgent):
    """`observe` answering in AGENT_REPLY_SECONDS; observing stays free."""


AGENTS = {"ok": OkAgent, "observe": ObservingAgent}
LATENT = {"ok": LatentOkAgent, "observe": LatentObservingAgent}


@dataclass
class Drive:
    stats: ConversationStats
    outcomes: list[TestOutcome]
    replies: int
    observes: int
    seconds: float
    agent_seconds: (
        float  # inside the agent's replies: as it timed them itself (latent agents), else as the adapter did
    )


def definitions() -> list[TestDefinition]:
    return [SCENARIO.generate("bench", {}, 0, repetition) for repetition in range(1, REPETITIONS + 1)]


async def drive(span: int, agent: OkAgent, log_dir: Path) -> Drive:
    """Build one Conversation as `BenchmarkRun.drive` does and time `run()` alone."""
    tests = [ScheduledTest(f"bench::{d.test_id}", d) for d in definitions()]
    log = EventLog(log_dir / "events.jsonl")
    adapter = AgentAdapter(agent, "bench")
    channel = AgentChannel(adapter, group="bench", counter=default_counter(), clock=SimulatedClock(), log=log)
    conversation = Conversation(
        tests, channel, span=span, scoring=ScoringContext(), filler=TriviaSource(0), scenario_of=get_scenario
    )
    started = time.perf_counter()
    outcomes = await conversation.run()
    seconds = time.perf_counter() - started
    log.close()
    agent_seconds = getattr(agent, "agent_seconds", adapter.usage.seconds)
    return Drive(
        conversation.stats, list(outcomes.values()), agent.replies, agent.observes, seconds, agent_seconds
    )


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
    cold = [cold_seconds(span_name, agent_name)["seconds"] for _ in range(TIMED_RUNS)]
    cold_median = statistics.median(cold)
    # The target's own setting: the first conversation of a fresh process with a 100 ms agent, where
    # the harness can work (build filler) while the agent is busy.  overhead = wall - the agent's own
    # time (LatentOkAgent times its replies itself).
    latent = [cold_seconds(span_name, agent_name, latent=True) for _ in range(LATENT_RUNS)]
    latent_overhead = statistics.median(run["seconds"] - run["agent_seconds"] for run in latent)
    latent_wall = statistics.median(run["seconds"] for run in latent)
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
        "cold_seconds_median": round(cold_median, 4),
        "cold_seconds_all": [round(value, 4) for value in cold],
        "cold_ms_per_100k_tokens": round(1000 * cold_median * 100_000 / last.stats.tokens, 1),
        "cold_harness_share_at_100ms": round(
            cold_median / (cold_median + AGENT_REPLY_SECONDS * last.replies), 4
        ),
        "latent_cold_wall_seconds": round(latent_wall, 4),
        "latent_cold_overhead_seconds": round(latent_overhead, 4),
        "latent_cold_harness_share": round(latent_overhead / latent_wall, 4),
    }


def cold_seconds(span_name: str, agent_name: str, latent: bool = False) -> dict[str, Any]:
    """`run()` of the first conversation in a fresh process (this script with --cold-sample)."""
    command = [sys.executable, str(Path(__file__).resolve()), "--cold-sample", span_name, agent_name]
    done = subprocess.run(
        command + (["latent"] if latent else []), cwd=ROOT, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.splitlines()[-1])


def cold_sample(span_name: str, agent_name: str, latent: bool) -> None:
    default_counter()  # as main() does: loading the encoding is a start-up cost, not the harness's
    agent = (LATENT if latent else AGENTS)[agent_name]()
    with tempfile.TemporaryDirectory() as log_dir:
        run = asyncio.run(drive(SPANS[span_name], agent, Path(log_dir)))
    print(
        json.dumps({"seconds": run.seconds, "tokens": run.stats.tokens, "agent_seconds": run.agent_seconds})
    )


# -- part 4: the real pytest command, with and without xdist --------------------------------------


@dataclass
class Timed:
    wall: float
    cpu: float  # user + system seconds of the command and every process it waited for
    done: subprocess.CompletedProcess[str]


def timed_command(args: list[str], env: dict[str, str] | None = None) -> Timed:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return Timed(wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, done)


def pytest_startup() -> tuple[float, float]:
    """Median (wall, CPU) seconds of a pytest that only collects a small file: what each process pays."""
    command = [
        sys.executable,
        "-m",
        "pytest",
        "--co",
        "-q",
        "-p",
        "no:cacheprovider",
        "tests/core/test_spans.py",
    ]
    runs = [timed_command(command) for _ in range(TIMED_RUNS)]
    return statistics.median(run.wall for run in runs), statistics.median(run.cpu for run in runs)


def pytest_plugins() -> list[str]:
    return sorted({entry.name.split(".")[0] for entry in entry_points(group="pytest11")})


def run_benchmark(workers: int, agent_seconds: float) -> dict[str, Any]:
    xdist = ["-n", str(workers)] + (["--dist", "loadgroup"] if workers else [])
    with tempfile.TemporaryDirectory() as output:
        command = [
            sys.executable, "-m", "pytest", "--memorybench", "--mb-suite", str(SUITE.relative_to(ROOT)),
            "--agent", "tests.bench.slow_agent:make_agent", "--mb-conversations", str(XDIST_CONVERSATIONS),
            "-p", "no:cacheprovider", "-q", "--mb-output", output, *xdist,
        ]  # fmt: skip
        timed = timed_command(command, env={**os.environ, "SLOW_AGENT_SECONDS": str(agent_seconds)})
        results_path = Path(output) / "results.json"
        if not results_path.is_file():
            tail = timed.done.stdout[-2000:] + timed.done.stderr[-2000:]
            raise RuntimeError(
                f"pytest -n {workers} wrote no results.json (exit {timed.done.returncode}):\n{tail}"
            )
        results = json.loads(results_path.read_text(encoding="utf-8"))
    return {
        "workers": workers,
        "exit_code": timed.done.returncode,
        "wall_seconds": round(timed.wall, 2),
        "cpu_seconds": round(timed.cpu, 2),
        "passed": f"{results['totals']['passed']}/{results['totals']['max']}",
        "agent_calls": results["totals"]["agent_calls"],
        "agent_seconds": results["totals"]["agent_seconds"],
        "conversation_agent_seconds": conversation_agent_seconds(results),
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
    agent_seconds = float(os.environ.get("SLOW_AGENT_SECONDS", "2"))
    load = os.getloadavg()[0]
    startup_wall, startup_cpu = pytest_startup()
    serial, parallel = run_benchmark(0, agent_seconds), run_benchmark(XDIST_CONVERSATIONS, agent_seconds)
    floor = max(parallel["conversation_agent_seconds"].values())
    above_floor = parallel["wall_seconds"] - floor
    all_cores = os.cpu_count() or 1
    # Without other load a single process never overlaps its agent's sleeps with its own CPU work.
    serial_unloaded = serial["agent_seconds"] + serial["cpu_seconds"]
    return {
        "slow_agent_seconds": agent_seconds,
        "load_average": round(load, 2),
        "cpu_count": all_cores,
        "pytest_plugins": pytest_plugins(),
        "pytest_startup_wall_seconds": round(startup_wall, 2),
        "pytest_startup_cpu_seconds": round(startup_cpu, 2),
        "serial": serial,
        "parallel": parallel,
        "speedup": round(serial["wall_seconds"] / parallel["wall_seconds"], 2),
        "parallel_floor_seconds": floor,
        "parallel_above_floor_seconds": round(above_floor, 2),
        "cpus_busy_above_floor": round(parallel["cpu_seconds"] / above_floor, 2),
        "model_speedup_all_cores_free": round(
            serial_unloaded / (floor + parallel["cpu_seconds"] / all_cores), 2
        ),
        "parallel_wall_needed_for_target": round(serial["wall_seconds"] / TARGETS["speedup_min"], 2),
    }


# -- the report ------------------------------------------------------------------------------------


def verdict(ok: bool) -> str:
    return "OK  " if ok else "MISS"


def print_conversations(rows: list[dict[str, Any]]) -> None:
    print(
        f"\n1. Token efficiency: tokens / ({REPETITIONS} x span), target <= {TARGETS['span_ratio_max']:.2f}"
        " (GoodAI: 1.26 at 32k)"
    )
    print(
        f"   {'span':>5} {'agent':>8} {'tokens':>8} {'ratio':>6}      per-test span % of span    overruns "
        " filler msgs (saved)  planned filler tok"
    )
    for row in rows:
        percents = " ".join(f"{p:5.1f}" for p in row["span_percent"])
        print(
            f"   {row['span']:>5} {row['agent']:>8} {row['tokens']:>8} {row['span_ratio']:>6.3f}"
            f" {verdict(row['span_ratio'] <= TARGETS['span_ratio_max'])} {percents:>24} {row['overruns']:>10}"
            f" {row['filler_messages']:>10} ({row['saved_filler_messages']:>3})"
            f" {row['filler_tokens_planned']:>18}"
        )
    print(
        "\n2. Saving mode: reply calls spent on filler (= replies - intro - test lines); target 0 with"
        " observe"
    )
    print(f"   {'span':>5} {'agent':>8} {'replies':>8} {'observes':>9} {'filler replies':>15}")
    for row in rows:
        check = (
            verdict(row["filler_reply_calls"] == TARGETS["filler_replies_with_observe"])
            if row["agent"] == "observe"
            else "    "
        )
        print(
            f"   {row['span']:>5} {row['agent']:>8} {row['reply_calls']:>8} {row['observe_calls']:>9}"
            f" {row['filler_reply_calls']:>15} {check}"
        )
    print(
        f"\n3. Harness overhead (zero-latency agent, median of {TIMED_RUNS}; counter"
        f" {default_counter().name})"
    )
    print(
        f"   share = overhead / (overhead + {AGENT_REPLY_SECONDS * 1000:.0f} ms x replies), target <="
        f" {TARGETS['harness_share_max']:.0%}"
    )
    print(
        "   warm: filler built by an earlier run of this process; cold: the first conversation of a fresh"
        " process"
    )
    print(
        "   (with a zero-latency agent, the harness's work cannot overlap the agent's; 'real' below lets it)"
    )
    print(
        f"   {'span':>5} {'agent':>8} {'wall s':>8} {'turns':>6} {'ms/turn':>8} {'ms/100k tok':>12}"
        f" {'share @100ms':>13}      {'cold s':>7} {'ms/100k tok':>12} {'share @100ms':>13}"
    )
    for row in rows:
        turns = row["reply_calls"] + row["observe_calls"]
        share, cold_share = row["harness_share_at_100ms"], row["cold_harness_share_at_100ms"]
        print(
            f"   {row['span']:>5} {row['agent']:>8} {row['seconds_median']:>8.3f} {turns:>6}"
            f" {row['ms_per_turn']:>8.2f} {row['ms_per_100k_tokens']:>12.1f} {share:>12.2%}"
            f" {verdict(share <= TARGETS['harness_share_max'])} {row['cold_seconds_median']:>7.3f}"
            f" {row['cold_ms_per_100k_tokens']:>12.1f} {cold_share:>12.2%}"
            f" {verdict(cold_share <= TARGETS['harness_share_max'])}"
        )
    print(
        f"\n   real: a cold conversation with an agent that takes {AGENT_REPLY_SECONDS * 1000:.0f} ms per"
        f" reply (median of {LATENT_RUNS});"
    )
    print("   overhead = wall - time inside the agent's replies; share = overhead / wall")
    print(f"   {'span':>5} {'agent':>8} {'wall s':>8} {'overhead ms':>12} {'share':>8}")
    for row in rows:
        latent_share = row["latent_cold_harness_share"]
        print(
            f"   {row['span']:>5} {row['agent']:>8} {row['latent_cold_wall_seconds']:>8.3f} "
            f"{1000 * row['latent_cold_overhead_seconds']:>12.1f} {latent_share:>7.2%} "
            f"{verdict(latent_share <= TARGETS['harness_share_max'])}"
        )


def print_xdist(xdist: dict[str, Any]) -> None:
    print(
        f"\n4. xdist speed-up: colours8.yaml (8 x Colours, 32k), --mb-conversations {XDIST_CONVERSATIONS},"
        f" slow agent {xdist['slow_agent_seconds']} s/reply"
    )
    for run in (xdist["serial"], xdist["parallel"]):
        groups = ", ".join(
            f"{group} {seconds:.1f}" for group, seconds in run["conversation_agent_seconds"].items()
        )
        print(
            f"   -n {run['workers']}: wall {run['wall_seconds']:6.2f} s   CPU {run['cpu_seconds']:5.2f} s  "
            f" agent {run['agent_seconds']:6.2f} s in {run['agent_calls']} calls   passed {run['passed']}  "
            f" exit {run['exit_code']}\n         agent s per conversation: {groups}"
        )
    print(
        f"   speed-up -n 4 over -n 0: {xdist['speedup']:.2f}x "
        f" {verdict(xdist['speedup'] >= TARGETS['speedup_min'])} (target >= {TARGETS['speedup_min']}x)"
    )
    print(
        f"   limits: -n 4 cannot beat its slowest conversation ({xdist['parallel_floor_seconds']:.1f} s of"
        f" agent time); it took\n   {xdist['parallel_above_floor_seconds']:.1f} s more.  Every pytest process"
        f" pays a start-up of {xdist['pytest_startup_cpu_seconds']:.2f} s CPU"
        f" ({xdist['pytest_startup_wall_seconds']:.2f} s wall:\n   pytest --co tests/core/test_spans.py)"
        " with the"
        f" installed plugins\n   ({', '.join(xdist['pytest_plugins'])});\n   -n 4 starts 5 at once"
        f" (controller + 4 workers) and used {xdist['parallel']['cpu_seconds']:.1f} s CPU against"
        f" {xdist['serial']['cpu_seconds']:.1f} s for -n 0.\n   Those"
        f" {xdist['parallel_above_floor_seconds']:.1f} s kept {xdist['cpus_busy_above_floor']:.2f} of the"
        f" {xdist['cpu_count']} CPUs busy on average (1-minute load average {xdist['load_average']:.2f} just"
        f" before the runs).\n   The target needs -n 4 <= {xdist['parallel_wall_needed_for_target']:.1f} s,"
        f" i.e. <= {xdist['parallel_wall_needed_for_target'] - xdist['parallel_floor_seconds']:.1f} s above"
        " the floor.\n   With all CPUs free: (agent + CPU of -n 0) / (floor + CPU(-n 4) /"
        f" {xdist['cpu_count']}) = {xdist['model_speedup_all_cores_free']:.2f}x."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip the xdist part and the 120k span")
    parser.add_argument("--cold-sample", nargs="+", metavar="SPAN AGENT [latent]", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.cold_sample:
        span_name, agent_name, *latent = arguments.cold_sample
        cold_sample(span_name, agent_name, latent == ["latent"])
        return
    quick = arguments.quick
    counter = default_counter()  # load the encoding before anything is timed
    load = os.getloadavg()[0]  # other work on the machine skews every timing below
    print(
        f"pytest-memorybench conversation benchmark ({'quick' if quick else 'full'}): python"
        f" {platform.python_version()}, {os.cpu_count()} CPUs, load average {load:.2f}, token counter"
        f" {counter.name}"
    )
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
        "load_average_at_start": round(load, 2),
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
