"""What a benchmark run runs and where it keeps it: suites, span, seed, profile, the run folder, shards.

Also the options that run nothing but plan (`--mb-estimate`) or carry on a run (`--mb-resume`,
`--mb-replay`, `--mb-merge`, `--mb-rescore`); they are read and checked in `runner/settings.py`.
"""

from __future__ import annotations

import pytest

from pytest_memorybench.pytest_integration.keys import option_group


def pytest_addoption(parser: pytest.Parser) -> None:
    """The run's options, in the plugin's group."""
    group = option_group(parser)
    _what_runs(group)
    _where_it_runs(group)
    _from_an_earlier_run(group)


def _what_runs(group: pytest.OptionGroup) -> None:
    """Which suites and items, at what span, scored how."""
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
        default=None,
        metavar="paper|official|audited",
        help="scoring profile where the original code and its paper disagree (default: paper; official"
        " when re-scoring another harness's LLM-judged verdicts: all but GoodAI's)",
    )
    group.addoption(
        "--mb-threshold",
        dest="mb_threshold",
        type=float,
        metavar="X",
        help="pass threshold for every item, overriding the suite's",
    )
    group.addoption(
        "--mb-no-context",
        dest="mb_no_context",
        action="store_true",
        default=False,
        help=(
            "ask every question of the probe suites (LoCoMo, LongMemEval, MemoryAgentBench, …) with nothing"
            " delivered first: how many the model answers without being told (a contamination check)"
        ),
    )
    group.addoption(
        "--mb-answer-deadline",
        dest="mb_answer_deadline",
        type=float,
        metavar="S",
        help=(
            "score an answer that took longer than S seconds as late: 0, with the reason (DialSim's rule;"
            " the latency-budget figures show every budget without it)"
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


def _where_it_runs(group: pytest.OptionGroup) -> None:
    """The run folder, and how the run is split across processes and machines."""
    group.addoption(
        "--mb-output",
        dest="mb_output",
        metavar="DIR",
        help="run folder (default: .memorybench/runs/<run id>)",
    )
    group.addoption(
        "--mb-export",
        dest="mb_export",
        action="append",
        metavar="FORMAT",
        help=(
            "also write the answers in a benchmark's own format into the run folder's exports/, for its"
            " evaluation script: longmemeval, locomo, memoryagentbench or beam; repeatable"
        ),
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


def _from_an_earlier_run(group: pytest.OptionGroup) -> None:
    """Runs that carry on, re-score or reuse an earlier run, or only price one."""
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
        "--mb-allow-drift",
        dest="mb_allow_drift",
        action="store_true",
        default=False,
        help=(
            "with --mb-resume, --mb-replay or --mb-merge: go on though the data, the definitions, the"
            " answering prompts or the judge changed since that run (recorded in run.json and results.json)"
        ),
    )
    group.addoption(
        "--mb-rescore",
        dest="mb_rescore",
        metavar="PATH",
        help=(
            "score another harness's published answers with our scorers and compare with its verdicts:"
            " GoodAI's results folder, a LoCoMo pipeline's eval_results.json, LongMemEval hypotheses (with"
            " --mb-data longmemeval=), an AMB output or a memorybench report.json"
        ),
    )
    group.addoption(
        "--mb-definitions",
        dest="mb_definitions",
        metavar="DIR",
        help="reuse another run's test definitions (e.g. the same content at another span)",
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
