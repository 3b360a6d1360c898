"""What a run ran on, in its run.json, its results.json and its header: the data file's sha256 (the
one hashlib gives), its revision, the definitions, the judge, the platform and the package."""

from __future__ import annotations

import hashlib
import json
import platform
import shutil
from pathlib import Path

import pytest

import pytest_memorybench
from pytest_memorybench.core.digests import digest
from pytest_memorybench.core.environment import checkout_commit
from pytest_memorybench.judges.local import VERSION
from pytest_memorybench.runner.provenance import DataSource
from tests.support.paths import FIXTURES, REPO
from tests.support.runs import QUIET, run_benchmark

pytest_plugins = ["pytester"]

RUN = ("--agent=recall", "--span=isolated", "-k", "chapterbreak or colours")


@pytest.fixture
def data(pytester: pytest.Pytester) -> Path:
    """ChapterBreak's file as a user has it (a small one of our own), in the test's folder."""
    path = pytester.path / "chapterbreak.json"
    shutil.copy(FIXTURES / "chapterbreak_mini.json", path)
    return path


def test_run_json_and_results_json_record_what_the_run_ran_on(pytester: pytest.Pytester, data: Path) -> None:
    run = run_benchmark(pytester, *RUN, f"--mb-data=chapterbreak={data}@v1.2")
    planned = json.loads((run.folder / "run.json").read_text())["provenance"]
    recorded = run.results["run"]["provenance"]
    sha256 = hashlib.sha256(data.read_bytes()).hexdigest()
    expected_data = {
        "path": str(data.resolve()),
        "sha256": sha256,
        "bytes": data.stat().st_size,
        "files": 1,
        "folder": False,
        "revision": "v1.2",
    }
    assert recorded["data"] == planned["data"] == {"chapterbreak": expected_data}
    assert len(recorded["definitions"]) == 64 and recorded["definitions"] == planned["definitions"]
    assert recorded["judge"] == {
        "name": "local",
        "judge": "local",
        "jury": [],
        "repeats": 1,
        "band": False,
        "prompts": {},  # the local judge asks no prompt: its rules' version says what judged
        "local_version": VERSION,
    }
    assert recorded["platform"]["python"] == platform.python_version()
    assert recorded["package"] == {
        "version": pytest_memorybench.__version__,
        "commit": checkout_commit(REPO),  # this checkout's, read from its .git
    }
    assert (recorded["answer_prompts"], recorded["products"], recorded["models"]) == ({}, {}, {})
    assert (
        recorded["drift"] == []
        and run.results["run"]["seed"] == 0
        and run.results["run"]["profile"] == "paper"
    )
    run.outcome.stdout.fnmatch_lines(
        [f"memorybench: data chapterbreak=chapterbreak.json@v1.2 sha256 {sha256[:8]}… (4.1 kB)"]
    )


def test_a_run_that_reads_no_file_says_its_data_is_generated(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(
        "--memorybench", *QUIET, *RUN, "--mb-seed=3", "--collect-only", "--mb-output=plan"
    )
    result.stdout.fnmatch_lines(["memorybench: data generated from seed 3 (no --mb-data file read)"])


def test_a_data_folder_is_described_with_its_files(tmp_path: Path, data: Path) -> None:
    folder = tmp_path / "published"
    folder.mkdir()
    shutil.copy(data, folder / "1_evidence.json")
    shutil.copy(data, folder / "2_evidence.json")
    source = DataSource("convomem", str(folder), digest(folder), "a1b2c3d")
    assert (
        source.describe()
        == f"convomem=published@a1b2c3d sha256 {source.digest.sha256[:8]}… (2 files, 8.2 kB)"
    )
    assert source.to_json()["files"] == 2 and source.to_json()["folder"] is True
