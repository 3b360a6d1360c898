"""How much a score depends on its judge, in words: the lines the terminal, the Markdown summary and
report.html print under a run judged by a panel (`results/judge_robustness.py` computes the figures)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def judging_lines(figures: Mapping[str, Any] | None) -> list[str]:
    """The band, the stability of repeated calls and the jury's agreement, one line each."""
    if not figures:
        return []
    lines = []
    band = figures.get("band")
    if band:
        lines.append(
            f"rubric band: strict {band['strict']:.3f} · official {band['official']:.3f} · generous"
            f" {band['generous']:.3f} (the same answers under a stricter and a more generous rubric)"
        )
    if figures.get("repeats") or figures.get("jury"):
        lines.append(
            f"judge stability: {_percent(figures['unanimous'])} of {figures['tasks']:,} judged tasks decided"
            f" alike by every call, {_percent(figures['dissent'])} of single verdicts against their task's"
            " majority"
        )
    for juror, spread in (figures.get("repeats") or {}).items():
        scores = spread["scores"]
        lines.append(
            f"  {juror}, each of {len(scores)} calls alone: {spread['mean']:.3f} ± {spread['sd']:.4f}"
            f" (from {min(scores):.3f} to {max(scores):.3f}); {_percent(spread.get('dissent'))} of its calls"
            " against its own majority"
        )
    jury = figures.get("jury")
    if jury:
        scores = " · ".join(f"{name} {value:.3f}" for name, value in jury["scores"].items())
        kappa = jury["fleiss_kappa"]
        agreement = "; ".join(
            f"{first} and {second} {_percent(pair['agreement'])}"
            for pair in jury["pairwise"]
            for first, second in [pair["jurors"]]
        )
        lines.append(
            f"jury: {scores}; Fleiss' kappa {'-' if kappa is None else f'{kappa:.2f}'} over {jury['items']:,}"
            f" items ({kappa_word(kappa)}); items scored alike: {agreement}"
        )
    return lines


def judging_summary(figures: Mapping[str, Any] | None) -> str | None:
    """A board cell: "band [0.20, 0.25, 0.40] · 93.0% unanimous · kappa 0.41"."""
    if not figures:
        return None
    parts = []
    band = figures.get("band")
    if band:
        parts.append(f"band [{band['strict']:.3f}, {band['official']:.3f}, {band['generous']:.3f}]")
    if figures.get("repeats") or figures.get("jury"):
        parts.append(f"{_percent(figures['unanimous'])} unanimous")
    kappa = (figures.get("jury") or {}).get("fleiss_kappa")
    if kappa is not None:
        parts.append(f"kappa {kappa:.2f}")
    return " · ".join(parts) or None


def kappa_word(kappa: float | None) -> str:
    """Landis and Koch's reading of a kappa."""
    if kappa is None:
        return "undefined: every verdict the same"
    for bound, word in ((0.8, "almost perfect"), (0.6, "substantial"), (0.4, "moderate"), (0.2, "fair")):
        if kappa > bound:
            return f"{word} agreement"
    return "slight agreement" if kappa > 0 else "no agreement beyond chance"


def _percent(share: float | None) -> str:
    return "-" if share is None else f"{share:.1%}"


def item_judging_text(judging: Mapping[str, Any] | None) -> str | None:
    """One item's scores under each view of its panel, in a line: "rubrics strict 0 · official 1 ·
    generous 1; jurors a 1 · b 0; a's calls 1 1 0 1 1"."""
    if not judging:
        return None
    parts = []
    if judging.get("band"):
        parts.append("rubrics " + " · ".join(f"{name} {_score(v)}" for name, v in judging["band"].items()))
    if judging.get("jurors"):
        parts.append("jurors " + " · ".join(f"{name} {_score(v)}" for name, v in judging["jurors"].items()))
    for juror, scores in (judging.get("repeats") or {}).items():
        parts.append(f"{juror}'s calls " + " ".join(_score(value) for value in scores))
    return "; ".join(parts) or None


def judges_disagree(judging: Mapping[str, Any] | None) -> bool:
    """Whether the views of an item's panel gave it different scores."""
    if not judging:
        return False
    values = [*(judging.get("band") or {}).values(), *(judging.get("jurors") or {}).values()]
    values += [value for scores in (judging.get("repeats") or {}).values() for value in scores]
    return len(set(values)) > 1


def _score(value: float) -> str:
    return f"{value:g}" if value in (0, 1) else f"{value:.2f}"
