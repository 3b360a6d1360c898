"""A run starts without the heavy libraries it may never use: nltk (and the scipy.stats it pulls in)
is imported when LoCoMo first scores, not when the plugin loads and collects (2 s of every start)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

# seconds each (scipy.stats: 1.5 s); bm25s's scipy.sparse, a few ms, is issue 49's to move
HEAVY = ("nltk", "scipy.stats", "rouge_score")
PROBE = """
import json, sys
import pytest
pytest.main(["--memorybench", "--agent=null", "--span=isolated", "--collect-only", "-q",
             "-p", "pytest_memorybench.plugin", "-p", "no:cacheprovider"])
loaded = set(sys.modules) & set(json.loads(sys.argv[1]))
print("LOADED " + json.dumps(sorted(loaded)))
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
    loaded = next(line for line in done.stdout.splitlines() if line.startswith("LOADED "))
    assert json.loads(loaded.removeprefix("LOADED ")) == [], done.stdout[-2000:]
    assert "ltm::colours[rep1]" in done.stdout, done.stdout[-2000:]  # the run was collected
