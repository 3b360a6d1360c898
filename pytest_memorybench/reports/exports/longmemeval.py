"""LongMemEval's `hypotheses.jsonl`, as its `src/evaluation/evaluate_qa.py` reads it.

evaluate_qa.py reads the file a JSON line at a time, each an object of which it takes
`question_id` (looked up among the reference file's questions; `_abs` in it picks the abstention
prompt) and `hypothesis` (the text its judge reads).  So each answered question is one line,
`{"question_id": …, "hypothesis": …}`, in the plan's order; a question whose item errored is
written with an empty hypothesis (its judge then counts it wrong, as our strict mean does) rather
than left out (which would drop it from its denominator).  Beside it, our verdicts in the layout
of evaluate_qa.py's own log, `hypotheses.jsonl.eval-results-memorybench` (each line with
`autoeval_label: {model, label}`, `label` whether the item passed), so `--mb-rescore` of the file
under another judge shows how far that judge agrees with ours.
"""

from __future__ import annotations

import json
from pathlib import Path

from pytest_memorybench.core.files import write_atomically
from pytest_memorybench.reports.exports.answers import Planned, counted
from pytest_memorybench.scenarios.longmemeval.scenario import NAME

FILE = "hypotheses.jsonl"
LOG = f"{FILE}.eval-results-memorybench"


def export(planned: Planned, folder: Path) -> tuple[Path | None, str]:
    """hypotheses.jsonl and our verdicts' log; (the file, what went in)."""
    answers = [answer for _, answer in planned.of(lambda d: d.scenario == NAME) if answer is not None]
    if not answers:
        return None, "no LongMemEval question was answered in this run; nothing written"
    lines, logged = [], []
    judge = f"memorybench judge {planned.results['run']['judge']}"
    for answer in answers:
        line = {"question_id": answer.definition.context, "hypothesis": answer.text}
        lines.append(json.dumps(line, ensure_ascii=False))
        if answer.passed is not None:
            labelled = {**line, "autoeval_label": {"model": judge, "label": answer.passed}}
            logged.append(json.dumps(labelled, ensure_ascii=False))
    write_atomically(folder / FILE, "\n".join(lines) + "\n")
    write_atomically(folder / LOG, "".join(f"{line}\n" for line in logged))
    return folder / FILE, counted(len(lines), "hypotheses", answers, f"our verdicts in {LOG}")


__all__ = ["FILE", "LOG", "export"]
