"""Every memory system on one suite, with an answerer that reads its answer from the prompt.

    python tests/bench/memory_systems.py [--span 32k] [--context 4000] [--suite ltm] [MECHANISM ...]

Starts the scripted memory model (`tests/support/memory_model.py`) on a loopback port, runs
`pytest --memorybench --agent MECHANISM:openai:fake-model@URL --span SPAN --mb-context CONTEXT` for
each mechanism, and prints each one's mean, evidence recall (of its search, top 10, and of its
answering prompts), write and read calls and the run's time: what the docs' table of memory
systems shows.  The model answers with the
line of its prompt that best matches the question, so the scores say what each memory put in front
of it; a real model would do better or worse with the same prompts.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[2]))

from pytest_memorybench.agents.registry import MECHANISMS  # noqa: E402
from tests.support.llm_server import LLMServer  # noqa: E402
from tests.support.memory_model import MemoryModelScript, embeddings  # noqa: E402
from tests.support.runs import QUIET  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--span", default="32k")
    parser.add_argument("--context", default="4000")
    parser.add_argument("--suite", default="ltm")
    parser.add_argument("--embedder", default="lexical")
    parser.add_argument("mechanisms", nargs="*", default=list(MECHANISMS))
    args = parser.parse_args()
    rows = []
    with LLMServer() as server, tempfile.TemporaryDirectory() as folder:
        MemoryModelScript().install(server)
        server.routes[("POST", "/v1/embeddings")] = embeddings
        embedder = args.embedder.replace("URL", server.openai_url)
        for mechanism in args.mechanisms:
            output = Path(folder) / mechanism
            started = time.perf_counter()
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "pytest",
                    "--memorybench",
                    f"--agent={mechanism}:openai:fake-model@{server.openai_url}",
                    f"--mb-suite={args.suite}",
                    f"--span={args.span}",
                    f"--mb-context={args.context}",
                    f"--mb-embedder={embedder}",
                    f"--mb-output={output}",
                    "-q",
                    *QUIET,
                    "-n",
                    "0",
                ],
                capture_output=True,
                text=True,
                check=False,
            )
            seconds = time.perf_counter() - started
            results = json.loads((output / "results.json").read_text())
            totals = results["totals"]
            memory = totals.get("memory") or {}
            recall = totals.get("evidence_recall") or {}
            rows.append(
                (
                    mechanism,
                    totals["mean"],
                    totals["errors"],
                    recall.get("mean"),
                    recall.get("context_mean"),
                    memory.get("write", {}).get("calls", 0),
                    memory.get("read", {}).get("calls", 0),
                    seconds,
                )
            )
    print(
        f"{'mechanism':<20} {'mean':>6} {'errors':>6} {'search':>7} {'prompt':>7} {'write calls':>11}"
        f" {'read calls':>10} {'run s':>7}"
    )
    for name, mean, errors, search, prompt, writes, reads, seconds in rows:
        shown = ["-" if value is None else f"{value:.2f}" for value in (search, prompt)]
        print(
            f"{name:<20} {mean:>6.3f} {errors:>6} {shown[0]:>7} {shown[1]:>7} {writes:>11,} {reads:>10,}"
            f" {seconds:>7.1f}"
        )


if __name__ == "__main__":
    main()
