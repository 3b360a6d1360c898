"""Finding BEAM's published conversations under a user's path (`--mb-data beam=PATH`).

Two layouts are read, unchanged:

Repository (github.com/mohammadtavakoli78/BEAM, `chats/` folder): `chats/<size>/<n>/chat.json` with
`probing_questions/probing_questions.json` beside it, sizes `100K`, `500K`, `1M`, `10M`.  PATH may be
the checkout, its `chats/` folder, one size folder or one conversation folder.  Where
`chat_trunecated.json` (sic) exists, the official answer script feeds it instead of `chat.json`; so
do we, unless `truncated: false`.  A conversation whose chat file is absent (the repository leaves
out most 1M and 10M chats as too large) still lists its questions, as skipped items saying so.

Hugging Face export (datasets `Mohammadta/BEAM`, splits 100K/500K/1M, and `Mohammadta/BEAM-10M`),
saved with `datasets`' `to_json` as JSON lines (one conversation a line) or as a JSON array: rows
with `conversation_id`, `chat` and `probing_questions` (a Python-literal string).  PATH is such a
file (its size from its name, `100K.jsonl`, `beam-1M.json`, or else from a one-size `sizes`
parameter), or a folder of files named by their size.  Parquet files are not read: export them with
`datasets.load_dataset(...).to_json(...)`.

Chats are never loaded whole: they stream one batch at a time (`core.jsonstream`), also out of a
Hugging Face row holding a 10M-token chat on one line.

Listing conversations also reads every chat once, batch by batch, as delivery will (one pass over
an export; cached per file and modification time): a truncated or malformed file, or one without a
single message, is a usage error at collection (one line naming the file and the character
offset, exit code 4) instead of a traceback in every item after part of the chat has already gone
to a paid agent.  It costs about 0.1 s per million tokens of chat.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.core.jsonstream import JsonStream, JsonStreamError
from pytest_memorybench.core.load_report import LoadTally
from pytest_memorybench.core.readers import problem
from pytest_memorybench.scenarios.beam.chat import batches, read_chat_file, stream_units
from pytest_memorybench.scenarios.beam.questions import (
    ProbingQuestion,
    parse_probing_questions,
)

SIZES: tuple[str, ...] = ("100K", "500K", "1M", "10M")
QUESTIONS = Path("probing_questions") / "probing_questions.json"
CHAT = "chat.json"
TRUNCATED = "chat_trunecated.json"  # the repository's spelling
EXPORT_SUFFIXES = (".jsonl", ".json", ".ndjson")
# BEAM's sizes, and any other "<number>K" / "<number>M" (our generator writes 40K or 2M chats too).
_SIZE_IN_NAME = re.compile(r"(?<![0-9a-z])(\d+[km])(?![0-9a-z])", re.IGNORECASE)


@dataclass(frozen=True)
class PublishedConversation:
    """One published conversation: its questions now, its chat as a stream of raw batches later."""

    size: str
    number: str
    questions: tuple[ProbingQuestion, ...]
    units: Callable[[], Iterator[Any]]
    source: str  # the file the chat streams from, for messages
    missing: str | None = None  # why the chat cannot be read: its items are skipped with this
    message_ids: frozenset[int] = frozenset()  # the ids its chat's messages carry (evidence recall's)

    @property
    def id(self) -> str:
        return f"{self.size}-{self.number}"


def size_label(name: str) -> str | None:
    """ "100K", "1M", … for a folder or file name that is (or contains) a size."""
    match = _SIZE_IN_NAME.search(name)
    return match.group(1).upper() if match else None


def find_conversations(
    path: str | Path,
    *,
    sizes: tuple[str, ...] = (),
    numbers: tuple[str, ...] = (),
    truncated: bool = True,
    tally: LoadTally | None = None,
) -> list[PublishedConversation]:
    """Every conversation under `path` (filtered by size and number), sizes in BEAM's order.

    UsageError, in one line, when the path holds no BEAM data.  `tally` counts every conversation
    found and its questions, and those the filters leave out.
    """
    root = Path(path).expanduser()
    if not root.exists():
        raise usage_error(f"--mb-data beam={path}: no such file or folder")
    found = (
        _exports(root, sizes) if _is_export(root) else _repository(root, truncated) or _exports(root, sizes)
    )
    if not found:
        raise usage_error(
            f"--mb-data beam={path}: no BEAM data found; expected the repository layout "
            "chats/<size>/<n>/chat.json with probing_questions/probing_questions.json, "
            "or a Hugging Face export saved as .jsonl/.json (see the README's BEAM section)"
        )
    selected = [c for c in found if (not sizes or c.size in sizes) and (not numbers or c.number in numbers)]
    if tally is not None:
        tally.held("conversations", len(found))
        tally.held("questions", sum(len(c.questions) for c in found))
        chosen = "; ".join(
            f"{name}: {','.join(values)}"
            for name, values in (("sizes", sizes), ("conversations", numbers))
            if values
        )
        kept = {id(c) for c in selected}
        for conversation in found:
            if id(conversation) not in kept:
                tally.note(
                    f"questions of conversations not chosen ({chosen})",
                    conversation.id,
                    len(conversation.questions),
                )
    if not selected:
        have = ", ".join(c.id for c in found[:12]) + (" …" if len(found) > 12 else "")
        raise usage_error(
            f"--mb-data beam={path}: no conversation matches sizes={list(sizes)}"
            f" conversations={list(numbers)} (found: {have})"
        )
    order = {size: i for i, size in enumerate(SIZES)}
    return sorted(selected, key=lambda c: (order.get(c.size, len(order)), c.size, _number_key(c.number)))


def _number_key(number: str) -> tuple[int, str]:
    return (int(number), "") if number.isdigit() else (1 << 30, number)


# -- repository layout ---------------------------------------------------------------------------


def _repository(root: Path, truncated: bool) -> list[PublishedConversation]:
    if not root.is_dir():
        return []
    if (root / QUESTIONS).is_file():  # one conversation folder
        size = size_label(root.parent.name) or root.parent.name
        return [_conversation_folder(root, size, truncated)]
    for base in (root / "chats", root):
        size_dirs = (
            [d for d in sorted(base.iterdir()) if d.is_dir() and size_label(d.name) == d.name.upper()]
            if base.is_dir()
            else []
        )
        if size_dirs:
            return [c for d in size_dirs for c in _size_folder(d, d.name.upper(), truncated)]
    if size_label(root.name) == root.name.upper():  # one size folder
        return _size_folder(root, root.name.upper(), truncated)
    return []


def _size_folder(folder: Path, size: str, truncated: bool) -> list[PublishedConversation]:
    return [
        _conversation_folder(child, size, truncated)
        for child in sorted(folder.iterdir())
        if child.is_dir() and (child / QUESTIONS).is_file()
    ]


def _conversation_folder(folder: Path, size: str, truncated: bool) -> PublishedConversation:
    questions = tuple(parse_probing_questions(_read_json(folder / QUESTIONS), str(folder / QUESTIONS)))
    chat = folder / TRUNCATED if truncated and (folder / TRUNCATED).is_file() else folder / CHAT
    missing = (
        None
        if chat.is_file()
        else (
            f"{chat} is missing (the repository leaves out large chats; the Hugging Face export has them all)"
        )
    )
    ids = frozenset() if missing is not None else _check_chat_file(chat)
    return PublishedConversation(
        size, folder.name, questions, lambda: read_chat_file(chat), str(chat), missing, ids
    )


_CHECKED: dict[tuple[str, int, int], tuple[int, frozenset[int]]] = {}


def _file_key(path: Path) -> tuple[str, int, int]:
    stat = path.stat()
    return (str(path.resolve()), stat.st_mtime_ns, stat.st_size)


def _count_messages(units: Iterator[Any]) -> tuple[int, frozenset[int]]:
    """Messages in a stream of raw batches, each batch parsed and normalised as delivery does, and
    the ids they carry."""
    count, ids = 0, set()
    for batch in batches(units):
        for message in batch.messages:
            count += 1
            if message.id is not None:
                ids.add(message.id)
    return count, frozenset(ids)


def _check_chat_file(chat: Path) -> frozenset[int]:
    """Read a `chat.json` through once; UsageError if it is broken or holds no message.  The ids
    its messages carry."""
    key = _file_key(chat)
    if key not in _CHECKED:
        try:
            _CHECKED[key] = _count_messages(read_chat_file(chat))
        except JsonStreamError as exc:
            raise usage_error(f"{exc} (a damaged or partly downloaded file? fetch it again)") from None
        except UnicodeDecodeError:
            raise usage_error(f"{chat}: not UTF-8 text") from None
    count, ids = _CHECKED[key]
    if not count:
        raise usage_error(
            f"{chat}: holds no chat messages; expected a list of batches "
            '{"batch_number", "turns": [[{"role", "content", …}, …], …], "time_anchor"}'
        )
    return ids


def _read_json(path: Path) -> Any:
    try:
        with JsonStream(path) as stream:
            return stream.value()
    except JsonStreamError as exc:
        raise usage_error(str(exc)) from None
    except (ValueError, RecursionError) as exc:
        raise usage_error(f"{path}: {problem(exc)}") from None


# -- Hugging Face export -------------------------------------------------------------------------


def _is_export(path: Path) -> bool:
    return path.is_file() and path.suffix.lower() in (*EXPORT_SUFFIXES, ".parquet")


def _exports(root: Path, sizes: tuple[str, ...]) -> list[PublishedConversation]:
    # In a folder, only files named by their size (`100K.jsonl`) are exports; other JSON is not ours.
    files = (
        [root]
        if root.is_file()
        else sorted(p for p in root.iterdir() if _is_export(p) and size_label(p.name))
    )
    found = []
    for file in files:
        if file.suffix.lower() == ".parquet":
            raise usage_error(
                f"{file}: Parquet is not read; save the split as JSON lines first, e.g. "
                "datasets.load_dataset('Mohammadta/BEAM', split='100K').to_json('100K.jsonl')"
            )
        size = size_label(file.name) or (sizes[0] if len(sizes) == 1 else None)
        if size is None:
            raise usage_error(
                f"{file}: cannot tell the conversation size from the file name; name it like 100K.jsonl or"
                " set the suite parameter sizes: 100K"
            )
        found.extend(_export_rows(file, size))
    return found


_ROW_CACHE: dict[tuple[str, int, int], list[tuple[int, str, Any, tuple[int, frozenset[int]]]]] = {}


def _row_index(file: Path) -> list[tuple[int, str, Any, tuple[int, frozenset[int]]]]:
    """(row position, conversation id, raw probing questions, (chat messages, their ids)) of every row.

    One pass over the file: each row's `chat` (and, for BEAM-10M rows, `plans[*].chat`) is read
    batch by batch and counted, so a broken chat is found here, never kept in memory.
    """
    key = _file_key(file)
    if key not in _ROW_CACHE:
        rows = []
        try:
            with JsonStream(file) as stream:
                for position, _ in enumerate(_rows(stream)):
                    if stream.peek() != "{":
                        raise usage_error(
                            f"{file} row {position + 1}: not an object with conversation_id, chat and"
                            " probing_questions"
                        )
                    identifier, questions = str(position + 1), None
                    chat: tuple[int, frozenset[int]] = (0, frozenset())
                    plans: tuple[int, frozenset[int]] = (0, frozenset())
                    for name in stream.members():
                        if name == "conversation_id":
                            identifier = str(stream.value())
                        elif name == "probing_questions":
                            questions = stream.value()
                        elif name == "chat":
                            chat = _count_messages(stream_units(stream))
                        elif name == "plans":
                            plans = _count_messages(_plan_chats(stream))
                        else:
                            stream.skip()
                    rows.append((position, identifier, questions, chat if chat[0] else plans))
        except JsonStreamError as exc:
            raise usage_error(f"{exc} (a damaged or partly written export? save it again)") from None
        except UnicodeDecodeError:
            raise usage_error(f"{file}: not UTF-8 text") from None
        _ROW_CACHE[key] = rows
    return _ROW_CACHE[key]


def _plan_chats(stream: JsonStream) -> Iterator[Any]:
    """The batches of every `plans[*].chat` under the cursor (a BEAM-10M row's `plans`)."""
    if stream.peek() != "[":
        stream.skip()
        return
    for _ in stream.items():
        if stream.peek() != "{":
            stream.skip()
            continue
        for name in stream.members():
            if name == "chat":
                yield from stream_units(stream)
            else:
                stream.skip()


def _rows(stream: JsonStream) -> Iterator[None]:
    """Rows of a JSON-lines file (values one after another) or of a JSON array."""
    if stream.peek() == "[":
        yield from stream.items()
        return
    while not stream.at_end():
        yield


def _export_rows(file: Path, size: str) -> list[PublishedConversation]:
    conversations = []
    for position, identifier, raw, (messages, ids) in _row_index(file):
        where = f"{file} row {position + 1}"
        if raw is None:
            raise usage_error(f"{where}: no 'probing_questions'")
        if not messages:
            raise usage_error(f"{where}: no chat messages in 'chat' (nor in 'plans[*].chat')")
        questions = tuple(parse_probing_questions(raw, where))
        number = identifier if re.fullmatch(r"[A-Za-z0-9_.-]+", identifier) else str(position + 1)
        conversations.append(
            PublishedConversation(
                size, number, questions, _row_stream(file, position), where, message_ids=ids
            )
        )
    return conversations


def _row_stream(file: Path, row: int) -> Callable[[], Iterator[Any]]:
    return lambda: _row_chat(file, row)


def _row_chat(file: Path, row: int) -> Iterator[Any]:
    """The batches of one row's `chat`; if it has none, those of its `plans[*].chat` (BEAM-10M)."""
    produced = False
    for unit in _row_field(file, row, "chat"):
        produced = True
        yield unit
    if produced:
        return
    with JsonStream(file) as stream:
        if _seek_field(stream, row, "plans"):
            yield from _plan_chats(stream)


def _row_field(file: Path, row: int, field: str) -> Iterator[Any]:
    with JsonStream(file) as stream:
        if _seek_field(stream, row, field):
            yield from stream_units(stream)


def _seek_field(stream: JsonStream, row: int, field: str) -> bool:
    """Put the cursor on `field` of row `row`; False if the row has no such field."""
    for position, _ in enumerate(_rows(stream)):
        if position < row:
            stream.skip()
            continue
        for name in stream.members():
            if name == field:
                return True
            stream.skip()
        return False
    return False


__all__ = ["SIZES", "PublishedConversation", "find_conversations", "size_label"]
