"""The foundations (`pytest_memorybench/core/`): JSON streams, spans, tokens, heavy imports, every
reader fuzzed.
"""
