"""results.json: built from a run's records (`build`), read back by every consumer (`file`).

The run writes it once, at the end, from the item records and a `RunFacts`; compare, the gate,
snapshots, shards' merge, resume and re-score read it through `file`; `statistics` holds the
bootstrap intervals its means carry. `build` assembles the run's facts, its `totals`, the figures
of each suite, scenario and category (`breakdown`) and every process's judging (`judge_stats`);
each figure only some runs have is a module of its own (`losses`, `stale`, `latency_budget`,
`judge_robustness`, `ceilings`) with the part it adds to a record. It may import the scenarios
(their own summaries), conversation, judges, agents, models and core layers; never the runner or
the reports.
"""
