"""What a memory wrote: its listing at a conversation's end against each question's evidence, the
loss class `not_retrieved` split into never stored / stored but not found, and the write figures.

The whole runs answer LoCoMo conversations (our generator's, and the sample of the published file
in the e2e group) with the scripted model through three stores: bm25 (keeps every message), Mem0
with infer=false (keeps every message as it was said) and `HalfStore` below, which keeps every
other message it is given and so can never find what it dropped.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from pytest_memorybench.agents.evidence_match import holds
from pytest_memorybench.conversation.written import Ledger, Listing, pooled_written, write_figures
from pytest_memorybench.results.losses import loss_split, split_text, write_class
from pytest_memorybench.results.schema import ItemRecord
from pytest_memorybench.scenarios.locomo.generator import write_locomo
from tests.support.memory_model import MemoryModelScript, scripted_memory_server
from tests.support.paths import REFERENCE
from tests.support.runs import first_by_default, results_in

pytest_plugins = ["pytester"]

LOCOMO = REFERENCE / "locomo" / "locomo10.json"

HALF_STORE = '''
"""A store that keeps every other message it is given, lists what it kept, and finds every kept
message a question's evidence is in (the gold store's search): whatever it misses, it never stored."""

from pytest_memorybench.agents.stores.local import GoldStore


class HalfStore(GoldStore):
    def __init__(self):
        super().__init__()
        self.given = 0

    async def add(self, messages, namespace):
        kept = []
        for message in messages:
            self.given += 1
            if self.given % 2:
                kept.append(message)
        await super().add(kept, namespace)


class Unlisted(HalfStore):
    async def stored(self, namespace):
        return None  # a store that cannot list what it holds
'''


def _item(recall: float, stored: float | None, passed: bool = False) -> ItemRecord:
    evidence: dict[str, Any] = {"recall": recall}
    if stored is not None:
        evidence["stored"] = {"memories": 9, "evidence": 1, "recalled": stored, "recall": stored}
    return {"score": 1.0 if passed else 0.0, "passed": passed, "details": {"evidence": evidence}}  # type: ignore[typeddict-item]


# -- the split and the figures, on records of our own --------------------------------------------------


def test_an_item_not_retrieved_is_never_stored_stored_but_not_found_or_unknown() -> None:
    assert write_class(_item(0.0, 0.0)) == "never_stored"
    assert write_class(_item(0.5, 0.5)) == "never_stored"  # half of a two-message evidence never kept
    assert write_class(_item(0.0, 1.0)) == "stored_not_found"
    assert write_class(_item(0.0, None)) == "unknown"  # the memory cannot list what it holds
    assert write_class(_item(1.0, 1.0)) is None  # found: no write loss to split
    assert write_class(_item(0.0, 0.0, passed=True)) is None  # right without it


def test_the_split_counts_and_words_what_the_memory_wrote() -> None:
    records = [_item(1.0, 1.0, True), _item(0.0, 0.0), _item(0.0, 0.0), _item(0.0, 1.0), _item(0.0, None)]
    split = loss_split(records)
    assert split is not None
    assert split["counts"]["not_retrieved"] == 4
    assert split["not_retrieved"] == {
        "counts": {"never_stored": 2, "stored_not_found": 1, "unknown": 1},
        "shares": {"never_stored": 0.4, "stored_not_found": 0.2, "unknown": 0.2},
    }
    assert "not retrieved 80.0% (never stored 40.0% · stored but not found 20.0% · not listed 20.0%)" in str(
        split_text(split)
    )
    unlisted = loss_split([_item(1.0, None, True), _item(0.0, None)])  # a memory that cannot list
    assert unlisted is not None and unlisted["not_retrieved"]["counts"] == {
        "never_stored": 0,
        "stored_not_found": 0,
        "unknown": 1,
    }
    assert "not retrieved 50.0% (never stored or not found: the memory cannot list what it holds)" in str(
        split_text(unlisted)
    )


def test_the_ledger_matches_each_question_against_the_listing_and_counts_the_writes() -> None:
    ledger = Ledger()
    kept, dropped = {"recall": 0.0}, {"recall": 0.0}
    ledger.note("a", ["Caroline: I went to the LGBTQ support group yesterday."], kept)
    ledger.note("b", ["Melanie: We painted a sunrise over the lake last week."], dropped)
    ledger.note("c", ["Melanie: hello"], None)  # not measured: nothing to match
    listing = [
        "[2023-05-08] Caroline: I went to the LGBTQ support group yesterday, it was moving.",
        "Melanie: the kids loved the museum",
        "Melanie: the kids loved the museum",
    ]
    figures = ledger.settle(listing)
    assert kept["stored"] == {"evidence": 1, "recalled": 1.0, "recall": 1.0}
    assert dropped["stored"]["recall"] == 0.0
    assert ledger.by_test() == {"a": kept["stored"], "b": dropped["stored"]}  # what the event log keeps
    assert figures == {
        "memories": 3,
        "duplicates": 1,
        "evidence": 2,
        "covered": 1.0,
        "coverage": 0.5,
        "without_evidence": 2,
    }
    unlisted = {"recall": 0.0}
    other = Ledger()
    other.note("a", ["Caroline: a piece"], unlisted)
    assert other.settle(None) is None and "stored" not in unlisted


@pytest.mark.parametrize(
    ("memory", "piece", "held"),
    [
        (
            "[2024-05-01 09:00] user: My sister Anna moved to Lisbon in May. assistant: Noted!",
            "My sister Anna moved to Lisbon in May.",
            True,
        ),
        ("user: She moved to Lisbon in May.", "My sister Anna moved to Lisbon in May.", False),
        ("user: Yes.", "Yes.", True),
        ("user: Yes, but only on Sundays.", "Yes.", False),
    ],
)
def test_the_listing_holds_what_the_evidence_match_holds(memory: str, piece: str, held: bool) -> None:
    assert holds(memory, piece) is held  # the rule evidence recall counts by
    recall = Listing(["user: something else entirely", memory]).recall([piece])
    assert recall == {"evidence": 1, "recalled": float(held), "recall": float(held)}


def test_write_figures_pool_over_the_conversations_that_listed() -> None:
    one = write_figures(Listing(["a b c d", "e f g h"]), ["a b c d"])
    assert one["coverage"] == 1.0 and one["without_evidence"] == 1
    pooled = pooled_written([{"written": one}, {"written": one}, {"written": None}])
    assert pooled == {
        "conversations": 2,
        "unlisted": 1,
        "memories": 4,
        "duplicates": 0,
        "evidence": 2,
        "covered": 2.0,
        "coverage": 1.0,
        "without_evidence": 2,
        "without_evidence_share": 0.5,
    }
    assert pooled_written([{"written": None}]) is None
    unlabelled = pooled_written([{"written": write_figures(Listing(["a b c d"]), [])}])
    assert unlabelled and unlabelled["coverage"] is None and unlabelled["without_evidence_share"] is None, (
        "a suite that labels no evidence (StateBench) has no share of memories carrying none"
    )


# -- whole runs: bm25, Mem0 (infer=false) and a store that drops half ---------------------------------


@pytest.fixture
def model() -> Iterator[tuple[Any, MemoryModelScript]]:
    with scripted_memory_server() as served:
        yield served


def _store_spec(store: str, pytester: pytest.Pytester) -> str:
    if store in ("half", "unlisted"):
        pytester.makepyfile(half_store=HALF_STORE)
        sys.modules.pop("half_store", None)
        return f"store(factory=half_store:{'HalfStore' if store == 'half' else 'Unlisted'})"
    if store == "mem0":
        pytest.importorskip("mem0")
        return "mem0(infer=false)"
    return store


def _run_locomo(pytester: pytest.Pytester, server: Any, store: str, data: Any, *extra: str) -> Any:
    run = pytester.path / f"run-{store}"
    result = pytester.runpytest(
        "--memorybench", "--mb-suite=locomo", f"--mb-data=locomo={data}", "-p", "no:cacheprovider",
        f"--agent={_store_spec(store, pytester)}:openai:fake-model@{server.openai_url}", f"--mb-output={run}",
        *extra,
    )  # fmt: skip
    results = results_in(run)
    assert not results["totals"]["errors"], result.stdout.str()[-3000:]
    return results, result.stdout.str()


def _check_split(store: str, results: Any, stdout: str) -> dict[str, int]:
    totals = results["totals"]
    if store == "unlisted":
        split = totals["losses"]["not_retrieved"]["counts"]
        assert "written" not in totals and totals["store"]["stored"] is None
        assert split["unknown"] == totals["losses"]["counts"]["not_retrieved"] > 0, split
        assert "(never stored or not found: the memory cannot list what it holds)" in stdout
        return split
    written = totals["written"]
    losses = totals["losses"]
    split = losses["not_retrieved"]["counts"]
    assert split["unknown"] == 0, store  # every one of these stores lists what it holds
    assert sum(split.values()) == losses["counts"]["not_retrieved"]
    assert written["memories"] == totals["store"]["stored"]
    assert "evidence coverage" in stdout
    if losses["counts"]["not_retrieved"]:
        assert "(never stored " in stdout
    if store == "half":
        assert written["memories"] <= totals["store"]["messages"] // 2 + written["conversations"]
        assert split["never_stored"] > 0 and split["stored_not_found"] == 0, split  # its misses are writes
        assert 0.2 < written["coverage"] < 0.8, written
    else:
        assert written["coverage"] == 1.0, written  # every message kept, so every piece of evidence
        assert split["never_stored"] == 0, split
    return split


@pytest.mark.parametrize("store", first_by_default(["half", "bm25", "mem0", "unlisted"]))
def test_the_loss_split_says_what_each_store_never_stored(
    pytester: pytest.Pytester, model: tuple[Any, MemoryModelScript], store: str
) -> None:
    server, _ = model
    data, _ = write_locomo(pytester.path / "data", seed=3, conversations=1, sessions=8)
    results, stdout = _run_locomo(pytester, server, store, data, "--mb-k=2")  # k 2: search misses some
    split = _check_split(store, results, stdout)
    assert split[{"half": "never_stored", "unlisted": "unknown"}.get(store, "stored_not_found")] > 0, split


@pytest.mark.e2e  # three runs over 200 questions of LoCoMo's published file
@pytest.mark.skipif(not LOCOMO.exists(), reason="../shared/reference/locomo is not here")
@pytest.mark.parametrize("store", ["bm25", "mem0", "half"])
def test_the_locomo_sample_splits_not_retrieved_by_store(
    pytester: pytest.Pytester, model: tuple[Any, MemoryModelScript], store: str
) -> None:
    server, _ = model
    results, stdout = _run_locomo(pytester, server, store, LOCOMO, "--mb-sample=200")
    split = _check_split(store, results, stdout)
    print(store, split, results["totals"]["written"], results["totals"]["losses"]["shares"])


@pytest.mark.e2e  # a whole run and its replay
def test_a_replay_keeps_the_split_the_run_logged(pytester: pytest.Pytester, model: Any) -> None:
    server, _ = model
    data, _ = write_locomo(pytester.path / "data", seed=3, conversations=1, sessions=8)
    results, _ = _run_locomo(pytester, server, "half", data, "--mb-k=2")
    again = pytester.path / "again"
    pytester.runpytest(
        "--memorybench", "--mb-suite=locomo", f"--mb-data=locomo={data}", "-p", "no:cacheprovider",
        f"--mb-replay={pytester.path / 'run-half'}", f"--mb-output={again}",
    )  # fmt: skip
    replayed = results_in(again)["totals"]
    assert replayed["losses"] == results["totals"]["losses"]
    assert replayed["written"] == results["totals"]["written"]


@pytest.mark.e2e  # a whole run of the LTM suite and its replay
def test_a_replayed_conversation_keeps_the_split_its_run_logged(pytester: pytest.Pytester) -> None:
    common = ("--memorybench", "--span=isolated", "-k", "colours or name_list", "-p", "no:cacheprovider")
    pytester.runpytest(*common, "--agent=recall", f"--mb-output={pytester.path / 'run'}")
    pytester.runpytest(
        *common, f"--mb-replay={pytester.path / 'run'}", f"--mb-output={pytester.path / 'again'}"
    )
    ran, replayed = results_in(pytester.path / "run")["totals"], results_in(pytester.path / "again")["totals"]
    assert ran["written"]["memories"] > 0 and ran["losses"]["not_retrieved"]["counts"]["unknown"] == 0
    assert replayed["losses"] == ran["losses"] and replayed["written"] == ran["written"]


@pytest.mark.e2e  # a whole run, cut short and resumed
def test_a_resumed_run_matches_the_answers_it_kept_against_the_listing_too(
    pytester: pytest.Pytester, model: Any
) -> None:
    server, _ = model
    data, _ = write_locomo(pytester.path / "data", seed=3, conversations=1, sessions=8)
    results, _ = _run_locomo(pytester, server, "half", data, "--mb-k=2")
    run = pytester.path / "run-half"
    [log] = run.glob("events*.jsonl")
    kept, answers = [], 0
    for line in log.read_text().splitlines():  # the run as if stopped after its fourth answer
        kind = json.loads(line)["kind"]
        answers += kind == "probe_answer"
        if kind not in ("written", "probe_end", "score", "test_end") and (
            kind != "probe_answer" or answers <= 4
        ):
            kept.append(line)
    log.write_text("\n".join(kept) + "\n")
    (run / "results.json").unlink()
    agent = f"--agent={_store_spec('half', pytester)}:openai:fake-model@{server.openai_url}"
    pytester.runpytest(
        "--memorybench", "--mb-suite=locomo", f"--mb-data=locomo={data}", "-p", "no:cacheprovider", agent,
        f"--mb-resume={run}", "--mb-k=2",
    )  # fmt: skip
    resumed = results_in(run)["totals"]
    assert resumed["losses"]["not_retrieved"] == results["totals"]["losses"]["not_retrieved"]
    assert resumed["written"] == results["totals"]["written"]


@pytest.mark.e2e  # two whole runs and their comparison
def test_a_comparison_splits_not_retrieved_into_never_stored_and_stored_but_not_found(
    pytester: pytest.Pytester, model: tuple[Any, MemoryModelScript]
) -> None:
    server, _ = model
    data, _ = write_locomo(pytester.path / "data", seed=3, conversations=1, sessions=8)
    for store in ("bm25", "half"):
        _run_locomo(pytester, server, store, data, "--mb-k=2")
    out = pytester.path / "compared"
    result = pytester.runpytest("--mb-compare", "run-bm25", "run-half", f"--mb-output={out}")
    result.stdout.fnmatch_lines(
        [
            "not retrieved*%*%",
            "  never stored*0.0%*%",
            "  stored but not found*%*0.0%",
            "B − A: *never stored +*(p *",
        ]
    )
    compared = json.loads((out / "compare.json").read_text())["losses"]
    bm25, half = compared["runs"].values()
    assert (
        bm25["not_retrieved"]["counts"]["never_stored"] == 0 < half["not_retrieved"]["counts"]["never_stored"]
    )
    [pair] = compared["pairs"]
    assert pair["differences"]["never_stored"] > 0 and 0 < pair["p"]["never_stored"] <= 1
