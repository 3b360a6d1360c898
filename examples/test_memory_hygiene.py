"""What a memory must not give: checks for your own store with pytest-memorybench's asserts.

    pytest examples/test_memory_hygiene.py

`NotebookStore` stands for your store (a vector database, a memory product's client): replace it
with yours.  Each test writes, searches and checks what came back, not only what was found.
"""

from __future__ import annotations

from pytest_memorybench import assert_forgotten, assert_isolated, assert_not_returned, assert_not_stale


class NotebookStore:
    """A store that keeps texts per namespace and returns those sharing a word with the query."""

    def __init__(self) -> None:
        self.notes: dict[str, list[str]] = {}

    def add(self, text: str, namespace: str) -> None:
        self.notes.setdefault(namespace, []).append(text)

    def search(self, query: str, namespace: str, k: int = 5) -> list[str]:
        words = set(query.lower().strip("?").split())
        found = [note for note in self.notes.get(namespace, []) if words & set(note.lower().split())]
        return found[:k]

    def delete(self, text: str, namespace: str) -> None:
        self.notes[namespace] = [note for note in self.notes.get(namespace, []) if note != text]


def test_a_search_does_not_return_what_the_question_does_not_need() -> None:
    store = NotebookStore()
    store.add("user: My sister Anna moved to Lisbon in May.", "alice")
    store.add("user: My dentist appointment is on Friday.", "alice")
    returned = store.search("Where did Anna move?", "alice")
    assert_not_returned("My dentist appointment is on Friday.", returned)


def test_one_user_never_sees_another_users_memories() -> None:
    store = NotebookStore()
    store.add("user: My PIN is 4321.", "bob")
    store.add("user: My favourite number is 7.", "alice")
    returned = store.search("What is my PIN number?", "alice")
    assert_isolated(returned, ["user: My PIN is 4321."], namespace="alice", other="bob")


def test_a_deleted_memory_is_gone() -> None:
    store = NotebookStore()
    store.add("user: My old address is 12 Elm Street.", "alice")
    store.delete("user: My old address is 12 Elm Street.", "alice")
    assert_forgotten("12 Elm Street", store.search("What is my address?", "alice"))


def test_the_answer_rejects_the_superseded_value() -> None:
    reply = "Your favourite colour is blue now; it used to be red."  # your agent's reply
    assert_not_stale(reply, ["red"], current="blue")
