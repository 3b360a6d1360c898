"""Books on disk: the authors' published data, and the books our writers save.

Published layout (figshare, DOI 10.6084/m9.figshare.28244480; see the README): a book folder
`books/model_<m>_itermax_10_Idefault_nbchapters_<N>_nbtokens_<T>/` holding
  * `book.json`: one JSON string, "Chapter k\\n\\n<text>" joined by blank lines;
  * `df_book_groundtruth.parquet`: one row per chapter (chapter, date, location, entity, content,
    post_entities, …);
  * `df_qa.parquet`: one row per question (q_idx, question, cue, retrieval_type, get,
    correct_answer, correct_answer_chapters, correct_answer_detailed, n_chapters_correct_answer,
    bins_items_correct_answer, debug_changed, debug_existing_change, …).
Its questions run as published, numbered by their row in `df_qa` (the `<q>.json` names of the
authors' saved answers).  Parquet is read with pyarrow, the optional `parquet` extra.  `--mb-data
episodic=PATH` may name the book folder itself, or any folder above it holding exactly one book.

Our layout (written by `python -m pytest_memorybench.scenarios.episodic.cli`): `book.json` as
above, the published `events.json` and `meta_events.json`, and `episodic.json` with each chapter's
ground truth and the unused universe; its questions are generated from that ground truth.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.core.load_report import LoadReport, LoadTally
from pytest_memorybench.core.readers import read_json, read_parquet, reading
from pytest_memorybench.scenarios.episodic.book import Book, ChapterTruth
from pytest_memorybench.scenarios.episodic.events import Event, EventMeta
from pytest_memorybench.scenarios.episodic.questions import Question
from pytest_memorybench.scenarios.episodic.templates import cue_label, parse_cue
from pytest_memorybench.scenarios.episodic.universe import FEATURES

BOOK = "book.json"
GROUND_TRUTH = "df_book_groundtruth.parquet"
QA = "df_qa.parquet"
OURS = "episodic.json"
FORMAT = "pytest-memorybench/episodic-book/1"
_HEADING = re.compile(r"(?:^|\n)Chapter (\d+)\n\n")


@dataclass(frozen=True)
class LoadedBook:
    """A book read from disk; `questions` is None when they are to be generated from it."""

    book: Book
    questions: tuple[Question, ...] | None
    folder: Path
    report: LoadReport = LoadReport(())  # what the folder held, and what could not be used


def load_book(path: str | Path) -> LoadedBook:
    """A book and its questions from a folder: ours, or the paper's published parquet files."""
    folder = find_book_folder(Path(path).expanduser())
    if (folder / OURS).is_file():
        return _load_ours(folder)
    return _load_published(folder)


def find_book_folder(path: Path) -> Path:
    """The folder holding `book.json`: `path` itself, or the single one below it."""
    if path.is_file() and path.name == BOOK:
        path = path.parent
    if not path.exists():
        raise usage_error(f"episodic data {path}: no such file or folder")
    if (path / BOOK).is_file():
        return path
    found = sorted(candidate.parent for candidate in path.rglob(BOOK)) if path.is_dir() else []
    if len(found) == 1:
        return found[0]
    if not found:
        raise usage_error(
            f"episodic data {path}: no {BOOK} in it; give the book folder of the published data or of a saved"
            " book"
        )
    names = ", ".join(str(folder.relative_to(path)) for folder in found[:6])
    raise usage_error(
        f"episodic data {path} holds {len(found)} books ({names}{', …' if len(found) > 6 else ''}); give one"
        " of their folders"
    )


def split_chapters(text: str) -> dict[int, str]:
    """Chapter number → text, from a whole book ("Chapter k\\n\\n<text>" joined by blank lines)."""
    marks = list(_HEADING.finditer(text))
    ends = [mark.start() for mark in marks[1:]] + [len(text)]
    return {
        int(mark.group(1)): text[mark.end() : end].strip() for mark, end in zip(marks, ends, strict=False)
    }


def _read_json(path: Path) -> Any:
    with reading(f"episodic data {path}"):
        return read_json(path)


def _book_text(folder: Path) -> dict[int, str]:
    text = _read_json(folder / BOOK)
    if not isinstance(text, str):
        raise usage_error(f"episodic data {folder / BOOK}: expected one JSON string holding the whole book")
    chapters = split_chapters(text)
    if not chapters:
        raise usage_error(f"episodic data {folder / BOOK}: no 'Chapter k' headings found")
    return chapters


def _texts_writer(texts: Mapping[int, str], where: Path) -> Any:
    def write(truth: ChapterTruth) -> str:
        try:
            return texts[truth.chapter]
        except KeyError:
            raise usage_error(
                f"episodic data {where}: chapter {truth.chapter} has ground truth but no text"
            ) from None

    return write


# -- the published layout ---------------------------------------------------------------------------


def _load_published(folder: Path) -> LoadedBook:
    missing = [name for name in (GROUND_TRUTH, QA) if not (folder / name).is_file()]
    if missing:
        raise usage_error(
            f"episodic data {folder}: {', '.join(missing)} missing (expected the published book folder, or a"
            f" saved book with {OURS})"
        )
    texts = _book_text(folder)
    truths = tuple(
        _published_truth(row, folder / GROUND_TRUTH)
        for row in read_parquet(folder / GROUND_TRUTH, "episodic data")
    )
    tally = LoadTally()
    tally.held("chapters", len(truths))
    _untold(texts, truths, tally)
    book = Book(
        tuple(sorted(truths, key=lambda truth: truth.chapter)),
        {f: () for f in FEATURES},
        _texts_writer(texts, folder),
        source=str(folder),
    )
    questions = tuple(
        _published_question(row, number, folder / QA)
        for number, row in enumerate(read_parquet(folder / QA, "episodic data"))
    )
    tally.held("questions", len(questions))
    chapters = {truth.chapter for truth in truths}
    for number, question in enumerate(questions):
        for chapter in question.chapters:
            if chapter not in chapters:
                tally.note(
                    "answer chapters naming no chapter of the book, kept (never retrievable)",
                    f"question {number}: chapter {chapter}",
                )
    return LoadedBook(book, questions, folder, tally.report())


def _untold(texts: Mapping[int, str], truths: Sequence[ChapterTruth], tally: LoadTally) -> None:
    """Chapters book.json holds that no ground-truth row describes: nothing delivers them."""
    described = {truth.chapter for truth in truths}
    for chapter in sorted(set(texts) - described):
        tally.note("chapters of book.json without a ground-truth row, not delivered", f"chapter {chapter}")


def _field(row: Mapping[str, Any], name: str, where: Path) -> Any:
    if name not in row:
        raise usage_error(f"episodic data {where}: column {name!r} missing")
    return row[name]


def _items(value: Any) -> list[Any]:
    """A set, list or array cell, or its string form ("{'a', 'b'}", "['a']"), as a list."""
    if value is None:
        return []
    if isinstance(value, str):
        try:
            value = ast.literal_eval(value) if value.strip() else []
        except (ValueError, SyntaxError):
            return [value]
    if isinstance(value, (list, tuple, set, frozenset)):
        return list(value)
    if hasattr(value, "tolist"):
        return list(value.tolist())
    return [value]


def _published_truth(row: Mapping[str, Any], where: Path) -> ChapterTruth:
    date, location, entity, content = (str(_field(row, name, where)) for name in FEATURES)
    event = Event(date, location, entity, content, detail="")  # the published ground truth has no detail
    return ChapterTruth(
        int(_field(row, "chapter", where)),
        event,
        tuple(str(name) for name in _items(row.get("post_entities"))),
    )


def _published_question(row: Mapping[str, Any], number: int, where: Path) -> Question:
    get = str(_field(row, "get", where))
    answer = [str(item) for item in _items(_field(row, "correct_answer", where))]
    if get == "all":
        answer = _in_chapter_order(answer, row.get("correct_answer_detailed"))
    n_chapters = int(_field(row, "n_chapters_correct_answer", where))
    try:
        cue = cue_label(parse_cue(str(_field(row, "cue", where))))
    except ValueError as exc:
        raise usage_error(f"episodic data {where}, row {number}: {exc}") from None
    existing = row.get("debug_existing_change")
    return Question(
        template=int(_field(row, "q_idx", where)),
        cue=cue,
        retrieval_type=str(_field(row, "retrieval_type", where)),
        get=get,
        text=str(_field(row, "question", where)),
        cue_completed=str(row.get("cue_completed") or ""),
        answer=tuple(answer),
        chapters=tuple(int(chapter) for chapter in _items(row.get("correct_answer_chapters"))),
        n_chapters=n_chapters,
        strategy=None if n_chapters else ("inner" if existing else "outer"),
        changed=tuple(str(name) for name in _items(row.get("debug_changed"))) if not n_chapters else (),
    )


def _in_chapter_order(items: list[str], detailed: Any) -> list[str]:
    """A published answer set, ordered by the chapters `correct_answer_detailed` maps them to."""
    try:
        mapping = ast.literal_eval(detailed) if isinstance(detailed, str) else detailed
    except (ValueError, SyntaxError):
        mapping = None
    if not isinstance(mapping, dict):
        return sorted(items)
    order: list[str] = []
    for chapter in sorted(mapping):
        for item in _items(mapping[chapter]) if not isinstance(mapping[chapter], str) else [mapping[chapter]]:
            if str(item) in items and str(item) not in order:
                order.append(str(item))
    return order + sorted(item for item in items if item not in order)


# -- our layout -----------------------------------------------------------------------------------------


def save_book(book: Book, folder: Path, info: Mapping[str, Any]) -> Path:
    """Write `book` in our layout (book.json, events.json, meta_events.json, episodic.json)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / BOOK).write_text(json.dumps(book.document(), ensure_ascii=False), encoding="utf-8")
    (folder / "events.json").write_text(
        json.dumps([t.event.as_list() for t in book.truths], ensure_ascii=False, indent=1), encoding="utf-8"
    )
    metas = [t.meta.as_dict() if t.meta else None for t in book.truths]
    (folder / "meta_events.json").write_text(
        json.dumps(metas, ensure_ascii=False, indent=1), encoding="utf-8"
    )
    record = {
        "format": FORMAT,
        **info,
        "discarded_events": list(book.discarded),
        "chapters": [
            {
                "chapter": t.chapter,
                "event": t.event.as_list(),
                "post_entities": list(t.post_entities),
                "meta": t.meta.as_dict() if t.meta else None,
            }
            for t in book.truths
        ],
        "unused": {feature: list(items) for feature, items in book.unused.items()},
    }
    (folder / OURS).write_text(json.dumps(record, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return folder


def _load_ours(folder: Path) -> LoadedBook:
    record = _read_json(folder / OURS)
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise usage_error(
            f"episodic data {folder / OURS}: not a book saved by this version (format {FORMAT})"
        )
    try:
        truths = tuple(_our_truth(entry) for entry in record["chapters"])
        unused = {feature: tuple(record["unused"].get(feature, ())) for feature in FEATURES}
    except (KeyError, TypeError, ValueError) as exc:
        raise usage_error(f"episodic data {folder / OURS}: malformed ({type(exc).__name__}: {exc})") from None
    texts = _book_text(folder)
    book = Book(
        truths,
        unused,
        _texts_writer(texts, folder),
        source=str(folder),
        discarded=tuple(record.get("discarded_events", ())),
    )
    tally = LoadTally()
    tally.held("chapters", len(truths))
    _untold(texts, truths, tally)
    return LoadedBook(book, None, folder, tally.report())


def _our_truth(entry: Mapping[str, Any]) -> ChapterTruth:
    meta = entry.get("meta")
    return ChapterTruth(
        int(entry["chapter"]),
        Event(*[str(value) for value in entry["event"]]),
        tuple(str(name) for name in entry.get("post_entities", ())),
        EventMeta(int(meta["nb_paragraphs"]), dict(meta["idx_paragraph"]), str(meta["style"]))
        if meta
        else None,
    )
