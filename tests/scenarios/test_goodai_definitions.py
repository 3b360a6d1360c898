"""GoodAI's published definition files run through our engine and scorers."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.scenarios.ltm.colours import SCENARIO as COLOURS
from pytest_memorybench.scenarios.ltm.goodai_definitions import load_goodai_definitions
from pytest_memorybench.suite import load_suite
from tests.support.goodai import write_goodai_folder
from tests.support.paths import REFERENCE as SHARED_REFERENCE
from tests.support.runs import results_in

REFERENCE = SHARED_REFERENCE / "goodai-ltm/data/tests/Benchmark 3 - 32k/definitions"


def test_a_goodai_folder_loads_as_a_suite(tmp_path: Path) -> None:
    write_goodai_folder(tmp_path)
    suite = load_suite(f"goodai-definitions={tmp_path}")
    assert suite.name == "goodai" and str(suite.span) == "4k"
    definitions = suite.definitions(0)
    assert [d.test_id for d in definitions] == ["colours[rep1]", "colours[rep2]"]
    generated = COLOURS.generate("ltm", {"colour_changes": 3}, 7, 1)
    assert definitions[0].script == generated.script and definitions[0].expected == generated.expected
    assert definitions[0].params == {"goodai_example": "0"}


def test_a_goodai_folder_runs_end_to_end(pytester: pytest.Pytester, tmp_path: Path) -> None:
    write_goodai_folder(pytester.path / "defs")
    for agent, outcomes in (("oracle", {"passed": 2}), ("null", {"failed": 2})):
        result = pytester.runpytest(
            "--memorybench",
            f"--agent={agent}",
            "--mb-suite=goodai-definitions=defs",
            "-p",
            "no:cacheprovider",
        )
        result.assert_outcomes(**outcomes)
    result.stdout.fnmatch_lines(["memorybench: agent null | judge local | span goodai=4k*"])


def test_a_folder_without_config_says_what_to_give(tmp_path: Path) -> None:
    with pytest.raises(
        UsageError, match="no config.yml there; give the 'definitions' folder of a GoodAI run"
    ):
        load_suite(f"goodai-definitions={tmp_path}")


@pytest.mark.skipif(not REFERENCE.is_dir(), reason="../shared/reference is not available")
@pytest.mark.parametrize(
    ("folder", "scenario"),
    [("Locations Directions", "ltm.locations_directions"), ("Spy Meeting", "ltm.spy_meeting")],
)
def test_a_published_scenario_folder_loads_its_three_repetitions(
    tmp_path: Path, folder: str, scenario: str
) -> None:
    shutil.copytree(REFERENCE / folder, tmp_path / folder)
    shutil.copy(REFERENCE / "config.yml", tmp_path / "config.yml")
    loaded = load_goodai_definitions(tmp_path)
    assert [(d.scenario, d.repetition) for d in loaded.definitions] == [(scenario, rep) for rep in (1, 2, 3)]


@pytest.mark.skipif(not REFERENCE.is_dir(), reason="../shared/reference is not available")
def test_the_published_colours_definitions(tmp_path: Path) -> None:
    shutil.copytree(REFERENCE / "Colours", tmp_path / "Colours")
    shutil.copy(REFERENCE / "config.yml", tmp_path / "config.yml")
    suite = load_suite(f"goodai-definitions={tmp_path}")
    assert str(suite.span) == "32k"
    first = suite.definitions(0)[0]
    assert [line.text for line in first.script][-1] == "What is my favourite colour?"
    assert [line.wait for line in first.script][:3] == [
        {"percentage_finished": 30.0},
        {"percentage_finished": 60.0},
        {"percentage_finished": 90.0},
    ]


@pytest.mark.skipif(not REFERENCE.is_dir(), reason="../shared/reference is not available")
def test_the_published_benchmark_3_runs_through_our_engine(pytester: pytest.Pytester) -> None:
    """All 33 tests of GoodAI's Benchmark 3 (11 scenarios × 3): the oracle passes every one, null none."""
    suite = f"--mb-suite=goodai-definitions={REFERENCE}"
    pytester.runpytest(
        "--memorybench", "--agent=oracle", "--span=isolated", suite, "-p", "no:cacheprovider"
    ).assert_outcomes(passed=33)
    pytester.runpytest(
        "--memorybench", "--agent=null", "--span=isolated", suite, "-p", "no:cacheprovider"
    ).assert_outcomes(failed=33)


# -- Benchmarks 1 and 2: the older formats ------------------------------------------------------

DEV = SHARED_REFERENCE / "goodai-ltm-dev/data/tests"
PUBLISHED_FOLDERS = [
    DEV / "Benchmark 1 - 1k Filler", DEV / "Benchmark 1 - 10k Filler", DEV / "Benchmark 2 - 1k Filler",
    DEV / "Benchmark 2 - 10k Filler", DEV / "Benchmark 3 - 1k", REFERENCE.parent,
    DEV / "Benchmark 3 - 32k (isolated)",
]  # fmt: skip


def test_a_benchmark_1_folder_reads_its_spacings_and_its_prose_expectation(tmp_path: Path) -> None:
    from tests.support.goodai import write_v1_folder

    write_v1_folder(tmp_path)
    suite = load_suite(f"goodai-definitions={tmp_path}")
    assert suite.report is not None and suite.report.notes == ()
    recall, quote = sorted(suite.definitions(0), key=lambda d: d.scenario)
    assert [line.wait for line in recall.script] == [{"tokens": 500}] * len(recall.script)
    # "after the next 4 statements": the reply to the 4th message after the instruction, whose own
    # reply is the first: the 5th.
    assert quote.expected == {
        "quote": "Boil the kettle before you need the tea.",
        "author": "Wilhelmina",
        "nth": 5,
    }
    # No memory span in the config: the longest test, with its waits, is the span.
    assert suite.span.tokens is not None and suite.span.tokens > 500 * len(recall.script)


def test_a_benchmark_2_prospective_memory_takes_its_quote_from_the_statement() -> None:
    from pytest_memorybench.scenarios.ltm.prospective_memory import SCENARIO as PROSPECTIVE

    raw = {
        "script": [
            "'Never trust a calm sea.' - Ottoline Parr",
            "Please recite the quote from Ottoline Parr in the 3rd new message after this one.",
        ],
        "is_question": [False, True],
        "waits": [
            {"tokens": 800, "time": 0, "percentage_finished": 0.0},
            {"tokens": 0, "time": 0, "percentage_finished": 0.0},
        ],
        "expected_responses": [
            "To complete the task, recite the quote from Ottoline Parr in the 3rd new message following this"
            " one."
        ],
    }
    definition = PROSPECTIVE.from_goodai(raw, "0", "goodai", 1)
    assert definition.expected == {"quote": "Never trust a calm sea.", "author": "Ottoline Parr", "nth": 4}
    assert definition.script[0].wait == {"tokens": 800}


def test_a_file_we_cannot_read_is_one_line_and_the_rest_runs(pytester: pytest.Pytester) -> None:
    from tests.support.goodai import write_v1_folder

    folder = pytester.path / "defs"
    write_v1_folder(folder)
    (folder / "Delayed Recall" / "1.def.json").write_text(
        '{"script": ["no waits of any kind"], "is_question": [false]}'
    )
    (folder / "Movies").mkdir()
    (folder / "Movies" / "0.def.json").write_text("{}")
    result = pytester.runpytest(
        "--memorybench",
        "--agent=oracle",
        "--mb-suite=goodai-definitions=defs",
        "-p",
        "no:cacheprovider",
        "-rs",
    )
    result.assert_outcomes(passed=2, skipped=1)
    result.stdout.fnmatch_lines(
        [
            "memorybench: goodai data: 3 definition files → 2 items",
            (
                "memorybench:   goodai: dataset folders no scenario reads, their definitions skipped: 1"
                " (*defs/Movies)"
            ),
            (
                "memorybench:   goodai: definition files we cannot read, their tests skipped: 1"
                " (*defs/Delayed Recall/1.def.json: not a Delayed Recall definition we can read"
                " (no 'waits' entry))"
            ),
            "SKIPPED ??? goodai::delayed_recall?rep2?: *1.def.json: not a Delayed Recall definition*",
        ]
    )
    assert "Traceback" not in result.stdout.str() and "INTERNALERROR" not in result.stdout.str()


# Benchmark 3 at 120k, 200k and 500k: the 32k definitions under each span's own config, as GoodAI
# published them (../shared keeps the configs, not three more copies of the definitions).
CONFIGS = REFERENCE.parents[3] / "configurations/published_benchmarks"
LONGER_SPANS = ["120k", "200k", "500k"]


# The default run reads one folder of each format (Benchmark 1, 2 and 3, the smallest); the e2e group
# every folder and span GoodAI published: each is two whole runs.
EACH_FORMAT = {"Benchmark 1 - 1k Filler", "Benchmark 2 - 1k Filler", "Benchmark 3 - 32k (isolated)"}


@pytest.mark.skipif(not DEV.is_dir(), reason="../shared/reference is not available")
@pytest.mark.parametrize(
    "folder",
    [
        folder if getattr(folder, "name", "") in EACH_FORMAT else pytest.param(folder, marks=pytest.mark.e2e)
        for folder in [*PUBLISHED_FOLDERS, *LONGER_SPANS]
    ],
    ids=lambda folder: getattr(folder, "name", f"Benchmark 3 - {folder}"),
)
def test_every_published_definitions_folder_runs(pytester: pytest.Pytester, folder: Path | str) -> None:
    """Benchmarks 1, 2 and 3 as GoodAI published them: the oracle passes them all, null none, no error
    line."""
    if isinstance(folder, str):
        span_config, folder = (
            CONFIGS / f"benchmark-v3-{folder}.yml",
            pytester.path / f"Benchmark 3 - {folder}",
        )
        shutil.copytree(REFERENCE, folder / "definitions")
        shutil.copyfile(span_config, folder / "definitions" / "config.yml")
    if not folder.is_dir():
        pytest.skip(f"{folder} is not in ../shared/reference")
    span = ["--span=isolated"] if "isolated" in folder.name else []
    for agent, mean in (("oracle", 1.0), ("null", 0.0)):
        result = pytester.runpytest(
            "--memorybench",
            f"--agent={agent}",
            *span,
            f"--mb-suite=goodai-definitions={folder / 'definitions'}",
            "-p",
            "no:cacheprovider",
            "--mb-output=run",
        )
        output = result.stdout.str()
        assert "ERROR" not in output and "cannot read" not in output, output
        totals = results_in(pytester.path / "run")["totals"]
        assert totals["mean"] == pytest.approx(mean), output
        shutil.rmtree(pytester.path / "run")
