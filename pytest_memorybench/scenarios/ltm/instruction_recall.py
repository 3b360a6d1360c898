"""Instruction Recall (GoodAI Benchmarks 1 and 2): how to operate a device, then questions on the steps.

GoodAI's dataset: the numbered steps for operating an invented device or process in one message,
then five questions about particular steps spread over the conversation; the score is the share of
answers that refer to the expected ones (see `question_set`).  GoodAI had gpt-3.5-turbo write each
manual; ours are built from our own step templates, kept in the order a manual would give them,
for a device named from our own word lists.  Numbers in one manual never repeat.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from pytest_memorybench.core.records import TestDefinition
from pytest_memorybench.scenarios.ltm.question_set import QuestionSetScenario
from pytest_memorybench.scenarios.opening import opening
from pytest_memorybench.scenarios.params import at_least

NAME = "ltm.instruction_recall"
SKILLS = ("recall",)
OPENING = "These are the instructions for using my new {device}. Please remember them:\n\n{steps}"
RESET = "Please forget all the operating instructions I have given you so far."

BRANDS = ("Brightwell", "Corvane", "Tessaly", "Mossgrave", "Ardent", "Pellory", "Quintor", "Halloway")
DEVICES = ("coffee grinder", "seed planter", "weather kite", "bread oven", "window cleaner", "yoghurt maker",
           "bird feeder", "label printer")  # fmt: skip

# Steps in manual order: (instruction, question, answer); slots come from POOLS and the numbers.
STEPS = (
    ("Take the {d} out of its box and remove the {wrap} around the {part}.",
     "What do you remove from around the {part} after unpacking the {d}?", "The {wrap}"),
    ("Place it on a {surface} at least {distance} centimetres from the nearest wall.",
     "How far from the nearest wall should the {d} stand?", "At least {distance} centimetres"),
    ("Fill the {chamber} with {liquid} up to the {mark} mark.",
     "What do you fill the {chamber} with?", "{liquid}"),
    ("Hold the {button} button for {seconds} seconds, until the light turns {light}.",
     "How long do you hold the {button} button?", "{seconds} seconds"),
    ("Turn the {dial} dial to position {position}.",
     "To which position do you turn the {dial} dial?", "Position {position}"),
    ("Wait until the {d} {sound} {times} times.",
     "How many times does the {d} {sound} before you go on?", "{times} times"),
    ("Slide the {tray} into the slot marked with a {symbol}.",
     "Which symbol marks the slot for the {tray}?", "A {symbol}"),
    ("Press {first} and {second} together to start the {program} programme.",
     "Which two buttons start the {program} programme?", "{first} and {second}"),
    ("When the display shows {code}, open the {lid} and empty the {container}.",
     "What do you do when the display shows {code}?", "Open the {lid} and empty the {container}"),
    ("Wipe the {outside} with a {cloth} once a week.",
     "What do you wipe the {outside} with?", "A {cloth}"),
    ("Never run the {d} for more than {hours} hours in a row.",
     "For how many hours in a row can the {d} run at most?", "{hours} hours"),
    ("To switch it off, turn the {dial} dial back to zero and pull out the plug.",
     "How do you switch the {d} off?", "Turn the {dial} dial back to zero and pull out the plug"),
)  # fmt: skip

POOLS = {
    "wrap": ("foam sleeve", "paper band", "plastic film", "cardboard collar"),
    "part": ("handle", "nozzle", "base", "lid hinge"),
    "surface": ("flat table", "stone worktop", "wooden shelf", "tiled floor"),
    "chamber": ("left tank", "top reservoir", "glass chamber", "side cup"),
    "liquid": ("filtered water", "lemon juice", "warm milk", "vinegar"),
    "mark": ("MAX", "dotted", "red", "second"),
    "button": ("Start", "Reset", "Mode", "Pair"),
    "light": ("green", "white", "orange", "blue"),
    "dial": ("speed", "heat", "flow", "timer"),
    "sound": ("beeps", "clicks", "chimes", "hums"),
    "tray": ("crumb tray", "filter basket", "seed drawer", "drip plate"),
    "symbol": ("star", "triangle", "leaf", "wave"),
    "first": ("Up", "Left", "Plus", "Menu"),
    "second": ("Down", "Right", "Minus", "Back"),
    "program": ("Eco", "Night", "Quick", "Deep Clean"),
    "code": ("E7", "F2", "C0", "H9"),
    "lid": ("front lid", "top flap", "rear door", "side panel"),
    "container": ("waste box", "water trap", "husk bin", "overflow cup"),
    "outside": ("casing", "display", "grille", "feet"),
    "cloth": ("dry microfibre cloth", "damp sponge", "soft brush", "cotton rag"),
}


@dataclass(frozen=True)
class InstructionRecallParams:
    """How many steps the instructions have and how many are asked."""

    steps: int = 10
    questions: int = 5

    def __post_init__(self) -> None:
        at_least("steps", self.steps, 1)
        at_least("questions", self.questions, 1)
        if self.steps > len(STEPS):
            raise ValueError(f"steps must be at most {len(STEPS)}, got {self.steps}")
        if self.questions > self.steps:
            raise ValueError(f"questions ({self.questions}) cannot exceed steps ({self.steps})")


def write_manual(rng: random.Random, steps: int) -> tuple[str, list[tuple[str, str, str]]]:
    """A device's name and `steps` of its manual, in order, as (instruction, question, answer)."""
    device = f"{rng.choice(BRANDS)} {rng.choice(DEVICES)}"
    distance, seconds, position, times, hours = rng.sample(range(2, 60), 5)  # no number answers two questions
    slots: dict[str, str | int] = {name: rng.choice(pool) for name, pool in POOLS.items()}
    slots.update(d=device, distance=distance, seconds=seconds, position=position, times=times, hours=hours)
    chosen = sorted(rng.sample(range(len(STEPS)), steps))
    return device, [tuple(part.format(**slots) for part in STEPS[index]) for index in chosen]  # type: ignore[misc]


class InstructionRecall(QuestionSetScenario):
    """`ltm.instruction_recall`: steps of a device's instructions, asked about later."""

    name = NAME
    skills = SKILLS
    reset_message = RESET

    def generate(self, suite: str, params: Mapping[str, Any], seed: int, repetition: int) -> TestDefinition:
        settings, rng = opening(InstructionRecallParams, NAME, params, seed, repetition)
        device, manual = write_manual(rng, settings.steps)
        asked = [manual[index] for index in sorted(rng.sample(range(len(manual)), settings.questions))]
        steps = "\n".join(f"{number}. {instruction}" for number, (instruction, _, _) in enumerate(manual, 1))
        content = OPENING.format(device=device, steps=steps)
        return self.definition(
            suite, repetition, seed, content, [(q, a) for _, q, a in asked], asdict(settings)
        )


SCENARIO = InstructionRecall()
