"""GoodAI's published LTM Benchmark files: their test definitions, and their agents' stored results.

`format.py` turns GoodAI's script conventions into ours (the LTM scenarios use it);
`definitions.py` runs GoodAI's definition files through our engine (`--mb-suite
goodai-definitions=PATH`); `published.py` reads the result files their runner stored for each agent,
and `rescore.py` scores those stored replies with our scorers (`--mb-rescore PATH`), so a user can
see how far our verdicts agree with the published ones and gate on a published agent. `format`
and `published` import only core; `definitions` and `rescore` also use the scenario registry and
`suite` to make suites of GoodAI's files.
"""
