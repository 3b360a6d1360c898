"""Starting and finishing a benchmark session: the logic behind the plugin's hooks."""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_memorybench.agents.spec import MEMORY_TOKENS
from pytest_memorybench.agents.store_spec import VENDOR
from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.core.files import write_atomically
from pytest_memorybench.core.tokens import approximation_note
from pytest_memorybench.judges.spec import DEFAULT_CACHE, check_judge_spec
from pytest_memorybench.pytest_integration import fixtures
from pytest_memorybench.pytest_integration.gating import check_exit_mode, gate_decides_exit
from pytest_memorybench.pytest_integration.keys import PROGRESS_KEY, RUN_KEY
from pytest_memorybench.reports.progress import TerminalProgress
from pytest_memorybench.results.schema import ConversationRecord, ItemRecord, ResultsRecord
from pytest_memorybench.runner.context import new_run_id, open_run
from pytest_memorybench.runner.drift import ALLOW
from pytest_memorybench.runner.resumed import resume_command
from pytest_memorybench.runner.run import BenchmarkRun
from pytest_memorybench.runner.settings import Settings

if TYPE_CHECKING:
    from pytest_memorybench.reports.gate import GateResult
    from pytest_memorybench.reports.transcript import EventIndex

# What a run writes when it ends (results, reports, the gate) is imported then, not at start-up: a
# run's first message to its agent waits on nothing it does not need (tests/pytest_integration/
# test_startup.py keeps it so).


@dataclass(frozen=True)
class Finished:
    """What the controller wrote at session end, for the terminal summary and the exit code."""

    results: ResultsRecord | None  # None: no item produced a score
    results_path: Path | None
    report_path: Path | None
    gate: GateResult | None
    stopped: str | None = None  # the line saying the run stopped early, and how to go on
    markdown: tuple[str, ...] = ()  # where the Markdown summary went (--mb-markdown, the GitHub job summary)
    exports: tuple[str, ...] = ()  # what each --mb-export wrote, a line each


@dataclass(frozen=True)
class Stop:
    """Why a session ended before every selected test did: Ctrl-C, SIGTERM, `-x` / `--maxfail`."""

    reason: str
    interrupted: bool  # a signal, rather than pytest's own stopping rule


RESULTS_KEY = pytest.StashKey[Finished]()
WORKER_RUN_ID = "memorybench_run_id"
WORKER_OUTPUT = "memorybench_output"
WORKER_CONVERSATIONS = "memorybench_conversations"
WORKER_JUDGE = "memorybench_judge"
WORKER_CONCURRENCY = "memorybench_concurrency"
WORKER_LOADGROUP = "memorybench_loadgroup"


def is_worker(config: pytest.Config) -> bool:
    """Whether this process is an xdist worker (the controller writes the results)."""
    return hasattr(config, "workerinput")


def start(config: pytest.Config) -> None:
    """Read the options, plan the run, and check the agent, before anything is collected."""
    paths_given = config.args_source == pytest.Config.ArgsSource.ARGS
    settings = Settings.from_options(config.option, paths_given=paths_given)
    if config.getoption("mb_export", None):
        from pytest_memorybench.reports.exports import export_formats

        export_formats(config.getoption("mb_export"))  # a wrong name stops the run before it starts
    check_exit_mode(config, gate_asked=settings.gate.active)
    if is_worker(config):
        run = _worker_run(config, settings)
    else:
        run = _controller_run(config, settings)
        progress = TerminalProgress(
            config,
            total_tests=run.context.selected_count,
            in_flight=lambda: run.pool.in_flight,
            levels=run.providers.levels,
        )
        run.instruments.listeners.subscribe(progress)
        config.stash[PROGRESS_KEY] = progress
        if getattr(config.option, "dist", "no") in ("load", "worksteal"):
            # `-n` alone means xdist's "load", which ignores xdist_group, and "worksteal" moves
            # items between workers: two workers could each drive the same conversation.  Keep
            # every conversation on one worker ("loadscope" and "loadfile" already do: a suite
            # is one scope).
            config.option.dist = "loadgroup"
    if not paths_given:
        config.args = []  # collect the benchmark only
    config.stash[RUN_KEY] = run


def _worker_run(config: pytest.Config, settings: Settings) -> BenchmarkRun:
    """An xdist worker's part of the run the controller planned, in the controller's folder."""
    workerinput: dict[str, Any] = config.workerinput  # type: ignore[attr-defined]
    if workerinput.get(WORKER_LOADGROUP):
        # A worker parses the command line itself, so it still believes `-n` means "load" and
        # would not tag its items with their group: the controller's loadgroup would then see
        # one group per item and hand a conversation to several workers.
        config.option.loadgroup = True
    context = open_run(
        settings,
        workerinput[WORKER_RUN_ID],
        Path(workerinput[WORKER_OUTPUT]),
        worker=workerinput.get("workerid"),
        judge_cache=project_root(config) / DEFAULT_CACHE,
    )
    return BenchmarkRun(context)


def _controller_run(config: pytest.Config, settings: Settings) -> BenchmarkRun:
    """The run, its judge and agent checked and its folder claimed and planned (an estimate's aside)."""
    run_id = new_run_id()
    if settings.estimate is not None:  # an estimate leaves no run folder behind
        settings = dataclasses.replace(
            settings, output=Path(tempfile.mkdtemp(prefix="memorybench-estimate-"))
        )
    output = settings.output or project_root(config) / ".memorybench" / "runs" / run_id
    run = BenchmarkRun(
        open_run(settings, run_id, output.resolve(), judge_cache=project_root(config) / DEFAULT_CACHE)
    )
    try:
        _check_and_claim(config, run)
    except BaseException:
        run.close()  # its loop and provider pool end with the session that could not start
        if settings.estimate is not None:
            shutil.rmtree(output, ignore_errors=True)
        raise
    return run


def _check_and_claim(config: pytest.Config, run: BenchmarkRun) -> None:
    """The judge and the agent checked, then (unless only estimating) the run folder claimed and planned."""
    settings = run.context.settings
    jurors = settings.panel.jurors or (settings.judge,)
    if settings.estimate is None:
        for spec in jurors:
            check_judge_spec(spec)
    if any(spec.text != "local" for spec in jurors):  # the plain local judge cannot fail to build
        run.instruments.judge  # noqa: B018 - building it now turns a missing API key into a usage error
    if settings.estimate is None or settings.agent is None or not settings.agent.calls_a_model:
        run.agents.check()  # an estimate asks for no key or server; an agent that cannot load is an error
    if settings.estimate is not None:
        return
    fixture = _user_fixture(config, "memorybench_agent") or _user_fixture(config, "memorybench_agent_factory")
    if settings.agent is None and not run.context.agentless and not fixture:
        raise usage_error(
            "--memorybench needs an agent: pass --agent=SPEC (e.g. --agent=recall, "
            "--agent=openai:gpt-4o-mini) or define a memorybench_agent fixture in conftest.py"
        )
    run.claim_folder()
    run.context.write_plan()


def project_root(config: pytest.Config) -> Path:
    """Where `.memorybench/` goes: pytest's rootdir, unless it came from one of our options' values.

    pytest settles its rootdir before plugins add their options, so the value of
    `--mb-rescore PATH` (written with a space) counts as a path to test, and the rootdir can become
    a published data folder; our run folders and judge cache do not belong there.
    """
    root = config.rootpath
    values = [getattr(config.option, name, None) for name in _PATH_OPTIONS]
    given = [Path(value).resolve() for value in values if isinstance(value, str)]
    if any(root == path or path in root.parents for path in given):
        return config.invocation_params.dir
    return root


_PATH_OPTIONS = ("mb_rescore", "mb_resume", "mb_replay", "mb_definitions", "mb_baseline", "mb_output")


def _user_fixture(config: pytest.Config, name: str) -> bool:
    """Whether a conftest.py (or another plugin) defines the fixture `name` over ours."""
    ours = getattr(fixtures, name)
    return any(getattr(plugin, name, ours) is not ours for plugin in config.pluginmanager.get_plugins())


def why_conversations_take_turns(config: pytest.Config) -> str | None:
    """Why this run's conversations cannot overlap, though `--mb-concurrency` allows it: the agent
    exists once.  None when they may (or there is nothing to overlap)."""
    run = config.stash[RUN_KEY]
    limit = run.context.settings.concurrency
    many = f"{limit}" if limit else "several"  # auto: as many as the provider rewards
    if limit == 1 or run.context.agentless or len({test.group for test in run.context.tests.values()}) < 2:
        return None
    if _user_fixture(config, "memorybench_agent_factory"):
        return None
    if _user_fixture(config, "memorybench_agent"):
        if run.context.settings.agent is not None:
            return None  # the fixture may hand back --agent's own agent: the run says so if not
        return (
            "your memorybench_agent fixture is one agent, so its conversations take turns; a "
            f"memorybench_agent_factory fixture that makes a new agent per call lets {many} run at once"
        )
    spec = run.context.settings.agent
    if spec is not None and run.agents.spec_factory() is None:
        return (
            f"--agent {spec.display} is one agent object, so its conversations take turns; name a class "
            f"or a function that makes one to let {many} run at once"
        )
    return None


def worker_input(config: pytest.Config) -> dict[str, Any]:
    """What the controller hands each xdist worker: the run id, its folder, and how items are grouped."""
    run = config.stash[RUN_KEY]
    loadgroup = getattr(config.option, "dist", "no") == "loadgroup"
    return {
        WORKER_RUN_ID: run.context.run_id,
        WORKER_OUTPUT: str(run.context.output),
        WORKER_LOADGROUP: loadgroup,
    }


def conversation_records(config: pytest.Config) -> list[ConversationRecord]:
    """This process's conversations, as results.json lists them."""
    from pytest_memorybench.results.build import conversation_record

    return [conversation_record(stats) for stats in config.stash[RUN_KEY].book.conversations.values()]


def finish(
    config: pytest.Config,
    records: list[ItemRecord],
    conversations: list[ConversationRecord],
    judge_stats: list[dict[str, Any]],
    selected: int = 0,
    scoreable: int = 0,
    stop: Stop | None = None,
    concurrency: Sequence[dict[str, Any]] = (),
) -> Finished | None:
    """Write results.json and report.html on the controller (or the only process), and judge the gate.

    A worker hands its conversations and judge statistics to the controller instead
    (`workeroutput`), which adds them to its own.  The gate's verdict is returned for the exit code.
    A run that `stop` ended early also lists the tests its conversations finished that pytest
    never reported; if some of the `scoreable` tests (selected, not skipped up front) have no
    result, it is marked partial and says how to go on.
    """
    run = config.stash[RUN_KEY]
    if is_worker(config):
        config.workeroutput[WORKER_CONVERSATIONS] = conversation_records(config)  # type: ignore[attr-defined]
        config.workeroutput[WORKER_JUDGE] = run.instruments.judge_stats()  # type: ignore[attr-defined]
        config.workeroutput[WORKER_CONCURRENCY] = run.providers.record(run.context.settings.concurrency)  # type: ignore[attr-defined]
        return None
    stopped = None
    if stop is not None:
        records = records + unreported_records(run, records)
        if len(records) >= scoreable:
            stop = None  # every selected test ended after all
        else:
            stopped = stopped_line(config, stop, len(records), scoreable)
    spent = bool(conversations or run.book.conversations)  # the agent was asked: what that cost is recorded
    if (
        not records
        and not spent
        and (run.context.shard is None or stopped is not None or config.option.collectonly)
    ):
        return _nothing_measured(config, selected, stopped)
    from pytest_memorybench.results.build import build_results

    if run.context.merged is not None:  # the shards' own conversations, judging and agent
        conversations = run.context.merged.conversations() + conversations
        judge_stats = run.context.merged.judge_stats() + judge_stats
    results = build_results(
        run.context.facts(_agent_name(run), run.instruments.counter.name),
        records,
        conversations + conversation_records(config),
        judge_stats + [run.instruments.judge_stats()],
        [*concurrency, run.providers.record(run.context.settings.concurrency)],
    )
    if stop is not None:
        results["run"]["partial"] = {
            "reason": stop.reason,
            "tests_with_results": len(records),
            "tests_selected": scoreable,
        }
    gate = _gate(config, results, has_records=bool(records), selected=selected, stop=stop)
    return _write(config, results, gate, stopped)


def _nothing_measured(config: pytest.Config, selected: int, stopped: str | None) -> Finished | None:
    """A session that measured nothing: said so when it stopped early or a gate was asked for."""
    if stopped is not None:
        config.stash[RESULTS_KEY] = Finished(None, None, None, None, stopped)
        return config.stash[RESULTS_KEY]
    if config.stash[RUN_KEY].context.settings.gate.active and selected and not config.option.collectonly:
        from pytest_memorybench.reports.gate import GateResult

        # A gate that passes when nothing was measured would wave a broken run through.
        gate = GateResult(failures=[nothing_to_gate(selected)])
        config.stash[RESULTS_KEY] = Finished(None, None, None, gate)
        return config.stash[RESULTS_KEY]
    return None


def _agent_name(run: BenchmarkRun) -> str:
    """The agent results.json names: the shards', none for an agentless run, or the spec or fixture."""
    if run.context.merged is not None:
        return run.context.merged.agent
    if run.context.agentless:
        return run.context.agentless
    return run.context.settings.agent.display if run.context.settings.agent else "fixture:memorybench_agent"


def _gate(
    config: pytest.Config, results: ResultsRecord, *, has_records: bool, selected: int, stop: Stop | None
) -> GateResult | None:
    """The session-level gates' verdict on `results` (recorded in them), or None when none is asked."""
    from pytest_memorybench.reports.gate import evaluate

    run = config.stash[RUN_KEY]
    gate_settings = run.context.settings.gate
    if not gate_settings.active:
        return None
    gate = evaluate(
        results,
        baseline=gate_settings.baseline,
        max_drop=gate_settings.max_drop,
        max_scenario_drop=gate_settings.max_scenario_drop,
        min_score=gate_settings.min_score,
        max_errors=gate_settings.max_errors if stop is None else None,
        folder=_relative(run.context.output, config.invocation_params.dir),
        anyway=gate_settings.anyway,
        empty_memory=gate_settings.empty_memory,
        strict=gate_settings.strict,
    )
    if stop is not None:
        gate.failures.append(f"the run stopped early ({stop.reason}); a gate needs every selected test")
    elif not has_records and selected:
        gate.failures.append(nothing_to_gate(selected))
    results["gate"] = gate.to_json()
    return gate


def _write(
    config: pytest.Config, results: ResultsRecord, gate: GateResult | None, stopped: str | None
) -> Finished:
    """results.json, report.html, the JUnit suite properties and the Markdown summary."""
    from pytest_memorybench.reports.html import report_page
    from pytest_memorybench.reports.junit import add_suite_properties, suite_properties
    from pytest_memorybench.reports.markdown import publish, run_markdown
    from pytest_memorybench.results.file import write_results
    from pytest_memorybench.runner.folder import write_levels

    run = config.stash[RUN_KEY]
    path = run.context.output / "results.json"
    report = run.context.output / "report.html"
    add_suite_properties(config, suite_properties(results, results.get("gate")))
    try:
        write_results(path, results)
        write_levels(run.context.output, results["run"]["concurrency"])
        write_atomically(
            report, report_page(results, transcripts(run, results["items"]), results.get("gate"))
        )
    except OSError as exc:
        folder = _relative(run.context.output, config.invocation_params.dir)
        unwritten = (
            f"cannot write the results in {folder} ({exc.strerror or exc}); make room, then"
            f" --mb-resume={folder} writes them without asking the agent again"
        )
        config.stash[RESULTS_KEY] = Finished(results, None, None, gate, unwritten)
        return config.stash[RESULTS_KEY]
    markdown = publish(run_markdown(results, results.get("gate")), config.getoption("mb_markdown", None))
    finished = Finished(results, path, report, gate, stopped, tuple(markdown), _exports(config, results))
    config.stash[RESULTS_KEY] = finished
    return finished


def _exports(config: pytest.Config, results: ResultsRecord) -> tuple[str, ...]:
    """The answers in each benchmark's own format (`--mb-export`), in the run folder, a line each."""
    if not config.getoption("mb_export", None):
        return ()
    from pytest_memorybench.reports.exports import export_formats, write_exports

    formats = export_formats(config.getoption("mb_export"))
    if not formats:
        return ()
    run = config.stash[RUN_KEY]
    planned = [(key, test.definition) for key, test in run.context.tests.items()]
    try:
        return tuple(
            write_exports(
                formats,
                results,
                planned,
                run.context.output,
                lambda path: _relative(path, config.invocation_params.dir),
            )
        )
    except OSError as exc:
        return (f"cannot write the exports in {run.context.output} ({exc.strerror or exc}); make room and"
                f" replay the run with --mb-replay and --mb-export",)  # fmt: skip


def list_files(config: pytest.Config) -> None:
    """The run folder's manifest.json (`runner/checksums.py`), once the run has closed its logs and
    pytest's plugins wrote their reports (JUnit XML, pytest-html) in it."""
    from pytest_memorybench.runner.checksums import write_checksums

    run = config.stash[RUN_KEY]
    try:
        write_checksums(run.context.output, run.context.run_id)
    except OSError:
        pass  # a folder the run can no longer write to: --mb-verify says it has no manifest


def nothing_to_gate(selected: int) -> str:
    """The gate's failure when no selected item produced a score."""
    return f"none of the {selected} benchmark items produced a score; nothing to gate on"


def exit_status(
    config: pytest.Config, status: int | pytest.ExitCode, finished: Finished | None, other_failures: int
) -> int | pytest.ExitCode:
    """The session's exit status once the run is written and judged.

    By default a failed gate, or results that could not be written, turn a passing session's 0
    into 1.  Under `--mb-exit gate` the gate decides alone: a session whose only failures are
    benchmark items below their thresholds exits 0 when the gate passed; what pytest says
    otherwise stands (2 interrupted, 3 internal error, 4 usage error, 5 nothing collected), and so
    does a failure of a test of the user's own (`other_failures`).
    """
    gate = finished.gate if finished is not None else None
    unwritten = finished is not None and finished.results is not None and finished.results_path is None
    if (gate is not None and not gate.passed) or unwritten:
        return pytest.ExitCode.TESTS_FAILED if status == pytest.ExitCode.OK else status
    if (
        gate_decides_exit(config)
        and gate is not None
        and status == pytest.ExitCode.TESTS_FAILED
        and not other_failures
    ):
        return pytest.ExitCode.OK  # the items that failed stay failures in the reports and JUnit
    return status


def unreported_records(run: BenchmarkRun, records: list[ItemRecord]) -> list[ItemRecord]:
    """Tests whose conversation finished them but whose items pytest never ran (it stopped first)."""
    from pytest_memorybench.results.build import item_record

    reported = {record["nodeid"] for record in records}
    return [
        item_record(
            key,
            outcome,
            threshold=run.context.tests[key].threshold,
            conversation=run.context.tests[key].group,
            passed=run.context.tests[key].passes(outcome),
        )
        for key, outcome in run.book.finished().items()
        if key not in reported and key in run.context.tests
    ]


def stopped_line(config: pytest.Config, stop: Stop, done: int, selected: int) -> str:
    """The one line that says the run stopped early, and the command that finishes it."""
    run = config.stash[RUN_KEY]
    head = "interrupted" if stop.interrupted else "stopped early"
    facts = f"{done} of {selected} tests have results; {stop.reason}"
    if run.context.agentless:
        return f"{head}: run the same command again to finish ({facts})"
    folder = _relative(run.context.output, config.invocation_params.dir)
    paths = list(config.args) if config.args_source == pytest.Config.ArgsSource.ARGS else []
    command = resume_command(folder, paths, list(run.context.settings.command.withheld))
    return f"{head}: resume with {command} ({facts})"


def exit_line(config: pytest.Config, records: Sequence[ItemRecord], status: int) -> str | None:
    """Under `--mb-exit gate`, why a session with items below their thresholds exits 0."""
    below = sum(record["error"] is None and not record["passed"] for record in records)
    if status != 0 or not below or not gate_decides_exit(config):
        return None
    items = f"{below} items are below their thresholds" if below != 1 else "1 item is below its threshold"
    return f"exit 0 (--mb-exit gate: the gate passed); {items}: failures in the reports, not of the build"


def event_index(run: BenchmarkRun) -> EventIndex:
    """The run's event logs, and those of the run it replays (which hold the replayed replies)."""
    from pytest_memorybench.reports.transcript import EventIndex

    return EventIndex([run.context.output, run.context.settings.previous_run, *run.context.settings.merge])


def transcripts(run: BenchmarkRun, records: Sequence[ItemRecord]) -> dict[str, Any]:
    """Each item's own messages, from the run's logs, for report.html."""
    index = event_index(run)
    index.refresh()
    return {
        record["nodeid"]: index.transcript(record["conversation"], record["nodeid"]) for record in records
    }


def summary(config: pytest.Config) -> list[str]:
    """The terminal summary of the finished run, or nothing when no results were written."""
    finished = config.stash.get(RESULTS_KEY, None)
    if finished is None:
        return []
    from pytest_memorybench.reports.summary import summary_lines

    lines = []
    if (
        finished.results is not None
        and finished.results_path is not None
        and finished.report_path is not None
    ):
        base = config.invocation_params.dir
        lines = summary_lines(
            finished.results,
            _relative(finished.results_path, base),
            _relative(finished.report_path, base),
            finished.markdown,
        )
    return lines + list(finished.exports) + ([finished.stopped] if finished.stopped else [])


def report_location(config: pytest.Config) -> str | None:
    """Where the finished run's report.html is, as the terminal names it; None before it is written."""
    finished = config.stash.get(RESULTS_KEY, None)
    if finished is None or finished.report_path is None:
        return None
    return _relative(finished.report_path, config.invocation_params.dir)


def agreement_summary(config: pytest.Config) -> list[str]:
    """For a re-score of published results: our verdicts against theirs, per scenario."""
    finished = config.stash.get(RESULTS_KEY, None)
    if finished is None or finished.results is None:
        return []
    from pytest_memorybench.reports.agreement import agreement_lines

    return agreement_lines(finished.results, finished.results["run"].get("rescore_skipped", []))


def gate_summary(config: pytest.Config) -> list[str]:
    """The gate's lines for the terminal, when a gate was asked for."""
    finished = config.stash.get(RESULTS_KEY, None)
    if finished is None or finished.gate is None:
        return []
    from pytest_memorybench.reports.gate import gate_lines

    return gate_lines(finished.gate)


def header(config: pytest.Config) -> str:
    """The session header: agent, judge, spans, seed, profile, concurrency and run folder; a note when
    its token counts are approximate; then, for each suite that reads published data, what it held
    and became, and a line per kind of thing its loader could not use."""
    run = config.stash[RUN_KEY]
    settings = run.context.settings
    if run.context.agentless:
        agent = f"none ({run.context.agentless})"
    else:
        agent = settings.agent.display if settings.agent else "memorybench_agent fixture"
    spans = ", ".join(f"{name}={span}" for name, span in run.context.interleaved_spans.items())
    if not spans:
        spans = (
            "- (probe suites: no interleaving)" if run.context.suites else "- (no suite: your own tests only)"
        )
    resumed = " (resumed)" if settings.resume else ""
    if run.context.shard is not None:
        resumed += (
            f" | shard {run.context.shard} of plan {run.context.fingerprint[:12]} ({run.context.shard_share})"
        )
    # a run that counts says when its counts are approximate (--collect-only counts nothing)
    tokens = None if config.option.collectonly else approximation_note()
    notes = [f"memorybench: {tokens}"] if tokens else []
    if settings.estimate is not None:
        line = (
            f"memorybench estimate: agent {agent} | span {spans} | seed {settings.seed} | nothing is called; "
            "the estimate follows the collection"
        )
        return "\n".join([line, *notes])
    turns = why_conversations_take_turns(config)
    judge, agent = settings.panel.describe(settings.judge), agent + _memory_terms(settings)
    line = (
        f"memorybench: agent {agent} | judge {judge} | span {spans} | seed {settings.seed} "
        f"| profile {settings.profile} | concurrency {1 if turns else settings.concurrency or 'auto'} "
        f"| run folder {_relative(run.context.output, config.invocation_params.dir)}{resumed}"
    )
    problems = [f"memorybench: {problem}" for suite in run.context.suites for problem in suite.problems]
    loaded = [
        f"memorybench: {said}" for suite, report in run.context.loaded.items() for said in report.lines(suite)
    ]
    provenance = _provenance_lines(run)
    return "\n".join(
        [line, *([f"memorybench: {turns}"] if turns else []), *notes, *provenance, *problems, *loaded]
    )


def _provenance_lines(run: BenchmarkRun) -> list[str]:
    """What the run reads (each data file's name, sha256 and size, or that its data is generated),
    the drift `--mb-allow-drift` let through, and the notes of the drift check."""
    provenance = run.context.provenance
    if provenance is None:
        return []
    data = [] if run.context.published is not None else [provenance.data_line(run.context.settings.seed)]
    allowed = [f"memorybench: {ALLOW}: {change}" for change in provenance.drift]
    return (
        [f"memorybench: {line}" for line in data]
        + allowed
        + [f"memorybench: {note}" for note in run.context.notes]
    )


def _memory_terms(settings: Settings) -> str:
    """A store's or memory system's terms in the header: its k and the tokens of memory an answer gets."""
    kind = settings.agent.kind if settings.agent else None
    cap = settings.agent_options.memory_tokens
    if kind == "store":
        vendor = (
            settings.agent is not None
            and settings.agent.store is not None
            and settings.agent.store.profile == VENDOR
        )
        tokens = f"{cap:,}" if cap else "the vendor's" if vendor else f"{MEMORY_TOKENS:,}"
        k = "the vendor's k" if vendor else f"k {settings.agent_options.k}"
        return f" ({k}, memory within {tokens} tokens)"
    if kind == "memory" and cap:
        return f" (memory within {cap:,} tokens)"
    return ""


def _relative(path: Path, base: Path) -> str:
    try:
        return str(path.relative_to(base))
    except ValueError:
        return str(path)
