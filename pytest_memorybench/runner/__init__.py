"""Running a benchmark: from the checked options to every test's outcome, with no pytest in sight.

`settings` reads the options once; `plan` makes the selected suites' tests and conversation
groups; `run.BenchmarkRun` drives a conversation group when pytest first asks for one of its
outcomes, with `pool` overlapping the conversations a process runs next and `loop` the event loop
they share; `folder` is the run folder (lock, manifest, definitions, atomic writes), `shards`
splits a plan across CI jobs and merges it back, `scheduling` keeps a conversation on one xdist
worker, and `spending` is the cost cap. `driving` drives one group, whatever stands in for the
agent: a replayed run, re-scored published results and merged shards go through it, with no agent. It may
import the suite, scenarios, goodai, conversation, scoring, judges, agents and core layers; reports and the
pytest face sit above it and call into it (the run's terminal progress is handed in by the pytest face, never
imported).
"""
