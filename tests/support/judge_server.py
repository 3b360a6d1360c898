"""Loopback LLM judges of known behaviour, for the judge panel's tests.

A `JudgeServer` answers the `answer` and `reference` tasks, over the OpenAI and the Anthropic wire
formats, by a rule of its own, so a test knows every verdict it should get: `honest` (right when
the answer holds the expected answer's words: all of them under the strict rubric's rule, any under
the generous one's), then, as configured, flipped for a share of calls at random, or always yes.
Every other task (nuggets, items, directions, …) gets the smallest reply its schema allows: a run
judged by it ends with a verdict for every item, whatever its suite asks.
"""

from __future__ import annotations

import json
import random
import re
import threading
from typing import Any

from tests.support.llm_server import (
    MODEL_ID,
    LLMServer,
    RecordedRequest,
    anthropic_message,
    chat_completion,
    last_user_text,
)
from tests.support.structured_model import smallest

_TAG = re.compile(r"<(expected|answer)>\n(.*?)\n</\1>", re.DOTALL)
_RULE = re.compile(r"^Rule \((\w+)\):", re.MULTILINE)


def words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def honest(expected: str, answer: str, rule: str = "generous") -> bool:
    """The noiseless verdict: the answer holds the expected answer's words (by the rule's reading)."""
    wanted, said = words(expected), words(answer)
    if not wanted:
        return False
    if rule == "complete":
        return wanted <= said
    if rule == "topic":
        return bool(wanted & said)
    return len(wanted & said) * 2 >= len(wanted)


class JudgeServer(LLMServer):
    """An OpenAI-compatible judge: honest, flipping `flip` of its verdicts (seeded), or always `always`."""

    def __init__(self, *, flip: float = 0.0, seed: int = 0, always: bool | None = None) -> None:
        super().__init__()
        self.flip, self.always = flip, always
        self.flips = 0
        self.verdicts = 0
        self._random = random.Random(seed)
        self._draws = threading.Lock()
        self.routes[("POST", "/v1/chat/completions")] = self._openai
        self.routes[("POST", "/v1/messages")] = self._anthropic

    def _openai(self, request: RecordedRequest, text: str) -> Any:
        response_format = request.body.get("response_format") or {}
        asked = response_format.get("json_schema") or {}
        kind, schema = str(asked.get("name", "answer")), asked.get("schema")
        return chat_completion(MODEL_ID, self._verdict(request, kind, schema), None)

    def _anthropic(self, request: RecordedRequest, text: str) -> Any:
        tool = next(iter(request.body.get("tools") or []), {})
        kind, schema = str(tool.get("name", "answer")), tool.get("input_schema")
        return anthropic_message(MODEL_ID, self._verdict(request, kind, schema), None)

    def _verdict(self, request: RecordedRequest, kind: str, schema: dict[str, Any] | None) -> str:
        if kind not in ("answer", "reference"):
            return json.dumps(smallest(schema or {"type": "object"}))
        prompt = last_user_text(request.body)
        fields = dict(_TAG.findall(prompt))
        rule = (_RULE.search(prompt) or [None, "generous"])[1]
        right = honest(fields.get("expected", ""), fields.get("answer", ""), rule)
        with self._draws:
            self.verdicts += 1
            if self.always is not None:
                right = self.always
            elif self._random.random() < self.flip:
                right, self.flips = not right, self.flips + 1
        verdict: dict[str, Any] = (
            {"refers": right, "expected_is_number": False, "numbers_match": None}
            if kind == "reference"
            else {"correct": right}
        )
        return json.dumps({**verdict, "reason": "scripted"})
