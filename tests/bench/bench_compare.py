"""Benchmark of `--mb-compare`: ten runs of the 32k LTM suite, ten BEAM runs and (with LoCoMo's
published file in ../shared/reference) ten LoCoMo runs of 1,986 items, compared.

    python3 tests/bench/bench_compare.py

One real run of each (`recall`), then nine variants of it whose item scores are redrawn (seeded)
so that every pair differs; the comparison of ten runs has 45 pairs, each with a bootstrap
interval and a Wilcoxon test, and every row of the table an interval per run.  Timed twice: the
whole command (`python -m pytest --mb-compare ...`, start-up included) and the comparison alone
in-process (load, compare, write the page, the JSON and the figures).  Where Chromium is installed,
compare.html is opened in it and the time from navigation to its first page of questions is
taken (the page's own `data-questions-ms`), with the page's size.  Numbers go to
tests/bench/results/compare.json (git-ignored).
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from pytest_memorybench.reports.compare.comparison import compare  # noqa: E402
from pytest_memorybench.reports.compare.report import write_comparison  # noqa: E402
from pytest_memorybench.reports.compare.runs import load_runs  # noqa: E402
from tests.support.cdp import Browser  # noqa: E402

RUNS = 10
LOCOMO = ROOT.parent / "shared" / "reference" / "locomo" / "locomo10.json"
CASES = [("ltm-32k", ("--span=32k",)), ("beam", ("--mb-suite=beam",))]
if LOCOMO.exists():
    CASES.append(("locomo", ("--mb-suite=locomo", f"--mb-data=locomo={LOCOMO}")))


def page_ms(page: Path, profile: Path) -> int | None:
    """Navigation to the first page of questions, in headless Chromium; None without one."""
    binary = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if binary is None:
        return None
    browser = Browser(binary, profile)
    try:
        browser.open(page.as_uri())
        return int(browser.wait_for("document.body && document.body.dataset.questionsMs", timeout=120))
    finally:
        browser.close()


def real_run(folder: Path, *options: str) -> Path:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--memorybench",
            "--agent=recall",
            "-p",
            "no:randomly",
            "-q",
            f"--mb-output={folder}",
            *options,
        ],
        cwd=folder.parent,
        check=False,
        capture_output=True,
    )
    return folder


def variants(source: Path, into: Path) -> list[Path]:
    results = json.loads((source / "results.json").read_text())
    paths = [source]
    for index in range(1, RUNS):
        draw = random.Random(index)
        changed = json.loads(json.dumps(results))
        changed["run"]["agent"] = f"variant-{index}"
        for item in changed["items"]:
            if item["score"] is not None:
                item["score"] = round(min(1.0, max(0.0, item["score"] + draw.uniform(-0.3, 0.3))), 3)
                item["passed"] = item["score"] >= item["threshold"]
        folder = into / f"{source.name}-{index}"
        folder.mkdir()
        (folder / "results.json").write_text(json.dumps(changed))
        paths.append(folder)
    return paths


def main() -> None:
    figures: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as temporary:
        base = Path(temporary)
        for name, options in CASES:
            source = real_run(base / name, *options)
            paths = [str(path) for path in variants(source, base)]
            started = time.perf_counter()
            comparison = compare(load_runs(paths))
            write_comparison(base / f"{name}-comparison", comparison)
            inside = time.perf_counter() - started
            started = time.perf_counter()
            done = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "pytest",
                    "--mb-compare",
                    *paths,
                    f"--mb-output={base / (name + '-command')}",
                ],
                cwd=base,
                capture_output=True,
                text=True,
                check=False,
            )
            command = time.perf_counter() - started
            assert done.returncode == 0, done.stdout + done.stderr
            figures[name] = {
                "runs": len(paths),
                "items": len(comparison.shared),
                "pairs": len(comparison.pairs),
                "rows": sum(len(rows) for rows in comparison.tables.values()),
                "compare_seconds": round(inside, 2),
                "command_seconds": round(command, 2),
                "page_mb": round((base / f"{name}-comparison" / "compare.html").stat().st_size / 1e6, 1),
                "page_first_questions_ms": page_ms(
                    base / f"{name}-comparison" / "compare.html", base / "chromium"
                ),
            }
            print(f"{name}: {figures[name]}")
    out = ROOT / "tests" / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "compare.json").write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
