"""Heavy imports on two threads: the run's warm-up thread and its event loop both import nltk.

Two threads that import packages importing each other can trip Python's import-lock deadlock
detection, and one of them then runs on with a half-initialised module.  Scores computed that way
were errors ("partially initialized module 'nltk'"), so `heavy_import` lets one thread at a time in.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from pytest_memorybench.core.heavy import heavy_import

ALPHA = """
import importlib._bootstrap as bootstrap
import sys, time

def _waiting_for_alpha():
    for locks in list(bootstrap._blocking_on.values()):  # a lock, or from Python 3.12 a list of them
        for lock in locks if isinstance(locks, list) else [locks]:
            if getattr(lock, "name", None) == "mb_alpha":
                return True
    return False

sys.mb_alpha_begun.set()
if sys.mb_beta_begun.wait(sys.mb_beta_wait):  # beta's thread is inside beta (never, when imports take turns)
    deadline = time.monotonic() + 60  # only a guard against hanging: the wait ends with the event
    while not _waiting_for_alpha() and time.monotonic() < deadline:  # ... and waiting for alpha
        time.sleep(0.01)
import mb_beta
VALUE = mb_beta.VALUE
"""
BETA = """
import sys
sys.mb_beta_begun.set()
import mb_alpha
VALUE = 1
"""


@pytest.fixture
def entangled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest):
    """Two modules that import each other (as nltk's do): alpha, slow to start, reads beta's value.

    Each step waits for the one before it rather than for a time: alpha for beta's thread to be
    inside beta and then waiting for alpha, the second thread for alpha to have begun.  Where
    imports take turns beta never begins while alpha runs: alpha gives up on it after a second
    (`beta_wait`, the test's parameter), where they do not it waits as long as it takes."""
    (tmp_path / "mb_alpha.py").write_text(ALPHA)
    (tmp_path / "mb_beta.py").write_text(BETA)
    monkeypatch.setattr(sys, "mb_alpha_begun", threading.Event(), raising=False)
    monkeypatch.setattr(sys, "mb_beta_begun", threading.Event(), raising=False)
    monkeypatch.setattr(sys, "mb_beta_wait", request.param, raising=False)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield
    for name in ("mb_alpha", "mb_beta"):
        sys.modules.pop(name, None)


def _import_both(importer) -> list[BaseException]:
    errors: list[BaseException] = []

    def run(name: str) -> None:
        try:
            importer(name)
        except BaseException as error:  # noqa: BLE001 - the test reports what the thread met
            errors.append(error)

    first = threading.Thread(target=run, args=("mb_alpha",))
    first.start()
    assert sys.mb_alpha_begun.wait(60)  # type: ignore[attr-defined]  # alpha is initialising when beta is asked for
    second = threading.Thread(target=run, args=("mb_beta",))
    second.start()
    first.join()
    second.join()
    return errors


@pytest.mark.parametrize("entangled", [60.0], indirect=True)
def test_unguarded_imports_on_two_threads_see_a_half_initialised_module(entangled) -> None:
    import importlib

    errors = _import_both(importlib.import_module)
    assert errors, "alpha's thread should have met beta half-initialised by the other thread"


@pytest.mark.parametrize("entangled", [1.0], indirect=True)
def test_heavy_imports_take_turns(entangled) -> None:
    assert _import_both(heavy_import) == []
    assert sys.modules["mb_alpha"].VALUE == 1
