"""Benchmark of `--mb-concurrency`: one process overlapping conversations while the agent "thinks".

    python3 tests/bench/bench_concurrency.py [--quick]
    python3 tests/bench/bench_concurrency.py --at-once 0.5 [--python PY] [--rounds N] TREE...

The agent is tests/bench/slow_agent.py: async, sleeps S seconds per reply, uses no CPU.  The suite
is LTM at `--span=isolated` without ChapterBreak (30 independent conversations, 179 replies).  For
S = 0.3 s and 1 s (`--quick`: 0.3 s only) and concurrency 1, 4 and 16, each run is a fresh
`python -m pytest` process, timed three ways:

  wall     the whole process, interpreter start-up and plugin import included (~4 s here);
  session  pytest's own "in N s" (collection, the run, the reports);
  drive    session minus the same command's collection alone (`--collect-only`): the time spent
           driving conversations, which is what concurrency can shorten.

Speed-up is against concurrency 1 on the same measure.  "CPU/reply" is the process's CPU time
(user + sys) beyond the collection-only run's, per agent reply: the harness's own cost.  Then the
same at S = 0.3 s with `-n 2` (two xdist workers, each overlapping its conversations), and the peak
RSS of 16 concurrent 32k conversations (`--span=32k --mb-conversations=16`, S = 0).  Numbers go to
tests/bench/results/concurrency.json (git-ignored).

`--at-once S` compares checkouts of the project (TREE..., e.g. `git worktree add /tmp/old COMMIT`):
in each, the same suite at concurrency 1 and 16 with replies of S seconds, whole processes timed
wall to wall and taken in turn, and the ratio of the two: what a user waits for one conversation at
a time against sixteen at once, start-up and reports included.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
AGENT = "--agent=tests.bench.slow_agent:make_agent"
SUITE = ("--span=isolated", "-k", "not chapterbreak")
# hypothesis (in the test extra, for our fuzz tests) imports itself in every session's terminal
# summary, about 0.6 s that pytest counts in its session time; a user's project need not have it.
BASE = (
    sys.executable,
    "-m",
    "pytest",
    "-q",
    "-p",
    "no:cacheprovider",
    "-p",
    "no:hypothesispytest",
    "--memorybench",
    AGENT,
)


def start(
    args: tuple[str, ...], seconds: float, folder: str, *, quiet: bool = False
) -> subprocess.Popen[str]:
    """One pytest process, its agent replying after `seconds`, its run folder in `folder`; its output
    read through a pipe, or thrown away when `quiet`."""
    env = {**os.environ, "SLOW_AGENT_SECONDS": str(seconds), "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [*BASE, *args, f"--mb-output={folder}/run"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL if quiet else subprocess.PIPE,
        stderr=subprocess.DEVNULL if quiet else subprocess.STDOUT,
        text=True,
    )


def run(args: tuple[str, ...], seconds: float) -> dict[str, float]:
    """One pytest process: wall time, pytest's session time, CPU time and peak RSS."""
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        output, _ = start(args, seconds, folder).communicate()
        wall = time.perf_counter() - started
        results = Path(folder) / "run" / "results.json"
        replies = json.loads(results.read_text())["totals"]["agent_calls"] if results.exists() else 0
    session = re.findall(r" in ([\d.]+)s", output)
    if not session:
        raise SystemExit(f"no pytest summary in the output of {args}:\n{output[-2000:]}")
    return {"wall": wall, "session": float(session[-1]), "replies": replies}


def measured(args: tuple[str, ...], seconds: float) -> dict[str, float]:
    """`run`, with CPU time and peak RSS from the child's resource usage."""
    before = os.times()
    result = run(args, seconds)
    after = os.times()
    result["cpu"] = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
    return result


def peak_rss_mb(args: tuple[str, ...]) -> float:
    """Peak resident memory of one pytest process, in MB (its own rusage, not the children's maximum)."""
    with tempfile.TemporaryDirectory() as folder:
        _, _, usage = os.wait4(start(args, 0, folder, quiet=True).pid, 0)
    return usage.ru_maxrss / 1024


def at_once(seconds: float, trees: list[str], python: str, rounds: int) -> None:
    """Concurrency 1 against 16 on each tree, whole processes, the trees taken in turn."""
    walls: dict[tuple[str, int], list[float]] = {}
    for _ in range(rounds):
        for tree in trees:
            for concurrency in (1, 16):
                env = {**os.environ, "SLOW_AGENT_SECONDS": str(seconds), "PYTHONPATH": tree}
                env.pop("PYTHONDONTWRITEBYTECODE", None)
                with tempfile.TemporaryDirectory() as folder:
                    command = [
                        python,
                        *BASE[1:],
                        *SUITE,
                        f"--mb-concurrency={concurrency}",
                        f"--mb-output={folder}/run",
                    ]
                    started = time.perf_counter()
                    subprocess.run(command, cwd=tree, env=env, capture_output=True, check=False)
                    walls.setdefault((tree, concurrency), []).append(time.perf_counter() - started)
    for tree in trees:
        one, sixteen = (min(walls[(tree, level)]) for level in (1, 16))
        print(
            f"{tree:<32} one at a time {one:6.1f} s  sixteen at once {sixteen:5.1f} s  {one / sixteen:5.2f}×"
        )


def main() -> None:
    if {"-h", "--help"} & set(sys.argv[1:]):
        print(__doc__)  # the modes and what each times: a bench started by --help would run for minutes
        return
    if "--at-once" in sys.argv:
        parser = argparse.ArgumentParser()
        parser.add_argument("--at-once", type=float, required=True, help="seconds a reply takes")
        parser.add_argument("--python", default=sys.executable)
        parser.add_argument("--rounds", type=int, default=1)
        parser.add_argument("trees", nargs="+")
        args = parser.parse_args()
        at_once(args.at_once, args.trees, args.python, args.rounds)
        return
    quick = "--quick" in sys.argv
    collect = measured((*SUITE, "--collect-only"), 0)
    report: dict[str, object] = {"collect_only": collect}
    print(
        f"collection alone: wall {collect['wall']:.1f} s, session {collect['session']:.1f} s, cpu"
        f" {collect['cpu']:.1f} s"
    )
    print(
        f"{'S':>5} {'conc':>4} {'wall':>7} {'session':>8} {'drive':>7} {'speed-up wall/session/drive':>29}"
        f" {'CPU/reply':>10}"
    )
    for seconds in (0.3,) if quick else (0.3, 1.0):
        rows = {}
        for concurrency in (1, 4, 16):
            row = measured((*SUITE, f"--mb-concurrency={concurrency}"), seconds)
            row["drive"] = row["session"] - collect["session"]
            row["cpu_per_reply_ms"] = 1000 * (row["cpu"] - collect["cpu"]) / max(1, row["replies"])
            rows[concurrency] = row
            serial = rows[1]
            speedups = [serial[key] / row[key] for key in ("wall", "session", "drive")]
            print(
                f"{seconds:>5} {concurrency:>4} {row['wall']:>6.1f}s {row['session']:>7.1f}s"
                f" {row['drive']:>6.1f}s {' / '.join(f'{s:4.1f}x' for s in speedups):>29}"
                f" {row['cpu_per_reply_ms']:>8.1f}ms"
            )
        report[f"S={seconds}"] = rows
    xdist = {}
    for concurrency in (1, 4, 16):
        row = measured((*SUITE, "-n", "2", f"--mb-concurrency={concurrency}"), 0.3)
        xdist[concurrency] = row
        print(
            f"  -n 2, concurrency {concurrency:>2}, S=0.3: wall {row['wall']:.1f} s, session"
            f" {row['session']:.1f} s"
        )
    report["xdist_n2"] = xdist
    rss = peak_rss_mb(
        ("--span=32k", "--mb-conversations=16", "--mb-concurrency=16", "-k", "not chapterbreak")
    )
    serial_rss = peak_rss_mb(
        ("--span=32k", "--mb-conversations=16", "--mb-concurrency=1", "-k", "not chapterbreak")
    )
    print(f"peak RSS, 16 conversations at 32k: {rss:.0f} MB concurrently, {serial_rss:.0f} MB one at a time")
    report["peak_rss_mb"] = {"concurrency_16": rss, "concurrency_1": serial_rss}
    out = ROOT / "tests" / "bench" / "results"
    out.mkdir(exist_ok=True)
    (out / "concurrency.json").write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
