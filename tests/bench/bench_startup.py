"""Start-up of the main command: `pytest --memorybench --agent=null --span=isolated --collect-only`.

    python tests/bench/bench_startup.py [--runs 5]
    python tests/bench/bench_startup.py --runs 9 --python VENV/bin/python --tree OLD --tree NEW

Each run is a fresh `python -m pytest` process in an empty folder, timed wall to wall; the median
of `--runs` after one run that writes the bytecode caches (as a user's second run finds them; this
machine sets PYTHONDONTWRITEBYTECODE, which the benchmark lifts).

With `--tree` (two or more checkouts of the project, e.g. `git worktree add /tmp/old COMMIT`), the
main command runs in `--python`'s environment once per tree in turn, the tree first on PYTHONPATH,
so a machine's changing load falls on each alike; it prints each tree's median and its ratio to the
first's, and pytest's own part: the first tree's environment without `--memorybench`.  Without
it, three rows:

  installed   every pytest plugin installed here (this machine also has hypothesis, randomly, …)
  core        only the plugins a core install brings (pytest-memorybench's dependencies)
  pytest      the same plugins without memorybench: what pytest costs before we start
The difference of the last two is the plugin's own start-up: importing it, configuring the run,
generating and collecting the LTM suite.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from importlib.metadata import distribution, entry_points

COMMAND = [
    "--memorybench",
    "--agent=null",
    "--span=isolated",
    "--collect-only",
    "-q",
    "-p",
    "no:cacheprovider",
]


def _name(requirement: str) -> str:
    return re.split(r"[\s<>=!~;\[(]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def core_plugins() -> list[str]:
    """The pytest11 plugins (as `-p` module names) of pytest-memorybench's dependency closure."""
    wanted, queue = set(), ["pytest-memorybench"]
    while queue:
        name = queue.pop()
        if name in wanted:
            continue
        wanted.add(name)
        try:
            requires = distribution(name).requires or []
        except Exception:  # noqa: BLE001, S112 - an optional dependency not installed
            continue
        queue.extend(_name(r) for r in requires if "extra ==" not in r)
    plugins = [
        point.value
        for point in entry_points(group="pytest11")
        if point.dist is not None and _name(point.dist.name) in wanted
    ]
    return sorted(plugins)


def timed(arguments: list[str], environment: dict[str, str], runs: int) -> float:
    with tempfile.TemporaryDirectory() as folder:
        command = [sys.executable, "-m", "pytest", *arguments]
        subprocess.run(command, cwd=folder, env=environment, capture_output=True, check=False)  # caches
        seconds = []
        for _ in range(runs):
            started = time.perf_counter()
            done = subprocess.run(
                command, cwd=folder, env=environment, capture_output=True, text=True, check=False
            )
            seconds.append(time.perf_counter() - started)
            if done.returncode not in (0, 5):
                raise SystemExit(f"{' '.join(arguments)} failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return statistics.median(seconds)


PLUGINS_ALONE = "(pytest and its plugins, no --memorybench)"


def in_turn(
    python: str, trees: list[str], environment: dict[str, str], runs: int
) -> dict[str, tuple[float, float]]:
    """The main command's median wall and CPU seconds on each tree, the trees' runs taken in turn.

    CPU time (user + system, of the process and its children) is what the command itself costs;
    it moves little when other work shares the cores, where wall time moves a lot."""
    wall: dict[str, list[float]] = {tree: [] for tree in [*trees, PLUGINS_ALONE]}
    cpu: dict[str, list[float]] = {tree: [] for tree in wall}
    with tempfile.TemporaryDirectory() as folder:
        for index in range(runs + 1):  # the first round writes each tree's bytecode caches
            for tree in wall:
                alone = tree == PLUGINS_ALONE  # the first tree, without --memorybench: pytest's own part
                env = {**environment, "PYTHONPATH": trees[0] if alone else tree}
                arguments = ["--collect-only", "-q", "-p", "no:cacheprovider"] if alone else COMMAND
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                started = time.perf_counter()
                done = subprocess.run(
                    [python, "-m", "pytest", *arguments], cwd=folder, env=env, capture_output=True, text=True
                )
                elapsed = time.perf_counter() - started
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                if done.returncode not in (0, 5):
                    raise SystemExit(f"{tree} failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
                if index:
                    wall[tree].append(elapsed)
                    cpu[tree].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return {tree: (statistics.median(wall[tree]), statistics.median(cpu[tree])) for tree in wall}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--python", default=sys.executable, help="the environment's python (with --tree)")
    parser.add_argument("--tree", action="append", default=[], help="a checkout to time, repeatable")
    args = parser.parse_args()
    warm = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    if args.tree:
        medians = in_turn(args.python, args.tree, warm, args.runs)
        wall, cpu = medians[args.tree[0]]
        print(f"{'tree':<40} {'wall':>8} {'':>6} {'CPU':>8}")
        for tree, (seconds, used) in medians.items():
            print(f"{tree:<40} {seconds:6.2f} s {seconds / wall:5.2f}× {used:6.2f} s {used / cpu:5.2f}×")
        return
    alone = {**warm, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    plugins = core_plugins()
    ours = "pytest_memorybench.plugin"
    loaded = [flag for plugin in plugins if plugin != ours for flag in ("-p", plugin)]
    rows = {
        "installed": timed(COMMAND, warm, args.runs),
        "core": timed([*loaded, "-p", ours, *COMMAND], alone, args.runs),
        "pytest": timed([*loaded, "--collect-only", "-q", "-p", "no:cacheprovider"], alone, args.runs),
    }
    print(f"core plugins: {', '.join(plugins)}")
    for name, seconds in rows.items():
        print(f"{name:<10} {seconds:6.2f} s")
    print(f"{'plugin':<10} {rows['core'] - rows['pytest']:6.2f} s (core - pytest)")


if __name__ == "__main__":
    main()
