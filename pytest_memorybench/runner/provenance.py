"""What a run ran on, recorded in its run.json and results.json so that someone else can check it.

The data files it read (`--mb-data`: each file's or folder's sha256, size and the revision the
user gave), the definitions its code, data and seed made, the versions of the prompts its agent
answers with and of its judge, the memory product's packages, the platform, and this package's
version and commit.  run.json holds it from the start (`Provenance.to_json`), so a resume, a
replay or a merge can tell whether any of it changed since (`drift.py`); results.json adds what
only the run itself learns: the models that answered and the versions services reported.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_memorybench.agents.provenance import answering_prompts, product_versions
from pytest_memorybench.core.digests import Digest, digest, human_size
from pytest_memorybench.core.environment import package_record, platform_record
from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.core.json_values import JsonObject
from pytest_memorybench.judges.base import LOCAL_VERSION
from pytest_memorybench.judges.prompts import BAND_RULES, PROMPTS, prompt_hash
from pytest_memorybench.runner.settings import Settings


@dataclass(frozen=True)
class DataSource:
    """One `--mb-data` file or folder as the run read it."""

    name: str
    path: str
    digest: Digest
    revision: str | None = None

    def to_json(self) -> JsonObject:
        return {
            "path": self.path,
            "sha256": self.digest.sha256,
            "bytes": self.digest.bytes,
            "files": self.digest.files,
            "folder": self.digest.folder,
            "revision": self.revision,
        }

    def describe(self) -> str:
        """For the header: "locomo=locomo10.json sha256 3f2a1b2c… (2.8 MB)"; a folder says its files."""
        name = Path(self.path).name
        revision = f"@{self.revision}" if self.revision else ""
        files = f"{self.digest.files} files, " if self.digest.folder else ""
        return (
            f"{self.name}={name}{revision} sha256 {self.digest.sha256[:8]}… "
            f"({files}{human_size(self.digest.bytes)})"
        )


def read_sources(settings: Settings) -> dict[str, DataSource]:
    """Each `--mb-data` file or folder, hashed once (a folder: every file in it, streamed)."""
    sources = {}
    for name, path in sorted(settings.data.items()):
        try:
            found = digest(Path(path))
        except OSError as exc:
            raise usage_error(
                f"--mb-data {name}={path}: cannot be read ({exc.strerror or exc}); give a file or folder you"
                " can read"
            ) from None
        sources[name] = DataSource(name, path, found, settings.revisions.get(name))
    return sources


def judge_record(settings: Settings) -> JsonObject:
    """The judge as planned: its name, the options that make it again, and the version of each of
    its prompts (an LLM juror's) and of the local judge's rules (a local juror's)."""
    panel = settings.panel
    jurors = panel.jurors or (settings.judge,)
    prompts: dict[str, str] = {}
    if any(spec.kind != "local" for spec in jurors):
        prompts = {kind: prompt_hash(kind) for kind in sorted(PROMPTS)}
        if panel.band:
            prompts.update({f"answer/{rule}": prompt_hash("answer", rule) for rule in sorted(BAND_RULES)})
    return {
        "name": panel.name_for(settings.judge),
        "judge": settings.judge.display,
        "jury": [spec.display for spec in panel.jurors],
        "repeats": panel.repeats,
        "band": panel.band,
        "prompts": prompts,
        "local_version": LOCAL_VERSION if any(spec.kind == "local" for spec in jurors) else None,
    }


@dataclass(frozen=True)
class Provenance:
    """What a run ran on, as far as it is known before anything is driven."""

    data: dict[str, DataSource]
    definitions: str  # plan.Plan.generated
    answer_prompts: dict[str, str]
    judge: JsonObject  # judge_record
    products: dict[str, str | None]
    platform: dict[str, str] = field(default_factory=platform_record)
    package: dict[str, str | None] = field(default_factory=package_record)
    drift: tuple[str, ...] = ()  # what changed since the run this one continues, let through

    @classmethod
    def of(cls, settings: Settings, definitions: str, data: dict[str, DataSource]) -> Provenance:
        return cls(
            data=data,
            definitions=definitions,
            answer_prompts=answering_prompts(settings.agent),
            judge=judge_record(settings),
            products=product_versions(settings.agent),
        )

    def to_json(self) -> JsonObject:
        """run.json's `provenance`; results.json's, without what the run learns (`results_record`)."""
        return {
            "data": {name: source.to_json() for name, source in self.data.items()},
            "definitions": self.definitions,
            "answer_prompts": dict(self.answer_prompts),
            "judge": dict(self.judge),
            "products": dict(self.products),
            "platform": dict(self.platform),
            "package": dict(self.package),
            "drift": list(self.drift),
        }

    def data_line(self, seed: int) -> str:
        """The header's line of what the run reads: each data file, or that its data is generated."""
        if not self.data:
            return f"data generated from seed {seed} (no --mb-data file read)"
        return "data " + ", ".join(source.describe() for source in self.data.values())


def results_record(
    recorded: Mapping[str, Any],
    models: Mapping[str, list[str]],
    servers: Mapping[str, str],
) -> JsonObject:
    """results.json's `run.provenance`: run.json's, with the models that answered each model asked
    for (as the responses named them) and the version each product's service reported."""
    return {**recorded, "models": dict(models), "servers": dict(servers)}
