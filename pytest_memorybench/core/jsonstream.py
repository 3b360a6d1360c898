"""Reading one element of a huge JSON file at a time, with the standard library only.

A BEAM 10M `chat.json` is about 40 MB of JSON, a Hugging Face export row holds a whole chat on
one line, and LongMemEval's M file is 2.7 GB in one list; `json.load` would hold all of it,
several times over as Python objects.  This reader walks the file's structure in chunks and
parses only the values the caller asks for, so at most one value (a BEAM batch, a LongMemEval
question) plus the buffer around it is in memory at once.  `position()` gives the byte offset of
the next value and a stream can start at such an offset, so a caller can index a big file once
and come back for one value later without walking the file again.

Why not ijson?  It would do the same, but it is not installed here by default and its fast
backend needs a compiled library; what the loaders need (walk arrays and objects, parse or skip
one value) is this small scanner: string ends and brackets are found by `str.find` and regular
expressions (C speed), and each captured value is handed to `json.loads`, so the file is still
parsed by the standard library.  Malformed JSON raises `JsonStreamError` naming the file and the
character offset.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any, TextIO

CHUNK = 1 << 20  # characters read at a time

_WHITESPACE = re.compile(r"[ \t\r\n]*")
_BRACKET_OR_QUOTE = re.compile(r'["\[\]{}]')
_SCALAR = re.compile(r"[^ \t\r\n,\]}]+")


def _string_end(buffer: str, start: int) -> int | None:
    """Just past the closing quote of the string whose text begins at `start`; None when the
    buffer ends first.  `str.find` runs at memory speed, and escaped quotes are rare."""
    index = start
    while (quote := buffer.find('"', index)) >= 0:
        before = quote
        while before > start and buffer[before - 1] == "\\":
            before -= 1
        if (quote - before) % 2 == 0:  # an even run of backslashes escapes itself, not the quote
            return quote + 1
        index = quote + 1
    return None


class JsonStreamError(ValueError):
    """The file is not the JSON it should be; the message says where."""


class JsonStream:
    """A cursor over a JSON text: look at the next character, step into arrays and objects,
    parse (`value`) or skip (`skip`) the value under the cursor.

    Use it as a context manager, or call `close()`.
    """

    def __init__(self, path: Path, chunk: int = CHUNK, start: int = 0) -> None:
        """`start`: a byte offset from `position()` of an earlier stream over the same file."""
        self.path = Path(path)
        self.chunk = chunk
        raw = open(self.path, "rb")  # noqa: SIM115 - closed by close()
        raw.seek(start)
        self._file: TextIO = io.TextIOWrapper(raw, encoding="utf-8")
        self._buffer = ""
        self._pos = 0  # cursor within the buffer
        self._dropped = 0  # characters dropped from the buffer's front, for error offsets
        self._dropped_bytes = start  # and their size in the file, for `position()`
        self._eof = False

    def __enter__(self) -> JsonStream:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        self._file.close()

    # -- low level ---------------------------------------------------------------------------------

    def _fail(self, problem: str, at: int | None = None) -> JsonStreamError:
        offset = self._dropped + (self._pos if at is None else at)
        return JsonStreamError(f"{self.path}: not valid JSON at character {offset:,}: {problem}")

    def _drop(self, count: int) -> None:
        """Forget the buffer's first `count` characters (the cursor stays where it is)."""
        if count > 0:
            self._dropped_bytes += len(self._buffer[:count].encode("utf-8"))
            self._buffer = self._buffer[count:]
            self._dropped += count
            self._pos -= count

    def _read_more(self, keep_from: int) -> bool:
        """Append a chunk, dropping the buffer before `keep_from`; False at the end of the file."""
        if self._eof:
            return False
        self._drop(keep_from)
        text = self._file.read(self.chunk)
        if not text:
            self._eof = True
            return False
        self._buffer += text
        return True

    def peek(self) -> str:
        """The next non-blank character ("" at the end of the file), without consuming it."""
        while True:
            self._pos = _WHITESPACE.match(self._buffer, self._pos).end()  # type: ignore[union-attr]
            if self._pos < len(self._buffer):
                return self._buffer[self._pos]
            if not self._read_more(self._pos):
                return ""

    def _expect(self, char: str) -> None:
        found = self.peek()
        if found != char:
            raise self._fail(f"expected {char!r}, found {found or 'the end of the file'!r}")
        self._pos += 1

    def _end_of_value(self, keep: bool) -> int:
        """Move past the value under the cursor; return where it ended (buffer index).

        With `keep` the buffer holds the whole value, from index 0 (for parsing) and nothing
        before it; without, it is dropped as the scan goes, so skipping a huge value costs one
        chunk of memory.
        """
        first = self.peek()
        if not first:
            raise self._fail("expected a value, found the end of the file")
        if keep:
            self._drop(self._pos)
        start = self._pos
        if first not in '"[{':
            while True:
                match = _SCALAR.match(self._buffer, start)
                if match and (match.end() < len(self._buffer) or self._eof):
                    self._pos = match.end()
                    return self._pos
                if not self._read_more(self._pos if not keep else 0):
                    if match:
                        self._pos = match.end()
                        return self._pos
                    raise self._fail("expected a value")
                start = self._pos
        depth = 0
        index = start
        while True:
            if self._buffer[index] == '"':
                end = _string_end(self._buffer, index + 1)
                if end is None:  # the string goes on past the buffer
                    keep_from = 0 if keep else index
                    self._pos = index
                    if not self._read_more(keep_from):
                        raise self._fail("unterminated string", index)
                    index = self._pos
                    continue
                index = end
                if depth == 0:
                    self._pos = index
                    return index
            else:
                depth += 1 if self._buffer[index] in "[{" else -1
                index += 1
                if depth == 0:
                    self._pos = index
                    return index
            match = _BRACKET_OR_QUOTE.search(self._buffer, index)
            while match is None:
                self._pos = len(self._buffer)
                if not self._read_more(0 if keep else self._pos):
                    raise self._fail("unexpected end of the file inside a value")
                match = _BRACKET_OR_QUOTE.search(self._buffer, self._pos)
            index = match.start()

    # -- what callers use --------------------------------------------------------------------------

    def position(self) -> int:
        """The byte offset in the file of the next value (a `start` for a later stream)."""
        self.peek()
        return self._dropped_bytes + len(self._buffer[: self._pos].encode("utf-8"))

    def value(self) -> Any:
        """Parse the value under the cursor and move past it."""
        end = self._end_of_value(keep=True)  # the value is buffer[0:end]
        try:
            return json.loads(self._buffer[:end])
        except json.JSONDecodeError as exc:
            raise self._fail(exc.msg, exc.pos) from None

    def skip(self) -> None:
        """Move past the value under the cursor without keeping it."""
        self._end_of_value(keep=False)

    def items(self) -> Iterator[None]:
        """Step into the array under the cursor; yields with the cursor on each element, which
        the caller must consume (`value`, `skip`, or stepping into it)."""
        if self._opened("[", "]"):
            while True:
                yield
                if self._closed("]", "an array"):
                    return

    def members(self) -> Iterator[str]:
        """Step into the object under the cursor; yields each key with the cursor on its value,
        which the caller must consume."""
        if self._opened("{", "}"):
            while True:
                if self.peek() != '"':
                    raise self._fail("expected a key")
                key = self.value()
                self._expect(":")
                yield key
                if self._closed("}", "an object"):
                    return

    def _opened(self, opening: str, closing: str) -> bool:
        """Step past `opening`; False (and past `closing` too) if the container is empty."""
        self._expect(opening)
        if self.peek() == closing:
            self._pos += 1
            return False
        return True

    def _closed(self, closing: str, what: str) -> bool:
        """After an element: step past `,` (False) or past `closing` (True)."""
        char = self.peek()
        self._pos += 1
        if char == closing:
            return True
        if char != ",":
            raise self._fail(
                f"expected ',' or {closing!r} in {what}, found {char or 'the end of the file'!r}",
                self._pos - 1,
            )
        return False

    def at_end(self) -> bool:
        return self.peek() == ""


__all__ = ["CHUNK", "JsonStream", "JsonStreamError"]
