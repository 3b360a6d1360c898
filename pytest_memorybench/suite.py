"""Suites: YAML files that choose scenarios, their parameters, repetitions, span and threshold.

Built-in suites live in the repository's `suites/` folder (shipped inside the wheel as
`pytest_memorybench/suites`); `--mb-suite` takes one of their names or a path to a user's file.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from difflib import get_close_matches
from pathlib import Path
from typing import Any

from pytest_memorybench.contract.probes import ProbeContext, is_probe_scenario
from pytest_memorybench.core.errors import UsageError, usage_error
from pytest_memorybench.core.load_report import LoadReport, merged
from pytest_memorybench.core.names import closest, either, suggest
from pytest_memorybench.core.readers import reading
from pytest_memorybench.core.records import TestDefinition
from pytest_memorybench.core.spans import Span, parse_span
from pytest_memorybench.core.yamlfile import Located, load_located
from pytest_memorybench.scenarios import get_scenario, register_scenario
from pytest_memorybench.scenarios.ltm.goodai_definitions import PREFIX as GOODAI_PREFIX
from pytest_memorybench.scenarios.ltm.goodai_definitions import load_goodai_definitions
from pytest_memorybench.scenarios.params import names_parameters
from pytest_memorybench.scenarios.yaml_scenario import parse_yaml_scenario

_SUITE_KEYS = {"name", "description", "span", "threshold", "repetitions", "incompatible", "scenarios"}
MAX_REPETITIONS = 1000  # more repetitions than this are a typo, and would plan for hours
_ENTRY_KEYS = {"scenario", "params", "repetitions", "threshold", "define", "min_span"}


def builtin_suite_dir() -> Path:
    """Where the built-in suites are: shipped in the wheel, or the checkout's suites/ folder."""
    package = Path(__file__).parent
    shipped = package / "suites"
    return shipped if shipped.is_dir() else package.parent / "suites"


def builtin_suites() -> dict[str, Path]:
    """The built-in suites by name."""
    return {path.stem: path for path in sorted(builtin_suite_dir().glob("*.yaml"))}


@dataclass(frozen=True)
class SuiteEntry:
    """One scenario of a suite, with its parameters, repetitions, threshold and minimum span."""

    scenario: str
    params: dict[str, object]  # as the suite file gives them; the scenario checks them (read_params)
    repetitions: int
    threshold: float
    min_span: Span | None = None  # below this interleaved span the scenario's tests are skipped


@dataclass
class Generated:
    """A suite's definitions and probe contexts at one seed."""

    definitions: list[TestDefinition]
    contexts: dict[str, ProbeContext] = field(default_factory=dict)  # by id, for probe scenarios
    loaded: LoadReport | None = None  # what its published data held, became and could not be used for


@dataclass(frozen=True)
class Suite:
    """A suite file: its scenarios, default span and incompatibilities."""

    name: str
    path: Path
    span: Span
    entries: tuple[SuiteEntry, ...]
    description: str = ""
    incompatible: tuple[tuple[str, ...], ...] = field(default=())
    loaded: tuple[TestDefinition, ...] = ()  # definitions read from files instead of generated
    report: LoadReport | None = None  # what the files of `loaded` held and could not be used for
    problems: tuple[str, ...] = ()  # lines the header says as they are (a re-score's notes and skips)

    def definitions(self, seed: int, data: Mapping[str, str] | None = None) -> list[TestDefinition]:
        """All tests of the suite, in a fixed order (xdist workers must collect identically)."""
        return self.generate(seed, data).definitions

    def generate(
        self, seed: int, data: Mapping[str, str] | None = None, span: Span | None = None
    ) -> Generated:
        """The suite's tests, and the shared contexts its probe scenarios ask about.

        `data` maps a scenario's short name (`chapterbreak`) to a data path given with `--mb-data`;
        it becomes that scenario's `data_path` parameter unless the suite file sets one; a
        scenario that sizes its contexts by the span (`span_param`) takes `span`.  A probe
        scenario (episodic, BEAM, MemBench) is asked for its contexts once per entry: its
        questions are the items, so `repetitions` does not apply to it.
        """
        if self.loaded:
            report = self.report and replace(self.report, items=_runnable(self.loaded))
            return Generated(list(self.loaded), loaded=report)
        generated = Generated([])
        for entry in self.entries:
            scenario = get_scenario(entry.scenario)
            params = _with_data(entry, data or {}, span)
            try:
                with _reading_data(entry.scenario, params):
                    self._generate_entry(generated, entry, scenario, params, seed)
            except UsageError as exc:
                if not names_parameters(exc, entry.scenario):
                    raise
                raise usage_error(f"suite file {self.path}: {exc}") from None  # the file's own mistake
        return generated

    def _generate_entry(
        self, generated: Generated, entry: SuiteEntry, scenario: Any, params: dict[str, object], seed: int
    ) -> None:
        if not is_probe_scenario(scenario):
            made = [
                scenario.generate(self.name, params, seed, repetition)
                for repetition in range(1, entry.repetitions + 1)
            ]
            generated.definitions.extend(made)
            data_report = getattr(scenario, "data_report", None)  # a generating scenario that reads data
            report = data_report(params) if data_report is not None else None
            generated.loaded = merged([generated.loaded, report and replace(report, items=_runnable(made))])
            return
        contexts = scenario.contexts(self.name, params, seed)
        for context in contexts:
            if context.id in generated.contexts:
                raise usage_error(f"suite {self.name}: two contexts are both named {context.id!r}")
            generated.contexts[context.id] = context
            generated.definitions.extend(context.probes)
        generated.loaded = merged([generated.loaded, _loaded(contexts)])

    @property
    def uses_span(self) -> bool:
        """Whether `--span` means anything here: probe scenarios deliver their own context whole,
        unless they size it by the span (MemoryAgentBench's 6K to 262K contexts)."""
        return bool(self.loaded) or any(
            not is_probe_scenario(scenario := get_scenario(e.scenario)) or hasattr(scenario, "span_param")
            for e in self.entries
        )

    def data_names(self, *, suggested: bool = False, rescored: bool = False) -> set[str]:
        """The `--mb-data` names this suite reads (`_with_data`): each scenario's name, short name
        and family, and the names of its own extra files (`data_params`).  `suggested`: the names
        to offer a user, of the scenarios that read data (probe families, ChapterBreak): a family
        whose every scenario does, else the scenario's short name.  A suite of definitions read
        from files reads none, unless it is a re-score's (`rescored`), whose reader may take its
        questions from the data (LongMemEval's hypotheses name them by id only)."""
        if self.loaded and not rescored:
            return set()
        names: set[str] = set()
        reading: dict[str, list[str]] = {}  # family -> the short names of its scenarios that read data
        for entry in self.entries:
            scenario = get_scenario(entry.scenario)
            family, _, short = entry.scenario.rpartition(".")
            extra = set(getattr(scenario, "data_params", {}))
            names |= extra if suggested else {entry.scenario, short, family, *extra}
            reads = is_probe_scenario(scenario) or hasattr(scenario, "data_report") or bool(extra)
            reading.setdefault(family, []).extend([short] if reads else [])
        if suggested:
            for family, shorts in reading.items():
                whole = family and len(shorts) == sum(
                    e.scenario.startswith(f"{family}.") for e in self.entries
                )
                names |= {family} if whole else set(shorts)
        return names

    def threshold_for(self, scenario: str) -> float:
        return next(entry.threshold for entry in self.entries if entry.scenario == scenario)

    def too_long_for(self, scenario: str, span: Span) -> str | None:
        """Why `scenario` sits out a run at `span` (its own text exceeds small spans), if it does."""
        entry = next((entry for entry in self.entries if entry.scenario == scenario), None)
        if entry is None or entry.min_span is None or span.isolated or span.tokens >= entry.min_span.tokens:  # type: ignore[operator]
            return None
        return f"{scenario} needs a span of at least {entry.min_span}; this run's is {span}"


def _loaded(contexts: Sequence[ProbeContext]) -> LoadReport | None:
    """What the published data of a probe scenario's contexts held, and the items it became (its
    loader hands one report to every context it made)."""
    reports = {id(context.report): context.report for context in contexts if context.report is not None}
    if not reports:
        return None
    items = _runnable(probe for context in contexts if context.report is not None for probe in context.probes)
    report = merged(reports.values())
    return report and replace(report, items=items)


def _runnable(definitions: Iterable[TestDefinition]) -> int:
    return sum(not definition.skip_reason for definition in definitions)


def _goodai_suite(folder: Path) -> Suite:
    """GoodAI's own definition files as a suite named `goodai`, thresholds 1.0."""
    loaded = load_goodai_definitions(folder)
    suite = loaded_suite(
        "goodai",
        folder,
        loaded.span,
        loaded.definitions,
        f"GoodAI's published definitions from {folder}",
        loaded.incompatible,
    )
    return replace(suite, report=loaded.report)


def loaded_suite(
    name: str,
    path: Path,
    span: Span,
    definitions: Iterable[TestDefinition],
    description: str,
    incompatible: tuple[tuple[str, ...], ...] = (),
) -> Suite:
    """A suite of definitions read from files rather than generated; thresholds 1.0."""
    loaded = tuple(definitions)
    counts = Counter(definition.scenario for definition in loaded)
    entries = tuple(SuiteEntry(scenario, {}, count, 1.0) for scenario, count in counts.items())
    return Suite(name, path, span, entries, description=description, incompatible=incompatible, loaded=loaded)


def _reading_data(scenario: str, params: Mapping[str, Any]) -> Any:
    """A data file a scenario reads (`--mb-data`, or `data_path` in a suite) may hold anything:
    whatever reading it raises is one line naming it."""
    path = params.get("data_path")
    return (
        reading(f"{scenario} data {path}", "give the data as published, or as our generators write it")
        if path
        else nullcontext()
    )


def _with_data(entry: SuiteEntry, data: Mapping[str, str], span: Span | None = None) -> dict[str, object]:
    """`--mb-data NAME=PATH` names a scenario (`ltm.chapterbreak`), its short name (`chapterbreak`)
    or its family (`beam`: every scenario of the family reads that path).  A scenario may read
    more files under names of their own (`data_params`, e.g. `locomo_audit` → `audit_path`), and
    take the run's span as the size of what it generates (`span_param`), unless the suite sets it."""
    family, _, short = entry.scenario.rpartition(".")
    params = dict(entry.params)
    sized_by = getattr(get_scenario(entry.scenario), "span_param", None)
    if sized_by and span is not None and not span.isolated and sized_by not in params:
        params[sized_by] = str(span)
    key = next((name for name in (entry.scenario, short, family) if name in data), None)
    if key is not None and "data_path" not in params:
        params["data_path"] = data[key]
    for name, param in getattr(get_scenario(entry.scenario), "data_params", {}).items():
        if name in data and param not in params:
            params[param] = data[name]
    return params


def check_data_names(given: Iterable[str], suites: Sequence[Suite], *, rescored: bool = False) -> None:
    """Refuse, in one line, a `--mb-data` name no selected suite reads (a typo would otherwise run
    the generated sample): with the closest names they do read.  `rescored`: the suites are a
    re-score's, made from published answers."""
    readable = {name for suite in suites for name in suite.data_names(rescored=rescored)}
    for name in given:
        if name in readable:
            continue
        where = ", ".join(suite.name for suite in suites) or "none"
        close = get_close_matches(name, sorted(readable), n=4, cutoff=0.75)
        close = [n for n in close if n.rpartition(".")[2] == n or n.rpartition(".")[2] not in close][:3]
        suggested = sorted(
            {n for suite in suites for n in suite.data_names(suggested=True, rescored=rescored)}
        )
        hint = (
            f"did you mean {either(close)}?"
            if close
            else f"the selected suites read {', '.join(suggested) or 'no data'}"
        )
        raise usage_error(
            f"--mb-data {name}=…: no selected suite ({where}) reads data named {name!r}; {hint}"
            " (a scenario's name, its short name or its family; --mb-suite picks the suites)"
        )


def load_suite(name_or_path: str) -> Suite:
    """A suite by built-in name, file path or GoodAI definitions folder; one line when it cannot be read."""
    if name_or_path.startswith(GOODAI_PREFIX):
        return _goodai_suite(Path(name_or_path.removeprefix(GOODAI_PREFIX)))
    known = builtin_suites()
    path = known.get(name_or_path) or Path(name_or_path)
    if not path.is_file():
        # The names themselves when nothing is close; beside a suggestion they would pass the short line.
        listing = (
            "every built-in suite: the README's table"
            if closest(name_or_path, known)
            else f"built-in suites: {', '.join(known) or 'none'}"
        )
        raise usage_error(
            f"--mb-suite {name_or_path!r}: no such file or built-in suite;"
            f" {suggest(name_or_path, list(known), where=listing)}"
        )
    data = load_located(path)
    with reading(f"suite file {path}", "check it against the suites in the README"):
        return _parse_suite(data, path)


def suite_source(name_or_path: str) -> str:
    """`--mb-suite`'s value as a run folder keeps it: a built-in's name, a file's absolute path
    (a resumed or replayed run may be started from another directory)."""
    if name_or_path in builtin_suites():
        return name_or_path
    prefix = GOODAI_PREFIX if name_or_path.startswith(GOODAI_PREFIX) else ""
    return prefix + str(Path(name_or_path.removeprefix(prefix)).resolve())


def _parse_suite(data: Any, path: Path) -> Suite:
    def fail(problem: str) -> UsageError:
        return usage_error(f"suite file {path}: {problem}")

    if not isinstance(data, dict):
        raise fail("expected a mapping with at least 'name' and 'scenarios'")
    unknown = sorted(set(data) - _SUITE_KEYS)
    if unknown:
        raise fail(f"unknown key {unknown[0]!r}; {suggest(unknown[0], sorted(_SUITE_KEYS))}")
    name = data.get("name")
    if not isinstance(name, str) or not name.isidentifier():
        raise fail("'name' must be an identifier such as ltm or my_suite")
    repetitions = _positive_int(data.get("repetitions", 1), "repetitions", fail)
    threshold = _threshold(data.get("threshold", 1.0), "threshold", fail)
    try:
        span = parse_span(str(data.get("span", "isolated")))
    except UsageError as exc:
        raise fail(f"'span': {exc}") from None
    scenarios = data.get("scenarios")
    if not isinstance(scenarios, list) or not scenarios:
        raise fail("'scenarios' must be a non-empty list")
    entries = [
        _parse_entry(raw, position, path, fail, repetitions=repetitions, threshold=threshold)
        for position, raw in enumerate(scenarios, 1)
    ]
    incompatible = data.get("incompatible") or []
    if not isinstance(incompatible, list) or not all(isinstance(g, list) for g in incompatible):
        raise fail("'incompatible' must be a list of lists of scenario names")
    suite = Suite(
        name=name,
        path=path,
        span=span,
        entries=tuple(entries),
        description=str(data.get("description", "")),
        incompatible=tuple(tuple(group) for group in incompatible),
    )
    return suite


def _parse_entry(
    raw: Any,
    position: int,
    path: Path,
    fail: Callable[[str], UsageError],
    *,
    repetitions: int,
    threshold: float,
) -> SuiteEntry:
    """One item of a suite's `scenarios`: a name, or a mapping (params, repetitions, a YAML `define`)."""
    if isinstance(raw, str):
        raw = {"scenario": raw}
    if not isinstance(raw, dict) or not isinstance(raw.get("scenario"), str):
        raise fail(f"scenarios item {position} needs a 'scenario' name")
    extra = sorted(set(raw) - _ENTRY_KEYS)
    if extra:
        raise fail(
            f"scenarios item {position}: unknown key {extra[0]!r}; {suggest(extra[0], sorted(_ENTRY_KEYS))}"
        )
    params = raw.get("params") or {}
    if not isinstance(params, dict):
        raise fail(f"scenarios item {position}: 'params' must be a mapping")
    if "define" in raw:

        def where(key: str, node: Any = None) -> str:
            return f"suite file {path} line {_line(raw.get('define'), key, raw, node)}"

        register_scenario(parse_yaml_scenario(raw["scenario"], raw["define"], where))
    try:
        get_scenario(raw["scenario"])
    except UsageError as exc:
        raise fail(str(exc)) from None
    try:
        min_span = parse_span(str(raw["min_span"])) if "min_span" in raw else None
    except UsageError as exc:
        raise fail(f"scenarios item {position}: 'min_span': {exc}") from None
    return SuiteEntry(
        scenario=raw["scenario"],
        params=params,
        repetitions=_positive_int(raw.get("repetitions", repetitions), "repetitions", fail),
        threshold=_threshold(raw.get("threshold", threshold), "threshold", fail),
        min_span=min_span,
    )


def _line(define: Any, key: str, entry: Any, node: Any = None) -> int:
    """The line of the node at fault, or of `key` inside a define block, or of the block or entry."""
    if isinstance(node, Located):
        return node.line
    if isinstance(define, Located):
        return define.line_of(key) if key else define.line
    return entry.line_of("define") if isinstance(entry, Located) else 0


def _positive_int(value: Any, key: str, fail: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_REPETITIONS:
        raise fail(f"'{key}' must be a whole number from 1 to {MAX_REPETITIONS}, got {value!r}")
    return value


def _threshold(value: Any, key: str, fail: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise fail(f"'{key}' must be a number between 0 and 1, got {value!r}")
    return float(value)
