"""Running definitions against an agent: clock, turn-taking, filler, probes and the event log.

`scheduler` weaves a conversation's tests into one session and `probing` asks probe questions
over a delivered context; `stats` is what a conversation cost; `channel` is the only door to the
agent (replay, logging, timeouts); `events` and `log_reader` write and read the append-only log;
`filler`, `trivia` and `trivia_facts` make the filler; `clock` is the simulated clock. It may
import agents, models, judges and core, and the scenario
registry (`scenarios.get_scenario`), which scores each test it runs: the one import of a layer
above, by name lookup.
"""
