"""What `--mb-resume DIR` takes from the run it continues: the options its command was given.

run.json records the options that make a run what it is (`RunCommand`), so the line a stopped
run prints, `pytest --memorybench --mb-resume=DIR`, works as printed: the agent and its settings,
the seed and sample that chose the tests, the judge, the threshold, the pacing and the prices come
from the folder (the suites, data, spans, split, profile and shard already did, from the plan).

An option the resume command gives itself either has to agree or wins.  It has to agree when it
says what was asked of whom (the agent and its settings) or which tests there are (seed, sample):
another value would mix two runs in one result.  It wins when it applies to the whole run alike
(how it is judged, where items pass, how fast it may call, what it may spend, what models cost).
An option left at its default counts as not given.  A value holding credentials (a URL's
`user:password@`) is never written down: the resume command gives it again, and the printed line
names it, masked.
"""

from __future__ import annotations

import copy
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_memorybench.core.errors import mask_credentials, usage_error
from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.runner.folder import MANIFEST, read_manifest

DEFAULT_TIMEOUT = 600.0  # --mb-timeout
AUTO = "auto"  # --mb-concurrency


@dataclass(frozen=True)
class RunOption:
    """One option a run folder remembers; `kept`: a resume may not change it."""

    flag: str
    dest: str
    default: Any = None
    kept: bool = False


RUN_OPTIONS = (
    RunOption("--agent", "mb_agent", kept=True),
    RunOption("--mb-context", "mb_context", kept=True),
    RunOption("--mb-thinking", "mb_thinking", kept=True),
    RunOption("--mb-memory-model", "mb_memory_model", kept=True),
    RunOption("--mb-embedder", "mb_embedder", "lexical", kept=True),
    RunOption("--mb-k", "mb_k", kept=True),
    RunOption("--mb-context-tokens", "mb_context_tokens", kept=True),
    RunOption("--mb-seed", "mb_seed", 0, kept=True),
    RunOption("--mb-sample", "mb_sample", kept=True),
    RunOption("--judge", "mb_judge", "local"),
    RunOption("--mb-jury", "mb_jury"),
    RunOption("--mb-judge-repeats", "mb_judge_repeats"),
    RunOption("--mb-judge-band", "mb_judge_band", False),
    RunOption("--mb-threshold", "mb_threshold"),
    RunOption("--mb-answer-deadline", "mb_answer_deadline"),
    RunOption("--mb-timeout", "mb_timeout", DEFAULT_TIMEOUT),
    RunOption("--mb-concurrency", "mb_concurrency", AUTO),
    RunOption("--mb-max-requests", "mb_max_requests"),
    RunOption("--mb-rpm", "mb_rpm"),
    RunOption("--mb-tpm", "mb_tpm"),
    RunOption("--mb-max-cost", "mb_max_cost"),
    RunOption("--mb-price", "mb_price"),  # added to: the command's own prices win, model by model
)


def _given(option: Any, run_option: RunOption) -> Any:
    """The option's value on this command line, or None when it is left at its default."""
    value = getattr(option, run_option.dest, run_option.default)
    return None if value is None or value == run_option.default else value


def _secret(value: Any) -> bool:
    texts = value if isinstance(value, list) else [value]
    return any(isinstance(text, str) and mask_credentials(text) != text for text in texts)


@dataclass(frozen=True)
class RunCommand:
    """What run.json keeps of a run's command for a resume (`options`, as given), and what it cannot
    keep (`withheld`: values holding credentials, masked, for the resume line to name)."""

    options: JsonObject = field(default_factory=dict)
    withheld: tuple[str, ...] = ()

    @classmethod
    def of(cls, option: Any) -> RunCommand:
        options, withheld = {}, []
        for run_option in RUN_OPTIONS:
            value = _given(option, run_option)
            if value is None:
                continue
            if not _secret(value):
                options[run_option.dest] = value
                continue
            for text in value if isinstance(value, list) else [value]:
                withheld.append(f"{run_option.flag}={mask_credentials(str(text))}")
        return cls(options, tuple(withheld))


def as_resumed(option: Any) -> Any:
    """`option` with what the run given to `--mb-resume` recorded, where this command gives nothing;
    one line when it gives another value for an option the run keeps.  Without `--mb-resume`, or
    with a folder that is none (said later, by the folder's own check), `option` itself."""
    folder = getattr(option, "mb_resume", None)
    if folder is None or not (Path(folder) / MANIFEST).is_file():
        return option
    recorded = read_manifest(Path(folder)).options
    resumed = copy.copy(option)
    for run_option in RUN_OPTIONS:
        if run_option.dest not in recorded:
            continue
        theirs, given = recorded[run_option.dest], _given(option, run_option)
        if given is None:
            setattr(resumed, run_option.dest, theirs)
        elif run_option.dest == "mb_price":
            setattr(resumed, run_option.dest, [*(theirs if isinstance(theirs, list) else [theirs]), *given])
        elif run_option.kept and _differs(given, theirs):
            flag, now, then = run_option.flag, mask_credentials(str(given)), mask_credentials(str(theirs))
            raise usage_error(
                f"{flag} {now}: the run in {folder} ran with {flag} {then}, and a resumed run goes on as it"
                f" began; drop {flag}, or start a new run"
            )
    return resumed


def _differs(given: Any, theirs: Any) -> bool:
    if isinstance(given, str) and isinstance(theirs, str):
        return given.strip() != theirs.strip()
    return bool(given != theirs)


def resume_command(folder: str, paths: list[str], withheld: list[str]) -> str:
    """The command that finishes a stopped run, as it is printed: runnable as it stands, from the
    directory the run was started in (with the options run.json cannot keep given again)."""
    words = ["pytest", "--memorybench", *paths, f"--mb-resume={folder}", *withheld]
    return " ".join(shlex.quote(word) for word in words)
