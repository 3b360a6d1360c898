"""The scenario contract: what scenarios and the conversation that runs them share, below both.

`scenario` says what a scenario is (`Scenario`: it generates definitions and scores their replies),
what a scorer may consult (`ScoringContext`: the profile and the judge) and how a test's score is
settled over a judge panel (`scored`); `program` is what a test says to the scheduler (`Say`, `Wait`,
`RegisterCallback`, `Finish`); `clock` is the simulated time both read; `probes` is what a probe
scenario hands over (`ProbeContext`: one long context and its questions).  Scenarios implement it
and the conversation drives it; neither imports the other for it: the run's drivers hand the
conversation the registry's lookup (`ScenarioOf`).  A layer of its own, not part of core, because
a scorer's context names a profile (scoring) and a judge (judges); it imports those and core.
"""
