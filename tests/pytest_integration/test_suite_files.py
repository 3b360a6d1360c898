"""Suite files: the built-in `ltm` suite, user suites, and every way a suite file can be wrong."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest

from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.core.spans import ISOLATED, Span, parse_span
from pytest_memorybench.scenarios.ltm.colours import QUESTION
from pytest_memorybench.suite import Suite, SuiteEntry, builtin_suites, check_data_names, load_suite
from tests.support.runs import usage_error_line


def write_suite(tmp_path: Path, text: str, name: str = "my-suite.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def load_error(path: Path) -> str:
    with pytest.raises(UsageError) as excinfo:  # a scenario's parameters are checked as it generates
        load_suite(str(path)).generate(0)
    assert isinstance(excinfo.value, pytest.UsageError)
    return str(excinfo.value)


# --- built-in suite ------------------------------------------------------------------------------


def test_builtin_suites_include_ltm() -> None:
    suites = builtin_suites()
    assert "ltm" in suites
    assert suites["ltm"].name == "ltm.yaml"
    assert suites["ltm"].is_file()


PAPER_SCENARIOS = [
    "ltm.colours", "ltm.shopping", "ltm.locations_directions", "ltm.name_list", "ltm.jokes", "ltm.sallyanne",
    "ltm.prospective_memory", "ltm.trigger_response", "ltm.spy_meeting", "ltm.chapterbreak", "ltm.restaurant",
]  # fmt: skip


def test_builtin_ltm_suite_is_the_papers_standard_configuration() -> None:
    suite = load_suite("ltm")
    assert isinstance(suite, Suite)
    assert (suite.name, str(suite.span), suite.incompatible) == ("ltm", "32k", ())
    assert suite.description == "GoodAI LTM Benchmark, standard configuration"
    assert [entry.scenario for entry in suite.entries] == PAPER_SCENARIOS
    assert all(entry.repetitions == 3 and entry.threshold == 1.0 for entry in suite.entries)
    params = {entry.scenario: entry.params for entry in suite.entries}
    assert params["ltm.colours"] == {"colour_changes": 3} and params["ltm.shopping"] == {"item_changes": 6}
    assert params["ltm.name_list"] == {"name_changes": 5} and params["ltm.jokes"] == {"jokes_told": 4}
    assert params["ltm.locations_directions"] == {"known_locations": 6}
    assert params["ltm.sallyanne"] == {"question_type": "theory_of_mind"}
    assert suite.too_long_for("ltm.chapterbreak", parse_span("2k")) is not None
    assert suite.too_long_for("ltm.chapterbreak", parse_span("8k")) is None


def test_builtin_ltm_definitions() -> None:
    definitions = load_suite("ltm").definitions(0)
    assert len(definitions) == 33
    colours = [d for d in definitions if d.scenario == "ltm.colours"]
    assert [d.test_id for d in colours] == ["colours[rep1]", "colours[rep2]", "colours[rep3]"]
    for definition in colours:
        assert (definition.suite, definition.seed, definition.params) == ("ltm", 0, {"colour_changes": 3})
        assert len(definition.script) == 4  # three colour statements, then the question
        assert definition.questions == [QUESTION]
        assert definition.ideal_answers == (definition.expected,)
    skipped = [d.test_id for d in definitions if d.skip_reason]
    assert skipped == ["chapterbreak[rep1]", "chapterbreak[rep2]", "chapterbreak[rep3]"], "no --mb-data given"


def test_definitions_are_deterministic_per_seed() -> None:
    suite = load_suite("ltm")
    assert suite.definitions(7) == suite.definitions(7)
    assert {d.seed for d in suite.definitions(7)} == {7}


# --- user suite files ----------------------------------------------------------------------------


def test_user_suite_with_overrides(tmp_path: Path) -> None:
    path = write_suite(
        tmp_path,
        """\
        name: my_suite
        description: two flavours of colours
        span: 2k
        repetitions: 2
        threshold: 0.75
        incompatible: [[ltm.colours, ltm.colours]]
        scenarios:
          - ltm.colours
          - scenario: ltm.colours
            params:
              colour_changes: 5
            repetitions: 1
            threshold: 0.5
        """,
    )
    suite = load_suite(str(path))
    assert suite.name == "my_suite"
    assert suite.path == path
    assert suite.span == Span(2_000)
    assert suite.description == "two flavours of colours"
    assert suite.incompatible == (("ltm.colours", "ltm.colours"),)
    assert suite.entries == (
        SuiteEntry("ltm.colours", {}, repetitions=2, threshold=0.75),
        SuiteEntry("ltm.colours", {"colour_changes": 5}, repetitions=1, threshold=0.5),
    )
    definitions = suite.definitions(1)
    assert [d.test_id for d in definitions] == ["colours[rep1]", "colours[rep2]", "colours[rep1]"]
    assert [len(d.script) for d in definitions] == [4, 4, 6]
    assert [d.suite for d in definitions] == ["my_suite"] * 3


def test_minimal_user_suite_defaults(tmp_path: Path) -> None:
    path = write_suite(tmp_path, "name: tiny\nscenarios: [ltm.colours]\n")
    suite = load_suite(str(path))
    assert suite.span is ISOLATED
    assert suite.description == ""
    assert suite.entries == (SuiteEntry("ltm.colours", {}, repetitions=1, threshold=1.0),)
    assert [d.test_id for d in suite.definitions(0)] == ["colours[rep1]"]


@pytest.mark.parametrize(("value", "tokens"), [("120k", 120_000), ("1M", 1_000_000), ("500000", 500_000)])
def test_user_suite_span_forms(tmp_path: Path, value: str, tokens: int) -> None:
    path = write_suite(tmp_path, f"name: s\nspan: {value}\nscenarios: [ltm.colours]\n")
    assert load_suite(str(path)).span == Span(tokens)


# --- errors --------------------------------------------------------------------------------------


def test_invalid_yaml_names_the_file_and_line(tmp_path: Path) -> None:
    path = write_suite(tmp_path, "name: x\nscenarios: [ltm.colours\nspan: 2k\n")
    message = load_error(path)
    assert message.startswith(f"suite file {path}: invalid YAML at line 3 (")


def test_invalid_yaml_tab_indentation(tmp_path: Path) -> None:
    path = write_suite(tmp_path, "name: x\nscenarios:\n\t- ltm.colours\n")
    message = load_error(path)
    assert f"suite file {path}: invalid YAML at line 3" in message
    assert "\\t" in message


@pytest.mark.parametrize("text", ["- ltm.colours\n- ltm.colours\n", "just a string\n", "", "42\n"])
def test_not_a_mapping(tmp_path: Path, text: str) -> None:
    path = write_suite(tmp_path, text)
    assert load_error(path) == f"suite file {path}: expected a mapping with at least 'name' and 'scenarios'"


def test_unknown_top_level_key(tmp_path: Path) -> None:
    path = write_suite(tmp_path, "name: x\nscenarios: [ltm.colours]\nseeds: 3\nrepetition: 2\n")
    message = load_error(path)
    assert message.startswith(
        f"suite file {path}: unknown key 'repetition'; did you mean repetitions? (known: "
    )
    assert "scenarios" in message


@pytest.mark.parametrize("name_line", ["", "name: my suite\n", "name: 42\n", "name: 1st\n", "name: ''\n"])
def test_missing_or_invalid_name(tmp_path: Path, name_line: str) -> None:
    path = write_suite(tmp_path, name_line + "scenarios: [ltm.colours]\n")
    assert load_error(path) == f"suite file {path}: 'name' must be an identifier such as ltm or my_suite"


@pytest.mark.parametrize("scenarios", ["scenarios: []\n", "scenarios:\n", "", "scenarios: ltm.colours\n"])
def test_empty_or_missing_scenarios(tmp_path: Path, scenarios: str) -> None:
    path = write_suite(tmp_path, "name: x\n" + scenarios)
    assert load_error(path) == f"suite file {path}: 'scenarios' must be a non-empty list"


def test_scenario_item_without_a_name(tmp_path: Path) -> None:
    path = write_suite(tmp_path, "name: x\nscenarios:\n  - ltm.colours\n  - params: {colour_changes: 2}\n")
    assert load_error(path) == f"suite file {path}: scenarios item 2 needs a 'scenario' name"


def test_scenario_item_unknown_key(tmp_path: Path) -> None:
    path = write_suite(tmp_path, "name: x\nscenarios:\n  - scenario: ltm.colours\n    param: {}\n")
    assert load_error(path) == (
        f"suite file {path}: scenarios item 1: unknown key 'param'; did you mean params? (known: define,"
        " min_span, params, repetitions, scenario, threshold)"
    )


def test_scenario_params_not_a_mapping(tmp_path: Path) -> None:
    path = write_suite(tmp_path, "name: x\nscenarios:\n  - scenario: ltm.colours\n    params: [3]\n")
    assert load_error(path) == f"suite file {path}: scenarios item 1: 'params' must be a mapping"


def test_unknown_scenario_suggests_the_closest(tmp_path: Path) -> None:
    path = write_suite(tmp_path, "name: x\nscenarios: [ltm.colors]\n")
    message = load_error(path)
    assert message.endswith(
        "unknown scenario 'ltm.colors'; did you mean ltm.colours? (every scenario: the suites' pages of"
        " the docs)"
    )


def test_unknown_scenario_parameter_names_it_and_the_known_ones(tmp_path: Path) -> None:
    path = write_suite(tmp_path, "name: x\nscenarios:\n  - scenario: ltm.colours\n    params: {colours: 3}\n")
    message = load_error(path)
    assert "scenario ltm.colours" in message
    assert "unknown parameter 'colours'; did you mean colour_changes? (known: colour_changes)" in message


def test_yaml_numbers_and_dates_are_read_as_meant(tmp_path: Path) -> None:
    """`p: 1` is a float and an unquoted date is the text of that date, as the author meant."""
    text = (
        "name: x\nscenarios:\n  - scenario: episodic.book\n    params: {p: 1, start_date: 2024-02-01,"
        " end_date: 2024-06-30}\n"
    )
    with pytest.raises(
        UsageError,
        match=r"my-suite.yaml: scenario episodic.book: p must be strictly between 0 and 1, got 1.0$",
    ):
        load_suite(str(write_suite(tmp_path, text))).generate(0)
    text = text.replace("p: 1,", "p: 0.2,")
    (context,) = load_suite(str(write_suite(tmp_path, text))).generate(0).contexts.values()
    dates = {
        d.expected["answer"][0]
        for d in context.probes
        if d.expected["retrieval_type"] == "Times" and d.expected["answer"]
    }
    months = ("February", "March", "April", "May", "June")
    assert dates and all(date.startswith(months) and date.endswith(", 2024") for date in dates)


@pytest.mark.parametrize("value", ["'3'", "3.0", "true", "[3]"])
def test_wrong_scenario_parameter_type(tmp_path: Path, value: str) -> None:
    text = f"name: x\nscenarios:\n  - scenario: ltm.colours\n    params: {{colour_changes: {value}}}\n"
    path = write_suite(tmp_path, text)
    message = load_error(path)
    assert re.search(r"scenario ltm\.colours: parameter 'colour_changes' must be of type int, got ", message)


BAD_SCENARIO_FILES = {
    "unknown scenario": "name: x\nscenarios: [ltm.colors]\n",
    "unknown parameter": "name: x\nscenarios:\n  - scenario: ltm.colours\n    params: {colours: 3}\n",
    "wrong parameter type": (
        "name: x\nscenarios:\n  - scenario: ltm.colours\n    params: {colour_changes: '3'}\n"
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_SCENARIO_FILES))
def test_scenario_errors_name_the_file(tmp_path: Path, case: str) -> None:
    path = write_suite(tmp_path, BAD_SCENARIO_FILES[case])
    assert str(path) in load_error(path)


@pytest.mark.parametrize("value", [0, -2])
def test_non_positive_colour_changes_is_a_usage_error(tmp_path: Path, value: int) -> None:
    text = f"name: x\nscenarios:\n  - scenario: ltm.colours\n    params: {{colour_changes: {value}}}\n"
    path = write_suite(tmp_path, text)
    assert "colour_changes" in load_error(path)


@pytest.mark.parametrize(
    ("where", "value"),
    [("top", "1.5"), ("top", "-0.1"), ("top", "'high'"), ("top", "true"), ("entry", "1.5"), ("entry", "2")],
)
def test_threshold_out_of_range(tmp_path: Path, where: str, value: str) -> None:
    if where == "top":
        text = f"name: x\nthreshold: {value}\nscenarios: [ltm.colours]\n"
    else:
        text = f"name: x\nscenarios:\n  - scenario: ltm.colours\n    threshold: {value}\n"
    path = write_suite(tmp_path, text)
    message = load_error(path)
    assert message.startswith(f"suite file {path}: 'threshold' must be a number between 0 and 1, got ")


@pytest.mark.parametrize("value", [0, 1])
def test_threshold_bounds_are_allowed(tmp_path: Path, value: int) -> None:
    path = write_suite(tmp_path, f"name: x\nthreshold: {value}\nscenarios: [ltm.colours]\n")
    assert load_suite(str(path)).entries[0].threshold == float(value)


@pytest.mark.parametrize(
    ("where", "value", "shown"),
    [
        ("top", "0", "0"),
        ("top", "-1", "-1"),
        ("top", "2.5", "2.5"),
        ("top", "true", "True"),
        ("entry", "0", "0"),
    ],
)
def test_repetitions_must_be_positive_integers(tmp_path: Path, where: str, value: str, shown: str) -> None:
    if where == "top":
        text = f"name: x\nrepetitions: {value}\nscenarios: [ltm.colours]\n"
    else:
        text = f"name: x\nscenarios:\n  - scenario: ltm.colours\n    repetitions: {value}\n"
    path = write_suite(tmp_path, text)
    assert (
        load_error(path)
        == f"suite file {path}: 'repetitions' must be a whole number from 1 to 1000, got {shown}"
    )


@pytest.mark.parametrize("value", ["32x", "0", "-5k", "lots"])
def test_bad_span(tmp_path: Path, value: str) -> None:
    path = write_suite(tmp_path, f"name: x\nspan: {value}\nscenarios: [ltm.colours]\n")
    message = load_error(path)
    assert message.startswith(f"suite file {path}: 'span': ")
    assert f"{value!r} is not a memory span" in message


def test_bad_incompatible(tmp_path: Path) -> None:
    path = write_suite(tmp_path, "name: x\nincompatible: [ltm.colours]\nscenarios: [ltm.colours]\n")
    assert load_error(path) == f"suite file {path}: 'incompatible' must be a list of lists of scenario names"


def test_nonexistent_path_mentions_builtin_suites(tmp_path: Path) -> None:
    missing = tmp_path / "nope.yaml"
    message = load_error(missing)
    assert message == (
        f"--mb-suite {str(missing)!r}: no such file or built-in suite; "
        f"built-in suites: {', '.join(builtin_suites())}"
    )


def test_unknown_builtin_name_suggests_the_closest_and_points_to_the_list() -> None:
    with pytest.raises(
        UsageError, match=r"--mb-suite 'ltm2'.*did you mean ltm.*\(every built-in suite: the README's table\)"
    ):
        load_suite("ltm2")
    with pytest.raises(
        UsageError, match=r"--mb-suite 'locom': .*; did you mean locomo\? \(every built-in suite: "
    ):
        load_suite("locom")


def test_directory_is_not_a_suite_file(tmp_path: Path) -> None:
    assert "no such file" in load_error(tmp_path)


def test_a_scenario_can_sit_out_small_spans(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text("name: mine\nspan: 2k\nscenarios:\n  - scenario: ltm.colours\n    min_span: 8k\n")
    suite = load_suite(str(path))
    assert (
        suite.too_long_for("ltm.colours", parse_span("2k"))
        == "ltm.colours needs a span of at least 8k; this run's is 2k"
    )
    assert suite.too_long_for("ltm.colours", parse_span("32k")) is None
    assert suite.too_long_for("ltm.colours", parse_span("isolated")) is None


# --- data names ----------------------------------------------------------------------------------


def test_a_data_name_no_selected_suite_reads_is_refused_with_the_closest_it_does(
    pytester: pytest.Pytester,
) -> None:
    """A typo (`locomoo=`) would otherwise run the generated sample as if the data had been read."""
    data = pytester.path / "locomo10.json"
    data.write_text("[]", encoding="utf-8")
    common = ("--memorybench", "--agent=null", "-p", "no:cacheprovider")
    typo = pytester.runpytest(*common, "--mb-suite=locomo", f"--mb-data=locomoo={data}")
    assert usage_error_line(typo) == (
        "ERROR: --mb-data locomoo=…: no selected suite (locomo) reads data named 'locomoo'; did you mean"
        " locomo? (a scenario's name, its short name or its family; --mb-suite picks the"
        " suites)"
    )
    elsewhere = pytester.runpytest(*common, f"--mb-data=beam={data}")  # the default suite, ltm
    assert usage_error_line(elsewhere) == (
        "ERROR: --mb-data beam=…: no selected suite (ltm) reads data named 'beam'; the selected suites read"
        " chapterbreak (a scenario's name, its short name or its family; --mb-suite picks the suites)"
    )


def test_every_name_a_suite_reads_is_accepted_and_suggested_by_what_reads_data() -> None:
    locomo, membench, ltm = (load_suite(name) for name in ("locomo", "membench", "ltm"))
    assert {"locomo", "locomo.conversations", "conversations", "locomo_audit", "locomo_plus"} <= (
        locomo.data_names()
    )
    assert locomo.data_names(suggested=True) == {"locomo", "locomo_audit", "locomo_plus"}
    assert membench.data_names(suggested=True) == {"membench"}, "every scenario of the family reads data"
    assert ltm.data_names(suggested=True) == {"chapterbreak"} and "colours" in ltm.data_names()
    check_data_names(["membench", "participation", "membench.observation"], [membench])
    with pytest.raises(UsageError, match="did you mean membench"):
        check_data_names(["memebench"], [membench, ltm])


def test_a_run_continued_keeps_the_data_names_it_was_planned_with(pytester: pytest.Pytester) -> None:
    """A replay carries its run's data names from run.json: they are not refused again, even one
    no suite reads (a folder from before this check), while a name given anew is checked."""
    common = ("--memorybench", "-p", "no:cacheprovider", "-k", "colours")
    pytester.runpytest(*common, "--agent=recall", "--span=isolated", "--mb-output=first")
    manifest = pytester.path / "first" / "run.json"
    planned = json.loads(manifest.read_text(encoding="utf-8"))
    planned["data"] = {"locomoo": str(manifest)}
    del planned["provenance"]  # as a folder written before run.json recorded what it read
    manifest.write_text(json.dumps(planned), encoding="utf-8")
    replayed = pytester.runpytest(*common, "--mb-replay=first", "--mb-output=second")
    replayed.assert_outcomes(passed=3)
    again = pytester.runpytest(
        *common, "--mb-replay=first", "--mb-output=third", f"--mb-data=beam={manifest}"
    )
    assert "no selected suite (ltm) reads data named 'beam'" in usage_error_line(again)
