"""The package's folders are its layers: what each may import, no import cycles, public names where
documented.

Each subpackage's docstring says what it holds and which layers it may import; `MAY_IMPORT` is the
same rule, checked on every module-level import (imports for type checking and inside functions
are how a lower layer is handed something from above, and are left out).
"""

from __future__ import annotations

import ast
import importlib
import importlib.metadata
import io
import tokenize
from collections import defaultdict
from pathlib import Path

import pytest

import pytest_memorybench

PACKAGE = Path(pytest_memorybench.__file__).parent

# Top to bottom: a layer may import only layers after it here (`MAY_IMPORT` says which of them), never
# one before it but by an exception in `UPWARD`, named with its reason.
LAYERS = (
    "plugin",
    "pytest_integration",
    "judge_check",  # a tool beside the run: a judge against people's labels (--mb-judge-check)
    "reports",  # what a run left (results.json, its logs), never the run
    "runner",
    "rescore",  # other harnesses' answers as suites of loaded definitions
    "results",
    "suite",
    "scenarios",
    "conversation",
    "contract",  # what scenarios and the conversation share: neither imports the other for it
    "scoring",
    "judges",
    "agents",
    "models",
    "core",
    "local_model",
)
UPWARD: dict[tuple[str, str], str] = {}  # (layer, the layer above it it imports): why; at most 2
_BELOW_SUITE = {"scenarios", "conversation", "contract", "scoring", "judges", "agents", "models", "core"}
MAY_IMPORT: dict[str, set[str]] = {
    "plugin": {"pytest_integration"},
    "pytest_integration": {"judge_check", "reports", "runner", "rescore", "results", "suite", *_BELOW_SUITE},
    "judge_check": {"scoring", "judges", "core"},  # extracted items are scored as the scorers do
    "reports": {"results", "suite", *_BELOW_SUITE},
    "runner": {"rescore", "results", "suite", *_BELOW_SUITE},
    "rescore": {"suite", *_BELOW_SUITE},
    "results": {"scenarios", "conversation", "judges", "agents", "core"},  # a scenario's own summary
    "suite": {"scenarios", "contract", "scoring", "judges", "agents", "core"},
    "scenarios": {"conversation", "contract", "scoring", "judges", "agents", "core"},  # trivia: filler
    "conversation": {"contract", "judges", "agents", "models", "core"},  # scenarios are handed in
    "contract": {"scoring", "judges", "core"},  # a scorer's profile and judge
    "scoring": {"judges", "agents", "models", "core"},
    "judges": {"agents", "models", "core"},
    "agents": {"models", "core"},
    "models": {"core"},
    "core": set(),
    "local_model": set(),
}


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = ("pytest_memorybench", *path.relative_to(PACKAGE).with_suffix("").parts)
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _imports(path: Path, *, in_functions: bool) -> set[str]:
    """The package's modules that `path` imports: when it is imported, or (`in_functions`) at all,
    imports for type checking included."""
    names: set[str] = set()
    for node in ast.parse(path.read_text()).body:
        if not in_functions and isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue  # never runs: how a lower layer names a type from above
        if in_functions or isinstance(node, (ast.If, ast.Try)):
            found = ast.walk(node)
        else:
            found = iter([node])
        for sub in found:
            if isinstance(sub, ast.Import):
                names.update(alias.name for alias in sub.names)
            elif isinstance(sub, ast.ImportFrom) and sub.module:
                names.add(sub.module)
                names.update(f"{sub.module}.{alias.name}" for alias in sub.names)
    return {name for name in names if name.startswith("pytest_memorybench")}


def _graph(*, in_functions: bool = False) -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        imported = _imports(path, in_functions=in_functions)
        targets = {target for target in imported if target in modules and target != name}
        for target in list(targets):  # importing a.b.c imports a.b first
            parts = target.split(".")
            targets.update(
                ".".join(parts[:i]) for i in range(2, len(parts)) if not name.startswith(".".join(parts[:i]))
            )
        graph[name] = targets
    return graph


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_the_root_holds_at_most_eight_modules() -> None:
    modules = sorted(path.name for path in PACKAGE.glob("*.py"))
    assert len(modules) <= 8, modules


def test_every_subpackage_says_what_it_holds() -> None:
    for init in PACKAGE.rglob("__init__.py"):
        docstring = ast.get_docstring(ast.parse(init.read_text()))
        assert docstring and len(docstring.split()) >= 12, (
            f"{init.parent.relative_to(PACKAGE)}/ has no docstring saying what it holds"
        )


def test_no_layer_imports_one_above_it_but_those_named() -> None:
    upward = defaultdict(set)
    for module, targets in _graph().items():
        layer = _layer(module)
        if layer == "__init__":
            continue
        for target in targets:
            if _layer(target) not in (layer, "__init__") and _layer(target) not in MAY_IMPORT[layer]:
                upward[module].add(target)
    assert not upward, dict(upward)


def test_the_layers_run_one_way() -> None:
    """What a layer may import lies below it, but for at most two arrows back up, each with its
    reason; the package's folders and the layers are the same list."""
    packages = {path.name for path in PACKAGE.iterdir() if (path / "__init__.py").exists()}
    modules = {path.stem for path in PACKAGE.glob("*.py") if path.stem != "__init__"}
    assert set(LAYERS) == set(MAY_IMPORT) == packages | modules
    upward = {
        (layer, other)
        for layer, allowed in MAY_IMPORT.items()
        for other in allowed
        if LAYERS.index(other) < LAYERS.index(layer)
    }
    assert upward == set(UPWARD), upward ^ set(UPWARD)
    assert len(UPWARD) <= 2 and all(UPWARD.values())


def test_no_import_cycles_not_even_through_imports_inside_functions_or_for_types() -> None:
    """A cycle broken only by an import inside a function, or for type checking, is still two modules
    that need each other."""
    graph = _graph(in_functions=True)
    state: dict[str, int] = {}  # 1: on the path, 2: done

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(graph[module]):
            if state.get(target) == 1:
                pytest.fail("import cycle: " + " -> ".join([*path[path.index(target) :], target]))
            if target not in state:
                visit(target, [*path, target])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])


def test_the_documented_public_names_import() -> None:
    for name in pytest_memorybench.__all__:
        assert getattr(pytest_memorybench, name) is not None, name
    (entry_point,) = [
        ep for ep in importlib.metadata.entry_points(group="pytest11") if ep.name == "memorybench"
    ]
    assert entry_point.value == "pytest_memorybench.plugin"
    plugin = entry_point.load()
    assert callable(plugin.pytest_addoption)
    for module, names in {
        "pytest_memorybench.agents": (
            "Agent",
            "AgentAdapter",
            "AgentOptions",
            "AgentSpec",
            "build_agent",
            "parse_agent_spec",
        ),
        "pytest_memorybench.agents.mechanisms": ("MemorySystem", "Entry", "MemoryModel", "PromptRoom"),
        "pytest_memorybench.agents.reference": ("ExtractiveAgent", "NullAgent", "OracleAgent"),
        "pytest_memorybench.judges": ("Judge", "JudgeTask", "JudgeVerdict"),
        "pytest_memorybench.scoring": ("Score", "PROFILES"),
        "pytest_memorybench.local_model": ("main", "server_command", "start_server"),
    }.items():
        imported = importlib.import_module(module)
        assert all(hasattr(imported, name) for name in names), module


@pytest.mark.parametrize(
    "package", ["pytest_memorybench", "pytest_memorybench.agents", "pytest_memorybench.agents.reference"]
)
def test_every_name_a_package_exports_lazily_resolves(package: str) -> None:
    imported = importlib.import_module(package)
    for name in imported.__all__:
        assert getattr(imported, name) is not None, f"{package}.{name}"


def test_the_entry_point_holds_pytest_hooks_only() -> None:
    """Logic lives in the packages the plugin calls; `plugin.py` declares hooks and its parts."""
    tree = ast.parse((PACKAGE / "plugin.py").read_text())
    functions = [node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    assert functions and all(name.startswith("pytest_") for name in functions), functions
    assert not [node for node in tree.body if isinstance(node, ast.ClassDef)]


def test_the_folders_of_agents_name_their_kinds() -> None:
    kinds = sorted(path.name for path in (PACKAGE / "agents").iterdir() if (path / "__init__.py").exists())
    assert kinds == ["mechanisms", "reference", "stores"]  # the models they call are `models/`


def test_the_package_ships_its_type_hints() -> None:
    """PEP 561: without `py.typed` in the wheel, users' type checkers ignore the package's hints."""
    assert (PACKAGE / "py.typed").is_file()


def _logic_lines(path: Path) -> int:
    """Lines that hold code: no blank line, comment or docstring."""
    source = path.read_text()
    docstrings: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        body = getattr(node, "body", None)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body:
            first = body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                docstrings.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    code: set[int] = set()
    skipped = (
        tokenize.COMMENT,
        tokenize.NL,
        tokenize.NEWLINE,
        tokenize.INDENT,
        tokenize.DEDENT,
        tokenize.ENDMARKER,
    )
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in skipped:
            code.update(range(token.start[0], token.end[0] + 1))
    return len(code - docstrings)


@pytest.mark.parametrize("package", ["runner", "reports", "reports/compare", "conversation"])
def test_no_module_of_the_run_holds_two_ideas(package: str) -> None:
    """Past about 400 lines of logic a module usually holds two ideas (DEVELOPERS.md): split it."""
    sizes = {path.name: _logic_lines(path) for path in (PACKAGE / package).glob("*.py")}
    assert not {name: size for name, size in sizes.items() if size > 400}, sizes


def test_the_pytest_face_is_small_plugins() -> None:
    """pytest's habit, one plugin per concern: past about 250 lines of logic a module of the pytest
    face holds two (starting, finishing, an output, the terminal)."""
    sizes = {path.name: _logic_lines(path) for path in (PACKAGE / "pytest_integration").glob("*.py")}
    assert not {name: size for name, size in sizes.items() if size > 250}, sizes


def test_the_run_is_small_and_nothing_assigns_into_it() -> None:
    """`BenchmarkRun` drives; what a run is (`RunContext`), what it ended with (`OutcomeBook`) and
    how a group is driven (`drivers`) live apart, and the pytest face hands it things through its
    methods, never by assigning its attributes."""
    tree = ast.parse((PACKAGE / "runner" / "run.py").read_text())
    (run,) = [node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "BenchmarkRun"]
    assert (run.end_lineno or 0) - run.lineno + 1 < 150
    for path in (PACKAGE / "pytest_integration").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
            for target in targets:
                if isinstance(target, ast.Attribute) and "run" in ast.unparse(target.value).split("."):
                    pytest.fail(f"{path.name}:{node.lineno} assigns into the run: {ast.unparse(target)}")


def test_the_tests_mirror_the_package() -> None:
    """A folder of tests per package, named after it; the project-wide checks stay at the top."""
    tests = Path(__file__).parent
    folders = {path.name for path in tests.iterdir() if (path / "__init__.py").exists()}
    packages = {path.name for path in PACKAGE.iterdir() if (path / "__init__.py").exists()}
    assert folders - {"support", "bench"} <= packages, folders - packages
    assert {"runner", "reports", "results", "conversation", "models", "agents", "scenarios"} <= folders
