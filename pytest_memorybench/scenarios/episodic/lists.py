"""The raw materials of the episodic universe, written for this project.

Huet et al. (App. B.1.1) start from lists of locations, event contents and, for each content,
details that a chapter must state word for word.  Ours are our own: invented place names (so no
model knows them from training data, one of the paper's design goals) and everyday event
contents, each with ten details phrased to follow a first name ("Mara tied the last paper
knot"), past tense, lower case.

Rules the lists keep, checked by `tests/scenarios/test_episodic_book.py` because the ground truth
depends on them:
  * no item is a substring of another item (a location inside a longer location would make the
    "appears only in paragraph k" check and the judge's matching ambiguous);
  * a two-word item shares no word with another item of its list, so that the offline judge does
    not half-credit "Gravel Derby" for "Paper Derby";
  * no detail contains a question mark or a phrase of not knowing, because chapters are stored as
    statements and an extractive agent answers with them.
"""

from __future__ import annotations

from pytest_memorybench.core.package_data import frozen, package_json

_DATA = package_json("pytest_memorybench.scenarios.episodic", "data/lists.json")

# Places of an imaginary coastal city.  Each reads naturally after "at".
LOCATIONS: tuple[str, ...] = frozen(_DATA["LOCATIONS"])

# Event contents and, for each, details a chapter states verbatim after the protagonist's first name.
CONTENTS: dict[str, tuple[str, ...]] = frozen(_DATA["CONTENTS"])

# The eight styles of App. B.1.4 (the genre names are the paper's); each with three words of ours
# that the template writer and the `llm` writer's prompt use to colour the prose.
STYLES: dict[str, tuple[str, str, str]] = frozen(_DATA["STYLES"])
