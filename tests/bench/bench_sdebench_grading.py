"""Speed benchmark: how long grading one sdebench task takes (pytest in a fenced child, no network).

    python tests/bench/bench_sdebench_grading.py [--data DIR] [--repeat 3]

Grades each task's HEAD module, its decided fix and every naive fix, each in a fresh temporary copy
(the verdict cache cleared before each, so every grade runs), and prints the seconds per grade:
median, 90th percentile and max, and how many grades fell on sde-bench's table (HEAD fails repro
and hidden; the fix passes all; each naive fix passes existing and repro and fails hidden).  The
issue's target: under 10 s per planted task on two cores.  `--data` reads a clone of
vectorize-io/sde-bench instead of our generator's tasks.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[2]))

from pytest_memorybench.scenarios.sdebench.generator import generated_tasks  # noqa: E402
from pytest_memorybench.scenarios.sdebench.grading import clear_cache, grade  # noqa: E402
from pytest_memorybench.scenarios.sdebench.published import load_published  # noqa: E402
from pytest_memorybench.scenarios.sdebench.task import Task  # noqa: E402

HEAD = {"existing": True, "repro": False, "hidden": False}
NAIVE = {"existing": True, "repro": True, "hidden": False}


async def _task(task: Task, repeat: int) -> tuple[list[float], bool]:
    seconds: list[float] = []
    on_table = True
    for _ in range(repeat):
        for module, wanted in [(task.bug, HEAD), (task.correct, None), *((n, NAIVE) for n in task.naive)]:
            clear_cache()
            verdict = await grade(task.files, module)
            seconds.append(verdict.seconds)
            on_table &= verdict.solved if wanted is None else verdict.layers == wanted
    return seconds, on_table


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    tasks = load_published(args.data).tasks if args.data else generated_tasks()
    every: list[float] = []
    off: list[str] = []
    for task in tasks:
        seconds, on_table = await _task(task, args.repeat)
        every += seconds
        if not on_table:
            off.append(task.id)
    every.sort()
    print(
        f"{len(tasks)} tasks, {len(every)} grades: median {statistics.median(every):.2f} s,"
        f" p90 {every[int(0.9 * (len(every) - 1))]:.2f} s, max {every[-1]:.2f} s"
    )
    print(
        f"on sde-bench's table: {len(tasks) - len(off)} of {len(tasks)}" + (f" (off: {off})" if off else "")
    )


if __name__ == "__main__":
    asyncio.run(main())
