"""A store's run of two LTM scenarios (colours and name_list, three conversations each, isolated):
the products' end-to-end tests share it."""

from __future__ import annotations

import json
from typing import Any

import pytest


def two_scenarios(pytester: pytest.Pytester, agent: str) -> dict[str, Any]:
    """The run's results.json, asserted complete: its six items scored, none an error."""
    run = pytester.path / "run"
    result = pytester.runpytest(
        "--memorybench", "--span=isolated", "-k", "colours or name_list", "-p", "no:cacheprovider",
        f"--agent={agent}", f"--mb-output={run}",
    )  # fmt: skip
    results: dict[str, Any] = json.loads((run / "results.json").read_text())
    totals = results["totals"]
    assert not totals["errors"] and totals["max"] == 6, result.stdout.str()[-3000:]
    assert totals["store"]["ingest_ms_per_message"] > 0
    return results
