"""Data shipped beside the code (`core/package_data.py`): read from the package, arrays as tuples."""

from __future__ import annotations

from pytest_memorybench.conversation.trivia_tables import COLOUR_MIXES, ELEMENTS, MONTH_DAYS
from pytest_memorybench.core.package_data import frozen, package_json
from pytest_memorybench.scenarios.beam.content import DOMAINS, Measure, Phase
from pytest_memorybench.scenarios.episodic.lists import CONTENTS, LOCATIONS, STYLES


def test_arrays_become_tuples_at_every_depth() -> None:
    assert frozen({"a": [1, [2, 3]], "b": "x"}) == {"a": (1, (2, 3)), "b": "x"}


def test_the_lists_are_read_from_their_package_folder() -> None:
    raw = package_json("pytest_memorybench.scenarios.episodic", "data/lists.json")
    assert tuple(raw["LOCATIONS"]) == LOCATIONS and LOCATIONS[0] == "Amberline Ferry Pier"
    assert all(isinstance(details, tuple) for details in CONTENTS.values())
    assert all(isinstance(words, tuple) and len(words) == 3 for words in STYLES.values())


def test_records_and_keys_come_back_as_the_code_uses_them() -> None:
    software = DOMAINS[0]
    assert software.key == "software" and isinstance(software.names, tuple)
    assert all(isinstance(phase, Phase) for phase in software.phases)
    assert all(isinstance(measure, Measure) and measure.low <= measure.high for measure in software.measures)
    assert all(isinstance(pair, tuple) and len(pair) == 2 for pair in COLOUR_MIXES)
    assert MONTH_DAYS[1] == 28 and all(isinstance(number, int) for _, number in ELEMENTS.values())
