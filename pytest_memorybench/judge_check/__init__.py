"""The judge check (`pytest --mb-judge-check`): how far a judge agrees with people, as a gate.

`metaeval` reads the labelled cases (`data/judge_cases.jsonl`, `data/answer_cases.jsonl`, and
`answer_styles`' answers made from templates) and sets a judge's verdict against each label;
`wrong_answers` reads the answers a judge must refuse (`data/wrong_answers.jsonl`); `evaluation`
asks a judge all of them and tallies agreement and false acceptance per kind; `command` prints the
report and gates on it. A tool about judges, not one a run uses: it sits above the judges, so the
judges a run consults stand alone, and it may import scoring (extracted items are scored as the
episodic scorer scores them), judges and core; only the pytest face imports it.
"""
