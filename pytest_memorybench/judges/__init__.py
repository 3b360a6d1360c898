"""Judges: semantic comparators that scorers consult, an LLM or the offline `local` matcher."""

from pytest_memorybench.judges.base import TASK_KINDS, Judge, JudgeStats, JudgeTask, JudgeVerdict

__all__ = ["TASK_KINDS", "Judge", "JudgeStats", "JudgeTask", "JudgeVerdict"]
