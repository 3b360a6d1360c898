"""results.json and events.jsonl against their schemas (`pytest_memorybench/results/`,
`conversation/event_schema`).
"""
