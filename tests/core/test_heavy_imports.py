"""Heavy imports on two threads: the run's warm-up thread and its event loop both import nltk.

Two threads that import packages importing each other can trip Python's import-lock deadlock
detection, and one of them then runs on with a half-initialised module.  Scores computed that way
were errors ("partially initialized module 'nltk'"), so `heavy_import` lets one thread at a time in.
"""

from __future__ import annotations

import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from pytest_memorybench.core.heavy import heavy_import


@pytest.fixture
def entangled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Two modules that import each other (as nltk's do): alpha, slow to start, reads beta's value."""
    (tmp_path / "mb_alpha.py").write_text(
        textwrap.dedent("""
        import sys, time
        sys.mb_beta_begun.wait(1)  # beta's thread is inside beta (never, when imports take turns)
        time.sleep(0.1)  # ... and waiting for alpha
        import mb_beta
        VALUE = mb_beta.VALUE
    """)
    )
    (tmp_path / "mb_beta.py").write_text(
        textwrap.dedent("""
        import sys
        sys.mb_beta_begun.set()
        import mb_alpha
        VALUE = 1
    """)
    )
    monkeypatch.setattr(sys, "mb_beta_begun", threading.Event(), raising=False)
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
    time.sleep(0.05)  # alpha is initialising when beta is asked for
    second = threading.Thread(target=run, args=("mb_beta",))
    second.start()
    first.join()
    second.join()
    return errors


def test_unguarded_imports_on_two_threads_see_a_half_initialised_module(entangled) -> None:
    import importlib

    errors = _import_both(importlib.import_module)
    assert errors, "alpha's thread should have met beta half-initialised by the other thread"


def test_heavy_imports_take_turns(entangled) -> None:
    assert _import_both(heavy_import) == []
    assert sys.modules["mb_alpha"].VALUE == 1
