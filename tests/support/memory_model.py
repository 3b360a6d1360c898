"""A scripted model for memory systems: deterministic replies per kind of request, on the fake server.

Each mechanism's prompts ask for something recognisable (an extraction, a rating, a yes / no, a
function call, an answer); `MemoryModelScript` answers each the way a careful model would, from the
prompt alone, so a test can assert what a mechanism stored and what reached its answering prompt:
  - an answer is read from the prompt: the line of the system prompt or earlier turns that `recall`
    ranks best for the question (no line: "I don't know."); a statement gets "Noted.";
  - a structured output (Graphiti's) as `structured_model` says;
  - extractions (Mem0's too), notes, summaries and portraits repeat the user's words; importance is 8 for a
    message asking to "remember", else 2, said as a model says it ("On a scale of 1 to 10, ...");
    relevance and the SCM controller say yes when the question shares a word with the notes (or
    asks something); SCM's summaries will do when one holds two of the question's words;
    reflection's questions and insights come numbered, an insight citing its first statement;
  - MemGPT's recursive summary adds what leaves the queue to the last one, as long as a reply may
    be (the request's `max_tokens`: the newest words are kept);
  - in MCP's agent mode, the model saves the user's statements as entities and searches a
    question's longest word, then answers from the observations found;
  - the grep agent (`files`) greps a question's longest word and answers from the lines found;
  - MemGPT searches its conversation for a question and answers from what it found, and inserts a
    message asking to remember something into archival memory; warned of memory pressure, it first
    saves the user's statements in its context to archival memory, once per warning (it sees its
    earlier calls in the queue); as tool calls when offered tools, as JSON otherwise.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from pytest_memorybench.agents.reference.extractive import Statements, answer, is_question, terms
from tests.support.llm_server import (
    LLMServer,
    RecordedRequest,
    chat_completion,
    content_text,
    last_user_text,
    word_count,
)
from tests.support.structured_model import structured_reply

NOTED = "Noted."
_PREFIX = re.compile(r"^(?:-\s*)?(?:\[[^\]]*\]\s*)?(?:(?:user|assistant):\s*)?", re.IGNORECASE)
_RESULT = re.compile(r"^\[(\w+) returned: (.*)\]$", re.DOTALL)
PRESSURE = "Memory pressure"


def user_lines(text: str) -> list[str]:
    return [line.split("user:", 1)[1].strip() for line in text.splitlines() if "user:" in line]


LANGMEM_MANAGER = "You are a memory subroutine for an AI."
# LangMem prints the session's messages as LangChain's pretty_repr does: a ruled title, a blank line, text.
_LANGMEM_MESSAGE = re.compile(
    r"=+ (Human|Ai) Message =+\n\n(.*?)(?=\n\n=+ \w+ Message =+|\n</session_)", re.S
)


def langmem_memories(prompt: str, shown: str) -> list[dict[str, Any]]:
    """LangMem's extraction: a `Memory` tool call for each statement of the session (either side's,
    a line each, questions and "Noted." left out) that no memory it was `shown` (the existing
    instances trustcall lists in its system message) already holds."""
    session = prompt.rsplit("<session_", 1)[-1]
    said = [line.strip() for _, text in _LANGMEM_MESSAGE.findall(session) for line in text.splitlines()]
    return [
        {"name": "Memory", "arguments": {"content": text}}
        for text in dict.fromkeys(said)
        if text and text != NOTED and not is_question(text) and text not in shown
    ]


MEMU_EXTRACTOR = "You are a professional User Memory Extractor."
MEMU_PROFILE = "extract independent user memory items about the user"
MEMU_SEGMENTS = "divide it into multiple meaningful segments"
MEMU_CATEGORY = "User Profile Synchronization Specialist"
# memU prints a conversation's messages a line each, `[INDEX] CREATED_AT [ROLE]: TEXT`.
_MEMU_MESSAGE = re.compile(r"^\[\d+\] (?:\S+ )?\[(?:user|assistant)\]: (.*)$", re.M)


def memu_items(prompt: str) -> str:
    """memU's extraction, as its XML: for its profile prompt a memory item a statement of the
    resource (either side's, questions and "Noted." left out), none for its other memory types
    (so that no statement is stored twice)."""
    said = _MEMU_MESSAGE.findall(prompt.rsplit("<resource>", 1)[-1]) if MEMU_PROFILE in prompt else []
    memories = "".join(
        f"<memory><content>{text}</content><categories><category>personal_info</category></categories></memory>"
        for text in dict.fromkeys(line.strip() for line in said)
        if text and text != NOTED and not is_question(text)
    )
    return f"<item>{memories}</item>"


EVEROS_BOUNDARY = "You are an episodic memory boundary detection expert."
EVEROS_EPISODE = "You are an episodic memory generation expert."
UNREADABLE = "[unreadable]"
# EverOS prints a memory cell's messages for its episode prompt as pseudo-JSON, a message a block:
# `"speaker": NAME,` then `"content": TEXT` (everalgo/user_memory/episode.py `_render_conversation`).
_EVEROS_SAID = re.compile(r'"speaker": (.*),\n\s*"content": (.*)\n')


def everos_reply(prompt: str) -> tuple[str, str]:
    """EverOS's boundary detection waits for more (no boundary: each session ends with a flush, so an
    episode is a session), and its episode repeats what each speaker said, a line each; a message
    holding UNREADABLE gets a boundary reply with no JSON in it, as a model's reply may be."""
    if EVEROS_BOUNDARY in prompt and UNREADABLE in prompt:
        return "everos_unreadable", "I cannot tell."
    if EVEROS_BOUNDARY in prompt:
        return "everos_boundary", json.dumps(
            {"reasoning": "one topic", "boundaries": [], "should_wait": True}
        )
    said = [
        f"{speaker}: {text}"
        for speaker, text in _EVEROS_SAID.findall(prompt.split("Conversation content:", 1)[-1])
    ]
    content = "\n".join(said) or "Nothing was said."
    return "everos_episode", json.dumps({"title": said[0] if said else "A conversation", "content": content})


def read_answer(question: str, context: list[str]) -> str:
    if not is_question(question):
        return NOTED
    lines = [_PREFIX.sub("", line).strip() for text in context for line in text.splitlines()]
    memory = Statements(line for line in lines if line and not line.startswith("#") and line != question)
    return answer(question, memory)


def _is_aside(text: str) -> bool:
    """A function's result or a queue manager's message: not something the user said."""
    return bool(_RESULT.match(text)) or text.startswith("[system]") or text.startswith("[called ")


class MemoryModelScript:
    """The handler for /v1/chat/completions; counts what it was asked, by kind."""

    def __init__(self) -> None:
        self.entities = 0  # MCP agent mode's saved facts, for their names
        self.asked: dict[str, int] = {}
        self.answer_prompts: list[str] = []  # the system prompt of every answer

    def install(self, server: LLMServer) -> MemoryModelScript:
        server.routes[("POST", "/v1/chat/completions")] = self
        return self

    def __call__(self, request: RecordedRequest, scripted_text: str) -> Any:
        body = request.body or {}
        messages = body.get("messages", [])
        system = (
            content_text(messages[0].get("content"))
            if messages and messages[0].get("role") == "system"
            else ""
        )
        prompt = last_user_text(body)
        if not scripted_text.startswith("echo: "):  # a test queued this reply
            kind, reply = "scripted", scripted_text
        else:
            kind, reply = self.reply(system, prompt, messages, body)
        self.asked[kind] = self.asked.get(kind, 0) + 1
        if isinstance(reply, dict):  # a tool call
            return self._tool_call(body, reply)
        if isinstance(reply, list):  # parallel tool calls
            return self._tool_calls(body, reply)
        words = word_count(body)
        return chat_completion(
            body.get("model", "fake-model"),
            reply,
            {"prompt_tokens": words, "completion_tokens": len(reply.split()), "total_tokens": words},
        )

    def reply(
        self, system: str, prompt: str, messages: list[dict[str, Any]], body: dict[str, Any]
    ) -> tuple[str, Any]:
        if (structured := structured_reply(body, prompt)) is not None:  # Graphiti's
            return structured
        if "You are a Memory Extractor" in system:  # Mem0's extraction (its 2.x additive pipeline)
            said = user_lines(prompt.split("## New Messages", 1)[1].split("## Observation Date", 1)[0])
            return "mem0", json.dumps({"memory": [{"text": line} for line in said]})
        if system.startswith(LANGMEM_MANAGER):  # LangMem's memory manager: a Memory tool call a statement
            return "langmem", langmem_memories(prompt, shown=system) or "Nothing new to remember."
        if EVEROS_BOUNDARY in prompt or EVEROS_EPISODE in prompt:  # EverOS's cells and episodes
            return everos_reply(prompt)
        if MEMU_EXTRACTOR in prompt:  # memU's extraction of a memory type: XML items
            return "memu", memu_items(prompt)
        if MEMU_SEGMENTS in prompt:  # memU's segmentation of a conversation: one segment, itself
            return "memu_segments", json.dumps({"segments": []})
        if MEMU_CATEGORY in prompt:  # memU's rewrite of a category's summary
            return "memu_category", "\n".join(
                f"- {line}" for line in re.findall(r"<content>(.*?)</content>", prompt)
            )
        if "key-value pairs" in prompt:
            said = " ".join(user_lines(prompt)) or prompt
            return "extract", json.dumps({"key_values": {"said": said}, "summary": said})
        if "scratchpad of salient notes" in prompt:
            current = prompt.split("Current exchange:", 1)[1].split("Write the new notes", 1)[0]
            return "notes", "\n".join(user_lines(current)) or "NONE"
        if prompt.startswith("Compress these scratchpad notes"):
            notes = [line for line in prompt.splitlines()[2:] if line.strip()]
            return "compress", "\n".join(notes[len(notes) // 2 :])
        if "relevant to answering the question" in prompt:
            question, notes = prompt.removeprefix("Question:").split("Notes:", 1)
            notes = notes.split("\n\nIs any", 1)[0]
            return "relevance", "yes" if set(terms(question)) & set(terms(notes)) else "no"
        if "rate the likely" in prompt:
            memory = prompt.split("Memory:", 1)[1]
            return (
                "importance",
                f"On a scale of 1 to 10, I rate it {8 if 'remember' in memory.lower() else 2}.",
            )
        if "salient high-level questions" in prompt:
            return "questions", "1. What does the user want remembered?\n2. What happened?"
        if "high-level insights" in prompt:
            first = next((line for line in prompt.splitlines() if line[:2] == "1."), "1. nothing")
            return "insights", f"1. The user cares about this: {first[3:]} (because of 1)"
        if "search queries" in prompt:
            message = prompt.split("User's message:", 1)[1].split("Reply with", 1)[0].strip()
            return "queries", json.dumps([message])
        if "Rewrite the scratchpad" in prompt:
            previous = prompt.split("Scratchpad:", 1)[1].split("Latest exchange:", 1)[0].strip()
            notes = json.loads(previous or "{}").get("notes", []) if previous.startswith("{") else []
            said = user_lines(prompt.split("Latest exchange:", 1)[1])
            return "scratchpad", json.dumps({"notes": (notes + said)[-10:]})
        if "this day's conversation" in prompt:
            return "day", " ".join(user_lines(prompt))[:400]
        if "Rewrite the summary of the conversation so far" in prompt:
            overall = prompt.split("so far:", 1)[1].split("Summary of the latest day", 1)[0].strip()
            day = prompt.split("):", 1)[1].split("Rewrite the summary", 1)[0].strip()
            return "overall", day if overall == "(nothing yet)" else f"{overall} | {day}"
        if "Rewrite the user's portrait" in prompt:
            return "portrait", "The user: " + prompt.split("latest day's conversation:", 1)[1].strip()[:300]
        if "do you need to recall" in prompt:
            message = prompt.split("User's new message:", 1)[1].split("\n\nTo reply", 1)[0]
            return "controller", "yes" if "?" in message else "no"
        if "from these summaries alone" in prompt:
            message = prompt.split("User's new message:", 1)[1].split("\n\nSummaries", 1)[0]
            summaries = prompt.split("recalled for it:", 1)[1].split("\n\nCan the message", 1)[0]
            enough = any(len(set(terms(message)) & set(terms(line))) >= 2 for line in summaries.splitlines())
            return "use_summaries", "yes" if enough else "no"
        if prompt.startswith("Summarise this exchange"):
            return "summary", " ".join(" ".join(user_lines(prompt)).split()[:30])
        if "Write the new summary of the conversation" in prompt:
            previous = (
                prompt.split("Summary of the conversation so far:", 1)[1]
                .split("Messages leaving", 1)[0]
                .strip()
            )
            leaving = " | ".join(user_lines(prompt.split("Messages leaving your context:", 1)[1]))
            summary = f"{'' if previous == '(none)' else previous + ' | '}{leaving}".split()
            limit = body.get("max_tokens") or body.get("max_completion_tokens") or len(summary)
            return "evict", " ".join(summary[-int(limit) :])  # as long as a reply may be: the newest
        if "manage yourself through functions" in system:
            return "memgpt", self._memgpt(system, messages, tools="tools" in body)
        if "in a memory server" in system:
            return "mcp_agent", self._mcp_agent(system, messages, tools="tools" in body)
        if "folder of text files" in system:
            return "files", self._files(system, messages, tools="tools" in body)
        self.answer_prompts.append(system)
        context = [system] + [content_text(m.get("content")) for m in messages[1:-1]]
        return "answer", read_answer(prompt, context)

    def _mcp_agent(self, system: str, messages: list[dict[str, Any]], *, tools: bool) -> Any:
        """MCP's agent mode: statements saved as entities; a question searched by its longest word."""
        texts = [content_text(m.get("content")) for m in messages[1:]]
        first, last = texts[0], texts[-1]
        call: tuple[str, dict[str, Any]] | None = None
        if "Save what is worth remembering" in system:
            statements = [line for line in user_lines(first) if not is_question(line)]
            if statements and not any("[create_entities returned" in text for text in texts):
                self.entities += len(statements)
                entities = [
                    {"name": f"fact-{self.entities - n}", "entityType": "fact", "observations": [line]}
                    for n, line in enumerate(statements)
                ]
                call = ("create_entities", {"entities": entities})
            else:
                return "DONE"
        elif (result := _RESULT.match(last)) is not None:
            found = [
                line
                for text in re.findall(r'"observations": \[(.*?)\]', result.group(2), re.S)
                for line in json.loads(f"[{text}]")
            ]
            return read_answer(first, [system, *found])
        elif is_question(first):
            call = ("search_nodes", {"query": max(terms(first), key=len, default=first)})
        else:
            return NOTED
        if tools:
            return {"name": call[0], "arguments": call[1]}
        return json.dumps({"function": call[0], "arguments": call[1]})

    def _files(self, system: str, messages: list[dict[str, Any]], *, tools: bool) -> Any:
        """The grep agent: a question's longest word grepped, then the answer read from the lines
        found; out of calls (or with nothing found), the answer from what it has."""
        texts = [content_text(m.get("content")) for m in messages[1:]]
        question, last = texts[0], texts[-1]
        if not is_question(question):
            return NOTED
        result = _RESULT.match(last)
        if result is None and "You have used your lookups" not in system:
            asked = question.split("?", 1)[0]  # not LoCoMo's "Answer with a short phrase…" after it
            call = ("grep", {"pattern": max(terms(asked), key=len, default=asked)})
            if tools:
                return {"name": call[0], "arguments": call[1]}
            return json.dumps({"function": call[0], "arguments": call[1]})
        found = [line.split(": ", 1)[-1] for line in (result.group(2) if result else "").splitlines()]
        return read_answer(question, [line for line in found if line != "(no match)"])

    def _memgpt(self, system: str, messages: list[dict[str, Any]], *, tools: bool) -> Any:
        # consecutive user turns reach the server as one (a warning, then the message): split again
        said = [
            (m.get("role"), part)
            for m in messages[1:]
            for part in content_text(m.get("content")).split("\n\n")
        ]
        texts = [text for _, text in said]
        incoming = max(i for i, (role, text) in enumerate(said) if role == "user" and not _is_aside(text))
        question, last = texts[incoming], texts[-1]
        warned = max((i for i, text in enumerate(texts) if PRESSURE in text), default=None)
        if warned is not None and not any("[called archival_memory_insert" in t for t in texts[warned:]):
            statements = [t for t in texts[:warned] if not _is_aside(t) and t != NOTED and not is_question(t)]
            call = ("archival_memory_insert", {"content": "\n".join(statements)})
        elif (result := _RESULT.match(last)) is not None:
            found = json.loads(result.group(2)) if result.group(2).startswith("[") else []
            if result.group(1).endswith("search"):
                call = ("send_message", {"message": read_answer(question, [system, *found])})
            elif is_question(question):
                call = ("conversation_search", {"query": question})
            else:
                call = ("send_message", {"message": NOTED})
        elif "remember" in question.lower() and not is_question(question):
            call = ("archival_memory_insert", {"content": question})
        elif is_question(question):
            call = ("conversation_search", {"query": question})
        else:
            call = ("send_message", {"message": NOTED})
        if tools:
            return {"name": call[0], "arguments": call[1]}
        return json.dumps({"function": call[0], "arguments": call[1]})

    @staticmethod
    def _tool_call(body: dict[str, Any], call: dict[str, Any]) -> dict[str, Any]:
        return MemoryModelScript._tool_calls(body, [call])

    @staticmethod
    def _tool_calls(body: dict[str, Any], calls: list[dict[str, Any]]) -> dict[str, Any]:
        completion = chat_completion(
            body.get("model", "fake-model"),
            "",
            {"prompt_tokens": word_count(body), "completion_tokens": 5, "total_tokens": word_count(body) + 5},
        )
        message = completion["choices"][0]["message"]
        message["content"] = None
        message["tool_calls"] = [
            {
                "id": f"call_{number}",
                "type": "function",
                "function": {"name": call["name"], "arguments": json.dumps(call["arguments"])},
            }
            for number, call in enumerate(calls, 1)
        ]
        completion["choices"][0]["finish_reason"] = "tool_calls"
        return completion


EMBEDDING_DIMENSIONS = 64


def embeddings(request: RecordedRequest, text: str) -> Any:
    """/v1/embeddings: each text's words hashed into a bag-of-words vector (deterministic, lexical)."""
    inputs = request.body.get("input", [])
    inputs = [inputs] if isinstance(inputs, str) else inputs
    data = []
    for index, value in enumerate(inputs):
        vector = [0.0] * EMBEDDING_DIMENSIONS
        for word in terms(str(value)):
            vector[sum(map(ord, word)) % EMBEDDING_DIMENSIONS] += 1.0
        data.append({"object": "embedding", "index": index, "embedding": vector})
    tokens = sum(len(str(value).split()) for value in inputs)
    return {
        "object": "list",
        "data": data,
        "model": request.body.get("model"),
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
    }


@contextmanager
def scripted_memory_server() -> Iterator[tuple[LLMServer, MemoryModelScript]]:
    """The scripted memory model on a loopback port, with its `/v1/embeddings` route."""
    with LLMServer() as server:
        script = MemoryModelScript().install(server)
        server.routes[("POST", "/v1/embeddings")] = embeddings
        yield server, script
