"""The `recall` baseline's cost against `null` on the same run: LoCoMo's whole file and LTM at three spans.

    python tests/bench/bench_recall.py [--locomo PATH] [--spans 32k,120k,500k]

Each run is a fresh `python -m pytest` process, timed wall to wall.  `null` answers without looking
at memory, so `recall − null` is what the baseline's memory costs (adding every message, a search
and a fork per question); divided by the run's items it is the cost per question, which must not
grow faster than the span does.  LoCoMo's file is read from `--locomo` (default: the reference
copy beside the repository, when present).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LOCOMO = ROOT.parent / "shared" / "reference" / "locomo" / "locomo10.json"


def timed(agent: str, arguments: list[str]) -> tuple[float, int]:
    """Wall seconds of one run and the number of items it scored."""
    with tempfile.TemporaryDirectory() as folder:
        command = [
            *(sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"),
            *("--memorybench", f"--agent={agent}", f"--mb-output={folder}/run", *arguments),
        ]
        started = time.perf_counter()
        subprocess.run(command, cwd=folder, capture_output=True, check=False)
        seconds = time.perf_counter() - started
        items = len(json.loads((Path(folder) / "run" / "results.json").read_text())["items"])
    return seconds, items


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locomo", type=Path, default=LOCOMO if LOCOMO.is_file() else None)
    parser.add_argument("--spans", default="32k,120k,500k")
    args = parser.parse_args()
    runs = {f"LTM {span}": [f"--span={span}"] for span in args.spans.split(",")}
    if args.locomo is not None:
        runs = {"LoCoMo (whole file)": ["--mb-suite=locomo", f"--mb-data=locomo={args.locomo}"], **runs}
    print(f"{'run':<22}{'items':>7}{'null':>9}{'recall':>9}{'ratio':>7}{'recall - null per item':>25}")
    for name, arguments in runs.items():
        null, items = timed("null", arguments)
        recall, _ = timed("recall", arguments)
        extra = (recall - null) / items * 1000
        print(f"{name:<22}{items:>7}{null:>8.1f}s{recall:>8.1f}s{recall / null:>7.2f}{extra:>22.2f} ms")


if __name__ == "__main__":
    main()
