"""`--mb-concurrency auto` against one at a time, on SmolLM2 served by llama-cpp-python.

    python3 tests/bench/bench_local_concurrency.py [--repeat 1]

llama-cpp-python answers one request at a time; auto must find that and lose no time by it.  Each
run is a fresh `python -m pytest` process over LTM's colours and name_list at `--span=isolated`
(six tests, two conversations), SmolLM2 writing its replies at their own length as in a user's run
(no cap: with replies cut short, reading the prompt dominates, and the two conversations auto keeps
open at level 1 cost the server its cached prompt at every turn, 1.38x one at a time, measured when
this was a test).  Prints each level's wall time, the ratio auto / 1 and the level auto ended at.
Needs the `local-llm` extra.
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pytest_memorybench.local_model import MODEL_ALIAS, server_command, start_server


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _run(url: str, level: str, folder: Path) -> tuple[float, dict[str, object]]:
    command = [
        sys.executable, "-m", "pytest", "--memorybench", "-p", "no:cacheprovider", "-p", "no:randomly",
        f"--agent=openai:{MODEL_ALIAS}@{url}", "--span=isolated", "-k", "colours or name_list",
        f"--mb-concurrency={level}", f"--mb-output={folder}",
    ]  # fmt: skip
    started = time.perf_counter()
    subprocess.run(command, cwd=folder.parent, capture_output=True, check=False)
    seconds = time.perf_counter() - started
    providers = json.loads((folder / "results.json").read_text())["run"]["concurrency"]["providers"]
    return seconds, (providers[0] if providers else {})


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=1)
    options = parser.parse_args()
    port = _free_port()
    with start_server(server_command(port), f"http://127.0.0.1:{port}/v1") as server:
        with tempfile.TemporaryDirectory() as work:
            seconds: dict[str, list[float]] = {"1": [], "auto": []}
            for repeat in range(options.repeat):
                for level in seconds:
                    took, provider = _run(server.url, level, Path(work) / f"{level}-{repeat}")
                    seconds[level].append(took)
                    if level == "auto":
                        print(
                            f"auto ended at level {provider.get('level')}, changes {provider.get('changes')}"
                        )
    one, auto = statistics.median(seconds["1"]), statistics.median(seconds["auto"])
    print(f"one at a time {one:.1f} s, auto {auto:.1f} s: auto / 1 = {auto / one:.2f}")


if __name__ == "__main__":
    main()
