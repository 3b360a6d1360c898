"""ChapterBreak (skills recall, information integration): which of six openings starts the next chapter?

GoodAI paper App. A.11, on data from ChapterBreak (Sun et al., NAACL 2022): the agent is read a
long stretch of a story (about 8k tokens, roughly ten chapters) in pages, then six candidate
beginnings for the next chapter — the true one and five beginnings of other chapters of the same
book — and is asked for the number of the true one.  The benchmark uses only samples the authors
checked to be solvable (the "goodai" selection), with the chapter numbers that give the answer
away removed from the options.

Data.  ChapterBreak is published by its authors (Apache-2.0): https://github.com/SimengSun/ChapterBreak,
whose README links the data folder holding the 8k-context file `chapterbreak_ctx_8192.json`;
GoodAI re-hosts it zstd-compressed as the v1.1 release asset `chapterbreak_ctx_8192.zst` of
GoodAI/goodai-ltm-benchmark (the Google Drive link had been throttled, their issue #62).  We ship no
passages: pass the file with `--mb-data chapterbreak=PATH` (it becomes the `data_path` parameter).
Without it the generated definitions carry a `skip_reason` saying how to get it.  Accepted layouts
(plain JSON; a `.zst` file is read when the `zstd` extra, the `zstandard` package, is installed):
  * the published one: {"pg19": {book_id: [sample, …]}, "ao3": {…}}, sample ids `<book_id>_<i>`;
  * a list of samples, each with `id` (else its position), or a dict id → sample.
A sample is {"ctx": str, "pos": str, "negs": [str, …]}: the context, the true next-chapter
beginning and the wrong ones (a list of strings is joined with spaces, for hand-made data).

Selection (`split`): on the published layout "goodai" keeps the four samples GoodAI marked solvable
(ids below, facts from their selection list), "ao3" / "pg19" / "all" the named part; a flat list or
dict is taken as already selected and used whole.  Sample ids are sorted and shuffled once per
seed, and repetition r takes the r-th (cycling), so repetitions read different samples.  The true
beginning is put at a seeded position among the options.

Clean-up (paper: "those indicative statements were removed").  The reference rewrites the wrong
options' chapter numbers into the true one's with a hand-written regex per sample; we instead strip
a leading chapter heading ("\\t9. Chapter 9", "12.", "Chapter XII:") from every option, so no option
carries a number at all.  The context is paged as the reference does — split after ". " into pages
of at most `page_tokens` tokens, "1st page:" … "Nth and last page:" — except that the sentence that
overflows a page opens the next one (the reference drops it); long options are paged the same way.
Page sizes are counted with the approximate counter so that definitions are identical on every
machine.  All lines arrive without waits: the test is delivered uninterrupted.

The paper excludes ChapterBreak from its 2k configuration, whose span the ~8k-token context would
overrun; leaving it out of suites with spans below 8k is the suite file's job, not the generator's.

Scoring (one question): 1 iff the set of digit runs in the reply is exactly {correct option}
("Option 3" scores, "3 or 4" and "three" do not).  Paper and official rules coincide (the paper
calls it a straightforward comparison; the reference code applies this digit-set rule), so the
profile does not matter.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.core.load_report import LoadReport, LoadTally
from pytest_memorybench.core.readers import reading
from pytest_memorybench.core.records import Score, ScriptLine, TestDefinition
from pytest_memorybench.core.spans import MAX_SPAN_TOKENS
from pytest_memorybench.core.tokens import ApproximateCounter
from pytest_memorybench.scenarios.base import definition
from pytest_memorybench.scenarios.ltm.goodai_format import GoodAIDefinitionFile, goodai_definition
from pytest_memorybench.scenarios.opening import seeded
from pytest_memorybench.scenarios.params import at_least, read_params

NAME = "ltm.chapterbreak"
SKILLS = ("recall", "information_integration")

SOURCE_URL = "https://github.com/SimengSun/ChapterBreak"
GOODAI_ASSET = (
    "https://github.com/GoodAI/goodai-ltm-benchmark/releases/download/v1.1/chapterbreak_ctx_8192.zst"
)
GOODAI_SOLVABLE = ("12653258_1", "47583370_7", "90051444_0", "92666381_1")  # marked solvable by GoodAI
SPLITS = ("goodai", "ao3", "pg19", "all")

INTRO = (
    "I am about to read you a few pages of a book, several chapters long. "
    "There is no need to comment; just listen carefully. All right?"
)
OPTIONS_INTRO = (
    "Next come {n} candidate openings for the chapter that follows. "
    "No comment is needed; just read each of them carefully. Ready?"
)
QUESTION = (
    "Which of the options is the real beginning of the next chapter?\n"
    "Reply with a single digit: the number of that option."
)
RESET_MESSAGE = "Please forget the chapters I read to you and the possible continuations I gave you."

_SPELLED = (
    "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|"
    "seventeen|eighteen|nineteen|twenty(?:-\\w+)?|thirty(?:-\\w+)?|forty(?:-\\w+)?"
)
_HEADING = re.compile(
    rf"^\s*(?:\d{{1,3}}\s*\.\s*)?(?:chapter\s+(?:\d+|[ivxlc]+|{_SPELLED})\b\s*[.:\-–—]?\s*)?",
    re.IGNORECASE,
)
OPTION_COUNT = 6  # the true beginning and five wrong ones, as in ChapterBreak and the paper
_COUNTER = ApproximateCounter()


@dataclass(frozen=True)
class ChapterBreakParams:
    """Where the ChapterBreak data is, which split, and the page size it is delivered in."""

    data_path: str = ""
    split: str = "goodai"
    page_tokens: int = 1000

    def __post_init__(self) -> None:
        if self.split not in SPLITS:
            raise ValueError(f"split must be one of {', '.join(SPLITS)}, got {self.split!r}")
        at_least("page_tokens", self.page_tokens, 50, MAX_SPAN_TOKENS)


@dataclass(frozen=True)
class Sample:
    """One ChapterBreak sample: the context, the true next chapter and the distractors."""

    id: str
    ctx: str
    pos: str
    negs: tuple[str, ...]


def skip_reason() -> str:
    """Why ChapterBreak items are skipped without data, and where to get it."""
    return (
        "ChapterBreak needs its data, which is not shipped: download chapterbreak_ctx_8192.json from the"
        f" data folder linked in {SOURCE_URL} (or GoodAI's copy {GOODAI_ASSET}, decompressed with `zstd -d`)"
        " and run with --mb-data chapterbreak=PATH/chapterbreak_ctx_8192.json"
    )


class ChapterBreak:
    """`ltm.chapterbreak`: which of several chapter openings follows a long text."""

    name = NAME
    skills = SKILLS

    def generate(self, suite: str, params: Mapping[str, Any], seed: int, repetition: int) -> TestDefinition:
        settings = read_params(ChapterBreakParams, NAME, params)
        if not settings.data_path:
            params = asdict(settings)
            return definition(
                self,
                suite,
                repetition,
                seed,
                (),
                (),
                None,
                params,
                reset_message=RESET_MESSAGE,
                skip_reason=skip_reason(),
            )
        samples = load_samples(settings.data_path, settings.split)
        order = sorted(samples, key=lambda sample: sample.id)
        random.Random(f"{NAME}|{seed}").shuffle(order)
        sample = order[(repetition - 1) % len(order)]
        rng = seeded(NAME, seed, repetition)
        options = [clean_option(sample.pos)] + [clean_option(neg) for neg in sample.negs[: OPTION_COUNT - 1]]
        wrong = options[1:]
        rng.shuffle(wrong)
        answer = rng.randrange(len(options))
        options = wrong[:answer] + [options[0]] + wrong[answer:]
        lines = [INTRO, *paged(sample.ctx, settings.page_tokens), OPTIONS_INTRO.format(n=len(options))]
        for number, option in enumerate(options, 1):
            lines.extend(paged(option, settings.page_tokens, prefix=f"Option {number}"))
        lines.append(QUESTION)
        expected = str(answer + 1)
        params = {**asdict(settings), "sample_id": sample.id}
        return definition(
            self,
            suite,
            repetition,
            seed,
            tuple(ScriptLine(text, is_question=text == QUESTION) for text in lines),
            (expected,),
            expected,
            params,
            reset_message=RESET_MESSAGE,
        )

    def data_report(self, params: Mapping[str, Any]) -> LoadReport | None:
        """What the data file holds and what the split leaves out (the suite counts the items)."""
        settings = read_params(ChapterBreakParams, NAME, params)
        if not settings.data_path:
            return None
        tally = LoadTally()
        load_samples(settings.data_path, settings.split, tally)
        return tally.report()

    def from_goodai(
        self, raw: GoodAIDefinitionFile, example_id: str, suite: str, repetition: int
    ) -> TestDefinition:
        """A GoodAI ChapterBreak definition: its pages and options as they are, its option number."""
        expected = str(raw["expected_responses"][0]).strip()
        return goodai_definition(
            self, raw, example_id, suite, repetition, (expected,), expected, reset_message=RESET_MESSAGE
        )

    def score(self, definition: TestDefinition, responses: Sequence[str], context: ScoringContext) -> Score:
        return score_option(str(definition.expected), responses[-1] if responses else "")


def score_option(expected: str, reply: str) -> Score:
    """1 iff the digit runs of the reply are exactly {expected} (the reference's rule)."""
    numbers = sorted(set(re.findall(r"\d+", reply)), key=lambda run: (len(run), run))
    if numbers == [expected]:
        return Score(1.0, (f"the reply names option {expected} and no other number",))
    if not numbers:
        return Score(0.0, (f"the reply names no option number; the answer is {expected}",))
    return Score(0.0, (f"the reply names {', '.join(numbers)}; the answer is {expected} alone",))


# -- data ---------------------------------------------------------------------------------------


def load_samples(path: str, split: str = "goodai", tally: LoadTally | None = None) -> list[Sample]:
    """The samples of a ChapterBreak file, selected as `split` says (see the module docstring);
    `tally` counts what the file holds and what the split or the options leave out."""
    tally = tally if tally is not None else LoadTally()
    raw = _read(Path(path))
    if _is_published(raw):
        every = {
            f"{book}_{index}": chapter
            for part in ("pg19", "ao3")
            for book, chapters in raw.get(part, {}).items()
            for index, chapter in enumerate(chapters)
        }
        tally.held("samples", len(every))
        parts = ["pg19", "ao3"] if split in ("goodai", "all") else [split]
        found = {
            f"{book}_{index}": chapter
            for part in parts
            for book, chapters in raw.get(part, {}).items()
            for index, chapter in enumerate(chapters)
        }
        if split == "goodai":
            found = {key: value for key, value in found.items() if key in GOODAI_SOLVABLE}
            for missing in sorted(set(GOODAI_SOLVABLE) - set(found)):
                tally.note("samples GoodAI marked solvable that the file lacks", missing)
        if len(every) > len(found):
            tally.note(f"samples outside split {split!r}", count=len(every) - len(found))
    elif isinstance(raw, list):
        found = {
            str(item.get("id", index)) if isinstance(item, dict) else str(index): item
            for index, item in enumerate(raw)
        }
    elif isinstance(raw, dict):
        found = dict(raw)
    else:
        raise usage_error(f"{path}: not a ChapterBreak file (expected a JSON object or list of samples)")
    if not _is_published(raw):
        tally.held("samples", len(found))
    samples = [_sample(key, value, path) for key, value in found.items()]
    if not samples:
        raise usage_error(f"{path}: no ChapterBreak samples for split {split!r}")
    for sample in samples:
        if len(sample.negs) > OPTION_COUNT - 1:
            tally.note(
                f"wrong beginnings past the {OPTION_COUNT - 1} an item offers, not used",
                sample.id,
                len(sample.negs) - (OPTION_COUNT - 1),
            )
    return samples


def _is_published(raw: Any) -> bool:
    """The authors' layout: {"pg19": {book: [sample, …]}, "ao3": {…}}."""
    return (
        isinstance(raw, dict)
        and bool(raw)
        and set(raw) <= {"pg19", "ao3"}
        and all(isinstance(v, dict) for v in raw.values())
    )


def _read(path: Path) -> Any:
    """The file's JSON, read once per version of the file (every repetition samples from it)."""
    try:
        stat = path.stat()
    except OSError as exc:
        raise usage_error(f"ChapterBreak data {path}: {exc.strerror or exc}") from None
    return _parsed(str(path), stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=1)
def _parsed(name: str, mtime: int, size: int) -> Any:
    path = Path(name)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise usage_error(f"ChapterBreak data {path}: {exc.strerror or exc}") from None
    if path.suffix == ".zst":
        try:
            import zstandard
        except ImportError:
            raise usage_error(
                f"{path}: compressed with zstd; install the `zstd` extra (pip install"
                f" 'pytest-memorybench[zstd]') or decompress it first (`zstd -d {path.name}`)"
            ) from None
        data = zstandard.ZstdDecompressor().decompressobj().decompress(data)
    with reading(f"ChapterBreak data {path}"):
        return json.loads(data.decode("utf-8"))


def _text(value: Any) -> str:
    return " ".join(str(part) for part in value) if isinstance(value, list) else str(value)


def _sample(key: str, value: Any, path: str) -> Sample:
    if not isinstance(value, dict) or not {"ctx", "pos", "negs"} <= set(value):
        raise usage_error(f"{path}: sample {key!r} needs the fields ctx, pos and negs")
    negs = value["negs"] if isinstance(value["negs"], list) else [value["negs"]]
    if not negs:
        raise usage_error(f"{path}: sample {key!r} has no wrong beginnings (negs)")
    return Sample(
        str(value.get("id", key)), _text(value["ctx"]), _text(value["pos"]), tuple(_text(neg) for neg in negs)
    )


def clean_option(text: str) -> str:
    """The option without a leading chapter heading ("\\t9. Chapter 9", "Chapter XII:", "12.")."""
    heading = _HEADING.match(text)
    rest = text[heading.end() :] if heading else text
    return rest if rest.strip() else text


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, ... 11th, 12th, 13th, ... 21st."""
    suffix = "th" if 11 <= n % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def split_pages(text: str, page_tokens: int) -> list[str]:
    """Sentences (split after ". ") gathered into pages of at most `page_tokens` tokens.

    A sentence longer than a page forms a page of its own; no sentence is dropped.
    """
    separator = ". "
    pages: list[list[str]] = []
    size = 0
    for sentence in text.split(separator):
        length = _COUNTER.count(sentence)
        if pages and pages[-1] and size + 1 + length <= page_tokens:
            pages[-1].append(sentence)
            size += 1 + length
        else:
            pages.append([sentence])
            size = length
    return [separator.join(page) for page in pages if any(part.strip() for part in page)]


def paged(text: str, page_tokens: int, prefix: str = "") -> list[str]:
    """Script lines for `text`: "1st page:", …, "Nth and last page:" (under `prefix` when given)."""
    pages = split_pages(text, page_tokens) or [text]
    if len(pages) == 1 and prefix:
        return [f"{prefix}:\n\n{pages[0]}"]
    lines = []
    for index, page in enumerate(pages):
        label = (
            f"{ordinal(index + 1)}{' and last' if index == len(pages) - 1 and len(pages) > 1 else ''} page"
        )
        lines.append(f"{f'{prefix} ({label})' if prefix else label}:\n\n{page}")
    return lines


SCENARIO = ChapterBreak()
