"""Judges: semantic comparators that scorers consult, an LLM or the offline `local` matcher.

`client` caches and retries every judge call; `backends` and `spec` build LLM judges; `local/`
is the offline matcher; `prompts` and `schemas` are what an LLM judge is sent; `metaeval` is the
judge check (`--mb-judge-check`), which also scores extracted items with `scoring.items_f1`: the
one import of the scoring layer above. Otherwise it imports agents and core.
"""

from pytest_memorybench.judges.base import TASK_KINDS, Judge, JudgeStats, JudgeTask, JudgeVerdict

__all__ = ["TASK_KINDS", "Judge", "JudgeStats", "JudgeTask", "JudgeVerdict"]
