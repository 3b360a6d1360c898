"""Other harnesses' published answers and verdicts, read for re-scoring (`--mb-rescore PATH`).

`formats` tells which harness wrote a path from what it holds and reads it; a module per layout:
`locomo` (the LoCoMo pipelines' eval_results.json), `longmemeval` (hypothesis files and
evaluate_qa.py's logs), `amb` (vectorize-io/agent-memory-benchmark's per-query outputs),
`memorybench` (supermemoryai/memorybench's report.json); `answers` holds what they share and
`documents` reads a file however it is packed.  GoodAI's published folders are read by `goodai/`,
whose `PublishedRun` every layout fills.  It imports the suite layer and those below it
(scenarios, goodai, core); the runner imports it.
"""
