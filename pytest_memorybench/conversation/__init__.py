"""Running definitions against an agent: clock, turn-taking, filler, probes and the event log.

`scheduler` weaves a conversation's tests into one session and `probing` asks probe questions over a
delivered context (`probe_questions`: when each is asked and what it rests on; `probe_log`: the
answers an earlier run logged, for resume and replay); `stats` is what a conversation cost;
`channel` is the only door to the agent (replay, logging, timeouts); `events` and `log_reader` write
and read the append-only log; `filler`, `trivia` and `trivia_facts` make the filler. What a test
says to the scheduler, the simulated clock and probe contexts are the contract it shares with the
scenarios (`contract/`), below both: a conversation is handed the scenario of each test's name
(`scenario_of`, the registry's lookup) by the run's drivers, and never imports the registry. It may
import contract, agents, models, judges and core.
"""
