"""Every third-party module the package imports comes from a requirement pyproject declares.

A module another package happens to pull in works on the machine that has that package's current
release and breaks on a new user's when the release changes (openai 3.57 swapped httpx for httpx2,
and `import httpx` failed in every fresh install).  The package's imports are read from its source
(plain imports and the names it imports by string: `heavy_import`, `import_module`, `find_spec`,
`require_package`), and matched to distributions through the installed distributions' metadata.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest

import pytest_memorybench

PACKAGE = Path(pytest_memorybench.__file__).parent
# Calls that import the module named by a string literal, and the argument that names it.
IMPORTS_BY_NAME = {"heavy_import": 0, "import_module": 0, "find_spec": 0, "require_package": 1}


def _normalised(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _called(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _imports(tree: ast.AST) -> Iterator[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module
        elif isinstance(node, ast.Call) and _called(node) in IMPORTS_BY_NAME:
            position = IMPORTS_BY_NAME[_called(node)]
            if len(node.args) > position:
                argument = node.args[position]
                if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
                    yield argument.value


def third_party_imports() -> dict[str, set[str]]:
    """Top-level module -> the package's files that import it (outside the standard library)."""
    found: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for name in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            top = name.split(".")[0]
            if top and top not in sys.stdlib_module_names and top != PACKAGE.name:
                found.setdefault(top, set()).add(str(path.relative_to(PACKAGE.parent)))
    return found


def declared() -> set[str]:
    """Every distribution pytest-memorybench's installed metadata requires, in its core or any extra."""
    requirements = metadata.requires("pytest-memorybench") or []
    names = {_normalised(re.match(r"[A-Za-z0-9._-]+", line).group()) for line in requirements}  # type: ignore[union-attr]
    return names - {"pytest-memorybench"}


def test_the_scan_sees_plain_and_by_name_imports() -> None:
    tree = ast.parse(
        "import a.b\nfrom c import d\nfrom . import e\n"
        "heavy_import('f.g')\nimportlib.import_module('h')\nrequire_package('store', 'i')\n"
    )
    assert sorted(_imports(tree)) == ["a.b", "c", "f.g", "h", "i"]
    scanned = third_party_imports()
    assert {"openai", "scipy", "nltk", "rouge_score", "bm25s", "llama_cpp"} <= set(scanned)
    assert "ssl" not in scanned and PACKAGE.name not in scanned


def test_every_installed_import_is_a_declared_requirement() -> None:
    providers = metadata.packages_distributions()
    wanted = declared()
    undeclared = {
        module: sorted(files)
        for module, files in third_party_imports().items()
        if module in providers and not {_normalised(dist) for dist in providers[module]} & wanted
    }
    listed = "; ".join(
        f"{name} ({', '.join(files)}; {providers[name]})" for name, files in sorted(undeclared.items())
    )
    assert not undeclared, f"imported and installed, but no declared requirement provides: {listed}"


def _installed(name: str) -> bool:
    try:
        metadata.distribution(name)
    except metadata.PackageNotFoundError:
        return False
    return True


def test_imports_not_installed_here_are_named_by_a_declared_requirement() -> None:
    """A module no installed distribution provides has no metadata to read: it passes when it bears
    a declared requirement's name; otherwise only an environment with every requirement installed
    can tell that nothing declared provides it (the module's distribution has another name)."""
    providers = metadata.packages_distributions()
    wanted = declared()
    unknown = sorted(
        module
        for module in third_party_imports()
        if module not in providers and _normalised(module) not in wanted
    )
    if not unknown:
        return
    absent = sorted(name for name in wanted if not _installed(name))
    if absent:
        pytest.skip(f"{', '.join(unknown)}: not installed here, nor is {', '.join(absent)}")
    pytest.fail(
        f"imported but provided by nothing installed, with every declared requirement installed: {unknown}"
    )
