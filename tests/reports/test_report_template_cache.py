"""report.html's templates are compiled once and kept in Jinja's cache of compiled templates; a
cache that cannot be made or written only means compiling them again, never a failed report."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from jinja2 import Environment, FileSystemBytecodeCache

from pytest_memorybench.reports import html


def _fresh_templates() -> Environment:
    """The report's templates as a new run's first report gets them (environment() is kept per process)."""
    return html.environment.__wrapped__()


def _cache_of(templates: Environment) -> FileSystemBytecodeCache:
    cache = templates.bytecode_cache
    assert isinstance(cache, FileSystemBytecodeCache)
    return cache


def _never_compiled(*args: Any, **kwargs: Any) -> None:
    raise AssertionError("compiled again although the cache holds it")


@pytest.fixture
def temporary_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The system's temporary directory, where the cache's folder is made, moved to `tmp_path`."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return tmp_path


def test_a_template_compiled_once_is_read_back_from_the_cache(
    temporary_directory: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _fresh_templates()
    folder = Path(_cache_of(first).directory)
    assert folder.parent == temporary_directory
    first.get_template("report.html.j2")
    written = sorted(folder.glob("__jinja2_*.cache"))
    assert len(written) == 1, "the page's compiled code, written on first use"
    again = _fresh_templates()
    monkeypatch.setattr(again, "compile", _never_compiled)
    assert again.get_template("report.html.j2").render is not None
    assert sorted(folder.glob("__jinja2_*.cache")) == written


def test_no_cache_folder_means_compiling_each_time(
    temporary_directory: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    not_a_folder = temporary_directory / "a-file"
    not_a_folder.write_text("")
    monkeypatch.setattr(tempfile, "tempdir", str(not_a_folder))
    templates = _fresh_templates()
    assert templates.bytecode_cache is None
    assert templates.get_template("report.html.j2") is not None


def test_a_cache_that_cannot_be_written_is_no_error(temporary_directory: Path) -> None:
    templates = _fresh_templates()
    folder = Path(_cache_of(templates).directory)
    shutil.rmtree(folder)  # gone after it was chosen: writing a compiled template fails
    assert templates.get_template("report.html.j2") is not None
    assert not folder.exists()
