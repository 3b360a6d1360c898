"""Memory tests written by hand, with the `memorybench_conversation` fixture and the public asserts.

Run them against any agent (only these tests run when a path is given):

    pytest --memorybench --agent=recall examples/test_my_agent_memory.py     # passes
    pytest --memorybench --agent=null examples/test_my_agent_memory.py       # fails: it remembers nothing
"""

from pytest_memorybench import assert_choice, assert_regex


def test_remembers_a_name_across_unrelated_conversation(memorybench_conversation):
    chat = memorybench_conversation
    chat.say("My neighbour's parrot is called Captain Pickles.")
    chat.filler(tokens=3_000)
    chat.wait(hours=5)
    reply = chat.ask("What is my neighbour's parrot called?", ideal="Captain Pickles")
    assert_regex(r"\bCaptain Pickles\b", reply)


def test_picks_the_updated_fact_from_multiple_choices(memorybench_conversation):
    chat = memorybench_conversation
    chat.say("I keep my spare key under the blue flowerpot.")
    chat.filler(tokens=1_000)
    chat.say("I moved my spare key: it is now inside the garden lantern.")
    chat.filler(tokens=1_000)
    options = {"A": "under the blue flowerpot", "B": "inside the garden lantern", "C": "in the letterbox"}
    reply = chat.ask(
        "Where is my spare key now? A) under the blue flowerpot B) inside the garden lantern C) in the"
        " letterbox",
        ideal="B",
    )
    assert_choice("B", reply, options)
