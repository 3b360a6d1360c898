"""The pytest entry point of pytest-memorybench.

pytest loads this module in every run, so it only adds options, markers and fixtures, and imports
nothing heavy.  `--memorybench` activates the benchmark: `hooks.activate` plans the run and
registers the hooks of an active session.  Without the flag a normal pytest run is untouched.
"""

from __future__ import annotations

import pytest

from pytest_memorybench.pytest_integration.fixtures import (  # noqa: F401  (registers them)
    memorybench_agent,
    memorybench_agent_factory,
    memorybench_conversation,
)
from pytest_memorybench.pytest_integration.markers import BENCHMARK_MARKER, SKILL_MARKERS


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("memorybench", "long-term-memory benchmarks (pytest-memorybench)")
    group.addoption(
        "--memorybench", action="store_true", help="run the memory benchmark; with no paths, only it"
    )
    group.addoption(
        "--agent",
        dest="mb_agent",
        metavar="SPEC",
        help=(
            "agent under test: recall, null, oracle, openai:MODEL, anthropic:MODEL, openai:MODEL@URL,"
            " http://HOST/v1, an entry point name, or pkg.module:factory"
        ),
    )
    group.addoption(
        "--judge",
        dest="mb_judge",
        metavar="SPEC",
        default="local",
        help="semantic comparator for scorers that need one (default: local)",
    )
    group.addoption(
        "--span",
        dest="mb_span",
        metavar="SPAN",
        help="memory span: 2k, 32k, 120k, 1M, 500000 or isolated (default: the suite's)",
    )
    group.addoption(
        "--mb-suite",
        dest="mb_suite",
        action="append",
        metavar="NAME_OR_PATH",
        help="suite to run, repeatable: a built-in name (ltm) or a YAML file (default: ltm)",
    )
    group.addoption(
        "--mb-data",
        dest="mb_data",
        action="append",
        metavar="NAME=PATH",
        help="data a scenario reads, repeatable, e.g. chapterbreak=PATH",
    )
    group.addoption(
        "--mb-seed", dest="mb_seed", type=int, default=0, metavar="N", help="generation seed (default: 0)"
    )
    group.addoption(
        "--mb-profile",
        dest="mb_profile",
        default="paper",
        metavar="paper|official",
        help="scoring profile where the original code and its paper disagree (default: paper)",
    )
    group.addoption(
        "--mb-threshold",
        dest="mb_threshold",
        type=float,
        metavar="X",
        help="pass threshold for every item, overriding the suite's",
    )
    group.addoption(
        "--mb-context",
        dest="mb_context",
        type=int,
        metavar="N",
        help="context budget in tokens for the built-in LLM adapters (default: the model's)",
    )
    group.addoption(
        "--mb-memory-model",
        dest="mb_memory_model",
        metavar="SPEC",
        help=(
            "a second model for a memory system's own work (extraction, summaries, ratings), e.g."
            " openai:gpt-4.1-nano (default: the answering model)"
        ),
    )
    group.addoption(
        "--mb-embedder",
        dest="mb_embedder",
        default="lexical",
        metavar="lexical|wordllama|openai:MODEL[@URL]",
        help="what memory systems rank their memories with (default: lexical, BM25)",
    )
    group.addoption(
        "--mb-thinking",
        dest="mb_thinking",
        type=int,
        metavar="TOKENS",
        help="extended thinking budget for an anthropic:MODEL agent (at least 1024)",
    )
    group.addoption(
        "--mb-output",
        dest="mb_output",
        metavar="DIR",
        help="run folder (default: .memorybench/runs/<run id>)",
    )
    group.addoption(
        "--mb-estimate",
        action="store_true",
        help=(
            "plan the selected items as they would run and print what they would cost (calls, billed tokens,"
            " dollars), calling neither the agent nor a judge"
        ),
    )
    group.addoption(
        "--mb-estimate-reply",
        dest="mb_estimate_reply",
        type=int,
        default=50,
        metavar="TOKENS",
        help="the reply length --mb-estimate assumes (default: 50)",
    )
    group.addoption(
        "--mb-judge-check",
        action="store_true",
        help=(
            "score the packaged labelled cases and wrong answers with --judge: agreement with human verdicts"
            " and false acceptance per kind, then exit"
        ),
    )
    group.addoption(
        "--mb-min-agreement",
        dest="mb_min_agreement",
        type=float,
        metavar="X",
        help=(
            "with --mb-judge-check: exit 1 when the judge agrees with fewer than this share of the labelled"
            " cases (0-1)"
        ),
    )
    group.addoption(
        "--mb-sample",
        dest="mb_sample",
        type=int,
        metavar="N",
        help=(
            "run a seeded subset of about N items per suite, stratified by scenario and category (a cheap CI"
            " run of a large benchmark)"
        ),
    )
    group.addoption(
        "--mb-judge-sample",
        dest="mb_judge_sample",
        type=int,
        metavar="N",
        help=(
            "with --mb-judge-check: ask at most N labelled cases and N wrong answers per task (a quicker,"
            " rougher check)"
        ),
    )
    group.addoption(
        "--mb-max-false-accept",
        dest="mb_max_false_accept",
        type=float,
        metavar="Y",
        help=(
            "with --mb-judge-check: exit 1 when the judge accepts more than this share of any kind's wrong"
            " answers (0-1)"
        ),
    )
    group.addoption(
        "--mb-timeout",
        dest="mb_timeout",
        type=float,
        default=600.0,
        metavar="SECONDS",
        help="longest wait for one agent reply (default: 600)",
    )
    group.addoption(
        "--mb-conversations",
        dest="mb_conversations",
        type=int,
        default=1,
        metavar="K",
        help="split each suite into K independent conversations, so -n can share the work (default: 1)",
    )
    group.addoption(
        "--mb-concurrency",
        dest="mb_concurrency",
        default="auto",
        metavar="N|auto",
        help=(
            "drive up to N conversations at once in each process, each with its own agent; auto: as many as"
            " the provider's measured throughput rewards (default: auto; 1: one after the other)"
        ),
    )
    group.addoption(
        "--mb-max-requests",
        dest="mb_max_requests",
        type=int,
        metavar="N",
        help=(
            "at most N requests in flight to one model provider, agent and judge together (default: no limit)"
        ),
    )
    group.addoption(
        "--mb-rpm",
        dest="mb_rpm",
        type=float,
        metavar="N",
        help="at most N requests a minute to one model provider (default: no limit)",
    )
    group.addoption(
        "--mb-tpm",
        dest="mb_tpm",
        type=float,
        metavar="N",
        help="at most N input tokens a minute to one model provider (default: no limit)",
    )
    group.addoption(
        "--mb-shard",
        dest="mb_shard",
        metavar="I/N",
        help=(
            "run only the I-th of N parts of the run (whole conversations), e.g. on a CI matrix; --mb-merge"
            " puts the parts together"
        ),
    )
    group.addoption(
        "--mb-merge",
        dest="mb_merge",
        action="append",
        metavar="DIR",
        help=(
            "report the run folders of all N shards of a run as one run (results, report, JUnit, gates);"
            " repeatable"
        ),
    )
    group.addoption(
        "--mb-resume",
        dest="mb_resume",
        metavar="DIR",
        help="continue an interrupted run in its folder, without re-asking what was answered",
    )
    group.addoption(
        "--mb-replay",
        dest="mb_replay",
        metavar="DIR",
        help="re-score a finished run with the current scorers, without the agent",
    )
    group.addoption(
        "--mb-rescore",
        dest="mb_rescore",
        metavar="PATH",
        help=(
            "score the published results of GoodAI's runner (data/tests/<benchmark> or one agent's results"
            " folder) with our scorers, and compare with their verdicts"
        ),
    )
    group.addoption(
        "--mb-definitions",
        dest="mb_definitions",
        metavar="DIR",
        help="reuse another run's test definitions (e.g. the same content at another span)",
    )
    group.addoption(
        "--mb-baseline",
        dest="mb_baseline",
        metavar="FILE",
        help="compare the means with a previous results.json and fail (exit 1) on a regression",
    )
    group.addoption(
        "--mb-max-drop",
        dest="mb_max_drop",
        type=float,
        metavar="X",
        help="largest drop of the total or a suite mean below the baseline that still passes (default: 0)",
    )
    group.addoption(
        "--mb-max-scenario-drop",
        dest="mb_max_scenario_drop",
        type=float,
        metavar="X",
        help=(
            "also fail when a scenario mean drops more than X below the baseline (default: scenarios are"
            " shown, not gated)"
        ),
    )
    group.addoption(
        "--mb-min-score",
        dest="mb_min_score",
        type=float,
        metavar="X",
        help="fail (exit 1) when the mean score of all items is below X",
    )
    group.addoption(
        "--mb-max-errors",
        dest="mb_max_errors",
        metavar="N|P%",
        help=(
            "items that errored (no score: agent, provider or judge failed) a gate lets pass, comparing the"
            " rest (default: 0, the gate refuses a run with errors)"
        ),
    )
    group.addoption(
        "--mb-max-cost",
        dest="mb_max_cost",
        type=float,
        metavar="USD",
        help="skip conversations that would take agent and judge spending past USD",
    )
    group.addoption(
        "--mb-markdown",
        dest="mb_markdown",
        metavar="FILE",
        help=(
            "also write the run's (or the comparison's) table as Markdown to FILE; it is appended to"
            " $GITHUB_STEP_SUMMARY when that is set"
        ),
    )
    group.addoption(
        "--mb-compare",
        dest="mb_compare",
        nargs="+",
        action="extend",
        metavar="RUN",
        help=(
            "compare two or more runs (run folders or results.json files), calling no agent: tables, paired"
            " tests, figures"
        ),
    )
    group.addoption(
        "--mb-label",
        dest="mb_label",
        action="append",
        metavar="LABEL",
        help="the name of each --mb-compare run, in order (default: what tells the runs apart)",
    )
    group.addoption(
        "--mb-compare-to",
        dest="mb_compare_to",
        metavar="LABEL",
        help="test each run against this one only (default: every pair)",
    )
    group.addoption(
        "--mb-compare-anyway",
        dest="mb_compare_anyway",
        action="store_true",
        help=(
            "compare runs scored with different profiles or judges (--mb-compare, or a --mb-baseline gate),"
            " saying so"
        ),
    )
    group.addoption(
        "--mb-price",
        dest="mb_price",
        action="append",
        metavar="MODEL=IN,OUT",
        help=(
            "price of a model missing from the built-in table, USD per million input and output tokens;"
            " repeatable"
        ),
    )


def pytest_cmdline_main(config: pytest.Config) -> int | None:
    if config.getoption("memorybench") or config.getoption("mb_estimate"):
        from pytest_memorybench.pytest_integration.compat import quiet_asyncio_scope_warning

        quiet_asyncio_scope_warning(config)  # before pytest configures its plugins
    if config.getoption("mb_compare"):
        from pytest_memorybench.reports.compare_report import run_comparison

        return run_comparison(config, print)
    if not config.getoption("mb_judge_check"):
        return None
    from pytest_memorybench.judges.judge_check import run_judge_check
    from pytest_memorybench.judges.spec import DEFAULT_CACHE
    from pytest_memorybench.pytest_integration.session import project_root

    return run_judge_check(
        config.getoption("mb_judge"),
        project_root(config) / DEFAULT_CACHE,
        print,
        min_agreement=config.getoption("mb_min_agreement"),
        max_false_accept=config.getoption("mb_max_false_accept"),
        sample=config.getoption("mb_judge_sample"),
    )


def pytest_configure(config: pytest.Config) -> None:
    for name, description in (BENCHMARK_MARKER, *SKILL_MARKERS.items()):
        config.addinivalue_line("markers", f"{name}: {description}")
    if config.getoption("memorybench") or config.getoption("mb_estimate"):
        from pytest_memorybench.pytest_integration.hooks import activate

        activate(config)
