"""The scripted model's structured outputs (a `json_schema` response format, or llama-cpp-python's
`json_object` with a schema), as Graphiti asks for them.

Graphiti's schemas are titled by their task.  Entity extraction gets the speaker, `user`, and for
each line the user (or a speaker the line names, "Caroline: …") said in the current message its
longest word; fact extraction links `user` to that word with the line itself as the fact, valid
from the message's time (Graphiti's REFERENCE_TIME), as are the timestamps it asks for.  Every
other schema (deduplication, summaries, attributes) gets its smallest valid instance: nothing is a
duplicate, nothing is summarised.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pytest_memorybench.agents.reference.extractive import terms

SPEAKER = "user"
_STATED_SCHEMA = re.compile(r"```json\s*(\{.*?\})\s*```", re.DOTALL)
_NAMED = re.compile(r"^(?!(?:user|assistant|system):)[A-Z][\w'-]*(?: [A-Z][\w'-]*)?: \S")
_REFERENCE_TIME = re.compile(r"<REFERENCE_TIME>\s*(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)")


def structured_reply(body: dict[str, Any], prompt: str) -> tuple[str, str] | None:
    """(the schema's name, the JSON reply) for a request asking for a schema; None otherwise."""
    schema = _schema(body)
    if schema is None:
        return None
    name = str(schema.get("title", "schema"))
    said = _said(prompt)
    if name == "ExtractedEntities":
        entities = [SPEAKER, *dict.fromkeys(_topic(line) for line in said)]
        reply: Any = {"extracted_entities": [{"name": entity, "entity_type_id": 0} for entity in entities]}
    elif name == "ExtractedEdges":
        reply = {
            "edges": [
                {"source_entity_name": SPEAKER, "target_entity_name": _topic(line), "relation_type": "SAID",
                 "fact": line, "valid_at": _reference_time(prompt)}
                for line in said
            ]
        }  # fmt: skip
    elif name == "EdgeTimestamps":
        reply = {"valid_at": _reference_time(prompt), "invalid_at": None}
    elif name == "SummarizedContent":  # Cognee's summary of a chunk: its user lines
        reply = {"summary": " ".join(_user_lines(_last_user(body))) or "nothing"}
    else:
        reply = smallest(schema)
    return name, json.dumps(reply)


def _schema(body: dict[str, Any]) -> dict[str, Any] | None:
    """The schema asked for: in the response format (`json_schema`, or llama-cpp-python's
    `json_object` with a schema), or, with a bare `json_object`, stated in the system prompt in a
    ```json block (Cognee's JSON mode through litellm)."""
    response_format = body.get("response_format") or {}
    if response_format.get("type") == "json_schema":
        return dict(response_format["json_schema"]["schema"])
    if response_format.get("type") != "json_object":
        return None
    if "schema" in response_format:
        return dict(response_format["schema"])
    system = next((str(m["content"]) for m in body.get("messages", []) if m.get("role") == "system"), "")
    found = _STATED_SCHEMA.search(system)
    return dict(json.loads(found[1])) if found else None


def _last_user(body: dict[str, Any]) -> str:
    return next(
        (str(m["content"]) for m in reversed(body.get("messages", [])) if m.get("role") == "user"), ""
    )


def _said(prompt: str) -> list[str]:
    """The user's lines of the message being processed (Graphiti's <CURRENT MESSAGE> block), and a
    named speaker's whole line (LoCoMo's "Caroline: …", an episode labelled by its speaker)."""
    for tag in ("<CURRENT MESSAGE>", "<CURRENT_MESSAGE>"):
        if tag in prompt:
            current = prompt.split(tag, 1)[1].split("</", 1)[0]
            named = [line.strip() for line in current.splitlines() if _NAMED.match(line.strip())]
            return _user_lines(current) + named
    return []


def _user_lines(text: str) -> list[str]:
    return [line.split("user:", 1)[1].strip() for line in text.splitlines() if "user:" in line]


def _reference_time(prompt: str) -> str | None:
    """The episode's time, which a fact said in the present holds from."""
    found = _REFERENCE_TIME.search(prompt)
    return f"{found[1]}T{found[2]}Z" if found else None


def _topic(line: str) -> str:
    return max(terms(line), key=len, default=SPEAKER)


def smallest(schema: dict[str, Any]) -> Any:
    """The smallest instance `schema` allows: required fields only, empty lists and strings, 0, false."""
    return _smallest(schema, schema.get("$defs", {}))


def _smallest(schema: dict[str, Any], definitions: dict[str, Any]) -> Any:
    if "$ref" in schema:
        return _smallest(definitions[schema["$ref"].rsplit("/", 1)[-1]], definitions)
    if "anyOf" in schema:
        return _smallest(schema["anyOf"][0], definitions)
    kind = schema.get("type")
    if kind == "object":
        required = schema.get("required", [])
        return {
            key: _smallest(value, definitions)
            for key, value in schema.get("properties", {}).items()
            if key in required
        }
    return {"array": [], "string": "", "integer": 0, "number": 0, "boolean": False}.get(str(kind))
