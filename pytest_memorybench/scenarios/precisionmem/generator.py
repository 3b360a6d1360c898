"""A PrecisionMemBench-shaped corpus of our own, so the suite runs with no download.

`data/corpus.json` holds, in the published layout and in words of our own, a baker who plays bass:
22 beliefs over two domain scopes and the universal one (pinned facts, a three-step supersession
chain, open questions one of them resolved, a relation whose participants are a belief in scope, an
open question and a belief out of scope, an alias two scopes share, another user's pinned belief),
27 single-turn cases over the published categories (alias resolution, scope disambiguation,
supersession, type routing, fuzzy matching and a prefix guard, budgets of 0, of the pinned count and
of 3, relation expansion, the persona prelude (one case an empty query), cross-user isolation, a
cold start, a counter-signal)
and a session of seven turns: a topic, four turns of drift (one creating a belief), the topic again
unnamed (after which its belief gains aliases) and again by its new alias.

The seed picks each case's query among its phrasings and the order the beliefs are written in, so
two seeds ask differently of differently ordered memories; the assertions stay the published kind.
"""

from __future__ import annotations

import random
from typing import Any

from pytest_memorybench.core.package_data import package_json
from pytest_memorybench.scenarios.precisionmem.data import Corpus, belief_from, case_from, session_from

_CORPUS: dict[str, Any] = package_json(__package__ or __name__, "data/corpus.json")


def generate(seed: int) -> Corpus:
    """The corpus for `seed`: the same on every machine."""
    rng = random.Random(f"precisionmem|{seed}")
    beliefs = [belief_from(row) for row in _CORPUS["beliefs"]]
    rng.shuffle(beliefs)
    cases = []
    for row in _CORPUS["cases"]:
        phrasings = row["queries"]
        cases.append(case_from({**row, "query": phrasings[rng.randrange(len(phrasings))]}))
    sessions = tuple(session_from(row) for row in _CORPUS["sessions"])
    return Corpus(tuple(beliefs), tuple(cases), sessions)


__all__ = ["generate"]
