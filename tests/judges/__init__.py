"""The judges (`pytest_memorybench/judges/`): the cached client, the panel, the local judge."""
