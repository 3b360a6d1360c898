"""`--agent` specs: parsing every form, the early environment checks, and building agents."""

from __future__ import annotations

import itertools
import sys
import textwrap
from datetime import datetime
from pathlib import Path

import pytest

from pytest_memorybench.agents import agent_protocol
from pytest_memorybench.agents import loading as loading_module
from pytest_memorybench.agents.agent_build import build_agent, check_agent_spec
from pytest_memorybench.agents.agent_protocol import AgentAdapter
from pytest_memorybench.agents.reference.extractive import ExtractiveAgent
from pytest_memorybench.agents.reference.null import NullAgent
from pytest_memorybench.agents.reference.oracle import OracleAgent
from pytest_memorybench.agents.spec import ENTRY_POINT_GROUP, AgentOptions, AgentSpec, parse_agent_spec
from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.core.records import Message
from pytest_memorybench.core.tokens import ApproximateCounter

WHEN = datetime(2024, 1, 1)


def msg(text: str) -> Message:
    return Message(text, WHEN)


@pytest.fixture(autouse=True)
def offline_counter(monkeypatch: pytest.MonkeyPatch) -> None:
    """Replies through the adapter estimate tokens; keep tiktoken (and its download) out of it."""
    monkeypatch.setattr(agent_protocol, "default_counter", ApproximateCounter)


# --- parse_agent_spec ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["recall", "null", "oracle"])
def test_builtin_names(name: str) -> None:
    assert parse_agent_spec(name) == AgentSpec(name, "builtin", name)
    assert parse_agent_spec(f"  {name}\n") == AgentSpec(name, "builtin", name)


def test_openai_model() -> None:
    parsed = parse_agent_spec("openai:gpt-4o-mini")
    assert parsed == AgentSpec("openai:gpt-4o-mini", "openai", "gpt-4o-mini", None)
    assert parsed.display == "openai:gpt-4o-mini"


def test_anthropic_model() -> None:
    assert parse_agent_spec("anthropic:claude-x") == AgentSpec("anthropic:claude-x", "anthropic", "claude-x")


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1/", "http://127.0.0.1:8000/v1//"]
)
def test_model_at_url(url: str) -> None:
    parsed = parse_agent_spec(f"openai:m@{url}")
    assert parsed.kind == "openai"
    assert parsed.target == "m"
    assert parsed.base_url == "http://127.0.0.1:8000/v1"
    assert parsed.text == f"openai:m@{url}"


def test_anthropic_model_at_https_url() -> None:
    parsed = parse_agent_spec("anthropic:claude-x@https://proxy.example/anthropic/")
    assert (parsed.kind, parsed.target, parsed.base_url) == (
        "anthropic",
        "claude-x",
        "https://proxy.example/anthropic",
    )


@pytest.mark.parametrize(
    ("text", "base_url"),
    [
        ("http://localhost:11434/v1", "http://localhost:11434/v1"),
        ("https://llm.example.org/v1/", "https://llm.example.org/v1"),
    ],
)
def test_bare_url_is_an_openai_compatible_server(text: str, base_url: str) -> None:
    assert parse_agent_spec(text) == AgentSpec(text, "openai", "", base_url=base_url)


@pytest.mark.parametrize("text", ["pkg.mod:factory", "my_agents:make", "a.b.c:Outer.inner"])
def test_import_form(text: str) -> None:
    assert parse_agent_spec(text) == AgentSpec(text, "import", text)


@pytest.mark.parametrize("text", ["myagent", "my-agent", "team.agent_v2"])
def test_bare_name_is_an_entry_point(text: str) -> None:
    assert parse_agent_spec(text) == AgentSpec(text, "entry_point", text)


@pytest.mark.parametrize("text", ["", "   ", "\n"])
def test_empty_spec(text: str) -> None:
    with pytest.raises(UsageError, match="--agent is empty") as excinfo:
        parse_agent_spec(text)
    assert "openai:MODEL" in str(excinfo.value)
    assert isinstance(excinfo.value, pytest.UsageError)


def test_unknown_prefix_names_it_and_the_supported_ones() -> None:
    with pytest.raises(UsageError) as excinfo:
        parse_agent_spec("gemini:gemini-1.5-pro")
    message = str(excinfo.value)
    assert "'gemini' is no model prefix (openai, anthropic), memory mechanism or store" in message
    assert message.endswith("every form: pytest --help")


def test_unknown_prefix_with_an_identifier_model_is_rejected_by_the_check() -> None:
    # 'gemini:pro' is also a valid pkg.module:attribute spelling, so parsing cannot reject it; the
    # early check does, because there is no module 'gemini', and says it is an unknown prefix.
    parsed = parse_agent_spec("gemini:pro")
    assert parsed == AgentSpec("gemini:pro", "import", "gemini:pro")
    with pytest.raises(UsageError) as excinfo:
        check_agent_spec(parsed)
    message = str(excinfo.value)
    assert "'gemini' is no model prefix (openai, anthropic), memory mechanism, store or module" in message
    assert "\n" not in message


@pytest.mark.parametrize("text", ["openai:", "anthropic:", "openai:@http://localhost/v1"])
def test_provider_without_model(text: str) -> None:
    prefix = text.split(":")[0]
    with pytest.raises(UsageError) as excinfo:
        parse_agent_spec(text)
    assert str(excinfo.value) == (
        f"--agent {text!r}: expected {prefix}:MODEL or {prefix}:MODEL@http(s)://HOST/..."
    )


@pytest.mark.parametrize(
    "text", ["openai:m@notaurl", "openai:m@", "anthropic:c@ftp://host/x", "openai:m@http://"]
)
def test_model_at_something_that_is_not_a_url(text: str) -> None:
    with pytest.raises(UsageError, match=r"expected \w+:MODEL or \w+:MODEL@http\(s\)://HOST/"):
        parse_agent_spec(text)


@pytest.mark.parametrize("text", ["a b c", "my agent", "foo/bar", "x!"])
def test_garbage(text: str) -> None:
    with pytest.raises(UsageError) as excinfo:
        parse_agent_spec(text)
    message = str(excinfo.value)
    assert f"--agent {text!r} is not an agent spec" in message
    assert "every form: pytest --help" in message


def test_display_hides_credentials_in_the_url() -> None:
    parsed = parse_agent_spec("openai:m@https://alice:s3cret@llm.example/v1")
    assert parsed.base_url == "https://alice:s3cret@llm.example/v1"
    assert "s3cret" not in parsed.display


# --- check_agent_spec ----------------------------------------------------------------------------

PROVIDER_KEYS = [("openai", "OPENAI_API_KEY"), ("anthropic", "ANTHROPIC_API_KEY")]


@pytest.mark.parametrize(("provider", "variable"), PROVIDER_KEYS)
def test_missing_api_key(monkeypatch: pytest.MonkeyPatch, provider: str, variable: str) -> None:
    monkeypatch.delenv(variable, raising=False)
    with pytest.raises(UsageError) as excinfo:
        check_agent_spec(parse_agent_spec(f"{provider}:some-model"))
    message = str(excinfo.value)
    assert f"{variable} is not set" in message
    assert f"{provider}:MODEL@URL" in message


@pytest.mark.parametrize(("provider", "variable"), PROVIDER_KEYS)
def test_empty_api_key_counts_as_missing(
    monkeypatch: pytest.MonkeyPatch, provider: str, variable: str
) -> None:
    monkeypatch.setenv(variable, "")
    with pytest.raises(UsageError, match=variable):
        check_agent_spec(parse_agent_spec(f"{provider}:some-model"))


@pytest.mark.parametrize(("provider", "variable"), PROVIDER_KEYS)
def test_present_api_key(monkeypatch: pytest.MonkeyPatch, provider: str, variable: str) -> None:
    monkeypatch.setenv(variable, "sk-test-not-real")
    assert check_agent_spec(parse_agent_spec(f"{provider}:some-model")) is None


def test_only_the_providers_own_key_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-real")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(UsageError, match="ANTHROPIC_API_KEY"):
        check_agent_spec(parse_agent_spec("anthropic:claude-x"))


def test_base_url_probes_the_server_instead_of_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    http = pytest.importorskip("pytest_memorybench.models.http")
    probed: list[tuple[str, str]] = []

    def fake_probe(url: str, text: str, *args: object, **kwargs: object) -> list[str]:
        probed.append((url, text))
        return ["m"]

    monkeypatch.setattr(http, "probe_server", fake_probe)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    check_agent_spec(parse_agent_spec("openai:m@http://127.0.0.1:9/v1/"))
    check_agent_spec(parse_agent_spec("http://127.0.0.1:9/v1"))
    assert probed == [
        ("http://127.0.0.1:9/v1", "openai:m@http://127.0.0.1:9/v1/"),
        ("http://127.0.0.1:9/v1", "http://127.0.0.1:9/v1"),
    ]


@pytest.mark.parametrize("name", ["recall", "null", "oracle"])
def test_builtins_need_no_check(name: str) -> None:
    assert check_agent_spec(parse_agent_spec(name)) is None


# --- user modules for import specs ---------------------------------------------------------------

AGENT_MODULE = textwrap.dedent(
    """
    from pytest_memorybench.core.records import Message

    CREATED = []


    class EchoAgent:
        def __init__(self):
            CREATED.append(self)

        async def reply(self, message: Message) -> str:
            return "echo: " + message.text

        def reset(self):
            pass


    def make_agent():
        return EchoAgent()


    def make_with_defaults(prefix="p"):
        return EchoAgent()


    INSTANCE = EchoAgent()


    def shout(text):
        return text.upper() + "!"


    def broken_factory():
        raise RuntimeError("no API\\n   config   found")


    class BrokenAgent:
        def __init__(self):
            raise KeyError("missing")

        def reply(self, message):
            return ""


    NOT_CALLABLE = 42


    class Holder:
        inner = staticmethod(shout)
    """
)

_counter = itertools.count()


@pytest.fixture
def agent_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Write a uniquely named agent module into tmp_path and make it importable."""
    name = f"mb_test_agents_{next(_counter)}"
    (tmp_path / f"{name}.py").write_text(AGENT_MODULE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name
    sys.modules.pop(name, None)


def test_check_import_spec_ok(agent_module: str) -> None:
    assert check_agent_spec(parse_agent_spec(f"{agent_module}:make_agent")) is None
    assert check_agent_spec(parse_agent_spec(f"{agent_module}:Holder.inner")) is None


def test_check_import_spec_missing_module() -> None:
    with pytest.raises(UsageError) as excinfo:
        check_agent_spec(parse_agent_spec("mb_no_such_module_xyz.agents:make"))
    message = str(excinfo.value)
    assert "cannot import 'mb_no_such_module_xyz.agents'" in message
    assert "ModuleNotFoundError" in message
    assert "\n" not in message


def test_check_import_spec_module_with_a_missing_dependency(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "mb_needs_missing_dep.py").write_text("import mb_missing_dependency_xyz\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        with pytest.raises(UsageError) as excinfo:
            check_agent_spec(parse_agent_spec("mb_needs_missing_dep:make"))
    finally:
        sys.modules.pop("mb_needs_missing_dep", None)
    message = str(excinfo.value)
    assert "cannot import 'mb_needs_missing_dep'" in message
    assert "No module named 'mb_missing_dependency_xyz'" in message
    assert "no model prefix" not in message


def test_check_import_spec_module_that_fails_on_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "mb_explodes_on_import.py").write_text("raise ImportError('needs torch')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        expected = r"cannot import 'mb_explodes_on_import' \(ImportError: needs torch\)"
        with pytest.raises(UsageError, match=expected):
            check_agent_spec(parse_agent_spec("mb_explodes_on_import:make"))
    finally:
        sys.modules.pop("mb_explodes_on_import", None)


@pytest.mark.parametrize("attribute", ["nope", "Holder.nope"])
def test_check_import_spec_missing_attribute(agent_module: str, attribute: str) -> None:
    with pytest.raises(UsageError) as excinfo:
        check_agent_spec(parse_agent_spec(f"{agent_module}:{attribute}"))
    assert str(excinfo.value) == (
        f"--agent {agent_module}:{attribute}: module {agent_module!r} has no attribute {attribute!r}"
    )


class FakeEntryPoint:
    def __init__(self, name: str, obj: object = None, error: Exception | None = None) -> None:
        self.name = name
        self._obj = obj
        self._error = error
        self.loads = 0

    def load(self) -> object:
        self.loads += 1
        if self._error is not None:
            raise self._error
        return self._obj


def fake_entry_points(monkeypatch: pytest.MonkeyPatch, *eps: FakeEntryPoint) -> list[str]:
    groups: list[str] = []

    def entry_points(*, group: str) -> list[FakeEntryPoint]:
        groups.append(group)
        return list(eps) if group == ENTRY_POINT_GROUP else []

    monkeypatch.setattr(loading_module, "entry_points", entry_points)
    return groups


def test_check_unknown_entry_point(monkeypatch: pytest.MonkeyPatch) -> None:
    groups = fake_entry_points(monkeypatch, FakeEntryPoint("other", ExtractiveAgent))
    with pytest.raises(UsageError) as excinfo:
        check_agent_spec(parse_agent_spec("mystery-agent"))
    message = str(excinfo.value)
    assert message.startswith(
        "--agent 'mystery-agent': no built-in agent or installed 'memorybench.agents' entry point"
    )
    assert groups == ["memorybench.agents"]


def test_check_entry_point_that_fails_to_load(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_entry_points(monkeypatch, FakeEntryPoint("mine", error=ModuleNotFoundError("No module named 'x'")))
    expected = r"^--agent mine: loading its entry point failed: ModuleNotFoundError: No module named 'x'$"
    with pytest.raises(UsageError, match=expected):
        check_agent_spec(parse_agent_spec("mine"))


def test_check_known_entry_point(monkeypatch: pytest.MonkeyPatch) -> None:
    ep = FakeEntryPoint("mine", ExtractiveAgent)
    fake_entry_points(monkeypatch, ep)
    assert check_agent_spec(parse_agent_spec("mine")) is None
    assert ep.loads == 1


# --- build_agent ---------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_build_agent_class_is_instantiated(agent_module: str) -> None:
    module = __import__(agent_module)
    adapter = build_agent(parse_agent_spec(f"{agent_module}:EchoAgent"))
    assert isinstance(adapter, AgentAdapter)
    assert isinstance(adapter.target, module.EchoAgent)
    assert module.CREATED[-1] is adapter.target
    assert adapter.name == f"{agent_module}:EchoAgent"
    assert adapter.capabilities == ["reset"]
    assert await adapter.reply(msg("hi")) == "echo: hi"


@pytest.mark.parametrize("factory", ["make_agent", "make_with_defaults"])
def test_build_agent_zero_argument_factory_is_called(agent_module: str, factory: str) -> None:
    module = __import__(agent_module)
    before = len(module.CREATED)
    adapter = build_agent(parse_agent_spec(f"{agent_module}:{factory}"))
    assert isinstance(adapter.target, module.EchoAgent)
    assert len(module.CREATED) == before + 1


def test_build_agent_instance_is_used_as_is(agent_module: str) -> None:
    module = __import__(agent_module)
    adapter = build_agent(parse_agent_spec(f"{agent_module}:INSTANCE"))
    assert adapter.target is module.INSTANCE


@pytest.mark.asyncio
@pytest.mark.parametrize("attribute", ["shout", "Holder.inner"])
async def test_build_agent_reply_function_is_wrapped(agent_module: str, attribute: str) -> None:
    module = __import__(agent_module)
    adapter = build_agent(parse_agent_spec(f"{agent_module}:{attribute}"))
    assert adapter.target is module.shout
    assert adapter.capabilities == []
    assert await adapter.reply(msg("where is my hat")) == "WHERE IS MY HAT!"


@pytest.mark.parametrize(
    ("attribute", "error"),
    [("broken_factory", "RuntimeError: no API config found"), ("BrokenAgent", "KeyError: 'missing'")],
)
def test_build_agent_failing_factory_is_a_one_line_usage_error(
    agent_module: str, attribute: str, error: str
) -> None:
    with pytest.raises(UsageError) as excinfo:
        build_agent(parse_agent_spec(f"{agent_module}:{attribute}"))
    assert str(excinfo.value) == f"--agent {agent_module}:{attribute}: creating the agent failed: {error}"


def test_build_agent_not_callable_is_a_usage_error(agent_module: str) -> None:
    with pytest.raises(UsageError, match="int is neither an agent nor callable"):
        build_agent(parse_agent_spec(f"{agent_module}:NOT_CALLABLE"))


def test_build_agent_passes_the_timeout(agent_module: str) -> None:
    adapter = build_agent(parse_agent_spec(f"{agent_module}:shout"), AgentOptions(timeout=2.5))
    assert adapter.timeout == 2.5
    assert build_agent(parse_agent_spec("null")).timeout == 600.0


@pytest.mark.asyncio
async def test_build_agent_from_entry_point_class(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_entry_points(
        monkeypatch, FakeEntryPoint("other", NullAgent), FakeEntryPoint("mine", ExtractiveAgent)
    )
    adapter = build_agent(parse_agent_spec("mine"))
    assert isinstance(adapter.target, ExtractiveAgent)
    assert adapter.name == "mine"
    assert adapter.capabilities == ["observe", "reset", "retrieve", "fork", "stored"]


@pytest.mark.asyncio
async def test_build_agent_from_entry_point_function(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_entry_points(monkeypatch, FakeEntryPoint("lower", lambda text: text.lower()))
    adapter = build_agent(parse_agent_spec("lower"))
    assert await adapter.reply(msg("QUIET")) == "quiet"


@pytest.mark.parametrize(
    ("name", "kind", "capabilities"),
    [
        ("recall", ExtractiveAgent, ["observe", "reset", "retrieve", "fork", "stored"]),
        ("null", NullAgent, []),
        ("oracle", OracleAgent, ["reset"]),
    ],
)
def test_build_builtin_agents(name: str, kind: type, capabilities: list[str]) -> None:
    adapter = build_agent(parse_agent_spec(name))
    assert isinstance(adapter, AgentAdapter)
    assert type(adapter.target) is kind
    assert adapter.name == name
    assert adapter.capabilities == capabilities


def test_builtins_are_fresh_instances() -> None:
    first, second = build_agent(parse_agent_spec("recall")), build_agent(parse_agent_spec("recall"))
    assert first.target is not second.target


@pytest.mark.asyncio
async def test_built_null_agent_abstains() -> None:
    assert await build_agent(parse_agent_spec("null")).reply(msg("What is my name?")) == "I don't know."
