"""Running a benchmark (`pytest_memorybench/runner/`): concurrency, the cost cap, the estimate,
interruptions, shards.
"""
