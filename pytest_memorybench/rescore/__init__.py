"""Other harnesses' published answers and verdicts, read for re-scoring (`--mb-rescore PATH`).

`formats` tells which harness wrote a path from what it holds and reads it; a module per layout:
`locomo` (the LoCoMo pipelines' eval_results.json), `longmemeval` (hypothesis files and
evaluate_qa.py's logs), `amb` (vectorize-io/agent-memory-benchmark's per-query outputs),
`memorybench` (supermemoryai/memorybench's report.json), `goodai` (GoodAI's published folders:
each result file read by `goodai_results`, paired with its definition); `answers` holds what the
question-answer layouts share and `documents` reads a file however it is packed.  Every layout
fills a `published.PublishedRun`, whose results the run's re-scoring driver scores again
(`published.rescored_outcome`).  All re-scoring of published results is here.  It imports the
suite layer and those below it (scenarios, contract, judges, core); the runner imports it.
"""
