"""LongMemEval (Wu et al., ICLR 2025): 500 questions, each with its own timestamped chat history.

Modules, one idea each:
  data       the records of `longmemeval_*.json` and their loader
  generator  questions of our own in the same shape, one per type and an abstention
  scenario   `longmemeval.questions`: delivery, asking on the question date, per-type judge rules
"""
