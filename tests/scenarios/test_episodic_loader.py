"""Episodic books on disk: the authors' published figshare layout (parquet through pyarrow), our
saved layout, and the errors a user meets with a wrong path or without pyarrow.

The published fixture is written here, in the published shapes (answer sets stored as lists in an
arbitrary order, `{3,4,5}` bin labels, spaced cues, dicts as strings), from a book we generate:
the real data is not redistributable in this repository (see shared/reference/episodic)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_memorybench.agents.reference.oracle import OracleAgent
from pytest_memorybench.contract.probes import ProbeContext
from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.scenarios.episodic.book import Book, BookPlan, generated_book
from pytest_memorybench.scenarios.episodic.loader import (
    load_book,
    save_book,
    split_chapters,
)
from pytest_memorybench.scenarios.episodic.questions import Question, book_questions
from pytest_memorybench.scenarios.episodic.scenario import SCENARIO
from tests.scenarios.test_episodic_runs import run
from tests.support.paths import REFERENCE as SHARED_REFERENCE

REFERENCE = SHARED_REFERENCE / "episodic"
PARQUETS = {"df_book_groundtruth.parquet": "PAR1", "df_qa.parquet": "PAR1"}
PUBLISHED_BINS = {"0": "0", "1": "1", "2": "2", "3-5": "{3,4,5}", "6+": "6+"}


def published_rows(
    book: Book, questions: list[Question]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    truths = [
        {
            "chapter": t.chapter,
            "date": t.event.date,
            "location": t.event.location,
            "entity": t.event.entity,
            "content": t.event.content,
            "post_entities": list(t.post_entities),
            "raw_generated_paragraph_idx": 0,
        }
        for t in book.truths
    ]
    # what a chapter can give an answer: a feature of its event, or the chapter in full
    events = {t.chapter: [*t.event.as_list(), f"Full chapter {t.chapter}"] for t in book.truths}
    qa = []
    for q in questions:
        answer: Any = (
            set(q.answer) if q.get == "all" else list(q.answer)
        )  # pandas kept sets; pyarrow lists them
        # Each matching chapter with the item it gives: an item two chapters share is listed once in
        # the answer and under both chapters here.
        detailed = (
            {chapter: next(item for item in q.answer if item in events[chapter]) for chapter in q.chapters}
            if q.get == "all" and q.retrieval_type != "Other entities"
            else {}
        )
        qa.append(
            {
                "q_idx": q.template,
                "bins_items_correct_answer": PUBLISHED_BINS[q.bin],
                "question": q.text,
                "cue": q.cue.replace(",", ", "),
                "cue_completed": q.cue_completed,
                "retrieval_type": q.retrieval_type,
                "get": q.get,
                "correct_answer": answer,
                "correct_answer_chapters": set(q.chapters),
                "correct_answer_detailed": str(detailed),
                "n_items_correct_answer": len(q.answer),
                "n_chapters_correct_answer": q.n_chapters,
                "debug_changed": set(q.changed),
                "debug_existing_change": None if q.strategy is None else q.strategy == "inner",
                "debug_level_2": 0,
            }
        )
    return truths, qa


def write_published(folder: Path, chapters: int = 8) -> tuple[Book, list[Question]]:
    parquet = pytest.importorskip("pyarrow.parquet")
    import pyarrow

    book = generated_book(BookPlan(5, chapters))
    questions = book_questions(book, 5)
    folder.mkdir(parents=True)
    (folder / "book.json").write_text(json.dumps(book.document()))
    truths, qa = published_rows(book, questions)
    parquet.write_table(pyarrow.Table.from_pylist(truths), folder / "df_book_groundtruth.parquet")
    parquet.write_table(pyarrow.Table.from_pylist(qa), folder / "df_qa.parquet")
    return book, questions


def book_dir(root: Path, name: str = "model_x_itermax_10_Idefault_nbchapters_8_nbtokens_3000") -> Path:
    return root / "data" / "Udefault_Sdefault_seed0" / "books" / name


def test_the_published_layout_loads_with_its_own_questions(tmp_path: Path) -> None:
    book, questions = write_published(book_dir(tmp_path))
    loaded = load_book(tmp_path / "data")  # the figshare root: its single book is found
    assert [t.event.as_list()[:4] for t in loaded.book.truths] == [t.event.as_list()[:4] for t in book.truths]
    assert [t.post_entities for t in loaded.book.truths] == [t.post_entities for t in book.truths]
    assert loaded.book.body(3) == book.body(3)
    assert loaded.questions is not None and len(loaded.questions) == len(questions)
    for got, want in zip(loaded.questions, questions, strict=True):
        assert (got.template, got.cue, got.get, got.text, got.n_chapters, got.bin) == (
            want.template,
            want.cue,
            want.get,
            want.text,
            want.n_chapters,
            want.bin,
        )
        if want.get == "all" and want.retrieval_type != "Other entities":
            assert got.answer == want.answer  # back in chapter order, from correct_answer_detailed
        else:
            assert (
                sorted(got.answer) == sorted(want.answer) if want.get == "all" else got.answer == want.answer
            )
        assert got.strategy == want.strategy and sorted(got.changed) == sorted(want.changed)


def test_the_oracle_scores_one_on_a_published_book(tmp_path: Path) -> None:
    write_published(book_dir(tmp_path))
    context = SCENARIO.contexts("episodic", {"data_path": str(book_dir(tmp_path))}, 0)[0]
    assert context.id.startswith("book-model_x")
    assert [d.test_id[:5] for d in context.probes[:2]] == ["q0000", "q0001"]  # numbered by df_qa row
    outcomes = run(context, OracleAgent(), tmp_path)
    assert {o.score.value for o in outcomes.values()} == {1.0}


def test_several_books_below_the_path_must_be_chosen_from(tmp_path: Path) -> None:
    write_published(book_dir(tmp_path))
    write_published(book_dir(tmp_path, "model_y_nbchapters_8"))
    with pytest.raises(UsageError, match="holds 2 books .*give one of their folders"):
        load_book(tmp_path)


def test_without_pyarrow_the_error_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "book"
    folder.mkdir()
    (folder / "book.json").write_text(json.dumps("Chapter 1\n\nA day."))
    for name in ("df_book_groundtruth.parquet", "df_qa.parquet"):
        (folder / name).write_bytes(b"PAR1")
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(
        UsageError, match=r"needs pyarrow; install it with pip install 'pytest-memorybench\[parquet\]'"
    ):
        load_book(folder)


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({}, "no book.json in it"),
        ({"book.json": "{not json", **PARQUETS}, "not valid JSON"),
        ({"book.json": json.dumps(["a list"]), **PARQUETS}, "expected one JSON string"),
        ({"book.json": json.dumps("no headings"), **PARQUETS}, "no 'Chapter k' headings"),
        ({"book.json": json.dumps("Chapter 1\n\nx")}, "df_book_groundtruth.parquet, df_qa.parquet missing"),
        (
            {"book.json": json.dumps("Chapter 1\n\nx"), "episodic.json": json.dumps({"format": "other"})},
            "not a book saved by this version",
        ),
    ],
)
def test_bad_book_folders_are_one_line_usage_errors(
    tmp_path: Path, files: dict[str, str], message: str
) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    with pytest.raises(UsageError, match=message):
        load_book(tmp_path)


def test_a_saved_book_round_trips_and_runs_like_the_generated_one(tmp_path: Path) -> None:
    book = generated_book(BookPlan(0, 20))
    save_book(book, tmp_path / "saved", {"writer": "template", "seed": 0})
    loaded = load_book(tmp_path / "saved")
    assert loaded.questions is None and loaded.book.truths == book.truths
    assert loaded.book.document() == book.document() and loaded.book.unused == book.unused
    events = json.loads((tmp_path / "saved" / "events.json").read_text())
    assert events[0] == book.truths[0].event.as_list()
    generated = SCENARIO.contexts("episodic", {"chapters": 20}, 0)[0]
    from_disk = SCENARIO.contexts("episodic", {"data_path": str(tmp_path / "saved")}, 0)[0]
    assert [(d.test_id, d.expected, d.ideal_answers) for d in from_disk.probes] == [
        (d.test_id, d.expected, d.ideal_answers) for d in generated.probes
    ]


def test_chapters_split_back_from_the_whole_book() -> None:
    text = "Chapter 1\n\nFirst.\nStill first.\n\n\nChapter 2\n\nSecond."
    assert split_chapters(text) == {1: "First.\nStill first.", 2: "Second."}


def _published_books() -> list[Path]:
    return sorted(path.parent for path in REFERENCE.rglob("book.json")) if REFERENCE.is_dir() else []


@pytest.mark.skipif(
    not _published_books(),
    reason=f"no published episodic book under {REFERENCE} (the figshare data is not redistributed)",
)
def test_the_published_books_in_shared_reference_load_and_calibrate(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    for folder in _published_books():
        loaded = load_book(folder)
        assert loaded.questions
        context = ProbeContext(
            "published",
            tuple(SCENARIO.contexts("episodic", {"data_path": str(folder)}, 0)[0].probes[:60]),
            lambda: iter(()),
        )
        outcomes = run(context, OracleAgent(), tmp_path)
        assert min(o.score.value for o in outcomes.values()) == 1.0


def test_the_loader_report_counts_the_book_and_what_no_question_or_delivery_can_use(tmp_path: Path) -> None:
    """A published book of our own whose book.json holds a chapter no ground-truth row describes,
    and a question citing a chapter the book does not have: both said, nothing dropped quietly."""
    parquet = pytest.importorskip("pyarrow.parquet")
    import pyarrow

    book = generated_book(BookPlan(5, 8))
    questions = book_questions(book, 5)
    folder = book_dir(tmp_path)
    folder.mkdir(parents=True)
    (folder / "book.json").write_text(json.dumps(book.document() + "\n\n\nChapter 9\n\nAn extra chapter."))
    truths, qa = published_rows(book, questions)
    qa[0]["correct_answer_chapters"] = {*qa[0]["correct_answer_chapters"], 12}
    parquet.write_table(pyarrow.Table.from_pylist(truths), folder / "df_book_groundtruth.parquet")
    parquet.write_table(pyarrow.Table.from_pylist(qa), folder / "df_qa.parquet")
    loaded = load_book(folder)
    assert loaded.report.lines("episodic") == [
        f"episodic data: 8 chapters, {len(questions)} questions → 0 items",
        "  episodic: chapters of book.json without a ground-truth row, not delivered: 1 (chapter 9)",
        "  episodic: answer chapters naming no chapter of the book, kept (never retrievable): 1"
        " (question 0: chapter 12)",
    ]
    (context,) = SCENARIO.contexts("episodic", {"data_path": str(folder)}, 0)
    assert context.report == loaded.report and len(context.probes) == len(questions)
    saved = load_book(_saved(tmp_path))
    assert saved.report.lines("episodic") == ["episodic data: 20 chapters → 0 items; nothing skipped"]


def _saved(root: Path) -> Path:
    save_book(generated_book(BookPlan(0, 20)), root / "saved", {"writer": "template", "seed": 0})
    return root / "saved"
