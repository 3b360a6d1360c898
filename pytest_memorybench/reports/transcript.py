"""One test's own transcript, read back from the run's event logs, with everything else collapsed.

A test's lines are spread over a long conversation shared with other tests and filler; a reader
checking why it failed wants its own exchanges and, between them, how much else happened (that
distance is what the test measures), not 100k tokens of trivia.  So between two of the test's
exchanges we keep one `Gap`: how many exchanges, of which filler and other tests', and tokens.

The logs are the source because they hold what the agent was told and replied, whichever process
drove the conversation, and survive a resume.  `EventIndex` reads them incrementally (each line
once per process) and keeps only the text of test lines: filler is counted, never stored.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_memorybench.conversation.log_reader import parse_event


@dataclass(frozen=True)
class TranscriptTurn:
    """One exchange of the test: what the benchmark said and what the agent replied."""

    message: str
    reply: str | None  # None: the log ends before the reply (an interrupted run)
    time: str | None  # the simulated clock when the message was sent
    is_question: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "message": self.message,
            "reply": self.reply,
            "time": self.time,
            "is_question": self.is_question,
        }


@dataclass(frozen=True)
class Gap:
    """Exchanges of the conversation between two of the test's own, collapsed to counts."""

    exchanges: int
    filler: int
    other_tests: int
    tokens: int

    def describe(self) -> str:
        parts = []
        if self.filler:
            parts.append(f"{self.filler} filler")
        if self.other_tests:
            parts.append(f"{self.other_tests} of other tests")
        rest = self.exchanges - self.filler - self.other_tests
        if rest:
            parts.append(f"{rest} other")
        plural = "s" if self.exchanges != 1 else ""
        return f"{self.exchanges} exchange{plural} ({', '.join(parts)}), {self.tokens:,} tokens"

    def to_json(self) -> dict[str, Any]:
        return {"gap": self.describe()}


Entry = TranscriptTurn | Gap


@dataclass
class _Exchange:
    source: str
    test: str | None
    message: str | None  # kept for test lines only
    is_question: bool
    time: str | None
    reply: str | None = None
    tokens_after: int | None = None


class EventIndex:
    """The exchanges of every conversation in a run's event logs, indexed by group and number.

    `folders` are the run folder and, for a replay, the folder of the run it replays (whose log
    holds the replies; a replay logs only what is new).
    """

    def __init__(self, folders: Iterable[Path | None]) -> None:
        self.folders = [Path(folder) for folder in dict.fromkeys(folders) if folder is not None]
        self._groups: dict[str, dict[int, _Exchange]] = {}
        self._offsets: dict[Path, int] = {}

    def refresh(self) -> None:
        """Read what was appended to the logs since the last call (whole lines only)."""
        for folder in self.folders:
            for path in sorted(folder.glob("events*.jsonl")):
                self._read(path)

    def transcript(self, group: str, test: str) -> list[Entry] | None:
        """The test's turns with the gaps between them; None when the logs hold none of its turns."""
        exchanges = self._groups.get(group, {})
        entries: list[Entry] = []
        gap: list[_Exchange] = []
        tokens_before = 0
        gap_start_tokens = 0
        for number in sorted(exchanges):
            exchange = exchanges[number]
            if exchange.test == test and exchange.message is not None:
                if gap and entries:
                    entries.append(_collapse(gap, tokens_before - gap_start_tokens))
                gap = []
                entries.append(
                    TranscriptTurn(exchange.message, exchange.reply, exchange.time, exchange.is_question)
                )
            else:
                if not gap:
                    gap_start_tokens = tokens_before
                gap.append(exchange)
            if exchange.tokens_after is not None:
                tokens_before = exchange.tokens_after
        return entries or None

    def _read(self, path: Path) -> None:
        offset = self._offsets.get(path, 0)
        try:
            with path.open("rb") as file:
                file.seek(offset)
                data = file.read()
        except OSError:
            return
        end = data.rfind(b"\n") + 1  # a line still being written waits for the next refresh
        self._offsets[path] = offset + end
        for line in data[:end].splitlines():
            event = parse_event(line)
            if event is not None:
                self._add(event)

    def _add(self, event: dict[str, Any]) -> None:
        kind, group, number = event.get("kind"), event.get("group"), event.get("i")
        if group is None or not isinstance(number, int):
            return
        exchanges = self._groups.setdefault(group, {})
        if kind == "message" or (kind == "observed" and number not in exchanges):  # saved filler: one event
            test, source = event.get("test"), event.get("source", "")
            keep = source == "test" and test is not None
            exchanges[number] = _Exchange(
                source,
                test,
                event.get("text", "") if keep else None,
                bool(event.get("is_question")),
                event.get("time"),
            )
        exchange = exchanges.get(number)
        if kind in ("reply", "observed") and exchange is not None:
            if exchange.message is not None:
                exchange.reply = event.get("text", "")
            exchange.tokens_after = event.get("tokens")


def _collapse(gap: list[_Exchange], tokens: int) -> Gap:
    return Gap(
        exchanges=len(gap),
        filler=sum(exchange.source == "filler" for exchange in gap),
        other_tests=sum(exchange.source == "test" for exchange in gap),
        tokens=max(tokens, 0),
    )
