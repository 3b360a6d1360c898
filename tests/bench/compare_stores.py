"""The stores that run on this machine, side by side: the LTM suite at 32k and LoCoMo (a 200-question
sample), each store answered by the same model with the same k, then compared (`--mb-compare`).

    python tests/bench/compare_stores.py [--locomo PATH] [--out FOLDER] [--only STORE ...]
    LETTA_BASE_URL=http://localhost:8283 python tests/bench/compare_stores.py --only "letta(embedding_dim=64)"

The answering model is the test suite's scripted one (tests/support/memory_model.py): it answers
from the memories its prompt holds by word overlap, extracts what the user said where a product
asks it to (Mem0's extraction, Graphiti's entities and facts), and embeds by hashing words.  So
the table shows the shape of a real comparison — accuracy beside ingest and search latency,
context tokens and the store's own model calls — and how each store's retrieval serves an
extractive answerer; it is not any product's accuracy with a real model.  Each run's folder and
the comparison (compare.html, the board) are left in the output folder.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[2]))

from tests.support.memory_model import scripted_memory_server  # noqa: E402

LOCOMO = Path(__file__).resolve().parents[3] / "shared" / "reference" / "locomo" / "locomo10.json"
STORES = ["none", "bm25", "dense", "mem0(infer=false)", "mem0", "graphiti", "mcp", "langmem"]
SUITES = {
    "ltm-32k": ["--span=32k"],
    "locomo-200": ["--mb-suite", "locomo", "--mb-sample", "200"],
}


def run(store: str, suite: str, folder: Path, model_url: str, locomo: Path) -> float:
    """One store's run of one suite into `folder`; its wall time."""
    options = list(SUITES[suite])
    if suite.startswith("locomo"):
        options += ["--mb-data", f"locomo={locomo}"]
    command = [
        sys.executable, "-m", "pytest", "--memorybench", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
        f"--agent={store}:openai:fake-model@{model_url}", f"--mb-embedder=openai:fake-model@{model_url}",
        f"--mb-output={folder}", *options,
    ]  # fmt: skip
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    took = time.perf_counter() - started
    print(f"{suite:<11} {store:<18} exit {done.returncode} in {took:6.1f} s", flush=True)
    if done.returncode not in (0, 1):  # 1: some items failed, as a run with low scores does
        print(done.stdout[-2000:], done.stderr[-2000:], sep="\n")
    return took


def summary(folder: Path) -> str:
    """A line a store: what the scripted answerer made of its memories, and what the store did."""
    rows = [
        "| store | mean score | evidence recall@10 | precision@10 | evidence share | stale asserted / reached"
        " | ingest / message | search p50 / p95 | context tokens | store's model calls (tokens in) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for run in sorted(folder.iterdir()):
        totals = json.loads((run / "results.json").read_text())["totals"]
        store, recall, write = totals["store"], totals.get("evidence_recall") or {}, totals["memory"]["write"]
        search = f"{store['search_p50_ms']:.1f} / {store['search_p95_ms']:.1f} ms"
        tokens = store["context_tokens_per_answer"]  # None where the store answers itself (Letta)
        context = "—" if tokens is None else f"{tokens:.0f}"
        precision = "—" if recall.get("precision_mean") is None else f"{recall['precision_mean']:.2f}"
        share = "—" if recall.get("share_mean") is None else f"{recall['share_mean']:.0%}"
        stale = totals.get("stale_facts")
        stale_rates = (
            "—"
            if stale is None
            else f"{stale['asserted_rate']:.0%} / "
            + ("—" if stale["reached_rate"] is None else f"{stale['reached_rate']:.0%}")
        )
        rows.append(
            f"| {run.name} | {totals['mean']:.3f} | {recall.get('mean', 0):.2f} | {precision} | {share}"
            f" | {stale_rates} | {store['ingest_ms_per_message']:.1f} ms | {search} | {context}"
            f" | {write['calls']:,} ({write['input_tokens']:,}) |"
        )
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--locomo", type=Path, default=LOCOMO, help="LoCoMo's locomo10.json")
    parser.add_argument("--out", type=Path, default=Path("store-comparison"))
    parser.add_argument("--only", nargs="*", default=STORES, help="the stores to run")
    parser.add_argument("--suites", nargs="*", default=list(SUITES), choices=list(SUITES))
    args = parser.parse_args()
    if not args.locomo.is_file():
        args.suites = [suite for suite in args.suites if not suite.startswith("locomo")]
        print(f"no LoCoMo file at {args.locomo}: the LTM suite only (--locomo PATH)")
    if shutil.which("npx") is None and "mcp" in args.only:
        args.only = [store for store in args.only if store != "mcp"]
        print("no npx: the MCP reference server is left out")
    with scripted_memory_server() as (server, _):
        for suite in args.suites:
            for store in args.only:
                name = store.replace("(", "-").replace(")", "").replace("=", "-")
                run(store, suite, args.out / suite / name, server.openai_url, args.locomo)
    for suite in args.suites:
        table = args.out / f"{suite}.md"
        labels = [f"--mb-label={folder.name}" for folder in sorted((args.out / suite).iterdir())]
        compare = [f"--mb-compare={args.out / suite}", f"--mb-markdown={table}"]
        subprocess.run(
            [sys.executable, "-m", "pytest", "--memorybench", "-q", "-p", "no:cacheprovider", *labels,
             *compare, f"--mb-output={args.out / suite}-compared"],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        print(f"\n## {suite}\n\n{summary(args.out / suite)}\n\nThe board ({table}):\n")
        print(table.read_text() if table.exists() else "(no comparison)")


if __name__ == "__main__":
    main()
