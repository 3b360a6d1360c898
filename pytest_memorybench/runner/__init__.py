"""Running a benchmark: from the checked options to every test's outcome, with no pytest in sight.

`settings` reads the options once (`gate_settings` the session gates'); `context.open_run`
settles the run (its sources, `plan`, this shard's part, its `folder`) into a frozen `RunContext`;
`run.BenchmarkRun` drives a conversation group when pytest first asks for one of its outcomes,
through the driver `drivers.choose_driver` picks once (a conversation, probes, re-scored results,
merged shards), into the `book` of outcomes; `instruments` are what the drivers share (event log,
judge, token counter, listeners), `pool` overlaps the conversations a process runs next and `loop`
is the event loop they share; `estimate_plays` plays a plan against a billing stand-in, `shards` splits a
plan across CI jobs and merges it back, `xdist_groups` keeps a conversation on one xdist worker,
and `spending` is the cost cap. It may import the rescore, results, suite, scenarios,
conversation, contract, scoring, judges, agents, models and core layers; the pytest face sits above it and
subscribes to what happens (the terminal is a listener, never imported).
"""
