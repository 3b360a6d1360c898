"""Every memory product on the same LoCoMo sample, side by side: the hosted ones against their loopback
servers, the in-process ones for real, all answered by the scripted model.

    python tests/bench/products_locomo.py [--out FOLDER] [--only STORE ...] [--locomo FILE --sample N]

The sample is the one the products' date test runs (tests/agents/test_store_dates.py): our LoCoMo
generator, seed 3, one conversation of four sessions, its questions; or, with `--locomo`, LoCoMo's
published file, `--sample` questions of it (200 in the stores' tables of docs/stores.md).  Each store
is set up as that test sets it up (its server, key and settings), and run whole in a process of its
own.  A row says what the store handed the answerer (evidence recall and precision at k), what it
kept, and whether any item was an error; against a loopback server the retrieval is the server's
word overlap, not the product's, so the rows check the adapters' terms (dates, sessions, k), not any
product's quality.
A store whose extra is not installed is listed as skipped.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from contextlib import ExitStack
from pathlib import Path
from tempfile import mkdtemp

import pytest

sys.path.insert(0, str(Path(__file__).parents[2]))

from pytest_memorybench.scenarios.locomo.generator import write_locomo  # noqa: E402
from tests.agents.test_store_dates import STORES  # noqa: E402
from tests.support.memory_model import scripted_memory_server  # noqa: E402
from tests.support.runs import results_in  # noqa: E402


def row(store: str, folder: Path, model_url: str, data: Path, sample: list[str]) -> str:
    with ExitStack() as stack, pytest.MonkeyPatch.context() as monkeypatch:
        try:
            settings, _server = STORES[store](stack, monkeypatch)
        except pytest.skip.Exception as skipped:
            return f"| {store} | skipped: {skipped} | | | | |"
        run = folder / store
        command = [
            sys.executable, "-m", "pytest", "--memorybench", "-q", "-p", "no:cacheprovider",
            "--mb-suite=locomo", f"--mb-data=locomo={data}", f"--mb-output={run}",
            f"--agent={store}{settings}:openai:fake-model@{model_url}", *sample,
        ]  # fmt: skip
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    if not (run / "results.json").exists():
        last = done.stdout.strip().splitlines()[-1:]
        return f"| {store} | no results (exit {done.returncode}): {last} | | | | |"
    totals = results_in(run)["totals"]
    evidence = totals.get("evidence_recall") or {}
    written = totals.get("written") or {}
    return (
        f"| {store} | {totals['mean']:.3f} | {evidence.get('mean', 0):.2f}"
        f" | {evidence.get('precision_mean') or 0:.2f} | {written.get('memories', '—')}"
        f" | {totals['errors']} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--locomo", type=Path, default=None, help="LoCoMo's published file")
    parser.add_argument("--sample", type=int, default=200, help="questions of it, with --locomo")
    options = parser.parse_args()
    folder = options.out or Path(mkdtemp(prefix="products-locomo-"))
    folder.mkdir(parents=True, exist_ok=True)
    if options.locomo:
        data, sample = options.locomo, ["--mb-sample", str(options.sample)]
    else:
        data, sample = write_locomo(folder / "data", seed=3, conversations=1, sessions=4)[0], []
    print("| store | mean | evidence recall@10 | precision@10 | memories kept | item errors |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    with scripted_memory_server() as (server, _script):
        for store in options.only or sorted(STORES):
            print(row(store, folder, server.openai_url, data, sample), flush=True)
    print(f"runs: {folder}")


if __name__ == "__main__":
    main()
