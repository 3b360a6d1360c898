"""`--mb-max-cost`: stop a run before it spends more than its budget on agent and judge calls.

A conversation cannot be stopped halfway without wasting what it cost (its tests score only at
the end), so the cap decides before a conversation starts: it is skipped, with its items marked
skipped and the reason, when the run has reached the cap, or when what it would cost at the rate
seen so far would take the run past it.  Items of conversations already paid for still report.
Conversations running at once are also stopped at the budget, before their next agent call
(`budget.Budget`, which asks `reached`).

Spend is what this process paid (agent calls, including intro and filler, and judge calls) plus
what the other xdist workers have published in the run folder.  Workers are separate processes;
splitting the budget between them would strand money on a worker whose conversations are cheap,
while a shared ledger lets the whole run use it.  Each worker rewrites only its own file, so no
lock is needed.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pytest_memorybench.core.errors import RunFolderUnwritable
from pytest_memorybench.core.files import write_atomically

FOLDER = "spending"
SKIP_PREFIX = "--mb-max-cost"


class SpendingCap:
    """`--mb-max-cost`: what the run has spent, shared by its processes, and whether a conversation may
    start."""

    def __init__(self, cap: float, run_folder: Path, process: str, group_sizes: dict[str, int]) -> None:
        self.cap = cap
        self.folder = run_folder / FOLDER
        self.process = process
        self.group_sizes = group_sizes  # conversation group → items selected in it

    def clear(self) -> None:
        """Forget the ledger of an earlier session in the same folder (a resumed run starts at 0)."""
        for path in self.folder.glob("*.json"):
            path.unlink(missing_ok=True)

    def publish(self, spent: float) -> None:
        path = self.folder / f"{self.process}.json"
        try:
            write_atomically(path, json.dumps({"spent_usd": spent}) + "\n")
        except OSError as exc:  # a cap nobody else can read would let the other processes overspend
            raise RunFolderUnwritable(
                f"cannot write {path} ({exc.strerror or exc}); make room or fix its permissions"
            ) from None

    def total(self, own: float) -> float:
        """This process's spend plus every other process's last published spend."""
        others = 0.0
        for path in self.folder.glob("*.json"):
            if path.stem == self.process:
                continue
            try:
                others += float(json.loads(path.read_text(encoding="utf-8"))["spent_usd"])
            except (OSError, ValueError, KeyError, TypeError):
                continue  # being replaced right now: the next check reads it
        return own + others

    def reached(self, own: float) -> str | None:
        """Why no more agent calls may be made, or None while the budget lasts."""
        spent = self.total(own)
        if spent >= self.cap:
            return f"{SKIP_PREFIX} ${self.cap:.2f} reached: ${spent:.4f} spent on agent and judge calls"
        return None

    def reason_to_skip(self, group: str, own: float, driven: Iterable[str]) -> str | None:
        """Why the conversation `group` must not start, or None if the budget allows it."""
        reached = self.reached(own)
        if reached is not None:
            return reached
        spent = self.total(own)
        done = sum(self.group_sizes.get(name, 0) for name in driven)
        if done and own > 0:
            size = self.group_sizes.get(group, 1)
            estimate = own / done * size
            if spent + estimate > self.cap:
                return (
                    f"{SKIP_PREFIX} ${self.cap:.2f}: ${spent:.4f} spent, and this conversation ({size} "
                    f"test{'s' if size != 1 else ''}) would cost about ${estimate:.4f} more"
                )
        return None


def process_spend(
    agent_cost: float, records: Iterable[Mapping[str, Any]], overhead_cost: float, judge_cost: float
) -> float:
    """What this process has paid, in USD.

    The agent adapter counts every call made through it; a probe answered on a `fork()` is paid by
    the fork and shows only in its item's usage.  Either count alone can be short, so the larger of
    the adapter's and the items' (plus conversation overhead) is taken: a lower bound of the truth,
    exact once every item of a driven conversation has reported.
    """
    itemised = float(sum(record["usage"]["cost_usd"] for record in records)) + overhead_cost
    return max(agent_cost, itemised) + judge_cost
