"""Judges: semantic comparators that scorers consult, an LLM or the offline `local` matcher.

`client` caches and retries every judge call; `backends` and `spec` build LLM judges; `panel`
asks several and `majority_vote` settles them; `local/` is the offline matcher; `prompts` and
`schemas` are what an LLM judge is sent. These are the judges a run consults, and they stand
alone: the check of a judge against people's labels (`--mb-judge-check`) is `judge_check/`, above
them. It imports agents, models and core.
"""

from pytest_memorybench.judges.base import TASK_KINDS, Judge, JudgeStats, JudgeTask, JudgeVerdict

__all__ = ["TASK_KINDS", "Judge", "JudgeStats", "JudgeTask", "JudgeVerdict"]
