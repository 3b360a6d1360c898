"""A run starts without the heavy libraries it may never use, and without the scenarios it does not plan.

Configuring and collecting the main command imports no numpy, scipy (which bm25s pulls in), nltk or
rouge-score and loads no tiktoken encoding: each is imported, or loaded, where first used (the
token counter and the stopwords in a run's warm-up thread).  tests/bench/bench_startup.py times it.
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
PROBE = """
import json, sys
import pytest
pytest.main(["--memorybench", "--agent=null", "--span=isolated", "--collect-only", "-q",
             "-p", "pytest_memorybench.plugin", "-p", "no:cacheprovider"])
loaded = {name.partition(".")[0] for name in sys.modules} & set(json.loads(sys.argv[1]))
registry = sys.modules.get("tiktoken.registry")
scenarios = sorted(name for name in sys.modules if name.startswith("pytest_memorybench.scenarios."))
print("LOADED " + json.dumps({
    "modules": sorted(loaded),
    "encodings": sorted(getattr(registry, "ENCODINGS", {})),
    "families": sorted({name.split(".")[2] for name in scenarios}),
}))
"""


def test_configuring_and_collecting_an_ltm_run_imports_no_heavy_library(tmp_path: Path) -> None:
    environment = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}  # only our plugin is measured
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(HEAVY)],
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
