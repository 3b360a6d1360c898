"""StateBench (Parslee-ai, MIT): state correctness over business timelines: superseded facts that
must stay dead, commitments, interruptions, scope and permission, expiry, hallucinated state, leaks,
corrections, authority, privacy, and (v2.1) premises and deletion.

  data       its timelines (JSONL, one a line) read into records, and the published files found
  rubric     phrase and decision matching: the 2.x rules and the 1.0 rules
  verdict    one query's verdict as its judge gives it: decision, must-mention, must-not-mention
  fallback   where its judge asks an LLM, the run's judge asked instead (`judge_fallback: true`)
  generator  timelines of our own for every track, in its published layout
  summary    its metrics from the run's records: decision accuracy, SFRR, leakage, fabrication
  scenario   `statebench.timelines`: each timeline a context, each query an item
"""
