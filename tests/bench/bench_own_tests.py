"""The project's own default `pytest`, as a contributor runs it: wall time, outcome and slowest tests.

    python tests/bench/bench_own_tests.py [--python PY] [--tree OLD] [--tree NEW]
    python tests/bench/bench_own_tests.py --busy 2 --passes 10

Each run is the README's test command (`python -m pytest`, the default run: every core, the slow
groups left out) in a tree of the project (a checkout, e.g. `git worktree add /tmp/old COMMIT`; the
tree first on PYTHONPATH), in `--python`'s environment.  It prints the wall time, pytest's last
line and the 20 slowest tests (pytest's `--durations=20`).  With several trees they run in turn,
so a machine's changing load falls on each alike.

`--busy N` runs N busy loops beside every run (a process each that only spins, as another job on
the machine would); `--passes K` runs it K times, stopping at the first that fails: no default test
may depend on how busy the machine is.  Exits 1 when a run fails.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SLOWEST = re.compile(r"\d+\.\d+s (call|setup|teardown) ")


def _spin() -> None:
    while True:
        pass


def run(tree: Path, python: str) -> tuple[bool, float, str, list[str]]:
    """(passed, wall seconds, pytest's last line, the slowest tests) of one default run in `tree`."""
    environment = {**os.environ, "PYTHONPATH": str(tree)}
    environment.pop("PYTHONDONTWRITEBYTECODE", None)  # a contributor's second run finds the caches
    started = time.perf_counter()
    done = subprocess.run(
        [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--durations=20"],
        cwd=tree,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - started
    lines = done.stdout.strip().splitlines()
    slowest = [line for line in lines if SLOWEST.match(line)]
    return done.returncode == 0, wall, lines[-1] if lines else done.stderr.strip()[-200:], slowest


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument(
        "--tree", action="append", type=Path, help="a checkout of the project (default: this one)"
    )
    parser.add_argument("--busy", type=int, default=0, help="busy loops beside each run")
    parser.add_argument("--passes", type=int, default=1, help="runs of each tree, stopping at a failure")
    args = parser.parse_args()
    trees = args.tree or [ROOT]
    loops = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(args.busy)]
    for loop in loops:
        loop.start()
    try:
        for number in range(1, args.passes + 1):
            for tree in trees:
                passed, wall, last, slowest = run(tree, args.python)
                print(f"{tree}  pass {number}  {wall:6.1f} s  {'passed' if passed else 'FAILED'}: {last}")
                if args.passes == 1 or not passed:
                    print("\n".join(f"    {line}" for line in slowest))
                if not passed:
                    return 1
                sys.stdout.flush()
    finally:
        for loop in loops:
            loop.terminate()
    return 0


if __name__ == "__main__":
    sys.exit(main())
