"""Where each answer was lost: the memory did not find the evidence, or the model had it and still
answered wrong.

A question whose evidence the benchmark labels, asked of an agent that says what its search found
(`retrieve`) and, where it can, what its answering prompt held (`context`), carries its evidence
recall (`conversation/evidence.py`).  With its verdict (passed or not), it falls in one class:

  found_right      the whole evidence was in the prompt, and the answer is right
  found_wrong      the whole evidence was in the prompt, and the answer is wrong: a reasoning loss
  cut_from_prompt  search found the whole evidence, the prompt did not hold it (a window, a token
                   cap, a summary), and the answer is wrong: a retrieval loss
  not_retrieved    search did not find the whole evidence, and the answer is wrong: a retrieval loss
  right_without    the answer is right without the whole evidence in the prompt: guessed, known,
                   or worked out from part of it
  no_evidence      the benchmark labels no evidence for this question

"Whole" is all of it: a multi-hop question with one of its two messages found is not found.  A run
whose agent never says what it retrieved (a full-context chat model) has no split: nothing
measures where its answers were lost.  An item that errored has no verdict and no class.

`not_retrieved` splits by what the memory held at the conversation's end (its `stored()` listing,
matched against the evidence by `conversation/written.py`):

  never_stored      the memory did not hold the whole evidence: no search could have found it,
                    a write loss (an extraction that left it out, a store that dropped it)
  stored_not_found  the memory held the whole evidence and its search did not find it: a read loss
  unknown           the memory cannot list what it holds
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import cast

from typing_extensions import TypedDict

from pytest_memorybench.conversation.written import pooled_written
from pytest_memorybench.results.schema import ConversationRecord, ItemRecord, LossesRecord, WrittenRecord

CLASSES = ("found_right", "found_wrong", "cut_from_prompt", "not_retrieved", "right_without", "no_evidence")
WORDS = {
    "found_right": "found and right",
    "found_wrong": "found but answered wrong",
    "cut_from_prompt": "retrieved but cut from the prompt",
    "not_retrieved": "not retrieved",
    "right_without": "right without the evidence",
    "no_evidence": "no evidence labelled",
}
WHOLE = 1.0 - 1e-9
WRITE_CLASSES = ("never_stored", "stored_not_found", "unknown")
WRITE_WORDS = {
    "never_stored": "never stored",
    "stored_not_found": "stored but not found",
    "unknown": "not listed",
}


class LossesPart(TypedDict, total=False):
    """`losses` where it stands in a record of results.json (the totals, a suite, a category)."""

    losses: LossesRecord


class WrittenPart(TypedDict, total=False):
    """`written` where it stands in results.json's totals."""

    written: WrittenRecord


def loss_class(record: ItemRecord) -> str | None:
    """The item's class, or None when it has no verdict (an error)."""
    if record.get("score") is None:
        return None
    evidence = (record.get("details") or {}).get("evidence")
    if not evidence:
        return "no_evidence"
    retrieved = float(evidence["recall"]) >= WHOLE
    context = evidence.get("context")
    in_prompt = float(context["recall"]) >= WHOLE if context else retrieved
    if record.get("passed"):
        return "found_right" if in_prompt else "right_without"
    if in_prompt:
        return "found_wrong"
    return "cut_from_prompt" if retrieved else "not_retrieved"


def write_class(record: ItemRecord) -> str | None:
    """For an item not retrieved, whether its memory never stored the whole evidence, stored it and
    did not find it, or cannot say (`unknown`); None for an item of any other class."""
    if loss_class(record) != "not_retrieved":
        return None
    stored = (record.get("details") or {})["evidence"].get("stored")
    if not stored:
        return "unknown"
    return "stored_not_found" if float(stored["recall"]) >= WHOLE else "never_stored"


def listed(records: Sequence[ItemRecord]) -> bool:
    """Whether some item's evidence was matched against what its memory held (`stored`)."""
    return any(((record.get("details") or {}).get("evidence") or {}).get("stored") for record in records)


def measured(records: Sequence[ItemRecord]) -> bool:
    """Whether the run measured evidence recall at all (its agent says what it retrieved)."""
    return any((record.get("details") or {}).get("evidence") for record in records)


def loss_split(records: Sequence[ItemRecord]) -> LossesRecord | None:
    """The classes' counts over these items' scored ones, their shares of those with labelled
    evidence, and the reasoning loss (wrong though the prompt held it all); None when nothing was
    measured."""
    if not measured(records):
        return None
    classes = Counter(name for name in map(loss_class, records) if name is not None)
    labelled = sum(count for name, count in classes.items() if name != "no_evidence")
    split: LossesRecord = {
        "items": sum(classes.values()),
        "labelled": labelled,
        "counts": {name: classes.get(name, 0) for name in CLASSES},
        "shares": {  # of the items with labelled evidence
            name: round(classes.get(name, 0) / labelled, 6) if labelled else 0.0
            for name in CLASSES
            if name != "no_evidence"
        },
    }
    written = Counter(name for name in map(write_class, records) if name is not None)
    split["not_retrieved"] = {  # all unknown where the memory could not list what it held
        "counts": {name: written.get(name, 0) for name in WRITE_CLASSES},
        "shares": {
            name: round(written.get(name, 0) / labelled, 6) if labelled else 0.0 for name in WRITE_CLASSES
        },
    }
    found = classes["found_right"] + classes["found_wrong"]
    if found:
        split["reasoning_loss"] = round(classes["found_wrong"] / found, 6)  # wrong when it had it all
    return split


def losses_part(records: Sequence[ItemRecord]) -> LossesPart:
    """`losses`, when the run measured where its answers were lost."""
    split = loss_split(records)
    return {"losses": split} if split is not None else {}


def written_part(conversations: Sequence[ConversationRecord]) -> WrittenPart:
    """`written`, when some conversation's memory listed what it held (`conversation/written.py`):
    what splits `not_retrieved` into never stored and stored but not found, pooled over the run."""
    pooled = pooled_written(conversations)
    return {"written": cast(WrittenRecord, pooled)} if pooled is not None else {}


def split_text(split: LossesRecord | None) -> str | None:
    """The split in a line: "where answers were lost (1,540 with evidence): found and right 20.1% · …"."""
    if not split:
        return None
    parts = [
        f"{WORDS[name]} {share:.1%}" + _written(split, name, ".1%") for name, share in split["shares"].items()
    ]
    line = f"where answers were lost ({split['labelled']:,} with evidence): " + " · ".join(parts)
    if split["counts"]["no_evidence"]:
        line += f"; {split['counts']['no_evidence']:,} without labelled evidence"
    return line


SHORT = {
    "found_right": "found+right",
    "found_wrong": "found+wrong",
    "cut_from_prompt": "cut",
    "not_retrieved": "not retrieved",
    "right_without": "right without",
}


def split_compact(split: LossesRecord | None) -> str | None:
    """The shares in a short line, for a category under the table: "found+right 6% · found+wrong 94% · …"."""
    if not split or not split["labelled"]:
        return None
    return " · ".join(
        f"{SHORT[name]} {share:.0%}" + _written(split, name, ".0%") for name, share in split["shares"].items()
    )


def _written(split: LossesRecord, name: str, form: str) -> str:
    """After "not retrieved": its split by what the memory wrote, "(never stored 12.0% · stored but
    not found 18.0%)", where the memory listed what it held and something was not retrieved."""
    written = split.get("not_retrieved")
    if name != "not_retrieved" or not written or not split["counts"]["not_retrieved"]:
        return ""
    if written["counts"]["unknown"] == split["counts"]["not_retrieved"]:
        return " (never stored or not found: the memory cannot list what it holds)"
    parts = [
        f"{WRITE_WORDS[kind]} {written['shares'][kind]:{form}}"
        for kind in WRITE_CLASSES
        if kind != "unknown" or written["counts"][kind]
    ]
    return f" ({' · '.join(parts)})"
