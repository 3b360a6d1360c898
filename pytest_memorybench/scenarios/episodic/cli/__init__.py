"""Writing and measuring episodic books from the command line.

    python -m pytest_memorybench.scenarios.episodic.cli write --chapters 20 --out books/short
    python -m pytest_memorybench.scenarios.episodic.cli write --writer llm --model openai:gpt-4o-mini
    --chapters 20 --out books/short-llm python -m pytest_memorybench.scenarios.episodic.cli tokens --chapters
    20 200 2000

`write` saves a book in our layout (`loader.py`); run it with `--mb-data episodic=FOLDER`.  The
`llm` writer calls the model for every chapter (and again for each check and retry), which is why
it runs here, once, and not while pytest collects.  `tokens` prints the size of template books in
the run's token counter (cl100k_base when available), the paper's "book tokens".

A package with a `__main__`, not a module: the scenario registry imports every module of a family,
and `python -m` warns when the module it is about to run was imported already.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path

from pytest_memorybench.core.errors import AgentError, UsageError, usage_error
from pytest_memorybench.core.tokens import default_counter
from pytest_memorybench.scenarios.episodic.book import Book, BookPlan, generated_book
from pytest_memorybench.scenarios.episodic.llm_writer import (
    DEFAULT_ITERMAX,
    SpecModel,
    WrittenByModel,
    read_journal,
    write_book_with_model,
)
from pytest_memorybench.scenarios.episodic.loader import save_book

JOURNAL = "chapters.jsonl"  # the llm writer's chapters as they are settled, kept to continue


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m pytest_memorybench.scenarios.episodic.cli", description=__doc__.split("\n\n")[0]
    )
    commands = parser.add_subparsers(dest="command", required=True)
    write = commands.add_parser("write", help="write a book and save it in a folder")
    write.add_argument("--chapters", type=int, default=20, help="events in the book (20, 200, 2000)")
    write.add_argument("--seed", type=int, default=0)
    write.add_argument("--out", type=Path, required=True, help="the folder to write")
    write.add_argument("--writer", choices=("template", "llm"), default="template")
    write.add_argument(
        "--model", help="for --writer llm: openai:MODEL[@URL], anthropic:MODEL[@URL] or a compatible URL"
    )
    write.add_argument(
        "--itermax", type=int, default=DEFAULT_ITERMAX, help="candidates per chapter before it is dropped"
    )
    write.add_argument("--concurrency", type=int, default=4, help="chapters written at once")
    tokens = commands.add_parser("tokens", help="print the token count of template books")
    tokens.add_argument("--chapters", type=int, nargs="+", default=[20, 200, 2000])
    tokens.add_argument("--seed", type=int, default=0)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m pytest_memorybench.scenarios.episodic.cli`: write a book, or count its tokens."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "tokens":
            return _tokens(args)
        return _write(args)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 4
    except AgentError as exc:  # the writer's model failed after its retries
        journal = args.out / JOURNAL
        kept = (
            f"; {journal} keeps the chapters written so far: run the same command to continue"
            if journal.exists()
            else ""
        )
        print(f"error: the model failed, no book was written: {exc}{kept}", file=sys.stderr)
        return 1


def _tokens(args: argparse.Namespace) -> int:
    counter = default_counter()
    for chapters in args.chapters:
        book = generated_book(BookPlan(args.seed, chapters))
        print(f"{chapters} chapters: {book.tokens(counter):,} tokens ({getattr(counter, 'name', 'counter')})")
    return 0


def _write(args: argparse.Namespace) -> int:
    plan = BookPlan(args.seed, args.chapters)
    info = {"writer": args.writer, "seed": args.seed, "events": args.chapters}
    if args.writer == "template":
        book = generated_book(plan)
    else:
        if not args.model:
            raise usage_error("--writer llm needs --model, for example --model openai:gpt-4o-mini")
        book, results = asyncio.run(
            _write_with_model(args.model, plan, args.itermax, args.concurrency, args.out / JOURNAL)
        )
        tries = [len(result.attempts) for result in results]
        info.update(model=args.model, itermax=args.itermax, attempts=tries)
    counter = default_counter()
    info["tokens"] = book.tokens(counter)
    save_book(book, args.out, info)
    dropped = (
        f", {len(book.discarded)} event(s) dropped after {args.itermax} candidates" if book.discarded else ""
    )
    print(f"wrote {len(book.truths)} chapters{dropped}, {info['tokens']:,} tokens, to {args.out}")
    return 0


async def _write_with_model(
    spec: str, plan: BookPlan, itermax: int, concurrency: int, journal: Path
) -> tuple[Book, list[WrittenByModel]]:
    model = SpecModel(spec)
    settled = len(read_journal(journal))
    if settled:
        print(f"continuing: {settled} chapter(s) settled earlier are read from {journal}", file=sys.stderr)

    def report(index: int, written: WrittenByModel) -> None:
        state = "ok" if written.paragraphs is not None else "dropped"
        print(f"event {index}: {state} after {len(written.attempts)} candidate(s)", file=sys.stderr)

    try:
        return await write_book_with_model(
            model, plan, itermax=itermax, concurrency=concurrency, progress=report, journal=journal
        )
    finally:
        await model.aclose()
