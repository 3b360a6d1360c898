"""Refusing a name we do not know: the known names closest to it, in a line short enough to read.

A misspelt agent, suite, profile, mechanism, store, judge or setting is refused with one line
(`errors.usage_error`).  Listing every name the option takes made some of those lines 600
characters long, and the right name was lost among them; the line names the closest few instead
("did you mean recall?") and says where the whole list is (`pytest --help`, a docs page), or, when
the names are few, names them all.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence

CLOSEST = 3  # names suggested at most
_CUTOFF = 0.6  # difflib's similarity ratio: "recal" ~ "recall", "locom" ~ "locomo", "papr" ~ "paper"
_MARGIN = 0.1  # a name much further than the closest is noise: "ltm.colors" suggests ltm.colours alone


def closest(name: str, known: Iterable[str], n: int = CLOSEST) -> list[str]:
    """The known names most like `name` (case aside), best first; none when nothing is close."""
    by_folded: dict[str, str] = {}
    for candidate in known:
        by_folded.setdefault(candidate.casefold(), candidate)
    wanted = name.casefold()
    scored = sorted(
        ((difflib.SequenceMatcher(None, wanted, folded).ratio(), folded) for folded in by_folded),
        key=lambda pair: -pair[0],
    )
    best = scored[0][0] if scored else 0.0
    return [by_folded[folded] for ratio, folded in scored[:n] if ratio >= max(_CUTOFF, best - _MARGIN)]


def suggest(
    name: str, known: Iterable[str], *, where: str | None = None, written: Mapping[str, str] | None = None
) -> str:
    """How a refusal of `name` ends: the closest known names, then where the whole list is.

    `where` is a phrase such as "every form: pytest --help", for a list too long for the line;
    without it the known names are the list ("known: paper, official, audited"), so a caller gives
    it for every list longer than a few names.  `written` says how a name is written where that is
    more than the name (`rag` as `rag:MODEL_SPEC`): the name is matched, its form suggested.
    """
    names = list(dict.fromkeys(known))
    listing = where or f"known: {', '.join(names) or 'none'}"
    close = [(written or {}).get(match, match) for match in closest(name, names)]
    return f"did you mean {either(close)}? ({listing})" if close else listing


def either(names: Sequence[str]) -> str:
    """ "a", "a or b", "a, b or c": the names a refusal offers."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
