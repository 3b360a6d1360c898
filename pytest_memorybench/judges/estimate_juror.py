"""A juror played by the local judge for `--mb-estimate`, billed as the judge it stands in for.

An estimate calls no judge and needs no key, but what a jury of LLM judges asked five times under
three rubrics costs is most of some runs' bill.  The stand-in answers each task with the local
judge's verdict, so dynamic scenes go as they would, and counts the call an LLM juror would make:
the prompt it would be sent (rendered exactly, counted with the run's tokenizer), the verdict as
its reply, priced at the juror's model.
"""

from __future__ import annotations

import json

from pytest_memorybench.judges.base import JudgeTask, JudgeVerdict
from pytest_memorybench.judges.client import CachedJudge
from pytest_memorybench.judges.local import LocalJudge
from pytest_memorybench.judges.prompts import prompt_key, render, task_prompt_hash
from pytest_memorybench.judges.spec import JudgeSpec
from pytest_memorybench.models.llm import Completion, token_usage
from pytest_memorybench.models.provider_pool import price_for


class EstimatingJudge(CachedJudge):
    """The local judge's verdicts, with the calls, tokens and dollars of `spec`'s judge."""

    def __init__(self, spec: JudgeSpec) -> None:
        super().__init__(LocalJudge(), cache_path=None, max_attempts=1)
        self.spec = spec
        self.stats.model = spec.model

    @property
    def name(self) -> str:
        return self.spec.display

    @property
    def is_llm(self) -> bool:
        return self.spec.kind != "local"

    async def judge(self, task: JudgeTask, *, repeat: int = 0) -> JudgeVerdict:
        calls = self.stats.usage.calls
        verdict = await self._judge_with_judge(task)
        if not self.is_llm:
            return verdict
        system, user = render(task.kind, task.payload)
        reply = json.dumps(verdict.data or {}, ensure_ascii=False)
        input_tokens, output_tokens = token_usage(
            Completion(reply), system, [{"role": "user", "content": user}]
        )
        self.stats.usage.calls = calls + 1
        self.stats.usage.input_tokens += input_tokens
        self.stats.usage.output_tokens += output_tokens
        self.stats.prompt_hashes[prompt_key(task.kind, task.payload)] = task_prompt_hash(
            task.kind, task.payload
        )
        price = price_for(self.spec.model)
        if price is not None:
            self.stats.usage.cost_usd += price.cost(input_tokens, output_tokens)
        return verdict
