"""BEAM's results table: per conversation size, per ability, as the paper's Table 1 lays it out.

BEAM aggregates (research/peers.md (b) §2) per conversation and ability as the mean over its two
questions, then per size as the mean over conversations; a size's "Average" row is the mean of its
ten ability scores.  `summarize` does the same from the run's item records (results.json), and
adds what the item scores alone do not show:

  * event ordering: the mean tau_norm (the item score, what BEAM's report uses) next to the mean
    tau_norm × F1 (the code's `final_score`) and F1, from each item's scoring details;
  * nugget abilities: the mean under both profiles, whichever one the run used, from the judge's
    verdicts (paper: 0.5 counts half; official: `int()` truncates it to 0).

It is a pure function of the records, so it runs on the controller after an xdist run, and in
`--mb-replay`.  Scalars are what the terminal summary prints; `table` is the full layout for
results.json.  With one size the per-ability rows of the summary already are that size's column;
when a run mixes sizes (`--mb-data` over 100K and 1M chats), each size's abilities are also given
as scalars ("1M event_ordering"), so the terminal and HTML summaries show the whole table.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from statistics import fmean
from typing import Any

from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.scenarios.beam.questions import ABILITIES, ORDERING

GENERATED_PREFIX = "gen-"


def conversation_of(test_id: str) -> str:
    """ "100K-1::knowledge_update[2]" → "100K-1"."""
    return test_id.split("::", 1)[0]


def size_of(conversation: str) -> str:
    """ "100K-1" → "100K"; a generated chat "gen-1M-2" → "1M"."""
    return conversation.removeprefix(GENERATED_PREFIX).split("-", 1)[0]


def _mean(values: Iterable[float]) -> float | None:
    values = list(values)
    return round(fmean(values), 4) if values else None


def summarize(records: Sequence[Mapping[str, Any]]) -> JsonObject:
    """The per-size × per-ability table and the event-ordering and profile figures."""
    # size -> ability -> conversation -> scores
    scores: dict[str, dict[str, dict[str, list[float]]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(list))
    )
    ordering: dict[str, list[float]] = defaultdict(list)
    profiles: dict[str, list[float]] = defaultdict(list)
    for record in records:
        if record.get("score") is None or record.get("error"):
            continue
        ability = record.get("category") or ""
        conversation = conversation_of(str(record.get("test_id", "")))
        scores[size_of(conversation)][ability][conversation].append(float(record["score"]))
        details = (record.get("details") or {}).get("scoring") or {}
        if ability == ORDERING:
            for key in ("tau_norm", "final_score", "f1"):
                if isinstance(details.get(key), (int, float)):
                    ordering[key].append(float(details[key]))
        else:
            for key in ("paper", "official"):
                if isinstance(details.get(key), (int, float)):
                    profiles[key].append(float(details[key]))
    table: dict[str, dict[str, float | None]] = {}
    for size, by_ability in scores.items():
        row = {
            ability: _mean(fmean(values) for values in by_ability[ability].values())
            for ability in (*ABILITIES, *sorted(set(by_ability) - set(ABILITIES)))
            if ability in by_ability
        }
        row["average"] = _mean(value for value in row.values() if value is not None)
        table[size] = row
    metrics: JsonObject = {}
    for size in _size_order(table):
        metrics[f"{size} average"] = table[size]["average"]
        if len(table) > 1:
            metrics.update(
                (f"{size} {ability}", value) for ability, value in table[size].items() if ability != "average"
            )
    if ordering:
        metrics["event_ordering tau_norm"] = _mean(ordering["tau_norm"])
        metrics["event_ordering tau_norm×F1"] = _mean(ordering["final_score"])
        metrics["event_ordering F1"] = _mean(ordering["f1"])
    if profiles:
        metrics["nuggets paper"] = _mean(profiles["paper"])
        metrics["nuggets official"] = _mean(profiles["official"])
    metrics["table"] = {size: table[size] for size in _size_order(table)}
    return metrics


def _size_order(table: Mapping[str, Any]) -> list[str]:
    """Sizes from the shortest chat up ("100K", "500K", "1M", "10M"); unreadable names last."""

    def tokens(size: str) -> float:
        number, unit = size[:-1], size[-1:].upper()
        scale = {"K": 1e3, "M": 1e6}.get(unit)
        return float(number) * scale if number.isdigit() and scale else float("inf")

    return sorted(table, key=lambda size: (tokens(size), size))


__all__ = ["conversation_of", "size_of", "summarize"]
