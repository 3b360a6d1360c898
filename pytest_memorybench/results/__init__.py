"""results.json: built from a run's records (`build`), read back by every consumer (`file`).

The run writes it once, at the end, from the item records and a `RunFacts`; compare, the gate,
snapshots, shards' merge, resume and re-score read it through `file`; `statistics` holds the
bootstrap intervals its means carry. It may import the scenarios (their own summaries),
conversation, judges, agents, models and core layers; never the runner or the reports.
"""
