"""The judges (`pytest_memorybench/judges/`): the cached client, the local judge, the judge check and
its data.
"""
