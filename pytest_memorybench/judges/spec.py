"""`--judge` specs: parse the text and build the judge.

Forms:
  local                        the offline matcher (default), no network, no cache
  local-semantic               the same, reading answers by meaning with WordLlama where its rules
                               refuse for want of words (the `embeddings` extra)
  openai:MODEL[@URL]           OpenAI chat completions (URL: any compatible server)
  anthropic:MODEL[@URL]        Anthropic messages
  http(s)://HOST/.../v1        an OpenAI-compatible server; the model is its first listed one
The model forms are parsed by `agents/spec.py`, so agents and judges accept the same spellings.
Errors are `UsageError`s of one line: pytest prints them and exits with code 4.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pytest_memorybench.agents.spec import API_KEY_VARIABLES, LLM_PROVIDERS, parse_agent_spec
from pytest_memorybench.core.errors import UsageError, mask_credentials, usage_error
from pytest_memorybench.core.names import suggest
from pytest_memorybench.judges.panel import panel_name
from pytest_memorybench.models.limits import RateLimits

if TYPE_CHECKING:
    from pytest_memorybench.judges.client import CachedJudge

JudgeKind = Literal["local", "openai", "anthropic"]
SEMANTIC = "local-semantic"
JUDGE_FORMS = "local, local-semantic, openai:MODEL[@URL], anthropic:MODEL[@URL] or http(s)://HOST:PORT/v1"
DEFAULT_CACHE = Path(".memorybench") / "judge-cache.sqlite"
_URL = re.compile(r"^https?://\S+$")


@dataclass(frozen=True)
class JudgeSpec:
    """What `--judge` names: the local judge, or a model at a provider or URL."""

    text: str
    kind: JudgeKind
    model: str | None = None  # None for local, and for a bare URL until the server is asked
    base_url: str | None = None

    @property
    def display(self) -> str:
        """The spec as shown in reports and logs: any user:password@ in a URL is masked."""
        return mask_credentials(self.text)


def parse_judge_spec(text: str) -> JudgeSpec:
    """`--judge`'s text as a spec, or one line saying what is wrong with it."""
    spec = text.strip()
    if not spec:
        raise usage_error(f"--judge is empty: give one of {JUDGE_FORMS}")
    if spec in ("local", SEMANTIC):
        return JudgeSpec(spec, "local")
    prefix, sep, _ = spec.partition(":")
    if _URL.match(spec) or (sep and prefix in LLM_PROVIDERS):
        try:
            parsed = parse_agent_spec(spec)
        except UsageError as exc:
            raise usage_error(str(exc).replace("--agent", "--judge", 1)) from None
        return JudgeSpec(spec, parsed.kind, parsed.target or None, parsed.base_url)  # type: ignore[arg-type]
    listing = f"judges: {JUDGE_FORMS}"
    if sep:
        hint = suggest(prefix, LLM_PROVIDERS, where=listing)
        raise usage_error(f"--judge {spec!r}: unknown judge prefix {prefix!r}; {hint}")
    raise usage_error(f"--judge {spec!r} is not a judge; {suggest(spec, ('local', SEMANTIC), where=listing)}")


@dataclass(frozen=True)
class PanelSettings:
    """How often and by whom each task is judged (`judges/panel.py`): `--mb-jury`,
    `--mb-judge-repeats`, `--mb-judge-band`.  No jurors: `--judge` alone."""

    jurors: tuple[JudgeSpec, ...] = ()
    repeats: int = 1
    band: bool = False

    @classmethod
    def from_options(cls, jury: str | None, repeats: int | None, band: bool, judge: str) -> PanelSettings:
        """The options read and checked, each mistake one line."""
        repeats = 1 if repeats is None else repeats
        if not 1 <= repeats <= MAX_REPEATS:
            raise usage_error(f"--mb-judge-repeats {repeats} must be from 1 to {MAX_REPEATS}")
        if jury is None:
            return cls((), repeats, band)
        if judge.strip() != "local":
            raise usage_error(
                f"--judge {judge} and --mb-jury both name the judge: give the jury alone (it may include"
                f" {judge})"
            )
        texts = [text.strip() for text in jury.split(",")]
        if len(texts) < 2 or not all(texts):
            raise usage_error(
                f"--mb-jury {jury!r}: give two or more judges separated by commas, e.g."
                " local,openai:gpt-4o-mini"
            )
        jurors = []
        for text in texts:
            try:
                jurors.append(parse_judge_spec(text))
            except UsageError as exc:
                raise usage_error(str(exc).replace("--judge", "--mb-jury", 1)) from None
        repeated = sorted({spec.display for spec in jurors if [j.text for j in jurors].count(spec.text) > 1})
        if repeated:
            raise usage_error(
                f"--mb-jury names {', '.join(repeated)} twice: a juror asked again is --mb-judge-repeats"
            )
        return cls(tuple(jurors), repeats, band)

    def name_for(self, judge: JudgeSpec) -> str:
        """The name the run's panel will have (`panel.panel_name`), before it is built."""
        specs = self.jurors or (judge,)
        asks_again = any(spec.kind != "local" for spec in specs)
        return panel_name([spec.display for spec in specs], self.repeats if asks_again else 1)

    def describe(self, judge: JudgeSpec) -> str:
        """The judge as the run's header says it: the panel's name, and the band when asked."""
        return self.name_for(judge) + (" · rubric band" if self.band else "")


MAX_REPEATS = 25


def build_judge(
    spec: str | JudgeSpec,
    *,
    cache_path: Path | None,
    max_concurrency: int = 4,
    max_attempts: int = 3,
    api_key: str | None = None,
    timeout: float | None = 120.0,
    retry_attempts: int = 6,
    min_wait: float = 1.0,
    max_wait: float = 60.0,
    max_output_tokens: int = 1024,
    limits: RateLimits | None = None,
) -> CachedJudge:
    """The judge a spec names, behind `CachedJudge`.

    `cache_path` is where LLM verdicts are kept (callers pass `<rootdir>/DEFAULT_CACHE`; None: no
    cache); the local judge is never cached.  `max_attempts` bounds re-asks for unusable replies,
    `retry_attempts` / `min_wait` / `max_wait` the retries of transient HTTP failures.
    """
    from pytest_memorybench.judges.client import CachedJudge

    if isinstance(spec, str):
        spec = parse_judge_spec(spec)
    if spec.kind == "local":
        from pytest_memorybench.judges.local import LocalJudge
        from pytest_memorybench.judges.local.semantic import SemanticJudge

        local = SemanticJudge() if spec.text == SEMANTIC else LocalJudge()
        return CachedJudge(local, cache_path=None, max_concurrency=max_concurrency, max_attempts=1)
    if spec.base_url is None and not (api_key or os.environ.get(API_KEY_VARIABLES[spec.kind])):
        variable = API_KEY_VARIABLES[spec.kind]
        raise usage_error(
            f"--judge {spec.display}: {variable} is not set; export it, or point the judge at a compatible "
            f"server with {spec.kind}:MODEL@URL"
        )
    from pytest_memorybench.judges.backends import AnthropicJudgeBackend, OpenAIJudgeBackend

    backend_class = OpenAIJudgeBackend if spec.kind == "openai" else AnthropicJudgeBackend
    backend = backend_class(
        spec.model,
        base_url=spec.base_url,
        api_key=api_key,
        timeout=timeout,
        max_attempts=retry_attempts,
        min_wait=min_wait,
        max_wait=max_wait,
        max_output_tokens=max_output_tokens,
        limits=limits,
    )
    return CachedJudge(
        backend, cache_path=cache_path, max_concurrency=max_concurrency, max_attempts=max_attempts
    )


def check_judge_spec(spec: JudgeSpec) -> None:
    """Fail early, in one line, if a judge server named by URL does not answer at all."""
    if spec.base_url is not None:
        from pytest_memorybench.models.http import probe_server

        try:
            probe_server(spec.base_url, spec.display)
        except UsageError as exc:
            raise usage_error(str(exc).replace("--agent", "--judge", 1)) from None
