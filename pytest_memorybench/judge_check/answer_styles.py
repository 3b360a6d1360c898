"""A second labelled set for the `answer` task, made by another method than the first: facts of our
own, each answered in the styles real pipelines answer, each style's verdict known by its kind.

The first set (`data/answer_cases.jsonl`) was written case by case beside the local judge's rules,
so it agrees with them almost perfectly and says little about answers nobody wrote with the rules
in mind.  Here a small table of facts (a question, its gold answer, a paraphrase, a wrong answer of
the same type, a subject) is crossed with answer templates.  Right: long sentences that bury the
answer, Markdown, a preamble, bullet lists, a partial list inside prose, the whole list with one
item more, the gold in other words (synonyms, other word forms, other date formats), a hedged gold
answered plainly.  Wrong: another specific answer, a vague one, an abstention, a hedge between the
gold and a wrong answer, the gold denied.  Labels follow LoCoMo's generous J: right when the answer
is about the gold's content, in any words or length; wrong when it names something else, commits
to nothing, hedges between candidates or declines.  Every fact, sentence and template is ours.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Fact:
    """A question of a conversation between two people, and answers of known verdicts to it."""

    question: str
    gold: str
    paraphrase: str  # the gold in other words: synonyms, another word form
    wrong: str  # a specific answer of the same type that is not the gold
    subject: str  # who the question is about
    kind: str = "entity"  # entity, list, date, state, yes, number
    items: tuple[str, ...] = ()  # a list fact's items, in the gold's order


FACTS: tuple[Fact, ...] = (
    Fact("What did Ines name her new kitten?", "Pepper", "a kitten called Pepper", "Biscuit", "Ines"),
    Fact("Which city did Tomasz move to in spring?", "Gdansk", "the port city of Gdansk", "Krakow", "Tomasz"),
    Fact("What instrument is Wren learning?", "the cello", "cello lessons", "the violin", "Wren"),
    Fact(
        "Where did Amara and her sister go hiking?",
        "the Cairngorms",
        "hills in the Cairngorms",
        "Snowdonia",
        "Amara",
    ),
    Fact(
        "What does Leo do for work?",
        "he is a paramedic",
        "works as a paramedic",
        "he is a firefighter",
        "Leo",
    ),
    Fact("What is the name of Rosa's bakery?", "Crumb & Co", "her bakery, Crumb & Co", "Flour Power", "Rosa"),
    Fact(
        "Which book club novel did Dev finish?",
        "The Salt Road",
        "the novel The Salt Road",
        "Harbour Lights",
        "Dev",
    ),
    Fact("What sport did Kenji take up after the injury?", "swimming", "he swims now", "cycling", "Kenji"),
    Fact(
        "What did Maya bake for the school fair?",
        "lemon drizzle cake",
        "a lemon drizzle",
        "carrot cake",
        "Maya",
    ),
    Fact("What kind of dog did Sven adopt?", "a greyhound", "a retired racing greyhound", "a beagle", "Sven"),
    Fact(
        "What hobbies does Priya enjoy?",
        "pottery, birdwatching and chess",
        "making pots, watching birds and playing chess",
        "knitting, running and chess",
        "Priya",
        "list",
        ("pottery", "birdwatching", "chess"),
    ),
    Fact(
        "Which countries has Olu visited this year?",
        "Ghana, Portugal and Japan",
        "trips to Ghana, Portugal and Japan",
        "Ghana, Spain and Korea",
        "Olu",
        "list",
        ("Ghana", "Portugal", "Japan"),
    ),
    Fact(
        "What did Hana plant in her garden?",
        "tomatoes, basil and sunflowers",
        "tomato plants, some basil and sunflowers",
        "roses, mint and carrots",
        "Hana",
        "list",
        ("tomatoes", "basil", "sunflowers"),
    ),
    Fact(
        "Which languages is Marco studying?",
        "Spanish and Korean",
        "classes in Spanish and in Korean",
        "French and German",
        "Marco",
        "list",
        ("Spanish", "Korean"),
    ),
    Fact(
        "What pets does Ayla have?",
        "two cats and a tortoise",
        "a pair of cats and a tortoise",
        "a dog and a parrot",
        "Ayla",
        "list",
        ("two cats", "a tortoise"),
    ),
    Fact(
        "When did Nadia run her first half marathon?",
        "7 May 2023",
        "May 7th, 2023",
        "7 June 2023",
        "Nadia",
        "date",
    ),
    Fact("When did Felix start his new job?", "March 2022", "in March of 2022", "May 2022", "Felix", "date"),
    Fact("When did Zara get engaged?", "14 February 2023", "on 14/02/2023", "14 April 2023", "Zara", "date"),
    Fact("When did Omar move into the flat?", "2021", "back in 2021", "2019", "Omar", "date"),
    Fact(
        "When was Lena's pottery exhibition?",
        "20 August 2023",
        "August 20, 2023",
        "20 October 2023",
        "Lena",
        "date",
    ),
    Fact(
        "How is Theo feeling about the new school?",
        "excited",
        "really enthusiastic about it",
        "nervous",
        "Theo",
        "state",
    ),
    Fact(
        "How did Bea describe the concert?",
        "electric",
        "it had an electric atmosphere",
        "boring",
        "Bea",
        "state",
    ),
    Fact(
        "How is Jonas doing since the surgery?",
        "doing great",
        "he is doing well",
        "still struggling",
        "Jonas",
        "state",
    ),
    Fact(
        "How does Cleo feel about her promotion?",
        "proud",
        "she is very proud of it",
        "indifferent",
        "Cleo",
        "state",
    ),
    Fact("What was the weather like on Aisha's trip?", "rainy", "it rained a lot", "sunny", "Aisha", "state"),
    Fact(
        "Would Gabe enjoy a jazz festival?",
        "Likely yes; he plays the saxophone",
        "yes, probably, as a saxophone player",
        "No; he dislikes live music",
        "Gabe",
        "yes",
    ),
    Fact(
        "Would Iris want to go camping?",
        "Likely no; she hates sleeping outdoors",
        "probably not, since she hates sleeping outdoors",
        "Yes; she loves the outdoors",
        "Iris",
        "yes",
    ),
    Fact(
        "Is Noor likely to adopt another dog?",
        "Likely yes",
        "yes, most likely",
        "No",
        "Noor",
        "yes",
    ),
    Fact(
        "Would Dario read a book about sailing?",
        "Yes, since he sails every summer",
        "yes, he sails each summer",
        "No, he gets seasick",
        "Dario",
        "yes",
    ),
    Fact("How many siblings does Mei have?", "three", "3 siblings", "two", "Mei", "number"),
    Fact("How many marathons has Arjun run?", "5", "five marathons", "7", "Arjun", "number"),
    Fact("How many years did Elena live in Lisbon?", "4 years", "four years", "6 years", "Elena", "number"),
    Fact(
        "What did Sami and his father build?",
        "a treehouse",
        "a house up in the oak tree",
        "a garden shed",
        "Sami",
    ),
    Fact(
        "Why did Yusuf quit the band?",
        "to focus on his studies",
        "he wanted to concentrate on studying",
        "because of an argument with the drummer",
        "Yusuf",
    ),
    Fact(
        "What did Lucia paint for her mother?",
        "a portrait of the family dog",
        "a painting of their dog",
        "a landscape of the coast",
        "Lucia",
    ),
    Fact(
        "What car did Viktor buy?", "an electric hatchback", "a small electric car", "a diesel van", "Viktor"
    ),
    Fact(
        "What was Ada's research about?",
        "coral reef recovery",
        "how coral reefs recover",
        "deep-sea mining",
        "Ada",
    ),
    Fact(
        "What did Ruth volunteer at?",
        "the animal shelter",
        "volunteering with shelter animals",
        "the library",
        "Ruth",
    ),
)

_VAGUE = {
    "entity": "Something they mentioned once in passing.",
    "list": "A few different things they like to do.",
    "date": "At some point during the year.",
    "state": "They had some feelings about it.",
    "yes": "It depends on a lot of things.",
    "number": "A number of them.",
}

Template = Callable[[Fact], "str | None"]


def _right_templates() -> dict[str, Template]:
    return {
        "long-sentence": lambda f: (
            f"Based on what was said in the conversation, the answer is {f.gold}. {f.subject} brought it up"
            " while they were catching up, and it seemed to matter a lot to them."
        ),
        "markdown": lambda f: f"**Answer:** {f.gold}",
        "preamble": lambda f: f"According to the chat history, {f.gold}.",
        "paraphrase": lambda f: f"From what {f.subject} said, {f.paraphrase}.",
        "bullets": lambda f: "\n".join(f"- {item}" for item in f.items) if f.kind == "list" else None,
        "partial-list-in-prose": lambda f: (
            f"{f.subject} mentioned a few things, including {f.items[0]} and {f.items[-1]}, while talking"
            " about their week."
            if f.kind == "list" and len(f.items) > 2
            else None
        ),
        "list-with-extra": lambda f: (
            f"{', '.join(f.items)}, and also {_other_item(f)}" if f.kind == "list" else None
        ),
        "plain-yes": lambda f: ("Yes." if "yes" in f.gold.lower() else "No.") if f.kind == "yes" else None,
    }


def _wrong_templates() -> dict[str, Template]:
    return {
        "specific-wrong": lambda f: f"Based on the conversation, the answer is {f.wrong}.",
        "vague": lambda f: _VAGUE[f.kind],
        "abstention": lambda f: "The conversation does not say anything about that.",
        "hedge": lambda f: (
            f"It was either {f.gold} or {f.wrong}, I am not sure which." if f.kind not in ("yes",) else None
        ),
        "denied": lambda f: f"It was not {f.gold}." if f.kind in ("entity", "date", "number") else None,
    }


def _other_item(fact: Fact) -> str:
    """An item of the wrong answer that the gold list does not have."""
    golden = {item.lower() for item in fact.items}
    parts = [part.strip() for chunk in fact.wrong.split(",") for part in chunk.split(" and ")]
    return next(part for part in parts if part and part.lower() not in golden)


def styled_answers() -> list[dict[str, Any]]:
    """Every fact answered in every style that fits it, as labelled cases (`metaeval`'s records)."""
    return list(_records())


def _records() -> Iterator[dict[str, Any]]:
    number = 0
    for right, templates in ((True, _right_templates()), (False, _wrong_templates())):
        for style, template in templates.items():
            for fact in FACTS:
                answer = template(fact)
                if answer is None:
                    continue
                number += 1
                yield {
                    "id": f"answer-style-{number:03d}",
                    "kind": "answer",
                    "class": f"styled {style}",
                    "payload": {
                        "question": fact.question,
                        "expected": fact.gold,
                        "answer": answer,
                        "rule": "generous",
                    },
                    "label": {"correct": right},
                    "note": f"{'right' if right else 'wrong'}: {style} ({fact.kind})",
                }
