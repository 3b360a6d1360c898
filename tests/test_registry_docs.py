"""The docs' tables of agents are the registry's: a new agent or mechanism shows up in them, or this fails.

`MB_WRITE_DOCS=1 pytest tests/test_registry_docs.py` writes the registry's tables into the docs.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable

import pytest

from pytest_memorybench.agents import registry
from tests.support.paths import DOCS, REPO

TABLES: dict[str, tuple[str, Callable[[], str]]] = {
    "reference agents": ("agents.md", registry.reference_table),
    "mechanisms": ("memory-systems.md", registry.mechanism_table),
    "stores": ("stores.md", registry.store_table),
}


def _block(name: str) -> re.Pattern[str]:
    return re.compile(rf"(<!-- registry: {name} -->\n)(.*?)(<!-- /registry -->)", re.S)


@pytest.mark.parametrize("name", sorted(TABLES))
def test_the_docs_table_is_the_registrys(name: str) -> None:
    page, table = TABLES[name]
    path = DOCS / page
    text = path.read_text()
    found = _block(name).search(text)
    assert found, f"docs/{page} has no <!-- registry: {name} --> block"
    if os.environ.get("MB_WRITE_DOCS"):
        path.write_text(_block(name).sub(lambda match: match[1] + table() + "\n" + match[3], text))
        return
    assert found[2] == table() + "\n", (
        f"docs/{page} is behind the registry: MB_WRITE_DOCS=1 pytest {__file__}"
    )


def test_the_help_names_and_the_errors_suggest_every_registered_agent() -> None:
    forms = registry.spec_forms()
    for name in [*registry.REFERENCE_AGENTS, *registry.MECHANISMS, *registry.STORES]:
        assert name in forms
        misspelt = name[:-1]  # the last letter missed
        written = name if name in registry.REFERENCE_AGENTS else f"{name}:MODEL_SPEC"
        # among the suggestions: "mem" is as near to mem0 as to memu
        assert written in registry.unknown_agent(misspelt).partition("did you mean ")[2]
    for name in [*registry.MECHANISMS, *registry.STORES]:
        assert name in registry.unknown_prefix(name[:-1]).partition("did you mean ")[2]


def test_the_readme_names_every_built_in_suite_and_links_every_suite_page() -> None:
    from pytest_memorybench.suite import builtin_suites

    readme = (REPO / "README.md").read_text()
    table = readme.split("## The suites", 1)[1].split("\n## ", 1)[0]
    unnamed = [name for name in builtin_suites() if f"| `{name}`" not in table]
    assert not unnamed, f"README.md's suite table lacks {unnamed}"
    links = readme.split("## Links", 1)[1]
    pages = sorted(path.name for path in (DOCS / "suites").glob("*.md") if path.name != "index.md")
    unlinked = [page for page in pages if f"(docs/suites/{page})" not in links]
    assert not unlinked, f"README.md's Links lack the suite pages {unlinked}"
