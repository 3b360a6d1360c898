"""Benchmarks of the MemBench suite: generation cost, delivery cost, and the reference agents' numbers.

    python3 tests/bench/bench_membench.py [--quick] [--per-type N]

Prints a report and writes the numbers to tests/bench/results/membench.json; the run's event log goes
to a temporary folder.

1. Generation.  `contexts()` runs when a suite is parsed (seed 0) and again for the run, in every
   xdist worker, so it must stay cheap: wall time of both scenarios' `contexts()` at 10k and 100k
   tokens (5 questions per type), cold (first call in a fresh process, noise stream included,
   measured in a subprocess) and warm (median of 3 calls with another seed).  Also the time to
   render every turn of those trajectories (`turns()`), which happens only at delivery.
2. Agents.  The probe engine drives `recall`, `full-memory`, `recent-memory` and
   `retrieval-memory` through both scenarios (10k; with the default run also observation at 100k,
   the size of the paper's capacity study): accuracy, factual / reflective accuracy, recall@10,
   the capacity curves (tokens so far, tokens since the last evidence, share retained of what was
   answered right after the evidence) and where they collapse, read and write milliseconds, and the
   wall time of each agent's run.  `--per-type` sets questions per type (default 5, `--quick` 2).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from pytest_memorybench.agents.agent_build import build_agent
from pytest_memorybench.agents.agent_protocol import AgentAdapter
from pytest_memorybench.agents.spec import parse_agent_spec
from pytest_memorybench.contract.clock import SimulatedClock
from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.conversation.channel import AgentChannel
from pytest_memorybench.conversation.events import EventLog
from pytest_memorybench.conversation.probing import ProbeSession
from pytest_memorybench.conversation.stats import ScheduledTest
from pytest_memorybench.core.tokens import default_counter
from pytest_memorybench.scenarios import get_scenario

RESULTS = Path(__file__).resolve().parent / "results"
SCENARIOS = ("membench.participation", "membench.observation")
AGENTS = ("recall", "full-memory", "recent-memory", "retrieval-memory")
COLD = (
    "import time, sys; sys.path.insert(0, {root!r}); from pytest_memorybench.scenarios import get_scenario; "
    "t = time.perf_counter(); [get_scenario(n).contexts('membench', {params!r}, 0) for n in {names!r}]; "
    "print(time.perf_counter() - t)"
)


def generation(per_type: int, sizes: list[int]) -> dict[str, Any]:
    root = str(Path(__file__).resolve().parents[2])
    report: dict[str, Any] = {}
    for size in sizes:
        params = {"per_type": per_type, "target_tokens": size}
        cold = float(
            subprocess.run(
                [sys.executable, "-c", COLD.format(root=root, params=params, names=SCENARIOS)],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        )
        warm = []
        for seed in (1, 2, 3):
            started = time.perf_counter()
            contexts = [
                c for name in SCENARIOS for c in get_scenario(name).contexts("membench", params, seed)
            ]
            warm.append(time.perf_counter() - started)
        started = time.perf_counter()
        messages = sum(1 for context in contexts for _ in context.turns())
        render = time.perf_counter() - started
        report[str(size)] = {
            "questions": len(contexts),
            "cold_s": round(cold, 3),
            "warm_s": round(statistics.median(warm), 3),
            "render_s": round(render, 3),
            "messages": messages,
            "render_us_per_message": round(render / messages * 1e6, 2),
        }
        print(
            f"  {size:>7} tokens: {len(contexts)} questions, contexts() cold {cold:.2f} s, warm"
            f" {statistics.median(warm):.2f} s; rendering {messages:,} messages {render:.2f} s"
        )
    return report


async def drive(
    agent_name: str, scenario: str, params: dict[str, Any], log: EventLog
) -> list[dict[str, Any]]:
    records = []
    counter = default_counter()
    spec = parse_agent_spec(agent_name)
    for context in get_scenario(scenario).contexts("membench", params, 0):
        agent: AgentAdapter = build_agent(spec)
        channel = AgentChannel(
            agent, group=context.id, counter=counter, clock=SimulatedClock(datetime(2024, 1, 1)), log=log
        )
        session = ProbeSession(
            context,
            [ScheduledTest(d.test_id, d) for d in context.probes],
            channel,
            scoring=ScoringContext(),
            scenario_of=get_scenario,
        )
        for outcome in (await session.run()).values():
            records.append(
                {
                    "score": outcome.score.value,
                    "category": outcome.definition.category,
                    "details": outcome.details,
                }
            )
    return records


def agents(per_type: int, runs: list[tuple[str, int]]) -> dict[str, Any]:
    report: dict[str, Any] = {}
    # The event log of a full run is ~100 MB: a temporary file, never the repository tree.
    scratch = tempfile.TemporaryDirectory(prefix="membench-bench-")
    log = EventLog(Path(scratch.name) / "events.jsonl")
    try:
        for scenario, size in runs:
            params = {"per_type": per_type, "target_tokens": size, "capacity_points": 8}
            for name in AGENTS:
                started = time.perf_counter()
                records = asyncio.run(drive(name, scenario, params, log))
                wall = time.perf_counter() - started
                metrics = get_scenario(scenario).summarize(records)  # type: ignore[attr-defined]
                accuracy = sum(r["score"] for r in records) / len(records)
                key = f"{scenario.split('.')[1]} {size // 1000}k {name}"
                report[key] = {"accuracy": round(accuracy, 3), "wall_s": round(wall, 1), **metrics}
                curve = metrics.get("capacity", {}).get("curve", [])
                print(
                    f"  {key:<38} acc {accuracy:.3f} (F {metrics.get('factual accuracy', 0):.3f} / R"
                    f" {metrics.get('reflective accuracy', 0):.3f})  recall@10"
                    f" {metrics.get('recall@10', '-')}  collapse {metrics.get('capacity collapse tokens')} "
                    f" read {metrics.get('read ms mean')} ms  write {metrics.get('write ms mean')} ms "
                    f" {wall:.0f} s"
                )
                print("      curve " + " ".join(f"{x / 1000:.1f}k:{y:.2f}" for x, y in curve))
                after = metrics.get("capacity after evidence", {})
                print(
                    f"      after evidence (collapse {after.get('collapse_tokens')}) "
                    + " ".join(f"{x / 1000:.1f}k:{y:.2f}" for x, y in after.get("curve", []))
                )
                retained = metrics.get("capacity retained", {})
                print(
                    f"      retained, {retained.get('questions', 0)} questions (collapse"
                    f" {retained.get('collapse_tokens')}) "
                    + " ".join(f"{x / 1000:.1f}k:{y:.2f}" for x, y in retained.get("curve", []))
                )
    finally:
        log.close()
        scratch.cleanup()
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10k only, 2 questions per type")
    parser.add_argument("--per-type", type=int, default=None)
    args = parser.parse_args()
    per_type = args.per_type or (2 if args.quick else 5)
    RESULTS.mkdir(exist_ok=True)
    print(f"token counter: {default_counter().name}")
    print("1. generation")
    sizes = [10_000] if args.quick else [10_000, 100_000]
    report: dict[str, Any] = {"generation": generation(5, sizes)}
    print(f"2. agents ({per_type} questions per type)")
    runs = [(scenario, 10_000) for scenario in SCENARIOS] + (
        [] if args.quick else [("membench.observation", 100_000)]
    )
    report["agents"] = agents(per_type, runs)
    report["when"] = datetime.now(timezone.utc).isoformat()
    (RESULTS / "membench.json").write_text(json.dumps(report, indent=2) + "\n")
    print(f"written: {RESULTS / 'membench.json'}")


if __name__ == "__main__":
    main()
