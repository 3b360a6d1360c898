"""The judge: `--judge` for every run, and `--mb-judge-check`, which scores the judge itself and exits.

The check runs instead of a test session (`pytest_cmdline_main`): it asks the judge the packaged
labelled cases and wrong answers and prints its agreement with the human verdicts.
"""

from __future__ import annotations

import pytest

from pytest_memorybench.pytest_integration.keys import option_group


def pytest_addoption(parser: pytest.Parser) -> None:
    """The judge's options, in the plugin's group."""
    group = option_group(parser)
    group.addoption(
        "--judge",
        dest="mb_judge",
        metavar="SPEC",
        default="local",
        help="semantic comparator for scorers that need one (default: local)",
    )
    group.addoption(
        "--mb-judge-repeats",
        dest="mb_judge_repeats",
        type=int,
        metavar="N",
        help=(
            "ask an LLM judge each verdict N times; the majority scores, and the run reports how often the"
            " calls agreed and the score's spread"
        ),
    )
    group.addoption(
        "--mb-jury",
        dest="mb_jury",
        metavar="SPEC,SPEC,...",
        help=(
            "judge with several judges (e.g. local,openai:gpt-4o-mini,anthropic:claude-haiku-4-5) in place of"
            " --judge: the majority scores; each juror's score and their agreement (Fleiss' kappa) reported"
        ),
    )
    group.addoption(
        "--mb-judge-band",
        dest="mb_judge_band",
        action="store_true",
        help=(
            "also judge under a stricter and a more generous rubric: the score as a band [strict, official,"
            " generous]"
        ),
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


def pytest_cmdline_main(config: pytest.Config) -> int | None:
    """`--mb-judge-check`: score the judge on the labelled cases and exit, instead of a test session."""
    if not config.getoption("mb_judge_check"):
        return None
    from pytest_memorybench.judge_check.command import run_judge_check
    from pytest_memorybench.judges.spec import DEFAULT_CACHE
    from pytest_memorybench.pytest_integration.starting import project_root

    return run_judge_check(
        config.getoption("mb_judge"),
        project_root(config) / DEFAULT_CACHE,
        print,
        min_agreement=config.getoption("mb_min_agreement"),
        max_false_accept=config.getoption("mb_max_false_accept"),
        sample=config.getoption("mb_judge_sample"),
    )
