"""What a run leaves behind and shows: results.json, the terminal table, report.html, JUnit, gates.

`results` builds results.json from a finished run; `summary`, `table` and `progress` write the
terminal; `html`, `svg`, `transcript` and `templates/` make report.html; `junit` adds JUnit
properties; `gate` judges a run against a baseline; `estimate` prices a plan; `agreement`
compares re-scored verdicts with published ones; `statistics` holds the intervals. It sits above
the runner and may import it and every layer below; only the pytest face imports it.
"""
