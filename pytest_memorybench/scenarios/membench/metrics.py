"""MemBench's four metrics over a scenario's items (§3.4): accuracy, recall@k, capacity, efficiency.

`summarize(records, conversations)` is called on the controller with the results.json records of
one scenario and of the conversations they ran in; it is a pure function of them.  Each record
carries what it needs: its score (the answer after the whole trajectory), `details.scoring` (a
verdict per ask, the evidence step ids and the texts each evidence step was told in), and the
engine's `details` (`asks` with the tokens delivered before each, `retrieved` per ask,
`read_seconds` per ask); each conversation's record its trajectory's `write_timing`.

Accuracy: the mean score by memory level, as the paper's Tables 3 and 4 report it (per question
type, the scenario's categories already give Tables 10-12).

Recall@k, for agents with `retrieve(query, k)`: the share of the question's evidence steps among
the first k memories retrieved when the question was asked after the whole trajectory, averaged
over questions (MemBench `get_recall`).  Memories are texts, so a retrieved text stands for the
evidence step whose message (or recorded reply) it contains, ignoring case and spacing: a memory
storing the message alone, with a date, or in a longer record all count.  Only evidence steps need
recognising, since only they count.  Questions without evidence ids are left out; an agent
without `retrieve` gets the reason instead of a number.

Capacity: every ask is a point (tokens delivered so far, answered correctly?).  The points are
sorted by tokens and cut into `CAPACITY_BINS` bins of equal size; the curve is each bin's mean
tokens and its accuracy.  The paper reads "where accuracy drops sharply" off its plot; we report the
first bin that is below half the best accuracy before it and from which on, over two bins at least,
the asks are answered below half that best on average (a lasting drop, not one unlucky bin; one
bin bouncing back above the line does not hide it), or "none" (the paper notes a retrieval memory
may have no such point, and bins of fewer than `MIN_BIN_ASKS` asks are too noisy to call one).
Questions whose evidence comes early are asked at low token counts and those with more evidence
(harder types) late, so the paper's curve mixes capacity with question mix; a second
curve, "capacity after evidence", puts each ask at the tokens delivered since the question's last
evidence.  That one still mixes in question difficulty (questions whose last evidence comes early
are the one-fact, easier types, so accuracy can rise with distance), so a third curve, "capacity
retained", takes only the questions the agent answered correctly right after their last evidence
and plots the share of their later asks still answered correctly against the tokens delivered
since: it starts near 1 and falls where the memory loses what it had (a recent-memory window, a
full memory's context) and stays flat for a memory that keeps everything findable.  Its bins hold
`MIN_BIN_ASKS` asks at least (up to `CAPACITY_BINS` bins), so a collapse can be called on it even
in a small run; "capacity retained collapse tokens" is its collapse point.

Efficiency: read time is the time of each question (retrieve and reply, in milliseconds), mean
and 95th percentile over all asks; for agents with `retrieve`, retrieve time is the `retrieve` call
alone, which is what the paper's read time (memory recall) measures; write time is per `observe`
call (per message by default), mean and 95th percentile over the calls of every trajectory (pooled
from each trajectory's percentiles, `reports.timings.pooled_percentile`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pytest_memorybench.agents.evidence_match import holds
from pytest_memorybench.core.json_values import JsonObject, JsonValue
from pytest_memorybench.core.timings import pooled_percentile
from pytest_memorybench.scoring.membench import (
    CapacityPoint,
    capacity_point,
    recall_at_k,
)

CAPACITY_BINS = 10
MIN_BIN_ASKS = 20  # asks a bin needs before a drop in it counts as a collapse
NO_RETRIEVE = "skipped: the agent has no retrieve(query, k)"


def retrieved_steps(
    retrieved: Sequence[str], evidence: Sequence[int], evidence_texts: Sequence[Sequence[str]]
) -> list[list[int]]:
    """For each retrieved memory, in rank order, the evidence steps it holds the text of (matched by
    content, as evidence recall matches: `conversation.evidence.holds`)."""
    wanted = list(zip(evidence, evidence_texts, strict=True))
    return [
        [step for step, texts in wanted if any(holds(memory, text) for text in texts if text.strip())]
        for memory in retrieved
    ]


def item_recall(record: Mapping[str, Any], k: int) -> float | None:
    """Recall@k of one question's final ask, or None when it has no evidence ids or no retrieval."""
    details = record.get("details", {})
    scoring = details.get("scoring", {})
    evidence = scoring.get("evidence") or []
    retrieved = details.get("retrieved")
    if not evidence or not retrieved or retrieved[0] is None:
        return None
    steps = retrieved_steps(retrieved[0][:k], evidence, scoring.get("evidence_texts", []))
    return recall_at_k([step for held in steps for step in held], evidence, k=None)


def capacity_points(
    records: Sequence[Mapping[str, Any]], *, since_evidence: bool = False
) -> list[CapacityPoint]:
    """Every ask as (tokens, correct): tokens delivered so far, or since the question's first ask
    after its evidence (`since_evidence`: the capacity asks start right after the last evidence)."""
    points = []
    for record in records:
        details = record.get("details", {})
        asks = details.get("asks", [])
        start = min((ask["tokens"] for ask in asks), default=0) if since_evidence else 0
        for ask, correct in zip(asks, details.get("scoring", {}).get("correct", []), strict=False):
            points.append(capacity_point(ask["tokens"] - start, correct))
    return sorted(points, key=lambda point: point.tokens)


def retained_points(records: Sequence[Mapping[str, Any]]) -> tuple[list[CapacityPoint], int]:
    """The later asks of every question answered correctly at its first ask after the evidence, as
    (tokens delivered since that first ask, correct), and how many questions they come from."""
    points: list[CapacityPoint] = []
    questions = 0
    for record in records:
        details = record.get("details", {})
        tokens = [ask["tokens"] for ask in details.get("asks", [])]
        asks = sorted(
            zip(tokens, details.get("scoring", {}).get("correct", []), strict=False), key=lambda ask: ask[0]
        )
        if len(asks) < 2 or not asks[0][1]:
            continue
        questions += 1
        points.extend(capacity_point(at - asks[0][0], correct) for at, correct in asks[1:])
    return sorted(points, key=lambda point: point.tokens), questions


def capacity_curve(
    points: Sequence[CapacityPoint], bins: int = CAPACITY_BINS
) -> list[tuple[int, float, int]]:
    """(mean tokens, accuracy, points) per bin, in token order; bins hold equal numbers of points.

    Asks crowd towards the ends of trajectories (they follow the last evidence), so bins of equal
    token width would leave the early ones with one or two asks; equal counts keep every point of
    the curve an average over as many answers as the others.
    """
    ordered = sorted(points, key=lambda point: point.tokens)
    count = min(bins, len(ordered))
    curve = []
    for number in range(count):
        members = ordered[number * len(ordered) // count : (number + 1) * len(ordered) // count]
        tokens = round(sum(p.tokens for p in members) / len(members))
        curve.append((tokens, round(sum(p.correct for p in members) / len(members), 6), len(members)))
    return curve


def collapse_tokens(curve: Sequence[tuple[int, float, int]], min_asks: int = MIN_BIN_ASKS) -> int | None:
    """Where accuracy collapses: the first bin below half the best accuracy reached before it from
    which on (two bins at least) the asks average below that half too: a lasting drop, not one
    unlucky bin.  None when there is no such bin, or when a bin holds fewer than `min_asks` asks
    (too noisy to call a collapse on)."""
    if any(count < min_asks for _, _, count in curve):
        return None
    accuracies = [accuracy for _, accuracy, _ in curve]
    for index in range(1, len(curve) - 1):  # a drop lasts two bins at least: the last alone says little
        half = max(accuracies[:index]) / 2
        rest = curve[index:]
        after = sum(accuracy * count for _, accuracy, count in rest) / sum(count for _, _, count in rest)
        if accuracies[index] < half and after < half:
            return curve[index][0]
    return None


def _percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 3)


def summarize(
    records: Sequence[Mapping[str, Any]], conversations: Sequence[Mapping[str, Any]] = ()
) -> JsonObject:
    """The scenario's MemBench metrics (see the module docstring), JSON-ready; write times from the
    conversations' records (one delivery per context)."""
    scored = [r for r in records if "scoring" in r.get("details", {})]
    metrics: JsonObject = {}
    for level in ("factual", "reflective"):
        members = [r["score"] for r in scored if r["details"]["scoring"].get("level") == level]
        if members:
            metrics[f"{level} accuracy"] = round(sum(members) / len(members), 6)
    metrics.update(_recall(scored))
    if any(len(r["details"].get("asks", [])) > 1 for r in scored):
        metrics.update(_capacity(scored))
    metrics.update(_efficiency(scored, conversations))
    return metrics


def _recall(scored: Sequence[Mapping[str, Any]]) -> JsonObject:
    """Recall@k over the questions with evidence ids; the reason instead when nothing retrieves."""
    k = max((r["details"]["scoring"].get("retrieve_k", 0) for r in scored), default=0)
    if not k:
        return {}
    recalls = [value for value in (item_recall(r, k) for r in scored) if value is not None]
    if recalls:
        return {f"recall@{k}": round(sum(recalls) / len(recalls), 6), "recall questions": len(recalls)}
    if not any("retrieved" in r["details"] for r in scored):
        return {f"recall@{k}": NO_RETRIEVE}
    return {}


def _curve(points: Sequence[CapacityPoint], bins: int = CAPACITY_BINS, **facts: JsonValue) -> JsonObject:
    curve = capacity_curve(points, bins=bins)
    return {
        "curve": [[tokens, accuracy] for tokens, accuracy, _ in curve],
        "counts": [count for _, _, count in curve],
        **facts,
        "collapse_tokens": collapse_tokens(curve),
    }


def _or_none(collapse: JsonValue) -> JsonValue:
    """A curve's collapse as the metrics name it: its tokens, or "none"."""
    return collapse if collapse is not None else "none"


def _capacity(scored: Sequence[Mapping[str, Any]]) -> JsonObject:
    """The three capacity curves and where each collapses."""
    metrics: JsonObject = {}
    for name, since, label in (
        ("capacity", False, "tokens delivered so far"),
        ("capacity after evidence", True, "tokens delivered since the last evidence"),
    ):
        points = capacity_points(scored, since_evidence=since)
        curve = _curve(points, x_label=label, y_label="accuracy", asks=len(points))
        if not since:
            metrics["capacity collapse tokens"] = _or_none(curve["collapse_tokens"])
        metrics[name] = curve
    retained, questions = retained_points(scored)
    if retained:
        bins = min(CAPACITY_BINS, max(2, len(retained) // MIN_BIN_ASKS))
        curve = _curve(
            retained,
            bins,
            x_label="tokens since the first correct answer after the evidence",
            y_label="share still answered correctly",
            asks=len(retained),
            questions=questions,
        )
        metrics["capacity retained collapse tokens"] = _or_none(curve["collapse_tokens"])
        metrics["capacity retained"] = curve
    return metrics


def _efficiency(
    scored: Sequence[Mapping[str, Any]], conversations: Sequence[Mapping[str, Any]]
) -> JsonObject:
    """Read, retrieve and write times in milliseconds: mean and 95th percentile."""
    metrics: JsonObject = {}
    for name, key in (("read", "read_seconds"), ("retrieve", "retrieve_seconds")):
        times = [seconds for r in scored for seconds in r["details"].get(key) or () if seconds is not None]
        if times:
            metrics[f"{name} ms mean"] = _ms(sum(times) / len(times))
            metrics[f"{name} ms p95"] = _ms(_percentile(times, 0.95))
    # One delivery per context, however many of its questions were asked: in the conversation's
    # record (older results: on each of its items).
    writes = [c["write_timing"] for c in conversations if c.get("write_timing")] or list(
        {
            r.get("conversation", id(r)): r["details"]["write_seconds"]
            for r in scored
            if r["details"].get("write_seconds")
        }.values()
    )
    calls = sum(w["calls"] for w in writes)
    if calls:
        metrics["write ms mean"] = _ms(sum(w["mean"] * w["calls"] for w in writes) / calls)
        metrics["write ms p95"] = _ms(pooled_percentile(writes, 0.95))
    return metrics
