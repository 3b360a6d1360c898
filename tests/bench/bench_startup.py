"""Start-up of the main command: `pytest --memorybench --agent=null --span=isolated --collect-only`.

    python tests/bench/bench_startup.py [--runs 5]

Each run is a fresh `python -m pytest` process in an empty folder, timed wall to wall; the median
of `--runs` after one run that writes the bytecode caches (as a user's second run finds them; this
machine sets PYTHONDONTWRITEBYTECODE, which the benchmark lifts).  Three rows:
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    warm = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
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
