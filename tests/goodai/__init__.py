"""GoodAI's published files (`pytest_memorybench/goodai/`): definitions run as suites, stored results
re-scored.
"""
