"""The pytest face: what turns a benchmark run into pytest items, fixtures, hooks and reports.

`plugin.py` (the entry point) registers the parts of the plugin here, each declaring its own
options: `agent_options` (the agent under test and its provider), `run_options` (what runs, where,
and runs that carry on earlier ones), `judge_options` (the judge, and `--mb-judge-check`), `gating` (the
session gates) and `comparing` (`--mb-compare`), and `fixtures`, which hands users' tests an agent
and a hand-driven conversation.  Under `--memorybench` `hooks.activate` starts the run
(`starting`), `items` collects one pytest item per planned test, `finishing` hands the finished
run's results to its outputs, each a plugin (`outputs`, the gate in `gating`) implementing the
hooks `hookspecs` declares, as a conftest.py can; `terminal` prints the header and the summary,
`xdist_controller` hands workers the run, `compat` smooths over pytest and plugin versions, `keys`
and `markers` are the names pytest sees. This is the top layer: it may import every layer below it
(reports, runner, the judge check, suite, scenarios, agents, judges, core); nothing below imports it.
"""
