"""Benchmarks of the episodic suite: book sizes, planning cost, and full runs of the short book.

    python3 tests/bench/bench_episodic.py [--quick]

Prints a report and writes the numbers to tests/bench/results/episodic.json (git-ignored).

1. Books.  For 20, 200 and 2,000 chapters (`--quick`: 20 and 200), seed 0, template writer: the
   book's tokens in the run's counter (cl100k_base when available; the paper's books have 10,397,
   102,870 and about 1M), the selected questions per events bin (the paper: 180/180/72/24/0 for its
   short book, 180/180/108/128/90 for its long one), and the time `contexts()` takes in a fresh
   process: planning events, questions and definitions, which also happens when the suite file is
   parsed (seed 0) and on every xdist worker.  Writing the prose is timed separately (`write`).
2. Runs.  The README's command on the short book for `oracle`, `null` and `recall`, each in a fresh
   pytest process with the local judge: wall seconds, items, and the summary metrics from
   results.json (Simple Recall, Chronological Awareness, mean score on empty-answer questions and
   on the rest).  A run's time includes pytest's start-up and the suite being generated twice.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
RESULTS = Path(__file__).parent / "results" / "episodic.json"

_PLAN = """
import json, sys, time
from collections import Counter
started = time.perf_counter()
from pytest_memorybench.scenarios.episodic.scenario import SCENARIO
from pytest_memorybench.scenarios.episodic.book import BookPlan, generated_book
from pytest_memorybench.core.tokens import default_counter
imported = time.perf_counter()
context = SCENARIO.contexts("episodic", {"chapters": CHAPTERS}, 0)[0]
planned = time.perf_counter()
book = generated_book(BookPlan(0, CHAPTERS))
document = book.document()
written = time.perf_counter()
counter = default_counter()
print(json.dumps({
    "import_seconds": round(imported - started, 3),
    "contexts_seconds": round(planned - imported, 3),
    "write_seconds": round(written - planned, 3),
    "tokens": counter.count(document),
    "counter": getattr(counter, "name", "?"),
    "questions": len(context.probes),
    "bins": dict(sorted(Counter(d.expected["bin"] for d in context.probes).items())),
}))
"""


def book_numbers(chapters: int) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-c", _PLAN.replace("CHAPTERS", str(chapters))],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_numbers(agent: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        run = Path(folder) / "run"
        command = [
            sys.executable,
            "-m",
            "pytest",
            "--memorybench",
            "--mb-suite",
            "episodic",
            f"--agent={agent}",
            "--mb-output",
            str(run),
            "-p",
            "no:cacheprovider",
            "-q",
        ]
        started = time.perf_counter()
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        wall = time.perf_counter() - started
        results = json.loads((run / "results.json").read_text())
    scenario = results["scenarios"]["episodic.book"]
    items = results["items"]
    return {
        "wall_seconds": round(wall, 2),
        "exit_code": done.returncode,
        "items": len(items),
        "passed": sum(1 for item in items if item["passed"]),
        "mean": scenario["mean"],
        "metrics": scenario.get("metrics"),
        "agent_seconds": round(sum(item["usage"]["seconds"] for item in items), 3),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="skip the 2,000-chapter book")
    args = parser.parse_args()
    report: dict[str, Any] = {"books": {}, "runs": {}}
    print("1. Books (template writer, seed 0)")
    for chapters in (20, 200) if args.quick else (20, 200, 2000):
        numbers = book_numbers(chapters)
        report["books"][chapters] = numbers
        print(
            f"  {chapters:>5} chapters: {numbers['tokens']:>9,} tokens ({numbers['counter']}),"
            f" {numbers['questions']} questions {numbers['bins']}; contexts()"
            f" {numbers['contexts_seconds']:.2f} s, prose {numbers['write_seconds']:.2f} s, imports"
            f" {numbers['import_seconds']:.2f} s"
        )
    print("2. Runs of the short book (local judge)")
    for agent in ("oracle", "null", "recall"):
        numbers = run_numbers(agent)
        report["runs"][agent] = numbers
        metrics = numbers["metrics"] or {}
        print(
            f"  {agent:>6}: {numbers['wall_seconds']:.1f} s wall, {numbers['passed']}/{numbers['items']}"
            f" passed, Simple Recall {metrics.get('simple_recall')}, Chronological Awareness"
            f" {metrics.get('chronological_awareness')}, empty-answer mean"
            f" {metrics.get('empty_answer_mean')}, rest {metrics.get('non_empty_mean')}"
        )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")
    print(f"numbers: {RESULTS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
