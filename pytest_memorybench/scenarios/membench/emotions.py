"""Emotional states and the remarks that show them without naming them (MemBench App. A.3, "Emotion").

The paper's emotion questions rest on "multiple consecutive messages within a specific time" that
express the user's state; the state itself is never said, so the agent has to reflect on what it
heard.  Each state below has remarks of our own that imply it; no remark contains the state's
name, a synonym from this list, or a question mark.
"""

from __future__ import annotations

EMOTIONS: dict[str, tuple[str, ...]] = {
    "anxious": (
        "I keep checking my phone every few minutes in case the clinic calls back.",
        "My stomach has been in knots since I woke up this morning.",
        "I went over tomorrow's presentation six times and I still feel I will forget everything.",
        "I could not fall asleep until three because my mind would not stop racing.",
        "Every time someone knocks on the door my heart jumps.",
        "I rewrote the same short email four times before daring to send it.",
    ),
    "excited": (
        "I have already packed my suitcase and the trip is still two weeks away.",
        "I cannot stop grinning since they told me the tickets are confirmed.",
        "I told everyone at lunch about the new job before I even signed the contract.",
        "I keep counting down the days on the calendar on my fridge.",
        "I was bouncing on my toes the whole time we waited in line.",
        "I bought a new notebook just to start planning the whole thing.",
    ),
    "sad": (
        "I sat in the car for a long time after the funeral without starting the engine.",
        "Nothing on my plate tasted of anything today.",
        "I found his old scarf in the closet and just held it for a while.",
        "The house feels so empty now that she has moved out.",
        "I cancelled dinner with friends because I could not face talking to anyone.",
        "I keep replaying our last conversation and wishing I had said more.",
    ),
    "angry": (
        "They cancelled my order for the third time and nobody even apologised.",
        "I had to walk out of the meeting before I said something I would regret.",
        "My neighbour parked across my driveway again and I slammed the door so hard the frame shook.",
        "I spent an hour on hold only to be hung up on.",
        "He took credit for my report in front of the whole department.",
        "I gripped the steering wheel so hard my knuckles went white.",
    ),
    "grateful": (
        "My neighbours brought over soup every evening while I was ill.",
        "A stranger stopped in the rain to help me change my tyre and would not take any money.",
        "My old teacher wrote me a letter of recommendation even though she is retired.",
        "The team stayed late to help me finish my part of the project.",
        "I wrote thank-you cards to everyone who came to the hospital.",
        "A friend lent me her car for the whole month without a second thought.",
    ),
    "lonely": (
        "I ate dinner alone again and the flat was completely silent.",
        "Nobody messaged me all weekend and I kept checking anyway.",
        "I walked around the city for hours just to be near other people.",
        "All my friends moved away after college and I have no one to call.",
        "I talked to the cashier longer than necessary because it was my only conversation today.",
        "The holidays came and went and I spent them on my own in front of the television.",
    ),
    "proud": (
        "I finished my first marathon today and I still cannot believe I did it.",
        "The girl I tutor read her poem at the school assembly and the whole hall applauded.",
        "I fixed the leaking sink all by myself without calling anyone.",
        "My design was picked out of forty entries for the new library logo.",
        "After three years of evening classes I finally hold my diploma.",
        "The client called my proposal the best they had seen this year.",
    ),
    "relieved": (
        "The test results came back clear and I could finally breathe again.",
        "The lost dog turned up on our porch this morning wagging his tail.",
        "We made the connecting flight with only two minutes to spare.",
        "The bank sorted out the error and the money is back in my account.",
        "The storm passed by the town without damaging the house.",
        "My oldest friend called to say he landed safely after that rough flight.",
    ),
}

# States whose remarks could defend each other (a lonely evening is also a sad one; a marathon
# finished is a proud moment and an exciting one): never a lure for each other.
NEAR_EMOTIONS: dict[str, tuple[str, ...]] = {
    "sad": ("lonely",), "lonely": ("sad",), "proud": ("excited",), "excited": ("proud",),
}  # fmt: skip

# When the remarks were made, as the question names it: "on the evening of March 3".
PARTS_OF_DAY: tuple[tuple[str, int], ...] = (("morning", 8), ("afternoon", 14), ("evening", 19))
