"""A run starts without the heavy libraries it may never use, and without the scenarios it does not plan.

Configuring and collecting the main command imports no numpy, scipy (which bm25s pulls in), nltk or
rouge-score and loads no tiktoken encoding: each is imported, or loaded, where first used (the
token counter and the stopwords in a run's warm-up thread).  Nor does it import what a run needs
only once it has begun or ended: the judges' rules and clients, the results and reports (jinja2 for
the HTML), the re-scoring of published results.  tests/bench/bench_startup.py times it.
"""

from __future__ import annotations

import json
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

from pytest_memorybench import scenarios
from pytest_memorybench.scenarios import BUILTIN_MODULES, SCENARIOS, defined_in

HEAVY = ("numpy", "scipy", "bm25s", "nltk", "rouge_score")
# Not at collection: each is imported when a run first scores, writes its results, or re-scores.
LATER = (
    "jinja2",
    "rapidfuzz",
    "pydantic",
    "openai",
    "anthropic",
    "httpx",
    "pytest_memorybench.judges.client",
    "pytest_memorybench.judges.local.",  # the rules; the package itself only names them
    "pytest_memorybench.results.build",
    "pytest_memorybench.results.breakdown",
    "pytest_memorybench.results.totals",
    "pytest_memorybench.results.judge_stats",
    "pytest_memorybench.rescore",
    "pytest_memorybench.reports.html",
    "pytest_memorybench.reports.markdown",
    "pytest_memorybench.reports.gate",
    "pytest_memorybench.reports.summary",
    "pytest_memorybench.reports.transcript",
    "pytest_memorybench.reports.exports",
    "pytest_memorybench.reports.compare",
)
PROBE = """
import json, sys
import pytest
pytest.main(["--memorybench", "--agent=null", "--span=isolated", "--collect-only", "-q",
             "-p", "pytest_memorybench.plugin", "-p", "no:cacheprovider"])
loaded = {name.partition(".")[0] for name in sys.modules} & set(json.loads(sys.argv[1]))
registry = sys.modules.get("tiktoken.registry")
scenarios = sorted(name for name in sys.modules if name.startswith("pytest_memorybench.scenarios."))
later = sorted(name for name in sys.modules if name.startswith(tuple(json.loads(sys.argv[2]))))
print("LOADED " + json.dumps({
    "modules": sorted(loaded),
    "later": later,
    "encodings": sorted(getattr(registry, "ENCODINGS", {})),
    "families": sorted({name.split(".")[2] for name in scenarios}),
}))
"""


def test_configuring_and_collecting_an_ltm_run_imports_no_heavy_library(tmp_path: Path) -> None:
    environment = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}  # only our plugin is measured
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(HEAVY), json.dumps(LATER)],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    line = next((line for line in done.stdout.splitlines() if line.startswith("LOADED ")), None)
    assert line is not None, done.stdout[-2000:] + done.stderr[-2000:]
    loaded = json.loads(line.removeprefix("LOADED "))
    assert "ltm::colours[rep1]" in done.stdout, done.stdout[-2000:]  # the run was collected
    assert loaded["modules"] == []
    assert loaded["later"] == [], "imported at collection, though only a run that began or ended needs it"
    assert loaded["encodings"] == []
    assert "ltm" in loaded["families"]
    assert not {"beam", "episodic", "locomo", "longmemeval", "membench"} & set(loaded["families"])


def test_the_registry_names_every_scenario_where_its_module_defines_it() -> None:
    """The registry's table, against every module of every family: a new scenario must be listed."""
    found = {
        scenario.name: module
        for family in pkgutil.iter_modules(scenarios.__path__)
        if family.ispkg
        for info in pkgutil.iter_modules([str(Path(scenarios.__path__[0]) / family.name)])
        for module in [f"{family.name}.{info.name}"]
        for scenario in defined_in(module)
    }
    assert found == BUILTIN_MODULES
    assert all(SCENARIOS[name].name == name for name in found)
