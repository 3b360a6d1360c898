"""Ctrl-C under load: the two SIGINT drills, run again and again while every core is busy.

    python3 tests/bench/bench_sigint.py [--times 20] [--background]

A user who presses Ctrl-C on a paid run must get the stop, the saved results and the resume line
every time.  This runs the failure table's "Ctrl-C during a run" drill and the interruption test's
SIGINT case `--times` times each, with one busy process per core started here for the whole
measurement, and prints how many passed.  `--background` starts each drill with SIGINT ignored, as
a shell script's `pytest … &` (or a CI runner) starts it: the plugin still stops on it.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DRILLS = {
    "failure table": ["tests/test_failure_table.py", "-k", "Ctrl-C"],
    "interruptions": [
        "tests/runner/test_interruptions.py",
        "-k",
        "test_a_signal_ends_the_run_cleanly and SIGINT",
    ],
}


def _busy(until: float) -> None:
    while time.monotonic() < until:
        pass


def _drill(arguments: list[str], background: bool) -> bool:
    def start() -> None:
        if background:
            signal.signal(signal.SIGINT, signal.SIG_IGN)

    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", *arguments]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, preexec_fn=start, check=False)
    return done.returncode == 0


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--times", type=int, default=20)
    parser.add_argument("--background", action="store_true", help="start each drill with SIGINT ignored")
    options = parser.parse_args()
    until = time.monotonic() + 24 * 3600
    load = [
        multiprocessing.Process(target=_busy, args=(until,), daemon=True) for _ in range(os.cpu_count() or 1)
    ]
    for process in load:
        process.start()
    try:
        for name, arguments in DRILLS.items():
            started = time.perf_counter()
            passed = sum(_drill(arguments, options.background) for _ in range(options.times))
            seconds = time.perf_counter() - started
            each = seconds / options.times
            print(f"{name}: {passed} of {options.times} passed under load ({each:.1f} s a drill)")
    finally:
        for process in load:
            process.terminate()


if __name__ == "__main__":
    main()
