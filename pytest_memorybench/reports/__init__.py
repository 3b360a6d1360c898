"""What a run leaves behind and shows: the terminal table, report.html, JUnit, gates, comparisons.

`summary`, `table` and `progress` write the terminal; `html`, `svg`, `transcript` and
`templates/` make report.html; `junit` adds JUnit properties; `gate` judges a run against a
baseline; `estimate` shows the bill of a plan; `agreement` compares re-scored verdicts with
published ones; `compare/` sets runs side by side (their rows, significance, board and scale).
It reads what a run left (results.json through the results layer, its event logs) and never the
runner; only the pytest face imports it.
"""
