"""Scenarios written in a suite file alone: script lines, waits, a question and a scorer.

    scenarios:
      - scenario: mine.pet_name
        repetitions: 2
        define:
          script:
            - My dog is called Biscuit.
            - say: I also have a cat called Pepper.
              wait: {percentage: 60}
          question: What is my dog called?
          expected: Biscuit
          scorer: contains                 # or {name: regex, pattern: '\\bBiscuit\\b'} …
          skills: [recall]

Lines without a `wait` are spread over 90 % of the span, as the built-in scenarios are.  The
scorers are the library's: `contains` (whole word), `exact`, `regex`, `rouge_l`, `json_list`,
`choice`, and `judge` (the GoodAI checker, asked of `--judge`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.errors import UsageError, usage_error
from pytest_memorybench.core.names import suggest
from pytest_memorybench.core.records import Score, ScriptLine, TestDefinition
from pytest_memorybench.scenarios.waits import spread_over_span

_DEFINE_KEYS = {"script", "question", "expected", "ideal", "scorer", "skills", "reset"}
_WAIT_KEYS = {"tokens": "tokens", "minutes": "time", "hours": "time", "percentage": "percentage_finished"}


def _contains(expected: Any, reply: str, question: str, context: ScoringContext, **params: Any) -> Score:
    from pytest_memorybench.scoring.exact import score_contains

    return score_contains(str(expected), reply, **params)


def _exact(expected: Any, reply: str, question: str, context: ScoringContext, **params: Any) -> Score:
    from pytest_memorybench.scoring.exact import score_exact

    return score_exact(str(expected), reply, **params)


def _regex(expected: Any, reply: str, question: str, context: ScoringContext, pattern: str) -> Score:
    from pytest_memorybench.scoring.exact import score_regex

    return score_regex(pattern, reply)


def _rouge_l(expected: Any, reply: str, question: str, context: ScoringContext, **params: Any) -> Score:
    from pytest_memorybench.scoring.rouge import score_rouge_l

    return score_rouge_l(str(expected), reply, **params)


def _json_list(expected: Any, reply: str, question: str, context: ScoringContext) -> Score:
    from pytest_memorybench.scoring.jsonlist import score_json_list

    return score_json_list([str(item) for item in expected], reply)


def _choice(
    expected: Any, reply: str, question: str, context: ScoringContext, options: Mapping[str, str]
) -> Score:
    from pytest_memorybench.scoring.choice import score_choice

    return score_choice(str(expected), reply, options)


def _judge(expected: Any, reply: str, question: str, context: ScoringContext) -> Awaitable[Score]:
    from pytest_memorybench.judges.local import LocalJudge
    from pytest_memorybench.scoring.judged import score_reference

    return score_reference(
        context.judge or LocalJudge(), question=question, expected=str(expected), answer=reply
    )


# scorer name → (function(expected, reply, question, context, **params), the parameters it takes).  The
# library modules are imported on use: rouge-score alone costs a second at import.
SCORERS: dict[str, tuple[Callable[..., Score | Awaitable[Score]], set[str]]] = {
    "contains": (_contains, {"whole_word"}),
    "exact": (_exact, {"case_sensitive"}),
    "regex": (_regex, {"pattern"}),
    "rouge_l": (_rouge_l, {"threshold"}),
    "json_list": (_json_list, set()),
    "choice": (_choice, {"options"}),
    "judge": (_judge, set()),
}
_REQUIRED = {"regex": {"pattern"}, "choice": {"options"}}


@dataclass(frozen=True)
class YamlScenario:
    """A scenario defined in a suite file alone: its lines, question and scorer."""

    name: str
    skills: tuple[str, ...]
    lines: tuple[ScriptLine, ...]  # the question is the last one
    expected: Any
    ideal: str
    scorer: str
    scorer_params: Mapping[str, Any]
    reset_message: str | None = None

    def generate(self, suite: str, params: Mapping[str, Any], seed: int, repetition: int) -> TestDefinition:
        if params:
            raise usage_error(
                f"scenario {self.name} is defined in YAML and takes no params; change its 'define' block"
            )
        return TestDefinition(
            suite=suite,
            scenario=self.name,
            repetition=repetition,
            seed=seed,
            script=self.lines,
            ideal_answers=(self.ideal,),
            expected=self.expected,
            skills=self.skills,
            params={"scorer": self.scorer, **self.scorer_params},
            reset_message=self.reset_message,
        )

    def score(self, definition: TestDefinition, responses: Sequence[str], context: ScoringContext) -> Any:
        function, _ = SCORERS[self.scorer]
        question = next((line.text for line in reversed(definition.script) if line.is_question), "")
        return function(
            definition.expected, responses[-1] if responses else "", question, context, **self.scorer_params
        )


def parse_yaml_scenario(name: str, define: Any, where: Callable[[str, Any], str]) -> YamlScenario:
    """Build a scenario from a `define` block; `where(key, node)` names the file and line for errors."""

    def fail(key: str, problem: str, node: Any = None) -> UsageError:
        return usage_error(f"{where(key, node)}: scenario {name}: {problem}")

    if not isinstance(define, Mapping):
        raise fail("", "'define' must be a mapping with script, question, expected and scorer")
    unknown = sorted(set(define) - _DEFINE_KEYS)
    if unknown:
        raise fail(
            unknown[0], f"unknown key {unknown[0]!r} in 'define'; {suggest(unknown[0], sorted(_DEFINE_KEYS))}"
        )
    for key in ("script", "question", "expected", "scorer"):
        if key not in define:
            raise fail("", f"'define' needs {key!r}")
    script = define["script"]
    if not isinstance(script, list) or not script:
        raise fail("script", "'script' must be a non-empty list of lines")
    question = define["question"]
    if not isinstance(question, str) or not question.strip():
        raise fail("question", "'question' must be a non-empty string")
    lines = [_script_line(line, index, fail) for index, line in enumerate(script, 1)]
    default_waits = spread_over_span(len(lines) + 1)
    lines = [
        line if line.wait else ScriptLine(line.text, wait=default_waits[index])
        for index, line in enumerate(lines)
    ]
    scorer, params = _scorer(define["scorer"], fail)
    skills = define.get("skills", [])
    if not isinstance(skills, list) or not all(isinstance(skill, str) for skill in skills):
        raise fail("skills", "'skills' must be a list of marker names")
    ideal = define.get("ideal", define["expected"])
    return YamlScenario(
        name=name,
        skills=tuple(skills),
        lines=(*lines, ScriptLine(question, is_question=True)),
        expected=define["expected"],
        ideal=ideal if isinstance(ideal, str) else str(ideal),
        scorer=scorer,
        scorer_params=params,
        reset_message=define.get("reset"),
    )


def _script_line(line: Any, index: int, fail: Callable[..., UsageError]) -> ScriptLine:
    if isinstance(line, str):
        return ScriptLine(line)
    if not isinstance(line, Mapping) or not isinstance(line.get("say"), str) or set(line) - {"say", "wait"}:
        hint = (
            " (a line with ': ' in it needs quotes)"
            if isinstance(line, Mapping) and "say" not in line
            else ""
        )
        raise fail(
            "script", f"script line {index} must be a string or {{say: TEXT, wait: {{...}}}}{hint}", line
        )
    wait = line.get("wait") or {}
    unknown = sorted(set(wait) - set(_WAIT_KEYS)) if isinstance(wait, Mapping) else ["(not a mapping)"]
    if unknown or not all(isinstance(v, (int, float)) and v >= 0 for v in wait.values()):
        raise fail(
            "script",
            f"script line {index}: 'wait' takes non-negative tokens, minutes, hours or percentage",
            line,
        )
    seconds = 60 * wait.get("minutes", 0) + 3600 * wait.get("hours", 0)
    goodai = {
        "tokens": wait.get("tokens", 0),
        "time": seconds,
        "percentage_finished": wait.get("percentage", 0),
    }
    return ScriptLine(line["say"], wait={key: value for key, value in goodai.items() if value})


def _scorer(spec: Any, fail: Callable[..., UsageError]) -> tuple[str, dict[str, Any]]:
    if isinstance(spec, str):
        spec = {"name": spec}
    if not isinstance(spec, Mapping) or spec.get("name") not in SCORERS:
        raise fail("scorer", f"'scorer' must name one of {', '.join(SCORERS)}")
    name = spec["name"]
    params = {key: value for key, value in spec.items() if key != "name"}
    allowed = SCORERS[name][1]
    if set(params) - allowed:
        extra = sorted(set(params) - allowed)[0]
        raise fail(
            "scorer",
            f"scorer {name} takes no parameter {extra!r} (it takes: {', '.join(sorted(allowed)) or 'none'})",
        )
    missing = _REQUIRED.get(name, set()) - set(params)
    if missing:
        raise fail("scorer", f"scorer {name} needs {', '.join(sorted(missing))}")
    return name, params
