"""The 36 question templates (Huet et al., Table 10), in our own words.

Each template keeps the paper's id, cue (which of t, s, ent, c the question gives), trace (what to
retrieve from every matching event) and get (all of it, the latest, or the chronological order):
  * ids 0–29: every cue with every trace, get = all; 28 asks for the other characters of one
    event and 29 for the full account of one event;
  * ids 30–32: the latest time / place / content of an entity; 33–35: the same, in time order.
The wording is ours.  Every template is phrased as a question (with a question mark): agents and
memory layers commonly tell questions from statements that way, and the benchmark's questions
must never be mistaken for facts to store.  Retrieval-type names are the published data's
(`df_qa.retrieval_type`), so loaded and generated questions share one vocabulary.
"""

from __future__ import annotations

from dataclasses import dataclass

CUE_LETTERS = ("t", "s", "ent", "c")
TRACES = ("Times", "Spaces", "Entities", "Event contents", "Other entities", "Full event details")
TRACE_FEATURE = {"Times": "date", "Spaces": "location", "Entities": "entity", "Event contents": "content"}
TRACE_MARKERS = {
    "Times": "times",
    "Spaces": "spaces",
    "Entities": "entities",
    "Event contents": "contents",
    "Other entities": "other_entities",
    "Full event details": "full_details",
}
GETS = ("all", "latest", "chronological")
GUIDANCE = "If the book does not say, tell me so."

Cue = tuple[bool, bool, bool, bool]


@dataclass(frozen=True)
class Template:
    """One of the paper's 36 question templates: its cue, what it retrieves and how."""

    id: int
    cue: Cue
    trace: str
    get: str
    text: str  # placeholders {t} {s} {ent} {c}, exactly those of the cue

    @property
    def cue_label(self) -> str:
        """The cue as the item ids write it, e.g. `(t,*,ent,*)`."""
        return cue_label(self.cue)

    def render(self, values: tuple[str, str, str, str]) -> str:
        """The question for cue values (date, location, entity, content); unused values are ignored."""
        return f"{self.text.format(t=values[0], s=values[1], ent=values[2], c=values[3])} {GUIDANCE}"


def cue_label(cue: Cue) -> str:
    """A cue as the paper writes it, e.g. (t,*,ent,*)."""
    return (
        "(" + ",".join(letter if used else "*" for letter, used in zip(CUE_LETTERS, cue, strict=True)) + ")"
    )


def parse_cue(text: str) -> Cue:
    """`(t, *, ent, *)` (published spelling) or `(t,*,ent,*)` to a cue mask."""
    parts = [part.strip() for part in text.strip().strip("()").split(",")]
    if len(parts) != 4 or any(
        part not in ("*", letter) for part, letter in zip(parts, CUE_LETTERS, strict=True)
    ):
        raise ValueError(f"not a cue: {text!r}")
    return tuple(part != "*" for part in parts)  # type: ignore[return-value]


def _t(id: int, cue: str, trace: str, get: str, text: str) -> Template:
    return Template(id, parse_cue(cue), trace, get, text)


# One template a line, as in the paper's table.
# fmt: off
TEMPLATES: tuple[Template, ...] = (
    _t(0, "(t,*,*,*)", "Spaces", "all", "Where did the events of {t} take place? List each distinct location, without describing the events."),
    _t(1, "(t,*,*,*)", "Entities", "all", "Who were the protagonists of the events on {t}? Name each of them, without describing what happened."),
    _t(2, "(t,*,*,*)", "Event contents", "all", "What happened on {t}? Name the key events of that day, leaving aside who took part and where."),
    _t(3, "(*,s,*,*)", "Times", "all", "On which dates did events take place at {s}? Give the dates only, without describing the events."),
    _t(4, "(*,s,*,*)", "Entities", "all", "Who has been the protagonist of an event at {s}? Name everyone, without mentioning the events."),
    _t(5, "(*,s,*,*)", "Event contents", "all", "What events have taken place at {s}? Say what happened, not when or who was there."),
    _t(6, "(*,*,ent,*)", "Times", "all", "On which dates was {ent} involved in an event? Give the dates only, without describing the events."),
    _t(7, "(*,*,ent,*)", "Spaces", "all", "Where have the events involving {ent} taken place? List the locations, without mentioning the events."),
    _t(8, "(*,*,ent,*)", "Event contents", "all", "What events has {ent} taken part in? Say what happened, not when or where."),
    _t(9, "(*,*,*,c)", "Times", "all", "When did events related to {c} happen? Give every date, without describing the events."),
    _t(10, "(*,*,*,c)", "Spaces", "all", "Where did events related to {c} take place? List each location, without mentioning the events themselves."),
    _t(11, "(*,*,*,c)", "Entities", "all", "Who were the protagonists of events related to {c}? Name them, without describing the events."),
    _t(12, "(t,s,*,*)", "Entities", "all", "Who was the protagonist of what happened at {s} on {t}? Name everyone involved, without describing the events."),
    _t(13, "(t,s,*,*)", "Event contents", "all", "What happened at {s} on {t}? Describe the events themselves rather than the people involved."),
    _t(14, "(t,*,ent,*)", "Spaces", "all", "Where was {ent} on {t}? List the locations of that day's events, without describing them."),
    _t(15, "(t,*,ent,*)", "Event contents", "all", "What did {ent} experience on {t}? Name the key events, not where they took place."),
    _t(16, "(t,*,*,c)", "Spaces", "all", "Where did events related to {c} take place on {t}? List the locations, without describing the events."),
    _t(17, "(t,*,*,c)", "Entities", "all", "Who was at the centre of events related to {c} on {t}? Name them, without describing the events."),
    _t(18, "(*,s,ent,*)", "Times", "all", "On which dates was {ent} at {s} for an event? Give the dates only, without describing the events."),
    _t(19, "(*,s,ent,*)", "Event contents", "all", "What has {ent} experienced at {s}? Name the key events there, not when they happened."),
    _t(20, "(*,s,*,c)", "Times", "all", "On which dates did events related to {c} take place at {s}? Give the dates only, without describing the events."),
    _t(21, "(*,s,*,c)", "Entities", "all", "Who were the protagonists of events related to {c} at {s}? Name them, without mentioning the events."),
    _t(22, "(*,*,ent,c)", "Times", "all", "On which dates was {ent} involved in events related to {c}? Give the dates only, without describing the events."),
    _t(23, "(*,*,ent,c)", "Spaces", "all", "Where did the events related to {c} that involved {ent} take place? List each distinct location, without mentioning the events."),
    _t(24, "(t,s,ent,*)", "Event contents", "all", "What did {ent} do at {s} on {t}? Say what took place there that day."),
    _t(25, "(t,s,*,c)", "Entities", "all", "Who was the protagonist of the events related to {c} at {s} on {t}? Name them, without describing the events."),
    _t(26, "(t,*,ent,c)", "Spaces", "all", "Where did the events related to {c} that involved {ent} on {t} take place? List the locations, without describing the events."),
    _t(27, "(*,s,ent,c)", "Times", "all", "On which dates was {ent} at {s} for events related to {c}? Give the dates only, without describing the events."),
    _t(28, "(t,s,ent,c)", "Other entities", "all", "Besides {ent}, who else took part in the events related to {c} at {s} on {t}, if anyone? Name only those other people."),
    _t(29, "(t,s,ent,c)", "Full event details", "all", "What exactly happened when {ent} was at {s} for events related to {c} on {t}? Give a full account, with every detail you can recall."),
    _t(30, "(*,*,ent,*)", "Times", "latest", "What is the latest date, in the story's chronology, on which {ent} appears?"),
    _t(31, "(*,*,ent,*)", "Spaces", "latest", "Where was {ent} seen most recently in the story's chronology?"),
    _t(32, "(*,*,ent,*)", "Event contents", "latest", "Going by the story's dates, what event was {ent} part of at their latest appearance?"),
    _t(33, "(*,*,ent,*)", "Times", "chronological", "On which dates does {ent} appear? Give them in date order, starting with the earliest."),
    _t(34, "(*,*,ent,*)", "Spaces", "chronological", "Which locations did {ent} visit? List them in the order of the story's chronology, earliest first."),
    _t(35, "(*,*,ent,*)", "Event contents", "chronological", "Which events has {ent} taken part in? Give them in the order they happened, by the story's dates, first one first."),
)
# fmt: on
