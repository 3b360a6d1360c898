"""Reading sde-bench's repository (`--mb-data sdebench=DIR`, a clone of vectorize-io/sde-bench).

Its layout: `boltons-<name>/build.py` and `boltons-<name>/tasks/main/{task.json, regression_test.py,
hidden_test.py}` per task, its generator in `gen/`, the decoy chats in `gen/decoy_conversations.json`.
A planted task's `task.json` names the module, the layers' test files and the chats (one chat as a
list of turns, or an amended task's chats as a list of lists); the module's sources are not in the
task folder: its `build.py` takes them from the generator (`TRAP = TRAPS['<name>']`, writing
`TRAP["init"]`, `TRAP["bug"]` and `TRAP["existing_test"]`, and for a history task first
`TRAP["correct"]` under the decision commit).  So this reads them as `build.py` does: the trap's
name from `build.py`'s source (parsed, not run), the trap from `gen/traps.py` imported in a child
Python (`python -I`, the generator's folder on its path, nothing of ours) that prints the fields
used as JSON.

The host is boltons at 979fa9b with its ~1,600 real commits.  This machine cannot clone it, so the
planted tasks are graded on the planted package alone (their `build.py` deletes boltons' own tests
and grades only the module's), and the history delivered is the task's own commits (the decision,
the noise commit, the regression), without boltons' real history as noise.  The real-function
tasks (the policy on an edge of a real boltons function, graded by boltons' real test suite) and any
task whose `build.py` takes no trap need boltons' checkout: they are skipped, each with that reason.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.core.load_report import LoadReport, LoadTally
from pytest_memorybench.scenarios.sdebench.task import SOURCES, Commit, GradingFiles, Task, Turn

TASK_JSON = Path("tasks") / "main" / "task.json"
REQUIRED = ("task_id", "source", "module", "bug_report", "fail_to_pass", "pass_to_pass", "hidden_to_pass")
TRAP_FIELDS = ("pkg", "module", "init", "bug", "correct", "naive", "existing_test")
NEEDS_BOLTONS = (
    "needs boltons' own checkout at 979fa9b (git clone https://github.com/vectorize-io/boltons): a"
    " real-function task is graded by boltons' real test suite; not run here"
)
_DUMP_TRAPS = """
import json, sys
sys.path.insert(0, sys.argv[1])
from traps import TRAPS
fields = sys.argv[2].split(",")
print(json.dumps({name: {f: TRAPS[name].get(f) for f in fields} for name in sys.argv[3:] if name in TRAPS}))
"""


@dataclass
class Published:
    """What the repository held: the tasks that run, the skipped ones with why, the decoys."""

    tasks: list[Task]
    skipped: list[tuple[str, str]]
    decoys: list[tuple[str, list[tuple[str, str]]]]
    report: LoadReport = field(default_factory=lambda: LoadTally().report())


def load_published(path: str | Path) -> Published:
    """The tasks of an sde-bench clone at `path` (its root, holding the `boltons-*` folders)."""
    root = Path(path)
    folders = sorted(folder for folder in root.glob("*/") if (folder / TASK_JSON).is_file())
    if not folders:
        raise FileNotFoundError(f"no task folders (*/{TASK_JSON}) in {root}")
    tally = LoadTally()
    specs = [(folder, _task_json(folder)) for folder in folders]
    tally.held("tasks", len(specs))
    names = {folder: _trap_name(folder / "build.py") for folder, _ in specs}
    traps = _traps(root / "gen", sorted({name for name in names.values() if name}))
    tasks: list[Task] = []
    skipped: list[tuple[str, str]] = []
    for folder, spec in specs:
        task_id = str(spec["task_id"])
        name = names[folder]
        if spec.get("tier") == "real-function" or name is None:
            skipped.append((task_id, NEEDS_BOLTONS))
            tally.note("tasks that need boltons' own checkout, skipped", task_id)
            continue
        trap = traps.get(name)
        if trap is None:
            skipped.append((task_id, f"its trap {name!r} is not in {root / 'gen' / 'traps.py'}"))
            tally.note("tasks whose trap the generator does not define, skipped", task_id)
            continue
        tasks.append(_task(folder, spec, trap))
    decoys = _decoys(root / "gen" / "decoy_conversations.json", tally)
    return Published(tasks, skipped, decoys, tally.report())


def _task_json(folder: Path) -> JsonObject:
    data = json.loads((folder / TASK_JSON).read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{folder / TASK_JSON} is not a JSON object")
    missing = [key for key in REQUIRED if key not in data]
    if missing:
        raise ValueError(f"{folder / TASK_JSON} lacks {', '.join(missing)}")
    if data["source"] not in SOURCES:
        raise ValueError(
            f"{folder / TASK_JSON}: unknown source {data['source']!r} (known: {', '.join(SOURCES)})"
        )
    return data


def _trap_name(build: Path) -> str | None:
    """The trap `build.py` plants: the string in its `TRAPS['<name>']` (None: it plants no trap)."""
    if not build.is_file():
        return None
    for node in ast.walk(ast.parse(build.read_text(encoding="utf-8"), str(build))):
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name)
            and node.value.id == "TRAPS"
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, str)
        ):
            return node.slice.value
    return None


def _traps(generator: Path, names: list[str]) -> dict[str, JsonObject]:
    """The named traps' fields, from the generator imported in a child Python."""
    if not names:
        return {}
    if not (generator / "traps.py").is_file():
        raise FileNotFoundError(f"{generator / 'traps.py'} is missing: the planted tasks' modules live there")
    done = subprocess.run(
        [sys.executable, "-I", "-B", "-c", _DUMP_TRAPS, str(generator), ",".join(TRAP_FIELDS), *names],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=generator,
    )
    if done.returncode:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise ValueError(f"importing {generator / 'traps.py'} failed: {last}")
    found: dict[str, JsonObject] = json.loads(done.stdout)
    return found


def _task(folder: Path, spec: JsonObject, trap: JsonObject) -> Task:
    tests_dir = folder / "tasks" / "main"
    module = str(spec["module"])
    existing = [str(p) for p in spec["pass_to_pass"]]  # type: ignore[union-attr]
    repro = [str(p) for p in spec["fail_to_pass"]]  # type: ignore[union-attr]
    hidden = [str(p) for p in spec["hidden_to_pass"]]  # type: ignore[union-attr]
    tests = {path: str(trap["existing_test"]) for path in existing}
    regression = (tests_dir / str(spec.get("regression_test_file", "regression_test.py"))).read_text(
        encoding="utf-8"
    )
    held_out = (tests_dir / str(spec.get("hidden_test_file", "hidden_test.py"))).read_text(encoding="utf-8")
    tests.update({path: regression for path in repro})
    tests.update({path: held_out for path in hidden})
    package = str(trap["pkg"])
    source = str(spec["source"])
    return Task(
        id=str(spec["task_id"]),
        source=source,
        tier=str(spec.get("tier", "planted")),
        category=str(spec.get("category", "")),
        function=str(spec.get("function", "")),
        policy=str(spec.get("policy", "")),
        bug_report=str(spec["bug_report"]),
        bug=str(trap["bug"]),
        correct=str(trap["correct"]),
        naive=tuple(str(text) for text in trap.get("naive") or ()),  # type: ignore[union-attr]
        files=GradingFiles(
            module=module,
            sources={f"{package}/__init__.py": str(trap["init"]), "tests/__init__.py": ""},
            tests=tests,
            layers={"existing": existing, "repro": repro, "hidden": hidden},
        ),
        conversations=_chats(spec.get("conversations")),
        commits=_commits(spec, package, module),
        origin="published",
    )


def _chats(given: object) -> tuple[tuple[Turn, ...], ...]:
    """One chat (a list of turns) or several (a list of such lists), oldest first."""
    if not isinstance(given, list) or not given:
        return ()
    chats = given if isinstance(given[0], list) else [given]
    return tuple(
        tuple(
            Turn(str(turn.get("role", "user")), str(turn.get("text", "")))
            for turn in chat
            if isinstance(turn, dict)
        )
        for chat in chats
        if isinstance(chat, list)
    )


def _commits(spec: JsonObject, package: str, module: str) -> tuple[Commit, ...]:
    """The commits `build.py` plants on the host: the module's, and for a history task the decision
    (its `decision_subject` and `decision_rationale`), the noise commit and the regression."""
    planted = Commit(f"feat: add {package} module", "", "x")
    if spec["source"] != "history":
        return (planted,)
    stem = Path(module).stem
    return (
        Commit(str(spec.get("decision_subject", "")), str(spec.get("decision_rationale", "")), "Priya N."),
        Commit("docs: changelog housekeeping", "", "Priya N."),
        Commit(str(spec.get("cause_subject") or f"perf: simplify {stem}"), "", "Priya N."),
    )


def _decoys(path: Path, tally: LoadTally) -> list[tuple[str, list[tuple[str, str]]]]:
    if not path.is_file():
        tally.note("no gen/decoy_conversations.json: our decoy chats are used", shared=True)
        return []
    data = json.loads(path.read_text(encoding="utf-8"))
    decoys = [
        (
            str(item.get("topic", "")),
            [(str(t.get("role", "user")), str(t.get("text", ""))) for t in item.get("turns", [])],
        )
        for item in data
        if isinstance(item, dict)
    ]
    tally.held("decoy chats", len(decoys))
    return decoys


__all__ = ["NEEDS_BOLTONS", "Published", "load_published"]
