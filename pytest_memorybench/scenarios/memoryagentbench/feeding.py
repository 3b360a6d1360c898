"""How MemoryAgentBench feeds a context and asks its questions, in our words.

The code splits a context into chunks of at most `chunk_size` tokens at sentence boundaries
(`chunk_text_into_sentences`: NLTK's sentence splitter, tiktoken's counts, chunks joined with
spaces, no overlap), sends each chunk as a user turn that asks the agent to memorise it, then
asks every question of the sample from the same memory.  Our splitter is a rule of our own (a
line, then sentence ends), which keeps a numbered fact whole where NLTK may part "12." from it.

The memorising line and each question's instruction say what the benchmark's templates say (the
sub-dataset's kind of content; FactConsolidation's rule that the fact with the larger serial
number is the newer; the label or recommendation format asked for), written here in our words.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_NUMBER_ONLY = re.compile(r"^\d+[.)]$")

MEMORIZE = {
    "conflict_resolution": "Memorise these facts:\n{context}",
    "longmemeval": "Memorise this conversation between the user and the assistant:\n{context}",
    "recsys": "Memorise these dialogues between a user and a movie recommender:\n{context}",
    "default": "Memorise the following content:\n{context}",
}

QUERY = {
    "conflict_resolution": (
        "Act as a knowledge base. Each fact in the pool you memorised starts with a serial number, and a"
        " fact with a larger number is newer: where facts conflict, the newest holds. Answer only from that"
        " pool, not from what is true in the world, as briefly as you can and with nothing else.\n\n"
        "For example: Based on the pool, who is the mayor of the town? Answer: (the newest mayor named"
        " in the pool)\n\nNow answer: Based on the pool, {question}\nAnswer:"
    ),
    "icl": (
        "Use the mapping from texts to numeric labels in what you memorised to label the text below."
        ' Reply with "label: N" and nothing else.\n\n{question}\n\nlabel:'
    ),
    "eventqa": (
        "From the story you memorised, these events have already happened:\n\n{previous_events}\n\n"
        "These are possible next events:\n\n{question}\n\nWhich of them happens next in the story? Reply"
        " with that event only.\n\nThe next event is:"
    ),
    "recsys": (
        "Act as a movie recommender. From the dialogues you memorised, and the new conversation below,"
        " recommend 20 movies as a numbered list, with no other words.\n\nThe conversation: {question}"
        "\n\nThe recommendations are:\n"
    ),
    "longmemeval": (
        "Our earlier chats are in your memory. From the ones that bear on it, answer the question as"
        " briefly as you can, in a phrase if possible.\n\nCurrent date: {question_dates}\n\nQuestion:"
        " {question}\nAnswer:"
    ),
    "summary": (
        "Summarise the text you memorised. {question} Tell only what happens; do not discuss its themes"
        " or give commentary."
    ),
    "default": (
        "Answer the question from what you memorised, as briefly as you can, in a phrase if possible,"
        " with nothing else.\n\nQuestion: {question}\nAnswer:"
    ),
}


def kind_of(source: str, competency: str) -> str:
    """Which memorising line and question instruction a sub-dataset takes."""
    lowered = source.lower()
    for prefix, kind in (
        ("icl_", "icl"),
        ("eventqa", "eventqa"),
        ("recsys", "recsys"),
        ("longmemeval", "longmemeval"),
        ("infbench_sum", "summary"),
        ("story_sum", "summary"),
    ):
        if lowered.startswith(prefix):
            return kind
    return "conflict_resolution" if competency == "conflict_resolution" else "default"


def memorize_line(kind: str, chunk: str) -> str:
    """A chunk as the turn that asks the agent to memorise it."""
    return MEMORIZE.get(kind, MEMORIZE["default"]).format(context=chunk)


def query_text(kind: str, question: str, fields: Mapping[str, Any]) -> str:
    """A question as it is asked: its sub-dataset's instruction around it, with its own fields
    (the events so far, the question's date)."""
    values = {"previous_events": "", "question_dates": "", **{k: _text(v) for k, v in fields.items()}}
    return QUERY.get(kind, QUERY["default"]).format(question=question, **values)


def _text(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return "\n".join(str(item) for item in value)
    return str(value)


def sentences(text: str) -> list[str]:
    """Lines, then sentences within them; a bare serial number ("12.") stays with what follows."""
    pieces: list[str] = []
    for line in text.splitlines():
        carried = ""
        for part in _SENTENCE_END.split(line.strip()):
            if not part:
                continue
            if _NUMBER_ONLY.match(part):
                carried = f"{carried}{part} "
                continue
            pieces.append(carried + part)
            carried = ""
        if carried.strip():
            pieces.append(carried.strip())
    return pieces


def chunks(text: str, chunk_size: int, count: Callable[[str], int]) -> list[str]:
    """The context in chunks of at most `chunk_size` tokens, sentences whole, joined with spaces
    (a sentence longer than a chunk is a chunk of its own, as in the code)."""
    out: list[str] = []
    current: list[str] = []
    used = 0
    for sentence in sentences(text):
        tokens = count(sentence)
        if current and used + tokens > chunk_size:
            out.append(" ".join(current))
            current, used = [], 0
        current.append(sentence)
        used += tokens
    if current:
        out.append(" ".join(current))
    return out


__all__ = ["MEMORIZE", "QUERY", "chunks", "kind_of", "memorize_line", "query_text", "sentences"]
