"""Repository-level conftest: gives the project's own tests pytest's `pytester` fixture."""

pytest_plugins = ["pytester", "tests.support.llm_server", "tests.support.local_model"]
