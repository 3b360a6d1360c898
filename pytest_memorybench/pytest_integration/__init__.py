"""The pytest face: what turns a benchmark run into pytest items, fixtures, hooks and reports.

`plugin.py` (the entry point) registers options, markers and fixtures here; under `--memorybench`
`hooks.activate` starts a `session`, `items` collects one pytest item per planned test, `fixtures`
hands users' tests an agent and a hand-driven conversation, `compat` smooths over pytest and
plugin versions, `keys` and `markers` are the names pytest sees. This is the top layer: it may
import every layer below it (reports, runner, suite, scenarios, agents, judges, core); nothing
below imports it.
"""
