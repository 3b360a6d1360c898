"""Every reader, fuzzed: whatever a file holds, reading it ends in a value or in one line (UsageError).

Files are valid ones of our own making, then mutated (cut short, bytes flipped, a value swapped
for any JSON, replaced whole by binary or deeply nested text), or generated outright.  A reader
that fails any other way (a traceback, an INTERNALERROR in a run) fails here.  The examples are
bounded and derandomized so CI stays fast and repeatable; `MB_FUZZ_EXAMPLES=2000` searches
longer, at random.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from pytest_memorybench.conversation.log_reader import read_conversations
from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.core.json_reply import extract_json
from pytest_memorybench.core.spans import parse_span
from pytest_memorybench.judges.base import TASK_KINDS
from pytest_memorybench.judges.replies import validate
from pytest_memorybench.reports.compare.comparison import compare
from pytest_memorybench.reports.compare.runs import load_runs
from pytest_memorybench.reports.transcript import EventIndex
from pytest_memorybench.rescore.goodai_results import ResultFileError, read_result
from pytest_memorybench.results.file import Baseline
from pytest_memorybench.runner.folder import load_definition, read_manifest
from pytest_memorybench.runner.settings import Settings
from pytest_memorybench.scenarios.beam.generator import plan_chat
from pytest_memorybench.scenarios.beam.writer import write_repository
from pytest_memorybench.scenarios.episodic.book import BookPlan, generated_book
from pytest_memorybench.scenarios.episodic.loader import save_book
from pytest_memorybench.scenarios.ltm.goodai_definitions import load_goodai_definitions
from pytest_memorybench.scenarios.membench.published import to_published
from pytest_memorybench.scenarios.membench.trajectory import generate_case
from pytest_memorybench.suite import load_suite
from tests.support.convomem import write_download
from tests.support.paths import FIXTURES
from tests.support.runs import QUIET

pytestmark = pytest.mark.fuzz

DEEP = int(os.environ.get("MB_FUZZ_EXAMPLES", "0"))  # e.g. 2000: a longer, random search, run by hand
FUZZ = settings(
    max_examples=DEEP or 30,
    deadline=None,
    derandomize=not DEEP,  # the same examples on every CI run
    phases=[Phase.explicit, Phase.generate, Phase.shrink],
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**12), 10**12)
    | st.floats(allow_nan=False)
    | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=12,
)


@st.composite
def mutations(draw: st.DrawFn, original: bytes) -> bytes:
    """`original` changed the ways files go wrong: cut short, bytes flipped, a value replaced, or gone."""
    kind = draw(st.sampled_from(["truncate", "flip", "value", "binary", "nested", "json"]))
    if kind == "truncate":
        return original[: draw(st.integers(0, max(len(original) - 1, 0)))]
    if kind == "flip":
        data = bytearray(original)
        for _ in range(draw(st.integers(1, 8))):
            if data:
                data[draw(st.integers(0, len(data) - 1))] = draw(st.integers(0, 255))
        return bytes(data)
    if kind == "value":
        return _replace_a_value(original, draw)
    if kind == "binary":
        return draw(st.binary(max_size=200))
    if kind == "nested":
        depth = draw(st.integers(100, 50_000))
        return (
            ("[" * depth + "]" * depth).encode()
            if draw(st.booleans())
            else ("a:\n" + "- " * depth + "x\n").encode()
        )
    return json.dumps(draw(json_values)).encode()


def _replace_a_value(original: bytes, draw: st.DrawFn) -> bytes:
    """Valid JSON of the wrong shape: one value somewhere in the document swapped for another."""
    try:
        document = json.loads(original)
    except ValueError:
        return original
    paths: list[tuple[Any, Any]] = []

    def walk(node: Any) -> None:
        children = (
            node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        )
        for key, child in children:
            paths.append((node, key))
            walk(child)

    walk(document)
    if not paths:
        return json.dumps(draw(json_values)).encode()
    parent, key = paths[draw(st.integers(0, len(paths) - 1))]
    parent[key] = draw(json_values)
    return json.dumps(document).encode()


def ends_in_one_line(read: Callable[[], Any], *errors: type[Exception]) -> None:
    """Run a reader: it returns, or raises one of `errors` (UsageError by default) with one line."""
    expected = errors or (UsageError,)
    try:
        read()
    except expected as exc:
        message = str(exc)
        assert message and "\n" not in message and len(message) < 1000, message


def mutate_one(folder: Path, pattern: str, draw: st.DrawFn) -> Path:
    files = sorted(path for path in folder.rglob(pattern) if path.is_file())
    target = files[draw(st.integers(0, len(files) - 1))]
    target.write_bytes(draw(mutations(target.read_bytes())))
    return target


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One valid file or folder of each kind, made by our own generators and a plain run."""
    root = tmp_path_factory.mktemp("pristine")
    save_book(generated_book(BookPlan(0, 6)), root / "book", {"writer": "template", "seed": 0})
    write_repository(plan_chat(20_000, seed=1), root / "beam", number=1)
    cases = [
        generate_case(f"g-{i}", "knowledge_update", seed=i, dialogue=True, target_tokens=800, related=4)
        for i in range(2)
    ]
    (root / "membench" / "FirstAgent").mkdir(parents=True)
    (root / "membench" / "FirstAgent" / "knowledge_update.json").write_text(
        json.dumps(
            {
                "events": [
                    to_published(c, dialogue=True, noise_inserted=False, tid=i) for i, c in enumerate(cases)
                ]
            }
        )
    )
    shutil.copy(FIXTURES / "chapterbreak_mini.json", root / "chapterbreak.json")
    write_download(root / "convomem")
    (root / "suite.yaml").write_text(
        "name: mine\nspan: 2k\nrepetitions: 2\nscenarios:\n  - scenario: ltm.colours\n    params: {}\n  -"
        " ltm.name_list\n"
    )
    return root


def fresh(pristine: Path, tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    if target.exists():
        shutil.rmtree(target) if target.is_dir() else target.unlink()
    source = pristine / name
    if source.is_dir():
        shutil.copytree(source, target)
    else:
        shutil.copy(source, target)
    return target


# -- suites, options, judge replies ------------------------------------------------------------------


@FUZZ
@given(data=st.data())
def test_suite_files(pristine: Path, tmp_path: Path, data: st.DataObject) -> None:
    path = fresh(pristine, tmp_path, "suite.yaml")
    path.write_bytes(data.draw(mutations(path.read_bytes())))
    ends_in_one_line(lambda: load_suite(str(path)))


@FUZZ
@given(
    text=st.text(max_size=40) | st.from_regex(r"\s*[0-9]{1,30}(\.[0-9]{0,5})?\s*[kKmMgG]?\s*", fullmatch=True)
)
def test_span_values(text: str) -> None:
    ends_in_one_line(lambda: parse_span(text))


numbers = st.none() | st.floats() | st.integers(-(10**30), 10**30).map(float)
counts = st.none() | st.integers(-(10**30), 10**30)
words = st.none() | st.text(max_size=30)


@FUZZ
@given(
    floats=st.fixed_dictionaries(
        {
            n: numbers
            for n in (
                "mb_threshold",
                "mb_max_cost",
                "mb_max_drop",
                "mb_max_scenario_drop",
                "mb_min_score",
                "mb_rpm",
                "mb_tpm",
            )
        }
    ),
    ints=st.fixed_dictionaries(
        {n: counts for n in ("mb_context", "mb_thinking", "mb_seed", "mb_max_requests")}
    ),
    texts=st.fixed_dictionaries(
        {n: words for n in ("mb_span", "mb_judge", "mb_profile", "mb_agent", "mb_shard")}
    ),
    timeout=st.floats() | st.integers(-(10**30), 10**30).map(float),
    conversations=st.integers(-(10**30), 10**30),
    concurrency=st.integers(-(10**30), 10**30),
    lists=st.fixed_dictionaries(
        {n: st.lists(st.text(max_size=30), max_size=2) for n in ("mb_price", "mb_data")}
    ),
)
def test_option_values(
    floats: dict[str, Any],
    ints: dict[str, Any],
    texts: dict[str, Any],
    timeout: float,
    conversations: int,
    concurrency: int,
    lists: dict[str, Any],
) -> None:
    """Any value of any option is settings, or one line naming the option (exit 4 in a run)."""
    option = SimpleNamespace(
        **floats,
        **ints,
        **texts,
        **lists,
        mb_timeout=timeout,
        mb_conversations=conversations,
        mb_concurrency=concurrency,
        mb_suite=None,
        mb_output=None,
        mb_resume=None,
        mb_replay=None,
        mb_rescore=None,
        mb_definitions=None,
        mb_baseline=None,
        mb_estimate=False,
    )
    option.mb_judge = option.mb_judge or "local"
    option.mb_profile = option.mb_profile or "paper"
    option.mb_seed = option.mb_seed or 0
    ends_in_one_line(lambda: Settings.from_options(option))


@FUZZ
@given(
    text=st.text(max_size=300)
    | json_values.map(json.dumps)
    | st.from_regex(r"```(json)?\s*[\[{].{0,50}", fullmatch=True)
)
def test_judge_replies(text: str) -> None:
    ends_in_one_line(lambda: extract_json(text), ValueError)


@FUZZ
@given(
    kind=st.sampled_from(TASK_KINDS),
    data=json_values,
    payload=st.dictionaries(
        st.sampled_from(["ground_truth", "predicted", "places", "menu", "drinks", "keywords"]),
        json_values,
        max_size=3,
    ),
)
def test_judge_verdicts(kind: str, data: Any, payload: dict[str, Any]) -> None:
    """What an LLM judge answered, parsed: a verdict, or the ValueError that makes the client ask again."""
    ends_in_one_line(lambda: validate(kind, data, payload), ValueError)


# -- data files of every family ----------------------------------------------------------------------


def read_data(folder: Path, scenario: str, path: Path) -> None:
    """Plan a suite that reads `path`, as `--mb-data` does, and deliver every context it made."""
    suite_file = folder / f"{scenario}.yaml"
    suite_file.write_text(
        f"name: data\nscenarios:\n  - scenario: {scenario}\n    params: {{data_path: '{path}'}}\n"
    )
    generated = load_suite(str(suite_file)).generate(0)
    for context in generated.contexts.values():
        list(context.turns())


@pytest.mark.parametrize(
    ("name", "scenario"),
    [
        ("book", "episodic.book"),
        ("beam", "beam.conversations"),
        ("membench", "membench.participation"),
        ("chapterbreak.json", "ltm.chapterbreak"),
        ("convomem", "convomem.user_facts"),
        ("convomem", "convomem.changing_facts"),
    ],
)
@FUZZ
@given(data=st.data())
def test_data_of_every_family(
    pristine: Path, tmp_path: Path, name: str, scenario: str, data: st.DataObject
) -> None:
    path = fresh(pristine, tmp_path, name)
    mutate_one(path, "*", data.draw) if path.is_dir() else path.write_bytes(
        data.draw(mutations(path.read_bytes()))
    )
    ends_in_one_line(lambda: read_data(tmp_path, scenario, path))


# -- run folders and results ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def run_folder(pristine: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run's folder (run.json, definitions, events.jsonl, results.json), from a real run."""
    folder = tmp_path_factory.mktemp("run") / "run"
    code = pytest.main(
        [
            "-q",
            *QUIET,
            "--memorybench",
            "--agent=recall",
            "--span=2k",
            "-k",
            "colours",
            f"--mb-output={folder}",
            f"--rootdir={folder.parent}",
            "-o",
            "addopts=",
        ]
    )
    assert code == pytest.ExitCode.OK
    return folder


@FUZZ
@given(data=st.data())
def test_run_manifests_and_definitions(run_folder: Path, tmp_path: Path, data: st.DataObject) -> None:
    folder = tmp_path / "copy"
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(run_folder, folder)
    (folder / ".lock").unlink(missing_ok=True)
    mutate_one(folder, "*.json", data.draw)
    from pytest_memorybench.core.records import TestDefinition

    definitions = [
        TestDefinition.from_dict(json.loads(p.read_text()))
        for p in sorted((run_folder / "definitions").rglob("*.json"))
    ]
    ends_in_one_line(lambda: read_manifest(folder))
    for definition in definitions:
        ends_in_one_line(lambda definition=definition: load_definition(folder, definition))


@FUZZ
@given(
    data=st.data(),
    lines=st.lists(st.binary(max_size=80) | json_values.map(lambda v: json.dumps(v).encode()), max_size=6),
)
def test_event_logs(run_folder: Path, tmp_path: Path, data: st.DataObject, lines: list[bytes]) -> None:
    """Events are never trusted: torn, corrupted, reordered or foreign lines are skipped, never fatal."""
    folder = tmp_path / "events"
    folder.mkdir(exist_ok=True)
    original = (run_folder / "events.jsonl").read_bytes().splitlines()
    kept = data.draw(st.permutations(original)) if data.draw(st.booleans()) else original
    mutated = data.draw(mutations(b"\n".join(kept)))
    (folder / "events.jsonl").write_bytes(mutated + b"\n" + b"\n".join(lines))
    read_conversations(folder)
    index = EventIndex([folder])
    index.refresh()
    for group in ("ltm", "x"):
        index.transcript(group, "ltm::colours[rep1]")


@FUZZ
@given(data=st.data())
def test_baselines(run_folder: Path, tmp_path: Path, data: st.DataObject) -> None:
    path = tmp_path / "baseline.json"
    path.write_bytes(data.draw(mutations((run_folder / "results.json").read_bytes())))
    ends_in_one_line(lambda: Baseline.load(str(path)))


@FUZZ
@given(data=st.data())
def test_compared_runs(run_folder: Path, tmp_path: Path, data: st.DataObject) -> None:
    """`--mb-compare` on a results.json beside a broken one: a comparison, or one line."""
    path = tmp_path / "other.json"
    path.write_bytes(data.draw(mutations((run_folder / "results.json").read_bytes())))
    ends_in_one_line(lambda: compare(load_runs([str(run_folder / "results.json"), str(path)])))


@FUZZ
@given(document=json_values, name=st.sampled_from(["0_0.json", "1.json", "x_y_z.json"]))
def test_published_goodai_results(tmp_path: Path, document: Any, name: str) -> None:
    path = tmp_path / name
    path.write_text(
        json.dumps(
            {"actual_responses": [], "score": 0, **document} if isinstance(document, dict) else document
        )
    )
    ends_in_one_line(lambda: read_result(path, "agent", "Colours"), ResultFileError)


GOODAI_DEFINITION = {
    "script": ["My favourite colour is teal.", "What is my favourite colour?"],
    "is_question": [False, True],
    "expected_responses": ["teal"],
    "waits": [{"tokens": 100}, {}],
}


@FUZZ
@given(data=st.data())
def test_goodai_definition_folders(tmp_path: Path, data: st.DataObject) -> None:
    folder = tmp_path / "definitions"
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "Colours").mkdir(parents=True)
    (folder / "config.yml").write_text(
        "datasets:\n  args:\n    memory_span: 2000\nconfig:\n  incompatibilities: []\n"
    )
    (folder / "Colours" / "0.def.json").write_text(json.dumps(GOODAI_DEFINITION))
    (folder / "Colours" / "1.def.json").write_text(json.dumps(GOODAI_DEFINITION))
    mutate_one(folder, "*[ly]*", data.draw)
    ends_in_one_line(lambda: load_goodai_definitions(folder))
