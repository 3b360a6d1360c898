"""Who judged a run: the record that makes every verdict traceable, and the test that two runs were
judged alike.

The same replies can score 91 % under one grading prompt and 35 % under another, so a score means
little without its judge.  results.json keeps `run.judge_identity`: the judge's spec, the model
that answered, the version of each prompt it used (a hash of the prompt's text; the local judge's
rules version), the structured-output form the server took, and the local judge's version.  A
baseline gate and `--mb-compare` set two runs side by side only when `judged_differently` finds
nothing, unless told to go on anyway.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from typing_extensions import TypedDict


class JudgeIdentityRecord(TypedDict):
    """Who judged (`judges.identity`): the spec, the model that answered, each prompt's hash, the
    structured-output form and the local judge's rules version."""

    spec: str | None
    model: str | None
    prompts: dict[str, str]
    output_form: str | None
    local_version: str | None


def judge_identity(stats: Mapping[str, Any]) -> JudgeIdentityRecord:
    """The identity part of a run's merged judge stats (`run.judge_stats()` shape)."""
    return {
        "spec": stats["name"],
        "model": stats.get("model"),
        "prompts": dict(sorted(stats.get("prompt_hashes", {}).items())),
        "output_form": stats.get("output_form"),
        "local_version": stats.get("version"),
    }


def identity_of(run: Mapping[str, Any]) -> JudgeIdentityRecord:
    """A results.json `run`'s judge identity; older files have only the judge's name and prompt hashes."""
    recorded = run.get("judge_identity")
    if isinstance(recorded, Mapping):
        return cast(JudgeIdentityRecord, dict(recorded))  # as the file has it (results.schema checked it)
    return {
        "spec": run.get("judge"),
        "model": None,
        "prompts": dict(run.get("judge_prompt_hashes") or {}),
        "output_form": None,
        "local_version": None,
    }


def judged_differently(first: Mapping[str, Any], second: Mapping[str, Any]) -> str | None:
    """How two results.json `run`s were judged differently, in a few words, or None when alike.

    Each part counts where both runs record it: prompts for the task kinds both used (a run with no
    Restaurant asked no restaurant question), the model and the output form where both name one.
    """
    a, b = identity_of(first), identity_of(second)
    if a["spec"] and b["spec"] and a["spec"] != b["spec"]:
        return f"judge {a['spec']} vs {b['spec']}"
    for what, mine, theirs in (
        ("model", a.get("model"), b.get("model")),
        ("structured output", a.get("output_form"), b.get("output_form")),
        ("local judge", a.get("local_version"), b.get("local_version")),
    ):
        if mine and theirs and mine != theirs:
            return f"{what} {mine} vs {theirs}"
    changed = sorted(
        kind for kind in set(a["prompts"]) & set(b["prompts"]) if a["prompts"][kind] != b["prompts"][kind]
    )
    if changed:
        return f"{a['spec']} with other prompt versions for {', '.join(changed)}"
    return None


def describe_identity(identity: Mapping[str, Any]) -> str:
    """One line for a report: "openai:gpt-4o-mini · model gpt-4o-mini-2024-07-18 · output json_schema ·
    prompts 3"."""
    parts = [str(identity.get("spec") or "?")]
    if identity.get("local_version"):
        parts.append(f"rules {identity['local_version']}")
    if identity.get("model"):
        parts.append(f"model {identity['model']}")
    if identity.get("output_form"):
        parts.append(f"output {identity['output_form']}")
    prompts = identity.get("prompts") or {}
    if prompts and not identity.get("local_version"):
        parts.append("prompts " + ", ".join(f"{kind} {value[:8]}" for kind, value in prompts.items()))
    return " · ".join(parts)
