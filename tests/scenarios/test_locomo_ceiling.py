"""LoCoMo's ceiling: a category above the most right answers can score against the original gold.

Our generated conversations carry an audit of their own: one of the two temporal questions has a
wrong gold date, one of the four single-hop questions a gold the transcript never supports.  The
`oracle` answers the original gold, so under `official` it scores 1.000 on both categories: more
than the 0.500 and 0.750 a right answer can score there.  That is the run seeing the answers, and
it is flagged; under `audited` (the corrected gold) nothing is.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import pytest

from pytest_memorybench.scenarios.locomo.ceiling import AUDITED_WRONG, ceilings
from pytest_memorybench.scenarios.locomo.data import CATEGORIES
from tests.support.paths import REFERENCE
from tests.support.runs import QUIET, Benchmark, run_benchmark

LOCOMO = REFERENCE / "locomo"
published = pytest.mark.skipif(
    not (LOCOMO / "locomo10.json").exists(), reason="../shared/reference/locomo is not here"
)
FLAG = (
    "above its ceiling: locomo.conversations · temporal 1.000 > 0.500, the most right answers can score"
    " against the original gold (the audit finds 1 of these 2 gold answers wrong): the judge is too"
    " lenient or the run saw the answers"
)


BOUNDED = {number: name for number, name in CATEGORIES.items() if name in AUDITED_WRONG}  # 1-4


def categories(results: Any) -> dict[str, Any]:
    return dict(results["scenarios"]["locomo.conversations"]["categories"])


def oracle_on_the_original_gold(pytester: pytest.Pytester, *args: str) -> Benchmark:
    """The oracle's LoCoMo run under `official`: it answers the gold as published."""
    return run_benchmark(
        pytester, "--mb-suite=locomo", "--agent=oracle", "--mb-profile=official", *args, *QUIET
    )


def test_the_oracle_on_the_original_gold_is_flagged_above_the_audited_ceiling(
    pytester: pytest.Pytester,
) -> None:
    run = oracle_on_the_original_gold(pytester, "--mb-markdown=run.md")
    rows = categories(run.results)  # results.json, checked against its schema
    assert rows["temporal"]["ceiling"] == {
        "maximum": 0.5,
        "wrong": 1,
        "of": 2,
        "source": "audit",
        "exceeded": True,
    }
    assert rows["single_hop"]["ceiling"] == {
        "maximum": 0.75,
        "wrong": 1,
        "of": 4,
        "source": "audit",
        "exceeded": True,
    }
    assert (
        rows["multi_hop"]["ceiling"]["exceeded"] is False and rows["multi_hop"]["ceiling"]["maximum"] == 1.0
    )
    assert "ceiling" not in rows["adversarial"] and "ceiling" not in rows["cognitive"], "no audited gold"

    out = run.outcome.stdout.str()
    table_end = out.index("\ntotal ")
    flags = [line for line in out[table_end:].splitlines() if line.startswith("above its ceiling")]
    assert flags == [
        "above its ceiling: locomo.conversations · single_hop 1.000 > 0.750, the most right answers can"
        " score against the original gold (the audit finds 1 of these 4 gold answers wrong): the judge is"
        " too lenient or the run saw the answers",
        FLAG,
    ]
    assert out.index(FLAG) < out.index("\nagent:"), "under the table, before the spending"
    assert f"- ⚠️ {FLAG}" in (pytester.path / "run.md").read_text().replace("\\", "")
    page = (run.folder / "report.html").read_text()
    assert re.search(r'<li class="mb-fail">above its ceiling: locomo\.conversations · temporal 1\.000', page)


@pytest.mark.parametrize(
    ("agent", "profile"), [("oracle", "audited"), ("oracle", "paper"), ("recall", "official")]
)
def test_no_flag_on_the_corrected_gold_under_token_f1_or_for_an_honest_score(
    pytester: pytest.Pytester, agent: str, profile: str
) -> None:
    run = run_benchmark(pytester, "--mb-suite=locomo", f"--agent={agent}", f"--mb-profile={profile}", *QUIET)
    rows = categories(run.results)
    assert not any(row.get("ceiling", {}).get("exceeded") for row in rows.values())
    assert "above its ceiling" not in run.outcome.stdout.str()
    assert ("ceiling" in rows["temporal"]) is (profile == "official"), (
        "bounded under official only: audited scores the corrected gold, paper gives partial credit"
    )


def record(test_id: str, category: str, score: float | None, **details: Any) -> dict[str, Any]:
    return {
        "test_id": test_id,
        "category": category,
        "score": score,
        **({"details": {"scoring": details}} if details else {}),
    }


def whole(category: str, score: float | None = 1.0, errors: int = 0) -> list[dict[str, Any]]:
    """Every published question of `category`, as a run of the published file without the audit has them."""
    questions = AUDITED_WRONG[category][1]
    return [
        record(f"conv-{26 + n % 10}::{category}[{n}]", category, None if n < errors else score)
        for n in range(questions)
    ]


def test_without_the_audit_a_whole_published_category_is_bounded_by_the_audits_counts() -> None:
    assert ceilings(whole("multi_hop"), "official") == {
        "multi_hop": {"maximum": 0.900709, "wrong": 28, "of": 282, "source": "published counts"}
    }, "254 of 282"
    # ten errored: they could be ten of the wrong golds, so the 272 that scored hold at least 18
    assert ceilings(whole("multi_hop", errors=10), "official")["multi_hop"]["maximum"] == round(254 / 272, 6)
    assert ceilings(whole("open_domain", errors=20), "official")["open_domain"]["maximum"] == 1.0
    assert ceilings(whole("temporal")[1:], "official") == {}, "a subset: its golds could all be right"
    generated = [{**item, "test_id": "gen-1" + item["test_id"][6:]} for item in whole("temporal")]
    assert ceilings(generated, "official") == {}, "not the published file"
    assert ceilings(whole("temporal"), "paper") == ceilings(whole("temporal"), "audited") == {}


def test_with_the_audit_any_subset_has_its_exact_bound() -> None:
    records = [
        record("gen-1::temporal[2]", "temporal", 1.0, gold_audit=None),
        record("gen-1::temporal[9]", "temporal", 1.0, gold_audit="TEMPORAL_ERROR"),
        record("gen-1::temporal[11]", "temporal", None),  # errored: no score, no bound of its own
        record("gen-1::single_hop[3]", "single_hop", 0.0, gold_audit="HALLUCINATION"),
    ]
    assert ceilings(records, "official") == {
        "temporal": {"maximum": 0.5, "wrong": 1, "of": 2, "source": "audit"},
        "single_hop": {"maximum": 0.0, "wrong": 1, "of": 1, "source": "audit"},
    }


@published
def test_the_counts_are_the_audits_findings_on_the_published_file() -> None:
    data = json.loads((LOCOMO / "locomo10.json").read_text())
    findings = json.loads((LOCOMO / "audit-errors.json").read_text())
    questions = Counter(question["category"] for sample in data for question in sample["qa"])
    wrong: Counter[int] = Counter()
    for finding in findings:
        sample, index = map(int, re.findall(r"\d+", finding["question_id"]))
        if finding["error_type"] != "WRONG_CITATION":
            wrong[data[sample]["qa"][index]["category"]] += 1
    assert {BOUNDED[number]: (wrong[number], questions[number]) for number in BOUNDED} == AUDITED_WRONG
    right = sum(questions[n] - wrong[n] for n in BOUNDED) / sum(questions[n] for n in BOUNDED)
    assert round(right, 4) == 0.9357, "the audit's ceiling of categories 1-4"


@published
def test_the_oracle_on_one_published_conversation_is_flagged_by_the_audit_it_read(
    pytester: pytest.Pytester,
) -> None:
    run = oracle_on_the_original_gold(
        pytester,
        f"--mb-data=locomo={LOCOMO / 'locomo10.json'}",
        f"--mb-data=locomo_audit={LOCOMO / 'audit-errors.json'}",
        "-k",
        "conv-26 and not cognitive",
    )
    findings = json.loads((LOCOMO / "audit-errors.json").read_text())
    qa = json.loads((LOCOMO / "locomo10.json").read_text())[0]["qa"]
    wrong = Counter(
        BOUNDED[qa[int(finding["question_id"].rsplit("qa", 1)[1])]["category"]]
        for finding in findings
        if finding["question_id"].startswith("locomo_0_") and finding["error_type"] != "WRONG_CITATION"
    )
    asked = Counter(BOUNDED[question["category"]] for question in qa if question["category"] in BOUNDED)
    for name, row in categories(run.results).items():
        if name not in AUDITED_WRONG:
            continue
        ceiling = row["ceiling"]
        assert (ceiling["wrong"], ceiling["of"], ceiling["source"]) == (wrong[name], asked[name], "audit")
        assert ceiling["exceeded"] is (wrong[name] > 0), name  # the oracle scores 1.000 on each
