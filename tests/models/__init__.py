"""Model clients, rate limits, auto concurrency and provider faults (`pytest_memorybench/models/`), and
the local model.
"""
