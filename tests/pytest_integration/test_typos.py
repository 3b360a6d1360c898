"""A misspelt name on the command line is one short line that names the closest known names.

Before, the unknown-agent line listed every form `--agent` takes (about 600 characters); now each
refusal names the closest few and says where the rest are, within `SHORT` characters.
"""

from __future__ import annotations

import pytest

SHORT = 200


@pytest.mark.parametrize(
    ("options", "suggestion"),
    [
        (["--agent=recal"], "did you mean recall?"),  # an agent
        (["--agent=recall", "--mb-suite=locom"], "did you mean locomo?"),  # a suite
        (["--agent=recall", "--mb-profile=oficial"], "did you mean official?"),  # a profile
        (["--agent=memgtp:openai:gpt-4o-mini"], "did you mean memgpt?"),  # a mechanism
        (["--agent=mem0x:openai:gpt-4o-mini"], "did you mean mem0?"),  # a store
        (["--agent=rag(kk=3):openai:gpt-4o-mini"], "did you mean k?"),  # a mechanism's setting
        (["--agent=recall", "--judge=locla"], "did you mean local?"),  # a judge
    ],
)
def test_a_misspelt_name_gets_the_closest_in_one_short_line(
    pytester: pytest.Pytester, options: list[str], suggestion: str
) -> None:
    result = pytester.runpytest("--memorybench", "--span=isolated", "-p", "no:cacheprovider", *options)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.strip()]
    assert len(errors) == 1, result.stderr.str()
    assert errors[0].startswith("ERROR: ")
    assert suggestion in errors[0]
    assert len(errors[0]) <= SHORT, errors[0]
