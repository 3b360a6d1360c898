"""Where StateBench's judge asks an LLM, asked of the run's judge instead (suite parameter
`judge_fallback: true`; off by default, so an offline run is its `deterministic-only` judge).

StateBench's `ResponseJudge` sends two things to its LLM (gpt-4o-mini by default): a must-mention
phrase not found verbatim ("Does the following response contain or convey the same meaning as the
target phrase?"), and a decision the deterministic reading could not find at all ("What decision
does this response indicate? Choose from: ..."; the expected label and "other").  Here the first is
the judge task `sentence` (is a paraphrase of the phrase in the answer: the same question), the
second the task `answer` under the rule `contains` (does the answer give the expected decision or
an equivalent): a close reading of its option pick, not its prompt.  Forbidden phrases are never
sent to a judge, as StateBench never sends them.
"""

from __future__ import annotations

from pytest_memorybench.judges.base import Judge, JudgeTask
from pytest_memorybench.scenarios.statebench.data import Truth
from pytest_memorybench.scenarios.statebench.verdict import Verdict

SCORER = "statebench"


async def ask_judge(judge: Judge, verdict: Verdict, truth: Truth, question: str, reply: str) -> list[str]:
    """Settle, through `judge`, what the deterministic reading left open; what it changed, as reasons."""
    notes = []
    if verdict.decision is None:
        payload = {"question": question, "expected": truth.decision, "answer": reply, "rule": "contains"}
        found = await judge.judge(JudgeTask("answer", dict(payload), SCORER))
        if found.ok and (found.data or {}).get("correct"):
            verdict.decision, verdict.decision_correct = truth.decision.lower().strip(), True
            notes.append(f"judge {judge.name} reads the decision {truth.decision!r} in the reply")
        elif not found.ok:
            notes.append(f"judge {judge.name} gave no decision: {found.error}")
    for phrase in list(verdict.missed):
        found = await judge.judge(JudgeTask("sentence", {"answer": reply, "sentence": phrase}, SCORER))
        if found.ok and (found.data or {}).get("present"):
            verdict.missed.remove(phrase)
            verdict.mentioned.append(phrase)
            notes.append(f"judge {judge.name} finds {phrase!r} said in other words")
    verdict.judged = bool(notes)
    return notes


__all__ = ["ask_judge"]
