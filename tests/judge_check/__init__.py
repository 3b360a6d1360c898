"""The judge check (`pytest_memorybench/judge_check/`): the labelled cases, the wrong answers, the
report and its gate.
"""
