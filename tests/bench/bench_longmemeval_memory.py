"""Memory benchmark: peak RSS of finding and delivering LongMemEval histories, file read whole
versus indexed.

    python3 tests/bench/bench_longmemeval_memory.py [--megabytes 300] [--questions 60]

LongMemEval's M file is 2.7 GB: 500 questions, each ~5 MB of history.  The loader reads a file one
question at a time, keeps each question's facts and where it starts, and reads a history again
when it is delivered.  This script writes a file of that shape from our generator (its filler
turns padded to reach `--megabytes`), then, each in a fresh Python process:

  whole    what the loader did before: `json.load` of the file, every history held;
  indexed  `SCENARIO.contexts` on the file (the loader), then every context's history streamed
           message by message, one context after the other, as a run delivers them.

Peak RSS is the process's `ru_maxrss`; "base" is the RSS after imports.  Results go to
tests/bench/results/longmemeval_memory.json (not to be committed).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
RESULTS = Path(__file__).resolve().parent / "results" / "longmemeval_memory.json"


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux


def write_file(path: Path, megabytes: int, questions: int) -> Path:
    """`questions` generated questions, each history padded to about megabytes/questions MB."""
    from pytest_memorybench.scenarios.longmemeval.generator import generate_entries

    per_question = megabytes * 1_000_000 // questions
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("[")
        for index in range(questions):
            entry = generate_entries(0, index // 7 + 1, filler_sessions=40)[index % 7]
            entry["question_id"] = f"{entry['question_id']}-{index}"
            filler = [
                turn
                for session in entry["haystack_sessions"]
                for turn in session
                if not turn.get("has_answer")
            ]
            size = len(json.dumps(entry))
            pad = " ".join(["a quiet line of filler about the weather and the week"] * 40)
            while size < per_question:
                for turn in filler:
                    turn["content"] += " " + pad
                size += len(filler) * (len(pad) + 1)
            handle.write(("," if index else "") + json.dumps(entry))
        handle.write("]")
    return path


def child(mode: str, data: str) -> dict[str, Any]:
    from pytest_memorybench.scenarios.longmemeval.data import entries_from
    from pytest_memorybench.scenarios.longmemeval.scenario import SCENARIO

    base = _peak_mb()
    started = time.perf_counter()
    messages = 0
    if mode == "whole":
        with open(data, encoding="utf-8") as handle:
            entries = entries_from(json.load(handle))
        messages = sum(len(session.turns) for entry in entries for session in entry.sessions())
    else:
        for context in SCENARIO.contexts("longmemeval", {"data_path": data}, seed=0):
            messages += sum(1 for _ in context.turns())
    return {
        "mode": mode,
        "base_mb": round(base, 1),
        "peak_mb": round(_peak_mb(), 1),
        "seconds": round(time.perf_counter() - started, 1),
        "messages": messages,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--megabytes", type=int, default=300)
    parser.add_argument("--questions", type=int, default=60)
    parser.add_argument("--child", nargs=2, metavar=("MODE", "DATA"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(*args.child)))
        return
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        data = write_file(Path(folder) / "longmemeval_m.json", args.megabytes, args.questions)
        file_mb = data.stat().st_size / 1e6
        for mode in ("whole", "indexed"):
            command = [sys.executable, __file__, "--child", mode, str(data)]
            done = subprocess.run(command, capture_output=True, text=True, check=True, cwd=ROOT)
            row = {"file_mb": round(file_mb, 1), **json.loads(done.stdout)}
            rows.append(row)
            print(
                f"{mode:8} file {row['file_mb']:7.1f} MB  base {row['base_mb']:6.1f} MB  peak"
                f" {row['peak_mb']:7.1f} MB  {row['seconds']:5.1f} s  {row['messages']} messages"
            )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(rows, indent=2) + "\n")


if __name__ == "__main__":
    main()
