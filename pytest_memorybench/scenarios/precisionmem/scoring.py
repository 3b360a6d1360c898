"""PrecisionMemBench's scoring: what came back mapped to belief ids, the context built from it, and
every assertion of a case checked as its harness checks them.

The harness builds a context in four tiers and asserts on each (`retrieval.external.eval.test.ts`,
`baseAdapter.ts`); only `relevantBeliefs` comes from the memory under test:

  personaPrelude   a fixed text for the default user, empty for any other; ours is the content of
                   the user's pinned `user:universal` beliefs (the upstream text is a constant of its
                   harness, not of its data; its cases ask for words those beliefs hold)
  pinnedFacts      the user's pinned beliefs in scope, neither open questions, superseded nor resolved
  openQuestions    the user's pinned open questions in scope, not resolved
  relevantBeliefs  the search results, pinned ones left out, then the participants of any relation
                   among them (one hop, the user's, in scope), cut so pinned + relevant fit
                   `maxBeliefs`; no search at all for a blank query or a `maxBeliefs` of 0

The local tiers are computed when the definition is made (`expected["tiers"]`); the scorer only maps
what the memory returned.  A memory is mapped to every belief whose seeded text it holds (a chunk of
two beliefs is both), else to a belief id it names, else to the belief whose name or alias it names
as a word or whose content words it shares (Jaccard ≥ 0.6), the last resort of agent-memory-benchmark's
port for products that rewrite what they keep; what maps to none is counted, never guessed.  As that
port does, the budget is applied to distinct beliefs after mapping (products that keep several facts
per belief are not cut below it).

Precision and recall are over the relevant tier against `shouldOnlyInclude` (else the non-pinned
`mustInclude`): precision None when nothing was expected and nothing came, 0 when something was
expected and nothing came; recall None when nothing was expected.  Session turns count a hit in the
pinned tier too, precision None when nothing came, and their drift score (see `drift`).

Where the published code and the paper disagree (`--mb-profile`):
- the pass taxonomy: `paper` by the case's design, as the README and paper define it (active: the case
  expects beliefs in the relevant tier; structural: it expects none but asserts something else;
  trivially empty: it asserts nothing else); `official` as `buildRetrievalReport.ts` classifies a
  pass (active: precision above 0; structural: one of its seven structural categories; else trivially
  empty);
- relation expansion: `paper` routes an open-question participant to the open-questions tier, as the
  cases say it must; `official` expands it into the relevant tier as `baseAdapter.ts` does (so even a
  perfect memory fails the cases whose relation has such a participant);
- the drift score: `paper` is the share of the retrieved non-pinned beliefs that came from the drift
  turns' topics before it (the README's definition); `official` is 1 − precision, 0 without one (the
  session runner's).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field

from pytest_memorybench.core.json_values import JsonMapping, JsonObject, JsonValue
from pytest_memorybench.scoring.profiles import OFFICIAL

# The categories buildRetrievalReport.ts counts a non-active pass of as structural.
STRUCTURAL_CATEGORIES = frozenset(
    {
        "Scope disambiguation",
        "Supersession chain exclusion",
        "Type routing and open questions",
        "Budget eviction and capacity",
        "Cross-user isolation",
        "Ranking stability",
        "Persona prelude content",
    }
)
ACTIVE, STRUCTURAL, TRIVIALLY_EMPTY = "active", "structural", "trivially_empty"
SESSION_CATEGORY = "Session-level noise isolation"  # what the session runner files its turns under
LEXICAL_OVERLAP = 0.6  # the content overlap agent-memory-benchmark's port takes as the same belief
_WORDS = re.compile(r"[a-z0-9]+")
_IDS = re.compile(r"\bb-[a-z0-9][a-z0-9-]*\b")
_SPACES = re.compile(r"\s+")


def words(text: str) -> list[str]:
    return _WORDS.findall(text.lower())


def _normal(text: str) -> str:
    return _SPACES.sub(" ", text.lower()).strip()


@dataclass(frozen=True)
class Known:
    """A belief as the scorer recognises it in what a memory returns."""

    id: str
    texts: tuple[str, ...]  # every text it was seeded with (a session re-adds an enriched one)
    names: tuple[str, ...]  # its canonical name and aliases, as words
    content: frozenset[str]


def catalogue_entry(texts: Sequence[str], names: Sequence[str], content: str) -> JsonObject:
    """A belief's entry in a definition's catalogue (JSON), what `Known` is read from."""
    return {
        "texts": list(texts),
        "names": sorted({" ".join(words(name)) for name in names if words(name)}),
        "content": content,
    }


def read_catalogue(entries: JsonMapping) -> list[Known]:
    known = []
    for belief, entry in entries.items():
        if not isinstance(entry, Mapping):
            continue
        texts = entry.get("texts")
        names = entry.get("names")
        known.append(
            Known(
                belief,
                tuple(_normal(str(text)) for text in texts) if isinstance(texts, Sequence) else (),
                tuple(str(name) for name in names) if isinstance(names, Sequence) else (),
                frozenset(words(str(entry.get("content") or ""))),
            )
        )
    return known


@dataclass
class Resolution:
    """Distinct belief ids in the order they came back, and how each memory was mapped."""

    beliefs: list[str] = field(default_factory=list)
    how: dict[str, int] = field(default_factory=dict)

    def add(self, method: str, ids: Sequence[str]) -> None:
        self.how[method] = self.how.get(method, 0) + 1
        for belief in ids:
            if belief not in self.beliefs:
                self.beliefs.append(belief)


def resolve(memories: Sequence[str], known: Sequence[Known]) -> Resolution:
    """Each returned memory mapped to the beliefs it is (see the module's docstring)."""
    found = Resolution()
    by_id = {belief.id: belief for belief in known}
    for memory in memories:
        text = _normal(memory)
        held = [belief.id for belief in known if any(seeded and seeded in text for seeded in belief.texts)]
        if held:
            found.add("text", held)
            continue
        named = [belief for belief in _IDS.findall(text) if belief in by_id]
        if named:
            found.add("id", named[:1])
            continue
        lexical = _lexical(text, known)
        if lexical is None:
            found.add("unresolved", ())
        else:
            found.add("lexical", (lexical,))
    return found


def _lexical(text: str, known: Sequence[Known]) -> str | None:
    tokens = words(text)
    bag, padded = set(tokens), f" {' '.join(tokens)} "
    best, best_score = None, 0.0
    for belief in known:
        named = any(name and f" {name} " in padded for name in belief.names)
        union = belief.content | bag
        overlap = len(belief.content & bag) / len(union) if union else 0.0
        score = (1.0 if named else 0.0) + overlap
        if score > best_score:
            best, best_score = belief.id, score
    return best if best_score >= 1.0 or best_score >= LEXICAL_OVERLAP else None


def _ids(value: JsonValue) -> list[str]:
    return [str(item) for item in value] if isinstance(value, Sequence) and not isinstance(value, str) else []


def _tier(expect: JsonMapping, name: str) -> JsonMapping:
    tier = expect.get(name)
    return tier if isinstance(tier, Mapping) else {}


Check = Callable[[bool, str], None]


def _membership(check: Check, tier: JsonMapping, held: Collection[str], missing: str, forbidden: str) -> None:
    """A tier's `mustInclude` and `mustExclude` against what it holds, each failure worded as given."""
    for belief in _ids(tier.get("mustInclude")):
        check(belief in held, f"{missing}: {belief}")
    for belief in _ids(tier.get("mustExclude")):
        check(belief not in held, f"{forbidden}: {belief}")


def _only(check: Check, only: Sequence[str], relevant: Sequence[str], unexpected: str, missing: str) -> None:
    """`shouldOnlyInclude`: nothing else in the relevant tier, and all of it there."""
    for belief in relevant:
        check(belief in only, f"{unexpected}: {belief}")
    for belief in only:
        check(belief in relevant, f"{missing}: {belief}")


def listed(value: JsonValue) -> list[str] | None:
    """A tier's list of ids, or None where the case gives none (an empty list is a list)."""
    return _ids(value) if isinstance(value, Sequence) and not isinstance(value, str) else None


def wanted_beliefs(expect: JsonMapping, pinned_in_seed: Collection[str]) -> list[str]:
    """What the relevant tier should hold, precision's and recall's reference: `shouldOnlyInclude`,
    else the `mustInclude` beliefs that are not pinned."""
    beliefs = _tier(expect, "relevantBeliefs")
    only = listed(beliefs.get("shouldOnlyInclude"))
    if only is not None:
        return only
    return [belief for belief in _ids(beliefs.get("mustInclude")) if belief not in pinned_in_seed]


@dataclass
class Checked:
    """A case's verdict: every failed assertion, and the figures the benchmark reports."""

    failures: list[str]
    details: JsonObject


def built_context(
    returned: Sequence[str] | None, expected: JsonMapping, profile: str
) -> tuple[list[str], Resolution]:
    """The relevant tier built from what the memory returned (None: no search was made)."""
    tiers = _tier(expected, "tiers")
    cap = int(tiers.get("max_beliefs") or 0)  # type: ignore[arg-type]
    catalogue = expected.get("catalogue")
    if returned is None or cap <= 0 or not isinstance(catalogue, Mapping):
        return [], Resolution()
    found = resolve(returned, read_catalogue(catalogue))
    pinned = _ids(tiers.get("pinned_all"))
    raw = [belief for belief in found.beliefs if belief not in pinned][:cap]
    expansions = tiers.get("expansions_official" if profile == OFFICIAL else "expansions")
    expanded: list[str] = []
    for relation in raw:
        for participant in _ids(expansions.get(relation) if isinstance(expansions, Mapping) else None):
            if participant not in pinned and participant not in raw and participant not in expanded:
                expanded.append(participant)
    room = max(0, cap - len(_ids(tiers.get("pinned"))))
    return list(dict.fromkeys([*raw, *expanded][:room])), found


def _figures(
    kind: str,
    failures: list[str],
    tiers: tuple[list[str], list[str], list[str]],
    precision: float | None,
    recall: float | None,
    found: Resolution,
    returned: Sequence[str] | None,
) -> JsonObject:
    """What an item's details record of a case or turn (see the suite's page)."""
    relevant, pinned, questions = tiers
    return {
        "pass_type": kind,
        "active_pass": not failures and kind == ACTIVE,
        "relevant": relevant,
        "pinned": pinned,
        "questions": questions,
        "precision": precision,
        "recall": recall,
        "failures": failures,
        "resolution": dict(found.how),
        "returned": None if returned is None else len(returned),
    }


def check_case(returned: Sequence[str] | None, expected: JsonMapping, profile: str) -> Checked:
    """A single-turn case checked as `retrieval.external.eval.test.ts` checks it."""
    relevant, found = built_context(returned, expected, profile)
    tiers = _tier(expected, "tiers")
    expect = _tier(expected, "expect")
    pinned, questions = _ids(tiers.get("pinned")), _ids(tiers.get("questions"))
    prelude = str(tiers.get("prelude") or "")
    union = set(pinned) | set(relevant)
    failures: list[str] = []

    def check(holds: bool, message: str) -> None:
        if not holds:
            failures.append(message)

    beliefs = _tier(expect, "relevantBeliefs")
    _membership(check, beliefs, union, "missing expected belief", "forbidden belief surfaced")
    for belief in _ids(beliefs.get("shouldInclude")):
        check(belief in union, f"expected belief missing (shouldInclude): {belief}")
    only = listed(beliefs.get("shouldOnlyInclude"))
    if only is not None:
        _only(check, only, relevant, "unexpected belief in relevantBeliefs", "missing expected belief")
    most, least = beliefs.get("maxCount"), beliefs.get("minCount")
    if isinstance(most, int):
        check(len(relevant) <= most, f"relevantBeliefs count {len(relevant)} > maxCount {most}")
    if isinstance(least, int):
        check(len(relevant) >= least, f"relevantBeliefs count {len(relevant)} < minCount {least}")
    ordered = beliefs.get("orderedBefore")
    for pair in ordered if isinstance(ordered, Sequence) and not isinstance(ordered, str) else ():
        first, second = (_ids(pair) + ["", ""])[:2]
        check(first in relevant, f"orderedBefore: {first} not in relevantBeliefs")
        check(second in relevant, f"orderedBefore: {second} not in relevantBeliefs")
        if first in relevant and second in relevant:
            at, then = relevant.index(first), relevant.index(second)
            check(at < then, f"ranking: {first} (idx {at}) should precede {second} (idx {then})")
    facts = _tier(expect, "pinnedFacts")
    _membership(check, facts, pinned, "missing pinned belief", "forbidden belief in pinnedFacts")
    asked = _tier(expect, "openQuestions")
    _membership(check, asked, questions, "missing expected question", "forbidden question surfaced")
    persona = _tier(expect, "personaPrelude")
    if persona.get("nonEmpty"):
        check(bool(prelude), "personaPrelude empty")
    if persona.get("isNull"):
        check(not prelude, "personaPrelude not empty")
    for phrase in _ids(persona.get("contains")):
        check(phrase in prelude, f'personaPrelude missing "{phrase}"')
    for phrase in _ids(persona.get("mustNotContain")):
        check(phrase not in prelude, f'personaPrelude contains "{phrase}"')

    wanted = set(wanted_beliefs(expect, _ids(tiers.get("pinned_in_seed"))))
    hits = len(wanted & set(relevant))
    precision = None if not relevant and not wanted else (hits / len(relevant) if relevant else 0.0)
    recall = hits / len(wanted) if wanted else None
    wanted_pinned = set(_ids(facts.get("mustInclude")))
    coverage = len(wanted_pinned & set(pinned)) / len(wanted_pinned) if wanted_pinned else None
    kind = pass_type(expect, wanted, precision, str(expected.get("category") or ""), profile)
    details = _figures(kind, failures, (relevant, pinned, questions), precision, recall, found, returned)
    details["pinned_coverage"] = coverage
    return Checked(failures, details)


def pass_type(
    expect: JsonMapping, wanted: set[str], precision: float | None, category: str, profile: str
) -> str:
    """Which kind of pass a case's pass would be (see the module's docstring for the two readings)."""
    if profile == OFFICIAL:
        if precision is not None and precision > 0:
            return ACTIVE
        return STRUCTURAL if category in STRUCTURAL_CATEGORIES else TRIVIALLY_EMPTY
    if wanted:
        return ACTIVE
    beliefs, facts = _tier(expect, "relevantBeliefs"), _tier(expect, "pinnedFacts")
    other = (
        beliefs.get("mustExclude")
        or _tier(expect, "openQuestions")
        or facts.get("mustInclude")
        or facts.get("mustExclude")
        or _tier(expect, "personaPrelude")
        or _tier(expect, "noiseCheck")
    )
    return STRUCTURAL if other else TRIVIALLY_EMPTY


def check_turn(returned: Sequence[str] | None, expected: JsonMapping, profile: str) -> Checked:
    """A session turn checked as `session-retrieval.external.eval.test.ts` checks it."""
    relevant, found = built_context(returned, expected, profile)
    tiers = _tier(expected, "tiers")
    expect = _tier(expected, "expect")
    pinned, questions = _ids(tiers.get("pinned")), _ids(tiers.get("questions"))
    turn = int(expected.get("turn") or 0)  # type: ignore[arg-type]
    failures: list[str] = []

    def check(holds: bool, message: str) -> None:
        if not holds:
            failures.append(f"turn {turn}: {message}")

    beliefs = _tier(expect, "relevantBeliefs")
    only = listed(beliefs.get("shouldOnlyInclude"))
    if only is not None:
        _only(check, only, relevant, "unexpected relevant belief", "missing expected belief")
    _membership(check, beliefs, {*relevant, *pinned}, "missing belief", "forbidden belief")
    _membership(check, _tier(expect, "pinnedFacts"), pinned, "missing pinned", "forbidden pinned")
    _membership(check, _tier(expect, "openQuestions"), questions, "missing question", "forbidden question")
    noise = [
        belief
        for belief in _ids(_tier(expect, "noiseCheck").get("mustNotSurface"))
        if belief in relevant or belief in pinned
    ]
    failures.extend(f"turn {turn}: noise belief surfaced: {belief}" for belief in noise)

    wanted = set(only if only is not None else _ids(beliefs.get("mustInclude")))
    hits = len([belief for belief in wanted if belief in relevant or belief in pinned])
    precision = hits / len(relevant) if relevant else None
    recall = hits / len(wanted) if wanted else None
    drifted = set(_ids(tiers.get("drift_beliefs"))) - wanted
    if profile == OFFICIAL:
        drift = 1 - precision if precision is not None else 0.0
    else:
        drift = len([belief for belief in relevant if belief in drifted]) / len(relevant) if relevant else 0.0
    kind = pass_type(expect, wanted, precision, SESSION_CATEGORY, profile)
    details = _figures(kind, failures, (relevant, pinned, questions), precision, recall, found, returned)
    details.update({"drift": round(drift, 6), "noise": noise})
    return Checked(failures, details)


__all__ = ["ACTIVE", "STRUCTURAL", "TRIVIALLY_EMPTY", "Checked", "check_case", "check_turn", "resolve"]
