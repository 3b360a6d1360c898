"""GoodAI-layout folders made from our own generators: definitions, and results as their runner stores them.

The published GoodAI files are not ours to ship; tests that must always run use these instead.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pytest_memorybench.core.records import TestDefinition
from pytest_memorybench.scenarios.ltm.colours import SCENARIO as COLOURS
from pytest_memorybench.scenarios.ltm.prospective_memory import SCENARIO as PROSPECTIVE
from pytest_memorybench.scenarios.ltm.spy_meeting import SCENARIO as SPY_MEETING

CONFIG = """config:
  incompatibilities:
  - - names
    - name_list
  run_name: mine
datasets:
  args:
    dataset_examples: 2
    memory_span: 4000
  datasets:
  - name: colours
"""


def goodai_raw(definition: TestDefinition, expected: Any) -> dict[str, Any]:
    """A definition the way GoodAI's runner saves it (`<Dataset>/<id>.def.json`)."""
    return {
        "script": [line.text for line in definition.script],
        "is_question": [line.is_question for line in definition.script],
        "waits": [line.wait for line in definition.script],
        "expected_responses": expected,
        "can_be_interleaved": True,
        "is_temporal": False,
        "uses_callback": False,
    }


def colours(example: int) -> TestDefinition:
    return COLOURS.generate("ltm", {"colour_changes": 3}, 7, example + 1)


def write_goodai_folder(folder: Path) -> None:
    """Our own Colours tests, saved the way GoodAI saves definitions."""
    (folder / "Colours").mkdir(parents=True)
    (folder / "config.yml").write_text(CONFIG)
    for example in (0, 1):
        definition = colours(example)
        (folder / "Colours" / f"{example}.def.json").write_text(
            json.dumps(goodai_raw(definition, [definition.expected]))
        )


def stored_result(
    replies: list[str],
    expected: Any,
    score: float,
    reasons: list[str],
    *,
    log: list[str] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A result file the way GoodAI's runner stores it (`<Dataset>/<id>_0.json`)."""
    task_log = (
        log
        if log is not None
        else [
            entry
            for reply in replies
            for entry in ("Test (2024-05-01 10:00:00.0): q", f"Agent (2024-05-01 10:00:01.0): {reply}")
        ]
    )
    return {
        "task_log": task_log,
        "actual_responses": replies,
        "expected_responses": expected,
        "score": score,
        "max_score": 1,
        "reasoning": reasons,
        "tokens": 1234,
        "characters": 5000,
        "full_log": [],
        "needles": 3,
        **extra,
    }


def write_goodai_run(folder: Path, agents: tuple[str, ...] = ("Agent A - m - 1000",)) -> Path:
    """`data/tests/<benchmark>`: our Colours and Prospective Memory definitions and each agent's results.

    Per agent: Colours 0 answered right (stored 1), Colours 1 answered wrong but stored as 1 (a
    disagreement), a Prospective Memory run quoting in the right reply of its log, one result of a
    dataset no scenario reads, one result without a definition, one file that is not JSON.
    """
    definitions = folder / "definitions"
    write_goodai_folder(definitions)
    prospective = PROSPECTIVE.generate("ltm", {"min_reply": 3, "max_reply": 3}, 0, 1)
    quote, author, nth = (
        prospective.expected["quote"],
        prospective.expected["author"],
        prospective.expected["nth"],
    )
    (definitions / "Prospective Memory").mkdir()
    (definitions / "Prospective Memory" / "0.def.json").write_text(
        json.dumps(goodai_raw(prospective, [[quote, author, nth]]))
    )
    instruction = prospective.script[1].text
    log = [
        f"Test (t): {prospective.script[0].text}",
        "Agent (t): Noted.",
        f"Test (t): {instruction}",
        "Agent (t): Sure.",
        "SYSTEM (t): Test 'Colours - 0' BEGINS",
        "Test (t): My favourite colour is Teal.",
        "Agent (t): Lovely.",
        "Test (t): What is 2 + 2?",
        f"Agent (t): 4. {quote}",
    ]
    for agent in agents:
        results = folder / "results" / agent
        (results / "Colours").mkdir(parents=True)
        first, second = colours(0), colours(1)
        (results / "Colours" / "0_0.json").write_text(
            json.dumps(stored_result([first.expected], [first.expected], 1, ["ok"]))
        )
        (results / "Colours" / "1_0.json").write_text(
            json.dumps(stored_result(["I like grey."], [second.expected], 1, ["lenient"]))
        )
        (results / "Colours" / "7_0.json").write_text(json.dumps(stored_result(["Red"], ["Red"], 1, ["ok"])))
        (results / "Colours" / "8_0.json").write_text("{not json")
        (results / "Prospective Memory").mkdir()
        (results / "Prospective Memory" / "0_0.json").write_text(
            json.dumps(
                stored_result(
                    ["Sure."], [[quote, author, nth]], 1, ["right place"], log=log[2:], full_log=log
                )
            )
        )
        (results / "Mystery Game").mkdir()
        (results / "Mystery Game" / "0_0.json").write_text(json.dumps(stored_result(["x"], ["y"], 0, ["no"])))
    return folder


def write_spy_meeting_run(folder: Path, *, with_evidence: bool) -> Path:
    """`data/tests/<benchmark>`: Spy Meeting definitions whose keyword lists grew after the results
    were stored, as GoodAI's did, and one agent's results.

    Result 1 decodes every clue with a keyword only the later lists have, and its verdict says
    "contains" (no list quoted).  Result 2, there `with_evidence`, quotes a later list in its verdict.
    """
    spy = [SPY_MEETING.generate("ltm", {}, 0, example) for example in (1, 2)]
    stored_lists = [[clue["keywords"] for clue in definition.expected["clues"]] for definition in spy]
    later_lists = [
        [[*keywords, word] for keywords, word in zip(lists, ("kestrel", "heron", "osprey"), strict=True)]
        for lists in stored_lists
    ]
    (folder / "definitions" / "Spy Meeting").mkdir(parents=True)
    (folder / "definitions" / "config.yml").write_text(CONFIG.replace("name: colours", "name: spy_meeting"))
    for example, (definition, lists) in enumerate(zip(spy, later_lists, strict=True)):
        (folder / "definitions" / "Spy Meeting" / f"{example}.def.json").write_text(
            json.dumps(goodai_raw(definition, lists))
        )
    results = folder / "results" / "Agent A" / "Spy Meeting"
    results.mkdir(parents=True)
    contains = ["Answer contains expected keyword(s)"] * 3
    reply = "We meet at kestrel, at the heron, and I bring an osprey."
    (results / "0_0.json").write_text(json.dumps(stored_result([reply], stored_lists[0], 1, contains)))
    if with_evidence:
        quoted = [f"{later_lists[1][0]} not found in answer.", *contains[1:]]
        (results / "1_0.json").write_text(
            json.dumps(stored_result(["No idea."], stored_lists[1], 0.667, quoted))
        )
    return folder


V1_CONFIG = """config:
  run_name: mine (old layout)
datasets:
  args:
    filler_tokens_low: 500
    filler_tokens_high: 500
    pre_question_filler: 500
    dataset_examples: 1
  datasets:
  - name: delayed_recall
  - name: prospective_memory
"""

V1_QUOTE_STATEMENT = "My aunt Wilhelmina liked to say: 'Boil the kettle before you need the tea.'"
V1_QUOTE_INSTRUCTION = "Please say the quote by Wilhelmina after the next 4 statements."
V1_QUOTE_EXPECTED = (
    "The subject has to repeat the quote by Wilhelmina after 4 statements. The quote is: 'Boil the kettle"
    " before you need the tea.'"
)


def v1_raw(script: list[str], is_question: list[bool], expected: Any, spacing: int = 500) -> dict[str, Any]:
    """A definition in Benchmark 1's layout: `token_spacings` and `time_jumps`, no `waits`."""
    return {
        "script": script,
        "is_question": is_question,
        "time_jumps": [0.0] * len(script),
        "token_spacings": [spacing] * len(script),
        "expected_responses": expected,
        "can_be_interleaved": True,
        "evaluation_fn": "evaluate_correct",
        "is_temporal": False,
        "uses_callback": False,
    }


def write_v1_folder(folder: Path) -> None:
    """Our own Delayed Recall test and a Prospective Memory test of our own, in Benchmark 1's layout."""
    from pytest_memorybench.scenarios.ltm.delayed_recall import SCENARIO as DELAYED_RECALL

    recall = DELAYED_RECALL.generate("ltm", {"facts": 4, "questions": 3}, 5, 1)
    files = {
        "Delayed Recall": v1_raw(
            [line.text for line in recall.script],
            [line.is_question for line in recall.script],
            list(recall.expected),
        ),
        "Prospective Memory": {
            **v1_raw([V1_QUOTE_STATEMENT, V1_QUOTE_INSTRUCTION], [False, True], [V1_QUOTE_EXPECTED]),
            "uses_callback": True,
        },
    }
    (folder).mkdir(parents=True, exist_ok=True)
    (folder / "config.yml").write_text(V1_CONFIG)
    for dataset, raw in files.items():
        (folder / dataset).mkdir()
        (folder / dataset / "0.def.json").write_text(json.dumps(raw))
