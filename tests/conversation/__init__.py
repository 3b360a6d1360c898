"""The conversation engine (`pytest_memorybench/conversation/`): scheduler, filler, probes, evidence
recall.
"""
