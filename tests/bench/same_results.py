"""Are two runs' results.json the same, times aside?  A refactoring must leave every score, count
and label where it was: this prints each path where two files differ (or "same") and exits 1 on a
difference.

    python tests/bench/same_results.py BEFORE/results.json AFTER/results.json
    python tests/bench/same_results.py --run CHECKOUT_A CHECKOUT_B OUT   # the refactoring suites, both sides

`--run` runs each suite of the redesign's check (LTM 32k, LoCoMo sample, BEAM, MemBench,
MemoryAgentBench, ConvoMem, LongMemEval, episodic) with the `recall` agent in each checkout (its
own `pytest_memorybench` on PYTHONPATH), then compares them suite by suite.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

# What changes from one run to the next whatever the code: clocks, ids, the commit.
VOLATILE = {
    "id",
    "started",
    "finished",
    "commit",
    "seconds",
    "agent_seconds",
    "write_timing",
    "reply_timing",
    "latency",
    "wall_seconds",
    "elapsed",
}
SUITES = {
    "ltm-32k": ["--mb-suite=ltm", "--span=32k"],
    "locomo": ["--mb-suite=locomo"],
    "beam": ["--mb-suite=beam"],
    "membench": ["--mb-suite=membench"],
    "memoryagentbench": ["--mb-suite=memoryagentbench"],
    "convomem": ["--mb-suite=convomem"],
    "longmemeval": ["--mb-suite=longmemeval"],
    "episodic": ["--mb-suite=episodic"],
}


def _volatile(key: str) -> bool:
    return key in VOLATILE or key.endswith((" ms mean", " ms p95", "_ms", "_seconds"))


def differences(a: Any, b: Any, path: str = "") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        found = []
        for key in sorted(set(a) | set(b)):
            if _volatile(key):
                continue
            if key not in a or key not in b:
                found.append(f"{path}.{key}: only in {'after' if key not in a else 'before'}")
            else:
                found += differences(a[key], b[key], f"{path}.{key}")
        return found
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{path}: {len(a)} entries before, {len(b)} after"]
        return [
            d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in differences(x, y, f"{path}[{i}]")
        ]
    return [] if a == b else [f"{path}: {a!r} → {b!r}"]


def _run(checkout: Path, out: Path, options: list[str]) -> None:
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-q",
        "--tb=no",
        "--memorybench",
        "--agent=recall",
        "--mb-output",
        str(out),
        *options,
    ]
    subprocess.run(command, cwd=out.parent, env=env, stdout=subprocess.DEVNULL, check=False)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--run"]:
        before, after, out = (Path(p).resolve() for p in argv[1:4])
        failed = 0
        for suite, options in SUITES.items():
            for side, checkout in (("before", before), ("after", after)):
                (out / side).mkdir(parents=True, exist_ok=True)
                _run(checkout, out / side / suite, options)
            failed |= main(
                [str(out / side / suite / "results.json") for side in ("before", "after")] + [suite]
            )
        return failed
    a, b = (json.loads(Path(p).read_text()) for p in argv[:2])
    found = differences(a, b)
    label = argv[2] if len(argv) > 2 else argv[1]
    print(
        f"{label}: same ({len(a.get('items', []))} items)"
        if not found
        else f"{label}: {len(found)} differences"
    )
    for line in found[:40]:
        print("   ", line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
