"""What a mechanism's settings accept: checks for their `__post_init__`, said in terms of the setting.

A mechanism's settings are a dataclass whose defaults are its paper's values (`--agent
MECHANISM(SETTING=VALUE,...):MODEL`, parsed by `agents/mechanism_spec.py`); a value it refuses
raises ValueError here, which the spec parser turns into one line before any test runs.
"""

from __future__ import annotations


def require(condition: bool, message: str) -> None:
    """For settings' `__post_init__`: a refused value, said in terms of the setting."""
    if not condition:
        raise ValueError(message)


def positive(**values: float) -> None:
    """Each of `values` above 0."""
    for key, value in values.items():
        require(value > 0, f"{key} must be above 0, got {value:g}")


def one_of(key: str, value: str, choices: tuple[str, ...]) -> None:
    """`value` one of `choices`."""
    require(value in choices, f"{key} must be one of {', '.join(choices)}, got {value!r}")
