"""`--agent recall`: the extractive retrieval baseline.

It remembers every statement said to it (questions excluded: they would match the same question
asked again) and every message handed to it through `observe` (a chat's history, questions
included: a user's "I moved to Leeds, can you suggest a gym?" carries a fact; multiple-choice
quizzes excluded), ranks them with BM25 (`agents/lexical.py`) against each question, never answering a
question with itself, and answers with the best match.  Memory systems usually let the newest fact win, so
among statements scoring within `RECENCY_BAND` of the best it picks the most recent.  No model is involved:
the scores it gets show how far plain lexical retrieval goes on a scenario, between `null` and `oracle`.

Multiple-choice questions (MemBench: a question, then lines "A. …" to "D. …") get a letter.  The
baseline reads the `READ` statements most relevant to the question without its options (or, when
nothing matches that, to the options' words) and picks the option whose words those statements
cover best, each word weighted by its rarity in memory (BM25's idf), so a value that was actually
said beats one that merely shares "years old" with it.  Among equally covered options, the one
held by the statement holding more of the question's words wins, and among near-equals (the
recency band again) the one in the newest statement, so a correction beats what it corrects.  When no option's
words occur at all it abstains, as it does when nothing matches a plain question.

`answer(question, statements)` is that answerer on its own, so the reference memory agents
(`agents/reference/memories.py`) can put it behind other memory components.
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Iterable, Sequence

from pytest_memorybench.agents.lexical import Bm25, Growing, terms
from pytest_memorybench.agents.reference.null import ABSTENTION
from pytest_memorybench.agents.reference.oracle import ACKNOWLEDGEMENT
from pytest_memorybench.core.records import Message

RECENCY_BAND = 0.8
READ = 8  # statements the multiple-choice answerer reads
_OPTION = re.compile(r"^\s*\(?([A-Z])[.)]\s+(\S.*?)\s*$")


def split_choices(question: str) -> tuple[str, dict[str, str]]:
    """The question without its options, and the options by letter ({} when it has none).

    Options are lines "A. text", "B) text" or "(C) text" with consecutive letters from A; at least
    two.  Lines after the last option (an instruction) are dropped from the stem.
    """
    lines = question.splitlines()
    for start, line in enumerate(lines):
        match = _OPTION.match(line)
        if not match or match.group(1) != "A":
            continue
        options: dict[str, str] = {}
        for following in lines[start:]:
            found = _OPTION.match(following)
            if not found or found.group(1) != chr(ord("A") + len(options)):
                break
            options[found.group(1)] = found.group(2)
        if len(options) >= 2:
            return "\n".join(lines[:start]).strip(), options
    return question, {}


def is_question(text: str) -> bool:
    """Whether the extractive agent treats `text` as a question (not stored, answered): a '?' or options."""
    return "?" in text or bool(split_choices(text)[1])


class Statements:
    """Statements in the order they were told, ranked by BM25."""

    def __init__(self, texts: Iterable[str] = ()) -> None:
        self.texts: Growing[str] = Growing()
        self._words: Growing[list[str]] = Growing()  # what BM25 indexes (repeats count)
        self._terms: Growing[frozenset[str]] = Growing()
        self._index = Bm25()
        for text in texts:
            self.add(text)

    def fork(self) -> Statements:
        """The statements as they are now, at no cost; what either adds later, the other never sees."""
        twin = Statements()
        twin.texts, twin._words, twin._terms = self.texts.fork(), self._words.fork(), self._terms.fork()
        twin._index = self._index.fork()
        return twin

    def add(self, text: str) -> bool:
        """Keep `text` if it has a word worth matching; whether it was kept."""
        words = terms(text)
        if not words:
            return False
        self.texts.append(text)
        self._words.append(words)
        self._terms.append(frozenset(words))
        self._index.add(words)
        return True

    def __len__(self) -> int:
        return len(self.texts)

    def ranked(self, query: str, k: int) -> list[int]:
        """Positions of the top-k statements; within the recency band of the best, newer ranks first.

        A statement made of the query's own words (the same question, seen earlier in a chat's
        history) is never among them: it cannot answer itself.
        """
        asked = terms(query)
        scores = {
            position: score
            for position, score in self._index.matches(asked).items()
            if score > 0 and self._words[position] != asked
        }
        if not scores:
            return []
        band = RECENCY_BAND * max(scores.values())
        order = sorted(scores, key=lambda i: (scores[i] < band, -i if scores[i] >= band else -scores[i]))
        return order[:k]

    def idf(self, term: str) -> float:
        """How rare `term` is among the statements."""
        return self._index.idf(term)

    def terms_of(self, position: int) -> frozenset[str]:
        return self._terms[position]


def pick_option(stem: str, options: dict[str, str], memory: Statements) -> str | None:
    """The option the most relevant statements support best (see the module docstring), or None.

    First by how much of the option the statements read cover together (a list of titles is told
    over several messages); among the best, by the relevance of the single statement that covers
    it most, where a statement within `RECENCY_BAND` of the best counts as good as it and the
    newest such one wins.
    """
    query = stem
    read = memory.ranked(query, READ)
    if not read:  # the question matches nothing: read what the options match
        query = " ".join(options.values())
        read = memory.ranked(query, READ)
    asked = set(terms(query))
    # How much of the question a statement holds; unlike BM25, a longer statement (a correction
    # with its preamble) is not less relevant for saying more.
    relevance = {p: _weight(memory, asked & memory.terms_of(p)) for p in read}
    together = set().union(*(memory.terms_of(p) for p in read)) if read else set()
    candidates: list[tuple[float, float, int, str]] = []  # (union cover, single support, newest, letter)
    for letter, text in options.items():
        words = frozenset(terms(text))
        weight = _weight(memory, words)
        if not weight or not words & together:
            continue
        support, newest = max(
            (relevance[p] * _cover(memory, words, memory.terms_of(p)) / weight, p)
            for p in read
            if words & memory.terms_of(p)
        )
        candidates.append((round(_cover(memory, words, together) / weight, 9), support, newest, letter))
    if not candidates:
        return None
    top = max(c[0] for c in candidates)
    finalists = [c for c in candidates if c[0] == top]
    best = max(c[1] for c in finalists)
    return max((c for c in finalists if c[1] >= RECENCY_BAND * best), key=lambda c: (c[2], c[1]))[3]


def _cover(memory: Statements, words: frozenset[str], terms: frozenset[str] | set[str]) -> float:
    """The idf weight of the option words a statement (or several) holds."""
    return _weight(memory, words & terms)


def _weight(memory: Statements, words: Iterable[str]) -> float:
    """The words' summed idf.  `fsum` is exact, so the total does not depend on the order a set
    gives its words in (which changes with PYTHONHASHSEED), nor do the choices made with it."""
    return math.fsum(memory.idf(word) for word in words)


def answer(question: str, memory: Statements) -> str:
    """What the baseline says to a question: an option letter, the best statement, or abstention."""
    stem, options = split_choices(question)
    if options:
        return pick_option(stem, options, memory) or ABSTENTION
    best = memory.ranked(question, 1)
    return memory.texts[best[0]] if best else ABSTENTION


class ExtractiveAgent:
    """`--agent recall`: keeps what it is told, answers with the best-matching statement."""

    def __init__(self) -> None:
        self._store = Statements()

    async def reply(self, message: Message) -> str:
        if not is_question(message.text):
            self._store.add(message.text)
            return ACKNOWLEDGEMENT
        return answer(message.text, self._store)

    async def observe(self, messages: Sequence[Message]) -> None:
        for message in messages:
            if not split_choices(message.text)[1]:  # a quiz in the history is no content
                self._store.add(message.text)

    async def retrieve(self, query: str, k: int) -> list[str]:
        return [self._store.texts[i] for i in self._store.ranked(query, k)]

    async def stored(self) -> list[str]:
        """Every statement it kept, for what it wrote (`conversation/written.py`)."""
        texts = self._store.texts
        return [texts[position] for position in range(len(texts))]

    async def reset(self) -> None:
        self.__init__()  # type: ignore[misc]

    async def fork(self) -> ExtractiveAgent:
        twin = copy.copy(self)  # a subclass stays itself, with its own attributes
        twin._store = self._store.fork()
        return twin
