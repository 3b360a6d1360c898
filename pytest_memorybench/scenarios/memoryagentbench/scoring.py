"""MemoryAgentBench's scoring, as its code does it (`utils/eval_other_utils.py`), and its judged metrics.

Every automatic metric compares normalised text (lower case, no punctuation, no articles, single
spaces; DrQA's rules) with each gold string of the question and keeps the best:

- `exact_match`: the normalised reply is a gold; `substring_exact_match` (SubEM): a gold is inside
  it; `f1`: token overlap, where "yes", "no" and "noanswer" score only when equal.  The default
  rule takes each metric's best over the raw reply and its first answer line (`parse_output`: the
  text after "Answer:", else the first line).
- Each sub-dataset reports one primary metric (the paper's tables): SubEM for FactConsolidation,
  RULER QA and EventQA; exact match for DetectiveQA; accuracy on the mapped label for in-context
  classification; Recall@5 over entity ids for movie recommendation; RULER's needle recall for
  multi-key needles (the share of golds in the reply).
- LongMemEval-derived questions and summarisation are judged by an LLM in its
  `llm_based_eval/` scripts, here by the run's judge: LongMemEval's yes/no rule, and each keypoint
  of a summary as a nugget.

Where the code and the paper differ (docs/profiles.md): in-context classification.  The paper
scores the label the model assigns; the code compares the normalised first line of the reply with
the gold label, so a chat model's "label: 3" (which its own prompt asks for) scores 0 against "3".
`paper` reads the label after "label:"; `official` is the code's comparison.
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping, Sequence

from pytest_memorybench.core.f1 import bag_f1
from pytest_memorybench.core.records import Score
from pytest_memorybench.judges.base import Judge
from pytest_memorybench.scoring.judged import score_answer, score_rubric
from pytest_memorybench.scoring.profiles import OFFICIAL, Profile

SCORER = "memoryagentbench"
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_LABEL = re.compile(r"label\s*[:：]?\s*(-?\d+)", re.IGNORECASE)
_FIRST_NUMBER = re.compile(r"-?\d+")

# The primary metric of each sub-dataset, by the start of its source name (first match wins).
PRIMARY = (
    ("factconsolidation_", "substring_exact_match"),
    ("ruler_niah", "needle_recall"),
    ("ruler_qa", "substring_exact_match"),
    ("eventqa_", "substring_exact_match"),
    ("infbench_qa", "substring_exact_match"),
    ("icl_", "label_accuracy"),
    ("recsys_", "recall@5"),
    ("detective", "exact_match"),
    ("longmemeval_", "judge"),
    ("infbench_sum", "keypoints"),
    ("story_sum", "keypoints"),  # our generator's summaries
)


def primary_metric(source: str) -> str:
    """The metric a sub-dataset's items are scored by (SubEM for a source no prefix names)."""
    lowered = source.lower()
    return next((metric for prefix, metric in PRIMARY if lowered.startswith(prefix)), "substring_exact_match")


def normalize(text: str) -> str:
    """DrQA's normalisation: lower case, punctuation removed, articles removed, whitespace single."""
    lowered = "".join(char for char in text.lower() if char not in string.punctuation)
    return " ".join(_ARTICLES.sub(" ", lowered).split())


def token_f1(prediction: str, gold: str) -> float:
    """Token-overlap F1 of the normalised texts; yes / no / noanswer score only when equal."""
    predicted, wanted = normalize(prediction), normalize(gold)
    if (
        predicted in ("yes", "no", "noanswer") or wanted in ("yes", "no", "noanswer")
    ) and predicted != wanted:
        return 0.0
    return bag_f1(predicted.split(), wanted.split())


def first_answer(reply: str, prefix: str = "Answer:") -> str:
    """The answer part of a reply: what follows `prefix` on its line, else the first line."""
    found = re.search(rf"(?:{re.escape(prefix)})(.*)(?:\n|$)", reply, flags=re.IGNORECASE)
    line = found[1] if found else reply.split("\n", 1)[0]
    return re.sub(rf"^{re.escape(prefix)}", "", line.strip(), flags=re.IGNORECASE).strip()


def text_metrics(prediction: str, golds: Sequence[str]) -> dict[str, float]:
    """Exact match, F1 and SubEM of one prediction, each the best over the golds."""
    return {
        "exact_match": max(float(normalize(prediction) == normalize(gold)) for gold in golds),
        "f1": max(token_f1(prediction, gold) for gold in golds),
        "substring_exact_match": max(float(normalize(gold) in normalize(prediction)) for gold in golds),
    }


def default_metrics(reply: str, golds: Sequence[str]) -> dict[str, float]:
    """The code's default rule: each metric's best over the raw reply and its first answer line."""
    raw, parsed = text_metrics(reply, golds), text_metrics(first_answer(reply), golds)
    return {name: max(value, parsed[name]) for name, value in raw.items()}


def assigned_label(reply: str) -> str | None:
    """The label a reply assigns: the number after "label", else its first number."""
    found = _LABEL.search(reply) or _FIRST_NUMBER.search(reply)
    return None if found is None else found.group(found.lastindex or 0)


def score_label(reply: str, golds: Sequence[str], profile: Profile) -> Score:
    """In-context classification: the mapped label (paper), or the code's exact match of the
    reply's first line with the gold label (official)."""
    if profile == OFFICIAL:
        line = first_answer(reply)
        metrics = text_metrics(line, golds)
        verdict = "equals" if metrics["exact_match"] else "does not equal"
        why = f"the reply's first line {line!r} {verdict} the label {golds[0]!r} (the code's exact match)"
        return Score(metrics["exact_match"], (why,))
    label = assigned_label(reply)
    right = label is not None and any(label == gold.strip() for gold in golds)
    said = "assigns no label" if label is None else f"assigns label {label}"
    return Score(float(right), (f"the reply {said}; the label is {golds[0]} (paper: the label assigned)",))


def score_text(reply: str, golds: Sequence[str], metric: str) -> Score:
    """A sub-dataset's automatic metric as its primary score, the other metrics in the reasons."""
    if metric == "needle_recall":
        found = [gold for gold in golds if gold.lower() in reply.lower()]
        return Score(len(found) / len(golds), (f"{len(found)} of {len(golds)} needles in the reply",))
    metrics = default_metrics(reply, golds)
    others = ", ".join(f"{name} {value:.2f}" for name, value in metrics.items() if name != metric)
    shown = golds[0] if len(golds) == 1 else f"{golds[0]!r} or {len(golds) - 1} other gold(s)"
    return Score(metrics[metric], (f"{metric} {metrics[metric]:.2f} against {shown} ({others})",))


def event_recall(reply: str, golds: Sequence[str]) -> float:
    """EventQA's recall: 1 when every gold element is in the reply (the code's binary recall)."""
    return float(all(gold.lower() in reply.lower() for gold in golds))


# -- movie recommendation ---------------------------------------------------------------------------


def movie_name(entity: str) -> str:
    """A title as the code compares it: the last path part, separators as spaces, no parentheses."""
    name = entity.split("/")[-1].replace("_", " ").replace("-", " ").replace(">", " ")
    return " ".join(re.sub(r"\([^()]*\)", "", name).split())


def recommended(reply: str) -> list[str]:
    """The titles of a numbered list of recommendations (or of a comma-separated one)."""
    parts = reply.split("1.", 1)
    body = parts[1] if len(parts) == 2 else reply.replace(",", "\n")
    items = []
    for line in body.split("\n"):
        text = re.sub(r"\([^()]*\)", "", line)
        text = re.sub(r"^(?:\d+[\.\)、]?\s*[\-\—\–]?\s*)?", "", text.strip())
        if text := " ".join(text.split()):
            items.append(text)
    return items


def score_recommendations(
    reply: str, gold_ids: Sequence[str], entities: Mapping[str, int], k: int = 5
) -> Score:
    """Recall@k: the share of the gold movies among the first k recommended, each recommended title
    read as its nearest known title by edit distance (the code's rule)."""
    from rapidfuzz.distance import Levenshtein
    from rapidfuzz.process import extractOne

    names = {entity_id: movie_name(name) for name, entity_id in entities.items()}
    candidates = sorted(set(names.values()))
    lowered = [candidate.lower() for candidate in candidates]
    picked = []
    for title in recommended(reply)[:k]:
        match = extractOne(title.lower(), lowered, scorer=Levenshtein.distance)
        picked.append(candidates[match[2]] if match else title)
    wanted = [names.get(int(gold)) for gold in gold_ids if str(gold).strip().lstrip("-").isdigit()]
    wanted_names = [name for name in wanted if name]
    if not wanted_names:
        return Score(0.0, ("no gold movie id is in the entity list",))
    hits = [name for name in wanted_names if name in picked]
    return Score(
        len(hits) / len(wanted_names),
        (f"recall@{k}: {len(hits)} of {len(wanted_names)} gold movies among the first {k} recommended",),
    )


# -- judged --------------------------------------------------------------------------------------------


async def score_judged(
    judge: Judge, metric: str, question: str, golds: Sequence[str], reply: str, profile: Profile
) -> Score:
    """LongMemEval's yes/no verdict, or a summary's keypoints each judged as a nugget."""
    if metric == "keypoints":
        return await score_rubric(
            judge, question=question, nuggets=list(golds), answer=reply, profile=profile, scorer=SCORER
        )
    return await score_answer(
        judge, question=question, expected=golds[0], answer=reply, rule="contains", scorer=SCORER
    )


__all__: list[str] = [
    "PRIMARY",
    "assigned_label",
    "default_metrics",
    "event_recall",
    "first_answer",
    "normalize",
    "primary_metric",
    "score_judged",
    "score_label",
    "score_recommendations",
    "score_text",
    "text_metrics",
    "token_f1",
]
