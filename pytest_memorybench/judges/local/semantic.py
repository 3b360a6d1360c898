"""The `local-semantic` judge: the local judge, and where its rules refuse an answer only for want of
the expected answer's words, a reading by meaning with WordLlama (the `embeddings` extra).

The local judge matches words, stems and values, so a right answer in other words ("he is doing
well" for "doing great", "to concentrate on studying" for "to focus on his studies") is refused.
This judge takes the expected answer's informative words the answer lacks, finds for each the
closest word or pair of words of the answer by WordLlama's similarity, and accepts the answer when
every one has a match at `THRESHOLD` or above ("great" ~ "well", "focus" ~ "concentrate",
"treehouse" ~ "oak tree").  Word by word, because a whole-phrase similarity is carried by the
words the two share: "Tomatoes and peppers" is close to "Tomatoes and basil" as phrases, while
"peppers" is not close to "basil".  It is a judge of its own name, so that
verdicts cached or compared under `local` never change with an install: its rules version names
the local rules, this layer's version and WordLlama's.

It never overrides a refusal the rules made for a reason a paraphrase cannot mend: the answer
abstains, names something else, offers alternatives ("or", "maybe"), negates, or the expected
answer has a date or a number (values are the rules' to compare).  Only the `answer` task under a
rule that reads content (`generous`, `contains`, `update`, `topic`) is read by meaning.

The threshold was chosen on the judge check's first labelled set
(`judge_check/data/answer_cases.jsonl`): about twice the closest a wrong answer's words come there
(0.23); its second set (`judge_check/answer_styles.py`) measures it on answers it was not chosen on.
"""

from __future__ import annotations

import re

from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.core.wordllama import wordllama_model, wordllama_version
from pytest_memorybench.judges.base import JudgeTask, JudgeVerdict
from pytest_memorybench.judges.local import VERSION, LocalJudge
from pytest_memorybench.judges.local.gist import informative, other_name
from pytest_memorybench.judges.local.text import abstains, analyse, word_found

LAYER = "semantic-1"  # bump when THRESHOLD or the guards change
THRESHOLD = 0.45
NAME = "local-semantic"
_READS_CONTENT = frozenset({"generous", "contains", "update", "topic"})
_DOUBT = re.compile(r"\b(?:or|either|maybe|perhaps|possibly|probably|not|never|no)\b|n't\b", re.IGNORECASE)


class SemanticJudge(LocalJudge):
    """`--judge local-semantic`."""

    name = NAME

    def __init__(self) -> None:
        super().__init__()
        # Not `model`: a judge's `model` names the LLM it asks (results record it), and this one asks none.
        self.embedder = wordllama_model("--judge local-semantic")
        self.version = f"{VERSION}+{LAYER}+wordllama-{wordllama_version()}"
        self.stats.version = self.version

    def judge_now(self, task: JudgeTask) -> JudgeVerdict:
        verdict = super().judge_now(task)
        if task.kind != "answer" or not verdict.ok or (verdict.data or {}).get("correct"):
            return verdict
        closeness = self.closeness(task.payload)
        if closeness is None or closeness < THRESHOLD:
            return verdict
        return JudgeVerdict(
            task.kind,
            {
                "correct": True,
                "reason": f"the answer says the expected answer in other words ({closeness:.2f})",
            },
        )

    def closeness(self, payload: JsonObject) -> float | None:
        """How close the answer is to the expected one by meaning, or None when meaning may not decide."""
        expected, answer = str(payload["expected"]), str(payload["answer"] or "")
        question = str(payload.get("question") or "")
        wanted = analyse(expected)
        if payload.get("rule") not in _READS_CONTENT or wanted.dates or wanted.numbers or wanted.times:
            return None
        if abstains(answer) or _DOUBT.search(answer) or other_name(expected, answer, question) is not None:
            return None
        given = analyse(answer).content_set
        missing = [word for word in informative(expected, question) if not word_found(word, given)]
        if not missing:
            return None  # the rules refused it for what it says, not for the words it uses
        words = re.findall(r"[^\W\d_][\w'-]*", answer)
        pieces = words + [" ".join(pair) for pair in zip(words, words[1:], strict=False)]
        if not pieces:
            return None
        surface = {stem: _surface(stem, expected) for stem in missing}
        return min(
            max(float(self.embedder.similarity(surface[stem], piece)) for piece in pieces) for stem in missing
        )


def _surface(stem: str, text: str) -> str:
    """The word of `text` that `stem` was analysed from ("studies" for "studi"), or the stem."""
    return next((word for word in re.findall(r"[\w'-]+", text) if analyse(word).content[:1] == (stem,)), stem)
