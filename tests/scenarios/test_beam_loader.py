"""BEAM data: the streaming JSON reader, chat normalisation, question fields, the loader's layouts.

The two real 100K conversations in ../shared/reference/beam (no licence: read in place, never
copied) are checked where present; everything else runs on chats our generator writes in the
published layouts.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.core.jsonstream import JsonStreamError
from pytest_memorybench.scenarios.beam.chat import (
    ANY_MARKER,
    ChatMessage,
    batches,
    deliver,
    group_turns,
    iter_units,
    parse_anchor,
    read_chat_file,
    strip_marker,
)
from pytest_memorybench.scenarios.beam.generator import plan_chat
from pytest_memorybench.scenarios.beam.loader import find_conversations, size_label
from pytest_memorybench.scenarios.beam.questions import (
    ABILITIES,
    parse_probing_questions,
    source_ids,
)
from pytest_memorybench.scenarios.beam.writer import write_export_row, write_repository
from tests.support.paths import REFERENCE as SHARED_REFERENCE

REFERENCE = SHARED_REFERENCE / "beam"
needs_reference = pytest.mark.skipif(
    not (REFERENCE / "chats").is_dir(), reason=f"BEAM reference data not found at {REFERENCE}"
)


# -- the streaming reader ------------------------------------------------------------------------------


def test_broken_json_names_the_file_and_the_offset(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    path.write_text('[{"turns": [1, 2}]', encoding="utf-8")
    with pytest.raises(JsonStreamError, match=r"chat\.json: not valid JSON at character"):
        list(read_chat_file(path))


# -- chat shapes and normalisation ----------------------------------------------------------------------


def _message(role: str, content: str, **extra: object) -> dict[str, object]:
    return {"role": role, "content": content, **extra}


def test_the_three_published_chat_shapes_give_the_same_batches(tmp_path: Path) -> None:
    turn1 = [
        _message(
            "user", "Plan my week ->-> 1,1", id=0, question_type="main_question", time_anchor="March-15-2024"
        ),
        _message("assistant", "Sure.", id=1),
    ]
    turn2 = [
        _message("user", "Add gym ->-> 1,2", id=2, question_type="main_question"),
        _message("assistant", "Done.", id=3),
        _message("user", "Mornings", id=4, question_type="answer_ai_question"),
        _message("assistant", "Noted.", id=5),
    ]
    repository = [{"batch_number": 1, "turns": [turn1, turn2], "time_anchor": None}]
    ten_million = [
        {"plan-1": repository},
        {"plan-2": [{"batch_number": 1, "turns": [turn1], "time_anchor": None}]},
    ]
    export = [[*turn1, *turn2]]
    shapes = {"repository": repository, "10M": ten_million, "export": export}
    for name, chat in shapes.items():
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(chat), encoding="utf-8")
        streamed = list(batches(read_chat_file(path)))
        assert streamed == list(batches(iter_units(chat))), name
        assert [len(turn) for turn in streamed[0].turns] == [2, 4], name
        assert streamed[0].time_anchor == "March-15-2024"
    assert len(list(batches(iter_units(ten_million)))) == 2


def test_delivery_dates_messages_by_their_batch_anchor_and_strips_markers() -> None:
    chat = [
        {
            "turns": [
                [
                    _message("user", "Hello ->-> 1,1", time_anchor="March-15-2024"),
                    _message("assistant", "Hi ->->  1,1"),
                ]
            ]
        },
        {"turns": [[_message("user", "Again ->-> 2,N/A"), _message("assistant", "Yes")]]},
    ]
    messages = list(deliver(batches(iter_units(chat))))
    assert [m.text for m in messages] == ["Hello", "Hi", "Again", "Yes"]
    assert [m.role for m in messages] == ["user", "assistant", "user", "assistant"]
    assert messages[0].timestamp == datetime(2024, 3, 15, 9, 0)
    assert messages[1].timestamp == datetime(2024, 3, 15, 9, 0, 30)
    assert messages[2].timestamp.date() == datetime(2024, 3, 16).date()  # no anchor: the next day
    kept = list(deliver(batches(iter_units(chat)), strip_markers=False))
    assert kept[0].text == "Hello ->-> 1,1" and kept[2].text == "Again ->-> 2,N/A"


def test_markers_only_come_off_the_end() -> None:
    assert strip_marker("Use a -> b arrow ->-> 3,8") == "Use a -> b arrow"
    assert strip_marker("No marker here") == "No marker here"
    assert strip_marker("mid ->-> 1,2 text") == "mid ->-> 1,2 text"


def test_time_anchors_in_several_spellings() -> None:
    assert parse_anchor("March-15-2024") == datetime(2024, 3, 15).date()
    assert parse_anchor("April 5, 2024") == datetime(2024, 4, 5).date()
    assert parse_anchor("2024-04-05") == datetime(2024, 4, 5).date()
    assert parse_anchor("someday") is None


def test_flat_messages_are_grouped_into_turns_at_main_questions() -> None:
    flat = [
        ChatMessage("user", "a", question_type="main_question"),
        ChatMessage("assistant", "b"),
        ChatMessage("user", "c", question_type="followup_question"),
        ChatMessage("assistant", "d"),
        ChatMessage("user", "e", question_type="main_question"),
        ChatMessage("assistant", "f"),
    ]
    assert [len(turn) for turn in group_turns(flat)] == [4, 2]
    untyped = [
        ChatMessage("user", "a"),
        ChatMessage("assistant", "b"),
        ChatMessage("user", "c"),
        ChatMessage("assistant", "d"),
    ]
    assert [len(turn) for turn in group_turns(untyped)] == [2, 2]


# -- probing questions ---------------------------------------------------------------------------------


def test_answer_field_variants_and_source_id_shapes_are_normalised() -> None:
    raw = {
        "abstention": [
            {
                "question": "Q1?",
                "ideal_response": "No info.",
                "rubric": ["Based on the provided chat, there is no information"],
                "source_chat_ids": None,
            }
        ],
        "contradiction_resolution": [
            {
                "question": "Q2?",
                "ideal_answer": "Which?",
                "rubric": ["a", "b"],
                "source_chat_ids": {"first_statement": [58], "second_statement": [24]},
            }
        ],
        "summarization": [
            {"question": "Q3?", "ideal_summary": "Sum.", "rubric": ["c"], "source_chat_ids": [4, 5]}
        ],
        "instruction_following": [
            {
                "question": "Q4?",
                "expected_compliance": "Code blocks.",
                "rubric": ["d"],
                "compliance_indicators": ["x"],
            }
        ],
        "Information Update": [
            {"question": "Q5?", "answer": "250ms", "rubric": "LLM response should state: 250ms"}
        ],
    }
    questions = {q.ability: q for q in parse_probing_questions(raw, "test")}
    assert questions["abstention"].answer == "No info." and questions["abstention"].source_ids == ()
    assert questions["contradiction_resolution"].source_ids == (58, 24)
    assert questions["summarization"].answer == "Sum."
    assert questions["instruction_following"].answer == "Code blocks."
    assert questions["instruction_following"].extra == {"compliance_indicators": ["x"]}
    assert questions["knowledge_update"].rubric == ("LLM response should state: 250ms",)
    assert source_ids(["3", 4, True]) == (3, 4)
    assert source_ids([[222, 228], [346, 428], [346, 428], [508]]) == (222, 228, 346, 428, 508)
    assert source_ids({"first_event": [7], "second_event": 9}) == (7, 9) and source_ids(None) == ()


def test_the_export_s_python_literal_string_is_parsed_safely() -> None:
    literal = repr(
        {
            "abstention": [
                {
                    "question": "Q?",
                    "ideal_response": "None here.",
                    "rubric": ["no information"],
                    "source_chat_ids": None,
                }
            ]
        }
    )
    assert parse_probing_questions(literal, "row 1")[0].answer == "None here."
    with pytest.raises(UsageError, match="row 2: the probing questions are neither"):
        parse_probing_questions("__import__('os').system('true')", "row 2")
    with pytest.raises(UsageError, match="row 3: abstention question 1 has no 'rubric'"):
        parse_probing_questions({"abstention": [{"question": "Q?"}]}, "row 3")


# -- the loader on our own data in the published layouts ----------------------------------------------------


def test_a_generated_chat_round_trips_through_the_repository_layout(tmp_path: Path) -> None:
    plan = plan_chat(40_000, seed=3)
    write_repository(plan, tmp_path, number=7)
    (conversation,) = find_conversations(tmp_path)
    assert conversation.id == "40K-7" and conversation.missing is None
    assert [(q.ability, q.question, q.answer, q.rubric) for q in conversation.questions] == [
        (q.ability, q.question, q.answer, q.rubric) for q in plan.questions
    ]
    from pytest_memorybench.scenarios.beam.generator import batches as generated

    assert list(batches(conversation.units())) == list(batches(generated(plan)))
    # The same folder found from the chats/ folder, the size folder and the conversation folder.
    for path in (tmp_path / "chats", tmp_path / "chats" / "40K", tmp_path / "chats" / "40K" / "7"):
        assert [c.id for c in find_conversations(path)] == ["40K-7"]


def test_a_generated_chat_round_trips_through_a_hugging_face_export(tmp_path: Path) -> None:
    plans = [plan_chat(30_000, seed=1, number=n) for n in (1, 2)]
    export = tmp_path / "BEAM-100K.jsonl"
    with open(export, "w", encoding="utf-8") as out:
        for number, plan in enumerate(plans, 1):
            write_export_row(plan, out, conversation_id=str(number))
    conversations = find_conversations(export)
    assert [c.id for c in conversations] == ["100K-1", "100K-2"]
    from pytest_memorybench.scenarios.beam.generator import batches as generated

    for conversation, plan in zip(conversations, plans, strict=True):
        assert [q.rubric for q in conversation.questions] == [q.rubric for q in plan.questions]
        assert list(deliver(batches(conversation.units()))) == list(deliver(batches(generated(plan))))


def test_a_10m_export_row_without_a_top_level_chat_reads_its_plans(tmp_path: Path) -> None:
    def batch(first_id: int, text: str) -> list[dict[str, object]]:
        return [
            _message(
                "user",
                f"{text} ->-> 1,1",
                id=first_id,
                question_type="main_question",
                time_anchor="May-02-2024",
            ),
            _message("assistant", "ok", id=first_id + 1),
        ]

    questions = repr(
        {"abstention": [{"question": "Q?", "ideal_response": "No.", "rubric": ["no information"]}]}
    )
    row = {
        "conversation_id": 4,
        "chat": [],
        "probing_questions": questions,
        "plans": [
            {"plan_id": 1, "chat": [batch(0, "first")]},
            {"plan_id": 2, "chat": [batch(2, "second"), batch(4, "third")]},
        ],
    }
    export = tmp_path / "beam-10M.jsonl"
    export.write_text(json.dumps(row) + "\n", encoding="utf-8")
    (conversation,) = find_conversations(export)
    assert conversation.id == "10M-4"
    assert [m.text for m in deliver(batches(conversation.units())) if m.role == "user"] == [
        "first",
        "second",
        "third",
    ]


def test_bad_data_paths_fail_with_one_line(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no such file or folder"):
        find_conversations(tmp_path / "nowhere")
    with pytest.raises(UsageError, match="no BEAM data found"):
        find_conversations(tmp_path)
    (tmp_path / "beam.parquet").write_bytes(b"PAR1")
    with pytest.raises(UsageError, match="Parquet is not read"):
        find_conversations(tmp_path / "beam.parquet")
    unsized = tmp_path / "export.jsonl"
    unsized.write_text("", encoding="utf-8")
    with pytest.raises(UsageError, match="cannot tell the conversation size"):
        find_conversations(unsized)
    assert (
        size_label("chats/10M") == "10M"
        and size_label("beam-1m.jsonl") == "1M"
        and size_label("100kb") is None
    )


def test_a_broken_chat_is_a_usage_error_when_conversations_are_listed(tmp_path: Path) -> None:
    """The chat is read through once when it is found, so a damaged file stops the run before any
    of it reaches an agent, with the file and the character offset."""
    folder = write_repository(plan_chat(30_000, seed=2), tmp_path / "BEAM", number=1)
    chat = folder / "chat.json"
    text = chat.read_text(encoding="utf-8")
    cut = text.index('"role"', len(text) // 2)
    chat.write_text(text[:cut] + ",," + text[cut:], encoding="utf-8")
    with pytest.raises(UsageError, match=r"chat\.json: not valid JSON at character [\d,]+: .*fetch it again"):
        find_conversations(tmp_path / "BEAM")
    chat.write_text(text[: len(text) // 2], encoding="utf-8")  # a partial download
    with pytest.raises(UsageError, match=r"chat\.json: not valid JSON at character"):
        find_conversations(tmp_path / "BEAM")
    chat.write_text("{}", encoding="utf-8")
    with pytest.raises(UsageError, match=r"chat\.json: holds no chat messages"):
        find_conversations(tmp_path / "BEAM")
    chat.write_bytes(b"[\xff\xfe]")
    with pytest.raises(UsageError, match=r"chat\.json: not UTF-8 text"):
        find_conversations(tmp_path / "BEAM")


def test_a_broken_export_row_is_a_usage_error_naming_the_row(tmp_path: Path) -> None:
    export = tmp_path / "100K.jsonl"
    with open(export, "w", encoding="utf-8") as out:
        write_export_row(plan_chat(30_000, seed=1), out, conversation_id="1")
    good = export.read_text(encoding="utf-8")
    export.write_text(good + good[: len(good) // 2] + "\n", encoding="utf-8")
    with pytest.raises(UsageError, match=r"100K\.jsonl: not valid JSON at character"):
        find_conversations(export)
    questions = repr(
        {"abstention": [{"question": "Q?", "ideal_response": "No.", "rubric": ["no information"]}]}
    )
    export.write_text(
        json.dumps({"conversation_id": 2, "chat": [], "probing_questions": questions}) + "\n",
        encoding="utf-8",
    )
    with pytest.raises(UsageError, match=r"100K\.jsonl row 1: no chat messages"):
        find_conversations(export)


def test_a_10m_export_chat_of_plan_objects_with_null_plans_streams_in_order(tmp_path: Path) -> None:
    """BEAM-10M's `chat` is a list of {"plan-k": [batches]}; an Arrow export gives every element
    every plan key, the others null."""

    def batch(first_id: int, text: str, anchor: str) -> dict[str, object]:
        turn = [
            _message(
                "user", f"{text} ->-> 1,1", id=first_id, question_type="main_question", time_anchor=anchor
            ),
            _message("assistant", f"re {text}", id=first_id + 1, question_type=None, time_anchor=None),
        ]
        return {"batch_number": 1, "turns": [turn], "time_anchor": None}

    questions = repr(
        {"abstention": [{"question": "Q?", "ideal_response": "No.", "rubric": ["no information"]}]}
    )
    chat = [
        {"plan-1": [batch(0, "first", "May-02-2024"), batch(2, "second", "May-09-2024")], "plan-2": None},
        {"plan-1": None, "plan-2": [batch(4, "third", "June-01-2024")]},
    ]
    export = tmp_path / "BEAM-10M.jsonl"
    export.write_text(
        json.dumps({"conversation_id": 1, "chat": chat, "probing_questions": questions}) + "\n",
        encoding="utf-8",
    )
    (conversation,) = find_conversations(export)
    messages = list(deliver(batches(conversation.units())))
    assert [(m.role, m.text) for m in messages] == [
        ("user", "first"),
        ("assistant", "re first"),
        ("user", "second"),
        ("assistant", "re second"),
        ("user", "third"),
        ("assistant", "re third"),
    ]
    assert [m.timestamp.date().isoformat() for m in messages[::2]] == [
        "2024-05-02",
        "2024-05-09",
        "2024-06-01",
    ]


# -- the two real conversations --------------------------------------------------------------------------


@needs_reference
def test_the_reference_conversations_load_with_their_counts() -> None:
    conversations = {c.id: c for c in find_conversations(REFERENCE)}
    assert sorted(conversations) == ["100K-1", "100K-5", "10M-1", "1M-1"]
    for conversation in conversations.values():
        assert len(conversation.questions) == 20
        assert {q.ability for q in conversation.questions} == set(ABILITIES)
    # 1M and 10M chats are absent from the repository: their questions are listed, to be skipped.
    assert conversations["1M-1"].missing and "chat.json is missing" in conversations["1M-1"].missing
    assert conversations["100K-1"].missing is None

    counts = {}
    for name in ("100K-1", "100K-5"):
        chat = list(batches(conversations[name].units()))
        counts[name] = (len(chat), sum(len(b.turns) for b in chat), sum(1 for b in chat for _ in b.messages))
    assert counts["100K-1"] == (3, 78, 188)
    assert counts["100K-5"] == (3, 81, 232)  # chat_trunecated.json, as the official answer script reads
    untruncated = {c.id: c for c in find_conversations(REFERENCE, sizes=("100K",), truncated=False)}["100K-5"]
    full = list(batches(untruncated.units()))
    assert (len(full), sum(len(b.turns) for b in full), sum(1 for b in full for _ in b.messages)) == (
        3,
        84,
        238,
    )
    # Ids run over the whole chat, so the probing questions' source_chat_ids point into it.
    ids = [m.id for b in batches(conversations["100K-1"].units()) for m in b.messages]
    assert ids == list(range(188))
    cited = {i for q in conversations["100K-1"].questions for i in q.source_ids}
    assert cited and cited <= set(ids)
    # The schema is the same at every size; 10M event-ordering rubrics are the longest.
    orderings = {
        name: [len(q.rubric) for q in c.questions if q.ability == "event_ordering"]
        for name, c in conversations.items()
    }
    assert orderings == {"100K-1": [3, 5], "100K-5": [6, 5], "1M-1": [10, 10], "10M-1": [20, 11]}


@needs_reference
def test_the_reference_chat_is_dated_and_its_plan_markers_stripped() -> None:
    (conversation,) = find_conversations(REFERENCE, sizes=("100K",), numbers=("1",))
    chat = list(batches(conversation.units()))
    assert [b.time_anchor for b in chat] == ["March-15-2024", "April-05-2024", "April-25-2024"]
    messages = list(deliver(chat))
    assert [m.timestamp.date().isoformat() for m in (messages[0], messages[-1])] == [
        "2024-03-15",
        "2024-04-25",
    ]
    assert not any(ANY_MARKER.search(m.text) for m in messages)
    assert sum(1 for m in deliver(chat, strip_markers=False) if ANY_MARKER.search(m.text)) == 79
    assert sum(m.role == "assistant" for m in messages) == 94


@needs_reference
def test_the_second_reference_chat_has_markers_in_assistant_turns_too() -> None:
    """100K-5 (its truncated chat, as the official script reads it): 140 markers, 41 of them at the
    end of assistant replies, one written with two spaces (` ->->  3,8`); all come off."""
    (conversation,) = find_conversations(REFERENCE, sizes=("100K",), numbers=("5",))
    chat = list(batches(conversation.units()))
    assert [b.time_anchor for b in chat] == ["January-10-2024", "February-15-2024", "April-05-2024"]
    kept = [m for m in deliver(chat, strip_markers=False) if ANY_MARKER.search(m.text)]
    assert (len(kept), sum(m.role == "assistant" for m in kept)) == (140, 41)
    assert any("->->  3,8" in m.text for m in kept)
    stripped = list(deliver(chat))
    assert len(stripped) == 232 and not any("->->" in m.text for m in stripped)
    assert [m.timestamp.date().isoformat() for m in (stripped[0], stripped[-1])] == [
        "2024-01-10",
        "2024-04-05",
    ]


@needs_reference
def test_the_reference_questions_normalise_every_field_variant() -> None:
    (conversation,) = find_conversations(REFERENCE, sizes=("100K",), numbers=("1",))
    by_ability = {}
    for q in conversation.questions:
        by_ability.setdefault(q.ability, []).append(q)
    assert all(len(items) == 2 for items in by_ability.values())
    assert all(q.answer for q in conversation.questions)  # every variant found its reference answer
    assert by_ability["abstention"][0].answer.startswith("Based on the provided chat")
    assert by_ability["contradiction_resolution"][0].source_ids == (58, 24)
    assert by_ability["event_ordering"][0].rubric == (
        "Core functionality",
        "Transaction error handling",
        "Security and deployment",
    )
    assert by_ability["knowledge_update"][0].source_ids == (86, 114)
    assert "compliance_indicators" in by_ability["instruction_following"][0].extra


# Where each ability keeps its reference answer in the published files.
PUBLISHED_ANSWER_FIELD = {
    "abstention": "ideal_response", "contradiction_resolution": "ideal_answer",
    "summarization": "ideal_summary", "instruction_following": "expected_compliance",
    "preference_following": "expected_compliance",
}  # fmt: skip


@needs_reference
def test_every_reference_question_file_normalises_to_its_own_fields() -> None:
    """All four question files (100K-1, 100K-5, 1M-1, 10M-1): each question's answer is the field its
    ability uses, its rubric and source ids are the file's (dicts of lists flattened in order)."""
    checked = 0
    for conversation in find_conversations(REFERENCE):
        folder = REFERENCE / "chats" / conversation.size / conversation.number
        raw = json.loads(
            (folder / "probing_questions" / "probing_questions.json").read_text(encoding="utf-8")
        )
        for q in conversation.questions:
            item = raw[q.ability][q.index - 1]
            assert q.answer == item[PUBLISHED_ANSWER_FIELD.get(q.ability, "answer")].strip()
            assert (
                q.rubric == tuple(n.strip() for n in item["rubric"])
                and q.question == item["question"].strip()
            )
            ids = item.get("source_chat_ids")
            parts = list(ids.values()) if isinstance(ids, dict) else list(ids or [])
            flat = [i for part in parts for i in (part if isinstance(part, list) else [part])]
            assert q.source_ids == tuple(dict.fromkeys(flat))
            assert isinstance(ids, dict) == (
                q.ability in ("contradiction_resolution", "knowledge_update", "temporal_reasoning")
            )
            if isinstance(ids, dict) or any(isinstance(part, list) for part in parts):
                assert q.extra["source_chat_ids"] == ids  # roles and per-event groups are kept
            checked += 1
    assert checked == 80
    # 1M-1's first ordering question cites a list of ids per event.
    (big,) = find_conversations(REFERENCE, sizes=("1M",))
    ordering = next(q for q in big.questions if q.ability == "event_ordering")
    assert len(ordering.extra["source_chat_ids"]) == len(ordering.rubric) == 10
    assert (
        ordering.source_ids[:3] == (222, 228, 346)
        and len(ordering.source_ids) == len(set(ordering.source_ids)) == 25
    )


def test_the_loader_report_counts_every_conversation_and_what_cannot_run(tmp_path: Path) -> None:
    """Three conversations of our own in the repository layout: one without its chat file, one
    question citing a message id the chat does not have, and a filter that leaves one out."""
    from pytest_memorybench.scenarios.beam.scenario import SCENARIO
    from pytest_memorybench.suite import load_suite

    for number in (1, 2, 3):
        write_repository(plan_chat(30_000, seed=number, number=number), tmp_path, number=number)
    (tmp_path / "chats" / "30K" / "3" / "chat.json").unlink()
    questions = tmp_path / "chats" / "30K" / "2" / "probing_questions" / "probing_questions.json"
    raw = json.loads(questions.read_text(encoding="utf-8"))
    raw["information_extraction"][0]["source_chat_ids"] = [99_999]
    questions.write_text(json.dumps(raw), encoding="utf-8")
    whole = load_suite("beam").generate(0, data={"beam": str(tmp_path)})
    assert whole.loaded is not None and whole.loaded.lines("beam") == [
        "beam data: 3 conversations, 60 questions → 40 items",
        "  beam: source_chat_ids naming no message of the chat, kept (never retrievable): 1"
        " (30K-2 information_extraction[1]: 99999)",
        "  beam: questions skipped: their chat file is missing (the repository leaves out large chats): 20"
        " (30K-3)",
    ]
    chosen = SCENARIO.contexts("beam", {"data_path": str(tmp_path), "conversations": "1"}, 0)
    assert chosen[0].report is not None and chosen[0].report.lines("beam") == [
        "beam data: 3 conversations, 60 questions → 0 items",
        "  beam: questions of conversations not chosen (conversations: 1): 40 (30K-2, 30K-3)",
    ]
