"""The `llm` chapter writer, offline: a fake model that follows the prompt's layout instructions
(and makes the mistakes a test asks of it), then the real OpenAI client against a local server
playing that model, and the command that writes a book."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest

from pytest_memorybench.agents.reference.oracle import OracleAgent
from pytest_memorybench.core.errors import AgentError, UsageError
from pytest_memorybench.scenarios.episodic.book import BookPlan
from pytest_memorybench.scenarios.episodic.cli import main
from pytest_memorybench.scenarios.episodic.events import sample_events, sample_meta
from pytest_memorybench.scenarios.episodic.llm_writer import (
    CHECK_SYSTEM,
    WRITER_SYSTEM,
    SpecModel,
    chapter_prompt,
    fill_placeholders,
    read_journal,
    write_book_with_model,
    write_with_model,
)
from pytest_memorybench.scenarios.episodic.loader import load_book, save_book
from pytest_memorybench.scenarios.episodic.scenario import SCENARIO
from pytest_memorybench.scenarios.episodic.universe import build_universe
from pytest_memorybench.scenarios.episodic.verify import placement_problems
from tests.scenarios.test_episodic_runs import run
from tests.support.llm_server import LLMServer, chat_completion, content_text

_ASKS = {
    "location": re.compile(r'Write the location "(.+?)" word for word in paragraph (\d+)'),
    "date": re.compile(r'Write the date "(.+?)" word for word in paragraph (\d+)'),
    "entity": re.compile(r'Write the full name "(.+?)" word for word in paragraph (\d+)'),
    "content": re.compile(r'Write the words "(.+?)" exactly like that in paragraph (\d+)'),
}


def obedient_chapter(user: str, fault: str | None = None) -> str:
    """A chapter that does what the prompt asks, except for `fault`."""
    count = int(re.search(r"Write exactly (\d+) paragraph", user).group(1))  # type: ignore[union-attr]
    paragraphs = [
        [f"The light changed over the water, and $entity_{k % 2 + 1} looked up."] for k in range(count)
    ]
    for feature, pattern in _ASKS.items():
        text, where = pattern.search(user).groups()  # type: ignore[union-attr]
        if fault == "missing_date" and feature == "date":
            continue
        paragraphs[int(where) - 1].append(
            f"Then {text} mattered." if feature != "content" else f"At last {text}."
        )
    if fault == "named_character":
        paragraphs[0].append("Old $Nemo waved.")
    return "\n\n".join(f"({k}) " + " ".join(sentences) for k, sentences in enumerate(paragraphs, 1))


class FakeModel:
    """Follows instructions; `faults` are used up one per candidate chapter ("check_false" makes the
    true/false verification of the next good candidate fail)."""

    def __init__(self, faults: list[str] | None = None, always: str | None = None) -> None:
        self.faults = list(faults or [])
        self.always = always
        self.calls: list[tuple[str, str]] = []
        self._fail_check = False

    async def complete(self, system: str, user: str) -> str:
        self.calls.append((system, user))
        if system == CHECK_SYSTEM:
            failed, self._fail_check = self._fail_check, False
            return json.dumps({"1": True, "2": not failed, "3": True, "4": True})
        fault = self.always or (self.faults.pop(0) if self.faults else None)
        if fault == "check_false":
            self._fail_check, fault = True, None
        return obedient_chapter(user, fault)


PLAN = BookPlan(4, 6)


def event_and_meta(index: int = 0) -> tuple[Any, Any]:
    return sample_events(build_universe(PLAN.seed), PLAN.chapters, PLAN.seed)[index], sample_meta(
        index, PLAN.seed
    )


def test_the_prompt_carries_the_event_and_its_layout() -> None:
    event, meta = event_and_meta()
    prompt = chapter_prompt(event, meta)
    assert f'"{event.location}" word for word in paragraph {meta.idx_paragraph["location"]}' in prompt
    assert f'"{event.entity.split()[0]} {event.detail}" exactly like that' in prompt
    assert f"Write exactly {meta.nb_paragraphs} paragraph(s)" in prompt and meta.style in prompt
    assert "$entity_1" in prompt


def test_a_good_first_candidate_is_checked_by_the_model_and_kept() -> None:
    event, meta = event_and_meta()
    model = FakeModel()
    written = asyncio.run(write_with_model(model, event, meta))
    assert written.paragraphs is not None and len(written.attempts) == 1
    assert placement_problems(written.paragraphs, event, meta) == []
    assert [system for system, _ in model.calls] == [WRITER_SYSTEM, CHECK_SYSTEM]
    assert "(1)" not in written.paragraphs[0]  # numbering stripped


def test_faulty_candidates_are_retried_with_what_was_wrong() -> None:
    event, meta = event_and_meta()
    model = FakeModel(faults=["missing_date", "named_character", "check_false"])
    written = asyncio.run(write_with_model(model, event, meta))
    assert written.paragraphs is not None and len(written.attempts) == 4
    problems = [attempt.problems for attempt in written.attempts]
    assert problems[0] == [f"date '{event.date}' is missing from paragraph {meta.idx_paragraph['date']}"]
    assert problems[1] == ["malformed character placeholder(s): $Nemo"]
    assert problems[2] == ["the check found more than one day"]
    assert problems[3] == []
    retry = [user for system, user in model.calls if system == WRITER_SYSTEM][1]
    assert "did not meet these requirements: date" in retry


def test_an_event_without_a_valid_chapter_is_dropped_and_chapters_renumbered() -> None:
    class DropsEventTwo(FakeModel):
        async def complete(self, system: str, user: str) -> str:
            broken = system == WRITER_SYSTEM and f'"{event_two.entity}"' in user
            return obedient_chapter(user, "missing_date") if broken else await super().complete(system, user)

    event_two, _ = event_and_meta(2)
    model = DropsEventTwo()
    book, results = asyncio.run(write_book_with_model(model, PLAN, itermax=3))
    assert book.discarded == (2,) and len(results[2].attempts) == 3 and results[2].paragraphs is None
    assert [truth.chapter for truth in book.truths] == [1, 2, 3, 4, 5]
    assert book.truths[2].event == results[3].event  # event 3 became chapter 3
    names = [name for truth in book.truths for name in truth.post_entities]
    # the fake writes $entity_1 and $entity_2 (one only in a one-paragraph chapter): each a new person
    assert len(names) == len(set(names)) == sum(min(2, t.meta.nb_paragraphs) for t in book.truths if t.meta)
    for truth in book.truths:
        assert truth.meta is not None
        body = book.body(truth.chapter)
        assert "$entity" not in body and all(name in body for name in truth.post_entities)
        assert placement_problems(body.split("\n\n"), truth.event, truth.meta) == []


def test_placeholders_become_distinct_names_in_order_of_appearance() -> None:
    names = iter(["Noa Kerr", "Reid Voss"])
    filled, cast = fill_placeholders(
        ["$entity_2 met $entity_10.", "Then $entity_2 left."], lambda: next(names)
    )
    assert cast == ("Noa Kerr", "Reid Voss") and filled == ["Noa Kerr met Reid Voss.", "Then Noa Kerr left."]


def test_an_llm_book_is_saved_loaded_and_calibrates(tmp_path: Path) -> None:
    book, _ = asyncio.run(write_book_with_model(FakeModel(), PLAN))
    save_book(book, tmp_path / "llm-book", {"writer": "llm", "seed": PLAN.seed})
    assert load_book(tmp_path / "llm-book").book.truths == book.truths
    context = SCENARIO.contexts("episodic", {"data_path": str(tmp_path / "llm-book")}, 0)[0]
    outcomes = run(context, OracleAgent(), tmp_path)
    assert {o.score.value for o in outcomes.values()} == {1.0}


def _serve_obedient_model(llm_server: LLMServer) -> None:
    def reply(request: Any, text: str) -> Any:
        system = next(
            (content_text(m["content"]) for m in request.body["messages"] if m["role"] == "system"), ""
        )
        user = content_text(request.body["messages"][-1]["content"])
        answer = (
            json.dumps({str(k): True for k in range(1, 5)})
            if system == CHECK_SYSTEM
            else obedient_chapter(user)
        )
        return chat_completion(request.body["model"], answer, None)

    llm_server.routes[("POST", "/v1/chat/completions")] = reply


def test_the_writer_drives_a_real_client_against_a_local_server(llm_server: LLMServer) -> None:
    _serve_obedient_model(llm_server)
    model = SpecModel(f"openai:fake-model@{llm_server.openai_url}")
    book, results = asyncio.run(write_book_with_model(model, BookPlan(4, 3), concurrency=2))
    assert len(book.truths) == 3 and all(len(r.attempts) == 1 for r in results)
    sent = llm_server.requests_to("/v1/chat/completions")
    assert len(sent) == 6 and all(r.body["temperature"] == 0 and r.body["max_tokens"] == 4096 for r in sent)
    assert sent[0].body["messages"][0] == {"role": "system", "content": WRITER_SYSTEM}


def test_the_write_command_saves_books_from_either_writer(
    llm_server: LLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _serve_obedient_model(llm_server)
    args = [
        "write",
        "--chapters",
        "3",
        "--seed",
        "4",
        "--writer",
        "llm",
        "--model",
        f"openai:fake-model@{llm_server.openai_url}",
    ]
    assert main([*args, "--out", str(tmp_path / "llm")]) == 0
    assert "wrote 3 chapters" in capsys.readouterr().out
    record = json.loads((tmp_path / "llm" / "episodic.json").read_text())
    assert record["writer"] == "llm" and record["attempts"] == [1, 1, 1] and record["tokens"] > 0
    assert main(["write", "--chapters", "3", "--out", str(tmp_path / "template")]) == 0
    assert main(["write", "--writer", "llm", "--out", str(tmp_path / "x")]) == 4
    assert "--writer llm needs --model" in capsys.readouterr().err


def test_the_write_command_fails_in_one_line_when_the_model_does(
    llm_server: LLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    llm_server.queue(401, path="/v1/chat/completions", times=10)  # not worth retrying: fails at once
    args = [
        "write",
        "--chapters",
        "2",
        "--writer",
        "llm",
        "--model",
        f"openai:fake-model@{llm_server.openai_url}",
    ]
    assert main([*args, "--out", str(tmp_path / "llm")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert (
        len(err) == 1
        and err[0].startswith("error: the model failed, no book was written:")
        and "401" in err[0]
    )
    assert not (tmp_path / "llm").exists()
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert (
        main(["write", "--writer", "llm", "--model", "openai:gpt-4o-mini", "--out", str(tmp_path / "x")]) == 4
    )
    assert "--model openai:gpt-4o-mini: OPENAI_API_KEY is not set" in capsys.readouterr().err


def test_an_interrupted_writing_continues_without_paying_twice(tmp_path: Path) -> None:
    class FailsAfter(FakeModel):
        def __init__(self, chapters: int) -> None:
            super().__init__()
            self.chapters = chapters

        async def complete(self, system: str, user: str) -> str:
            if system == WRITER_SYSTEM:
                if self.chapters == 0:
                    raise AgentError("agent fake: HTTP 503")
                self.chapters -= 1
            return await super().complete(system, user)

    journal = tmp_path / "book" / "chapters.jsonl"
    with pytest.raises(AgentError):
        asyncio.run(write_book_with_model(FailsAfter(2), PLAN, concurrency=1, journal=journal))
    assert len(read_journal(journal)) == 2
    with journal.open("a") as file:
        file.write('{"index": 5, "event": ')  # the line the interruption cut short: written again
    again = FakeModel()
    book, results = asyncio.run(write_book_with_model(again, PLAN, concurrency=1, journal=journal))
    assert len([call for call in again.calls if call[0] == WRITER_SYSTEM]) == PLAN.chapters - 2
    straight, _ = asyncio.run(write_book_with_model(FakeModel(), PLAN))
    assert book.truths == straight.truths and book.document() == straight.document()
    assert all(len(result.attempts) == 1 for result in results)


def test_a_judge_spec_that_is_no_model_is_refused() -> None:
    with pytest.raises(UsageError, match="needs a model"):
        SpecModel("local")
