"""The pytest face (`pytest_memorybench/pytest_integration/`): the plugin, user tests, plugin
compatibility, start-up.
"""
