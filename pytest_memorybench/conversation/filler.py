"""Filler: the harmless trivia chore sent whenever no test has anything to say.

A memory benchmark needs distance between the moment a fact is told and the moment it is asked
for.  When no test can speak, the conversation is padded with a self-contained task: a batch of
trivia questions *with* their answers (`trivia.py`), and a request to send the answers back as a
JSON list.  The task is easy, needs nothing from earlier in the conversation, and fills the
agent's context with plausible text that competes with what the tests planted.

This module sizes those messages to a token target exactly, keeps the lines it built and counted
for the next conversation of the process, builds ahead while the agent answers (`Prefetch`), and
checks, for diagnostics only, whether the agent did the chore.
"""

from __future__ import annotations

import ast
import asyncio
import bisect
import json
import re
import unicodedata
from array import array
from collections import Counter, OrderedDict
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache, partial
from json.encoder import encode_basestring

from pytest_memorybench.conversation.trivia import PASS_ITEMS, TriviaSource
from pytest_memorybench.core.tokens import TokenCounter, sums_at_cuts

# ------------------------------------------------------------------------------------------------
# Building filler messages.
# ------------------------------------------------------------------------------------------------

INSTRUCTION = (
    "Below are some trivia questions, each followed by its answer. Please collect every answer and"
    ' send them all back in a single message as a JSON list, for example: ["answer 1", "answer 2",'
    " ...]"
)


@dataclass(frozen=True)
class FillerTask:
    """One filler message: the trivia instruction with its questions, the reply a perfect agent gives, and
    their size.
    """

    message: str  # what the user says: the instruction, then one "Q: ..., A: ..." line per item
    expected_reply: str  # JSON list of the answers, in order
    tokens: int  # exact tokens of message + expected_reply
    items: int
    next_index: int  # the source index to continue from
    message_tokens: int  # exact tokens of message alone

    @property
    def first_index(self) -> int:
        return self.next_index - self.items

    @property
    def reply_tokens(self) -> int:
        return self.tokens - self.message_tokens


def _count(counter: TokenCounter, text: str) -> int:
    """Token count of one line or answer, remembered: answers and table questions recur."""
    if isinstance(counter, Hashable):
        return _cached_count(counter, text)
    return counter.count(text)


@lru_cache(maxsize=32_768)
def _cached_count(counter: TokenCounter, text: str) -> int:
    return counter.count(text)


class _Pass:
    """`size` items of the trivia sequence from index `first` on, as filler lines and counts.

    Built as far as asked, and kept (see `_pass`): building an item (a Random seeded for its
    index, a formatted line) and counting its line is what filler costs, a conversation walks the
    passes once, and every conversation of a run with the same seed walks the same passes.

    For the item at position i, `lines[i]` is its message line and `quoted[i]` its answer as JSON.
    Its counts are kept as running totals over the positions before i, so a message's sums are two
    look-ups and its end a bisection: `sum_estimate`, of what make_filler's estimate grows by per
    item (a newline, the line and the answer's piece of the reply, ` "answer",`); `sum_pieces`, of
    those pieces; and `sum_with_newline`, of the line plus the newline that follows it inside a
    message (when the counter sums at cuts; else 0).
    """

    # Most items add 15 to 30 tokens to the estimate; growing by need / this many items at a time
    # builds only a few items past the end of a message.
    GROWTH_TOKENS_PER_ITEM = 48

    def __init__(
        self, source: TriviaSource, first: int, size: int, counter: TokenCounter, cuts: bool
    ) -> None:
        self.source = source
        self.first = first  # the source index of position 0
        self.size = size
        self.cuts = cuts
        self.count: Callable[[str], int] = (
            partial(_cached_count, counter) if isinstance(counter, Hashable) else counter.count
        )
        self.newline = self.count("\n")
        self.lines: list[str] = []
        self.quoted: list[str] = []
        self.sum_estimate = array("q", [0])  # appended last: every list is complete up to its length - 1
        self.sum_pieces = array("q", [0])
        self.sum_with_newline = array("q", [0])

    def piece(self, position: int) -> int:
        return self.sum_pieces[position + 1] - self.sum_pieces[position]

    def line_tokens(self, position: int) -> int:
        return (
            self.sum_estimate[position + 1]
            - self.sum_estimate[position]
            - self.newline
            - self.piece(position)
        )

    def with_newline(self, position: int) -> int:
        return self.sum_with_newline[position + 1] - self.sum_with_newline[position]

    def end_of_message(self, start: int, need: int) -> int:
        """The smallest end > start where the positions start..end-1 add at least `need` to the
        estimate, or the end of the pass if they never do; builds the items on the way."""
        if len(self.sum_estimate) <= start:
            self.build(start + 1)
        while True:
            sums = self.sum_estimate
            end = bisect.bisect_left(sums, sums[start] + need, lo=start + 1)
            if end < len(sums) or len(sums) > self.size:
                return min(end, self.size)
            short = need - (sums[-1] - sums[start])
            self.build(len(sums) - 1 + max(8, -(-short // self.GROWTH_TOKENS_PER_ITEM)))

    def build(self, size: int) -> None:
        count, cuts, newline = self.count, self.cuts, self.newline
        for index in range(self.first + len(self.lines), self.first + min(size, self.size)):
            item = self.source.item(index)
            line = f"Q: {item.question}, A: {item.answer}"
            quoted = encode_basestring(item.answer)  # = json.dumps(answer, ensure_ascii=False)
            line_tokens, piece = count(line), count(f" {quoted},")
            with_newline = 0
            if cuts:  # a letter or digit then a newline is a cut; other endings are counted whole
                last = line[-1]
                with_newline = (
                    line_tokens + newline if last.isascii() and last.isalnum() else count(line + "\n")
                )
            self.lines.append(line)
            self.quoted.append(quoted)
            self.sum_pieces.append(self.sum_pieces[-1] + piece)
            self.sum_with_newline.append(self.sum_with_newline[-1] + with_newline)
            self.sum_estimate.append(self.sum_estimate[-1] + newline + line_tokens + piece)


def _kept(source: TriviaSource, counter: TokenCounter) -> bool:
    """Whether filler built for (source, counter) can be kept and reused: a plain TriviaSource (its
    items depend on the seed alone) and a counter that sums at cuts (our own, known by type and
    name)."""
    return type(source) is TriviaSource and sums_at_cuts(counter)


_PASSES: OrderedDict[tuple[type, str, int, int], _Pass] = OrderedDict()
_PASSES_KEPT = 32  # a pass holds ~1,200 items (~0.4 MB); 32 cover a 120k-span conversation


def _pass(source: TriviaSource, index: int, counter: TokenCounter, cuts: bool) -> tuple[_Pass, int]:
    """Items from `index` on, and index's position among them.

    The shuffled pass holding `index`, kept between messages and conversations, when that is
    safe (`_kept`).  Otherwise items from `index` on, for this message.
    """
    if not _kept(source, counter):
        return _Pass(source, index, PASS_ITEMS, counter, cuts), 0
    cycle, position = divmod(index, PASS_ITEMS)
    key = (type(counter), counter.name, source.seed, cycle)
    kept = _PASSES.get(key)
    if kept is not None:
        _PASSES.move_to_end(key)
    else:
        kept = _PASSES[key] = _Pass(source, cycle * PASS_ITEMS, PASS_ITEMS, counter, cuts)
        if len(_PASSES) > _PASSES_KEPT:
            _PASSES.popitem(last=False)
    return kept, position


PREFETCH_CHUNK = 16  # items built in one slice of the prefetch (~0.2 ms)
AHEAD_MESSAGES = 16  # filler messages made ahead of the conversation (a burst at 120k sends ~7)


class Prefetch:
    """Builds the conversation's filler while the agent is busy: the trivia items of about `tokens`
    of filler, and the next filler messages from where the conversation is.

    The first conversation of a process would otherwise build and count its filler on the critical
    path, and every conversation would assemble its messages there.  An agent's reply leaves the
    event loop idle (a model call is a network wait), so the channel says when one starts and ends
    (`agent_busy`), and a task of the conversation's own loop works meanwhile, in slices, handing
    the loop back after each one so the reply is picked up at once.  A thread would compete with
    the harness for the interpreter lock and delay it by up to a switch interval each time the
    agent answers; a task never runs while the harness works.

    What it makes lands where `make_filler` looks first: the kept passes (`_pass`) and the kept
    messages (`_MADE`).  The messages are those `make_filler` is asked for when a wait needs more
    than one full message: from the conversation's index (`follow`), one after another, each as
    large as the cap.  Anything not ready is built by `make_filler` itself, as without a prefetch.
    """

    def __init__(self, source: TriviaSource, tokens: int, counter: TokenCounter, cap_tokens: int) -> None:
        self._source, self._counter, self._cap = source, counter, cap_tokens
        self._items = self._build_items(tokens)
        self._chain = [0]  # the start indices of the messages made ahead; the last is the next one
        self._busy = asyncio.Event()
        self._moved = asyncio.Event()
        self.idle = False  # all done until the conversation moves on
        self.task = asyncio.get_running_loop().create_task(self._run(), name="memorybench-filler")

    @contextmanager
    def agent_busy(self) -> Iterator[None]:
        self._busy.set()
        try:
            yield
        finally:
            self._busy.clear()

    def follow(self, index: int) -> None:
        """The conversation goes on from trivia index `index`."""
        chain = self._chain
        self._chain = chain[chain.index(index) :] if index in chain else [index]
        self._moved.set()
        self.idle = False

    def stop(self) -> None:
        self.task.cancel()

    async def _run(self) -> None:
        while True:
            await self._busy.wait()
            if not self._step():
                self._moved.clear()
                self.idle = True
                await self._moved.wait()
            await asyncio.sleep(0)

    def _step(self) -> bool:
        """One slice of work, the next message first when its items are ready; False if none is left."""
        if len(self._chain) <= AHEAD_MESSAGES and self._items_ready(self._chain[-1]):
            made = make_filler(self._source, self._chain[-1], self._cap, self._cap, self._counter)
            self._chain.append(made.next_index)
            return True
        return next(self._items, False)

    def _items_ready(self, index: int) -> bool:
        """Whether the items of a full message from `index` on are built (by their estimate)."""
        need = self._cap
        while True:
            part, position = _pass(self._source, index, self._counter, True)
            sums = part.sum_estimate
            if position >= len(sums) - 1:
                return False
            need -= sums[-1] - sums[position]
            if need <= 0:
                return True
            if len(part.lines) < part.size:
                return False
            index = part.first + part.size

    def _build_items(self, tokens: int) -> Iterator[bool]:
        for cycle in range(
            _PASSES_KEPT // 2
        ):  # no further than the kept passes reach: none is dropped unused
            part, _ = _pass(self._source, cycle * PASS_ITEMS, self._counter, True)
            while tokens > part.sum_estimate[-1] and len(part.lines) < part.size:
                part.build(len(part.lines) + PREFETCH_CHUNK)
                yield True
            tokens -= part.sum_estimate[-1]
            if tokens <= 0:
                return


def prefetch(source: TriviaSource, tokens: int, counter: TokenCounter, cap_tokens: int) -> Prefetch | None:
    """A `Prefetch` of about `tokens` of filler in messages of at most `cap_tokens`, on the running
    loop; None when items are not kept between messages (see `_pass`): nothing is built ahead then."""
    if tokens <= 0 or not _kept(source, counter):
        return None
    return Prefetch(source, tokens, counter, cap_tokens)


_MADE: OrderedDict[tuple[type, str, int, int, int], FillerTask] = OrderedDict()
_MADE_KEPT = 2 * AHEAD_MESSAGES  # a full message and its reply: ~13 kB


def make_filler(
    source: TriviaSource,
    start_index: int,
    need_tokens: int,
    cap_tokens: int,
    counter: TokenCounter,
) -> FillerTask:
    """Add items until message + expected reply reach min(need, cap) tokens (at least one item).

    Each line is counted once and the running total is a sum (the counts of a concatenation are
    close to the sum of its parts), so building stays linear however big the message.  The sum is
    checked against one exact count at the end; if it fell short, items keep coming.  Because we
    stop at the first item that reaches the target, the result exceeds the cap by at most that
    item (up to the small drift between the summed and the exact count).

    When the counter sums at cuts (tokens.py) the exact count is a sum too: a message is cut at
    every line start and a reply after every answer's comma, so it adds up the lines' and answers'
    counts, and only the reply's two ends are counted anew.

    Messages are kept (`_MADE`) when items are (`_kept`): a `Prefetch` makes the next ones ahead.
    """
    target = min(need_tokens, cap_tokens)
    key = (type(counter), counter.name, source.seed, start_index, target) if _kept(source, counter) else None
    made = _MADE.get(key) if key else None
    if made is not None:
        return made
    task = _make_filler(source, start_index, target, counter)
    if key:
        _MADE[key] = task
        if len(_MADE) > _MADE_KEPT:
            _MADE.popitem(last=False)
    return task


def _make_filler(source: TriviaSource, start_index: int, target: int, counter: TokenCounter) -> FillerTask:
    cuts = sums_at_cuts(counter)
    # In the reply each answer appears as ` "answer",` (BPE merges quotes with their neighbours, so
    # counting that piece is much closer than counting `"answer"` alone); the last has no comma.
    estimate = _count(counter, INSTRUCTION) + _count(counter, "[]") - _count(counter, ",")
    current, position = _pass(source, start_index, counter, cuts)
    spans: list[tuple[_Pass, int, int]] = []  # the message's items: positions start..end-1 of a pass
    while True:
        if position == current.size:
            current, position = _pass(source, current.first + current.size, counter, cuts)
        end = current.end_of_message(position, target - estimate)
        estimate += current.sum_estimate[end] - current.sum_estimate[position]
        if spans and spans[-1][0] is current:
            spans[-1] = (current, spans[-1][1], end)
        else:
            spans.append((current, position, end))
        position = end
        if estimate < target:
            continue
        task = _task(spans, start_index, counter, cuts)
        if task.tokens >= target:
            return task
        estimate = task.tokens


def _task(
    spans: list[tuple[_Pass, int, int]], start_index: int, counter: TokenCounter, cuts: bool
) -> FillerTask:
    """The filler task made of the items in `spans`, with its exact count."""
    lines = [INSTRUCTION]
    quoted: list[str] = []
    for part, start, end in spans:
        lines += part.lines[start:end]
        quoted += part.quoted[start:end]
    message, reply = "\n".join(lines), f"[{', '.join(quoted)}]"  # the reply = json.dumps(answers)
    if not cuts:
        message_tokens, reply_tokens = counter.count(message), counter.count(reply)
    else:  # the instruction and each line but the last with its newline; the last line alone
        (first, start, _), (last, _, end) = spans[0], spans[-1]
        message_tokens = (
            _count(counter, INSTRUCTION + "\n") - last.with_newline(end - 1) + last.line_tokens(end - 1)
        )
        message_tokens += sum(part.sum_with_newline[e] - part.sum_with_newline[s] for part, s, e in spans)
        if len(quoted) == 1:
            reply_tokens = _count(counter, reply)
        else:  # `["first",` and each ` "answer",` up to ` "last"]`
            reply_tokens = _count(counter, f"[{quoted[0]},") - first.piece(start) - last.piece(end - 1)
            reply_tokens += sum(part.sum_pieces[e] - part.sum_pieces[s] for part, s, e in spans)
            reply_tokens += _count(counter, f" {quoted[-1]}]")
    return FillerTask(
        message, reply, message_tokens + reply_tokens, len(quoted), start_index + len(quoted), message_tokens
    )


# ------------------------------------------------------------------------------------------------
# Diagnostics: did the agent do the chore?  Never used for scoring.
# ------------------------------------------------------------------------------------------------


def _normalise(text: str) -> str:
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).casefold()
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", text)  # 10,000 -> 10000
    return " ".join(text.split())


def _listed(reply: str) -> list[object] | None:
    """The first [...] span of the reply as a list, read as JSON or as a Python literal."""
    start, end = reply.find("["), reply.rfind("]")
    if start < 0 or end < start:
        return None
    span = reply[start : end + 1]
    for parse in (json.loads, ast.literal_eval):
        try:
            value = parse(span)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if isinstance(value, list):
            return value
    return None


def check_filler_reply(task: FillerTask, reply: str) -> bool:
    """Whether `reply` contains every expected answer (case-, order- and format-insensitive).

    A list in the reply (JSON or Python repr) is compared as a multiset; otherwise each answer
    must occur in the text as a whole word as often as expected, longest answers matched (and
    blanked out) first, so "C" is not found inside "Washington, D.C.".
    """
    expected = Counter(_normalise(answer) for answer in json.loads(task.expected_reply))
    listed = _listed(reply)
    if listed is not None:
        got = Counter(_normalise(str(value)).strip(" .") for value in listed)
        if all(got[answer] >= n or got[answer.strip(" .")] >= n for answer, n in expected.items()):
            return True
    text = _normalise(reply)
    for answer in sorted(expected, key=len, reverse=True):
        pattern = re.compile(rf"(?<!\w){re.escape(answer)}(?!\w)")
        if len(pattern.findall(text)) < expected[answer]:
            return False
        text = pattern.sub(" | ", text)
    return True
