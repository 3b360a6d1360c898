"""LoCoMo: the paper's F1, the judge's J, the audited gold, the suite end to end (generated and, where
../shared has it, the published file), and the loaders' one-line errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.conversation.probe_questions import evidence_ids
from pytest_memorybench.core.records import TestDefinition
from pytest_memorybench.judges.local import LocalJudge
from pytest_memorybench.results.schema import ResultsRecord
from pytest_memorybench.scenarios.locomo.audit import corrections_from
from pytest_memorybench.scenarios.locomo.data import NOT_MENTIONED, parse_date_time, samples_from
from pytest_memorybench.scenarios.locomo.generator import generate_sample, write_locomo
from pytest_memorybench.scenarios.locomo.scenario import NEEDS_AUDIT, SCENARIO
from pytest_memorybench.scenarios.locomo.scoring import (
    multi_answer_f1,
    normalize_answer,
    paper_f1,
    says_absent,
    token_f1,
)
from pytest_memorybench.scenarios.locomo.summary import summarize, wilson_interval
from pytest_memorybench.suite import load_suite
from tests.support.paths import REFERENCE as SHARED_REFERENCE
from tests.support.runs import results_in, run_benchmark, usage_error_line

REFERENCE = SHARED_REFERENCE / "locomo"


# -- the paper's scoring -------------------------------------------------------------------------------


def test_normalisation_drops_commas_punctuation_articles_and_and() -> None:
    assert normalize_answer("The Cat, and a Dog!") == "cat dog"


@pytest.mark.parametrize(
    ("reply", "gold", "expected"),
    [
        ("Adoption agencies", "adoption agencies", 1.0),
        (
            "She researched adoption agencies",
            "Adoption agencies",
            2 * (2 / 4) * 1 / (2 / 4 + 1),
        ),  # stems agree
        ("running", "runs", 1.0),  # Porter: run / run
        ("I don't know", "7 May 2023", 0.0),
    ],
)
def test_token_f1_on_concrete_replies(reply: str, gold: str, expected: float) -> None:
    assert token_f1(reply, gold) == pytest.approx(expected)


def test_multi_hop_is_scored_per_comma_separated_gold_part() -> None:
    # Two gold parts, the reply names one: each part's best reply part, averaged.
    assert multi_answer_f1("Lisbon", "Lisbon, Oslo") == pytest.approx(0.5)
    assert multi_answer_f1("Oslo, Lisbon", "Lisbon, Oslo") == pytest.approx(1.0)


def test_category_3_gold_is_cut_at_its_semicolon() -> None:
    assert paper_f1(3, "Likely yes", "Likely yes; she loves hiking") == pytest.approx(1.0)
    assert paper_f1(4, "Likely yes", "Likely yes; she loves hiking") < 0.7


def test_category_5_rule() -> None:
    assert says_absent("That is not mentioned in the conversation.")
    assert says_absent("No information available.")
    assert says_absent("(b)", "b") and not says_absent("(a)", "b")
    assert not says_absent("She researched adoption agencies.")


def test_session_dates_read_as_written() -> None:
    when = parse_date_time("1:56 pm on 8 May, 2023")
    assert (when.year, when.month, when.day, when.hour, when.minute) == (2023, 5, 8, 13, 56)


# -- scoring a definition under each profile
# -------------------------------------------------------------------


def _definitions(**params: Any) -> dict[str, TestDefinition]:
    contexts = SCENARIO.contexts("locomo", params, seed=0)
    return {d.test_id: d for context in contexts for d in context.probes if not d.skip_reason}


async def _score(definition: TestDefinition, reply: str, profile: str) -> float:
    score = await SCENARIO.score(definition, [reply], ScoringContext(profile=profile, judge=LocalJudge()))  # type: ignore[arg-type]
    return score.value


@pytest.mark.asyncio
async def test_the_audited_profile_scores_against_the_corrected_gold() -> None:
    definitions = _definitions()
    corrected = next(
        d
        for d in definitions.values()
        if (d.expected.get("audit") or {}).get("error_type") == "TEMPORAL_ERROR"
    )
    published, right = corrected.expected["answer"], corrected.expected["audit"]["answer"]
    assert published != right
    assert await _score(corrected, f"On {published}.", "official") == 1.0
    assert await _score(corrected, f"On {published}.", "audited") == 0.0
    assert await _score(corrected, f"It was on {right}.", "audited") == 1.0
    assert corrected.params["ideal_by_profile"]["audited"] == right


def test_the_audited_profile_leaves_out_unanswerable_questions_and_needs_an_audit() -> None:
    definitions = _definitions()
    unanswerable = [d for d in definitions.values() if (d.expected.get("audit") or {}).get("unanswerable")]
    assert len(unanswerable) == 1
    assert "finds it unanswerable" in (SCENARIO.excluded(unanswerable[0], "audited") or "")
    assert SCENARIO.excluded(unanswerable[0], "official") is None
    citation = next(
        d
        for d in definitions.values()
        if (d.expected.get("audit") or {}).get("error_type") == "WRONG_CITATION"
    )
    assert (
        SCENARIO.excluded(citation, "audited") is None
        and "ideal_by_profile" not in citation.params
        or ("audited" not in citation.params.get("ideal_by_profile", {}))
    )
    no_audit = TestDefinition(**{**vars(citation), "expected": {**citation.expected, "audited": False}})
    assert SCENARIO.excluded(no_audit, "audited") == NEEDS_AUDIT


def test_under_audited_evidence_recall_counts_the_audits_citations() -> None:
    citation = next(
        d
        for d in _definitions().values()
        if (d.expected.get("audit") or {}).get("error_type") == "WRONG_CITATION"
    )
    published = evidence_ids(SCENARIO, citation, "official")
    audited = evidence_ids(SCENARIO, citation, "audited")
    assert published == citation.expected["evidence_ids"] == evidence_ids(SCENARIO, citation, "paper")
    assert audited and set(audited) != set(published)
    assert [f"D{turn // 1000}:{turn % 1000}" for turn in audited] == citation.expected["audit"]["evidence"]


@pytest.mark.asyncio
async def test_adversarial_questions_are_a_choice_with_not_mentioned() -> None:
    adversarial = [d for d in _definitions().values() if d.category == "adversarial"]
    assert adversarial
    for definition in adversarial:
        assert NOT_MENTIONED in definition.questions[0] and "(a)" in definition.questions[0]
        letter = definition.expected["absent_option"]
        for profile in ("paper", "official", "audited"):
            assert await _score(definition, f"({letter})", profile) == 1.0
            assert await _score(definition, definition.expected["adversarial_answer"], profile) == 0.0


@pytest.mark.asyncio
async def test_official_is_the_generous_judge() -> None:
    temporal = next(d for d in _definitions().values() if d.category == "temporal")
    day, month, year = temporal.expected["answer"].split()
    assert await _score(temporal, f"It was {month} {day}, {year}.", "official") == 1.0
    assert await _score(temporal, "I don't remember.", "official") == 0.0


# -- generator, loader, audit
# ----------------------------------------------------------------------------------


def test_the_generator_writes_the_published_shape(tmp_path: Path) -> None:
    data, audit = write_locomo(tmp_path, conversations=2)
    samples = samples_from(json.loads(data.read_text()))
    assert [s.sample_id for s in samples] == ["gen-1", "gen-2"]
    categories = {q.category for s in samples for q in s.questions}
    assert categories == {1, 2, 3, 4, 5}
    corrections = corrections_from(json.loads(audit.read_text()))
    assert {key[0] for key in corrections} == {0, 1}
    assert generate_sample(0, 1) == generate_sample(0, 1)  # deterministic


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{}", "expected a non-empty JSON list of samples"),
        (
            '[{"sample_id": "x", "conversation": {"speaker_a": "A", "speaker_b": "B"}, "qa": []}]',
            "no session_N lists",
        ),
        (
            '[{"sample_id": "x", "conversation": {"speaker_a": "A", "speaker_b": "B", "session_1": [], '
            '"session_1_date_time": "yesterday"}, "qa": []}]',
            "is not like '1:56 pm on 8 May, 2023'",
        ),
        (
            '[{"sample_id": "x", "conversation": {"speaker_a": "A", "speaker_b": "B", "session_1": [], '
            '"session_1_date_time": "1:56 pm on 8 May, 2023"}, "qa": [{"question": "Q", "category": 9}]}]',
            "qa 0: category 9",
        ),
    ],
)
def test_malformed_files_are_one_line(pytester: pytest.Pytester, content: str, message: str) -> None:
    path = pytester.path / "locomo10.json"
    path.write_text(content)
    result = pytester.runpytest(
        "--memorybench",
        "--mb-suite=locomo",
        "--agent=null",
        f"--mb-data=locomo={path}",
        "-p",
        "no:cacheprovider",
    )
    error = usage_error_line(result)
    assert message in error and "locomo10.json" in error


def test_the_loader_report_counts_the_file_and_says_which_evidence_ids_it_cannot_place(
    tmp_path: Path,
) -> None:
    data, audit = write_locomo(tmp_path, conversations=2)
    raw = json.loads(data.read_text(encoding="utf-8"))
    raw[0]["qa"][0]["evidence"] += ["D:11:26", "D99:1"]  # the published file has one of each kind
    data.write_text(json.dumps(raw), encoding="utf-8")
    whole = load_suite("locomo").generate(0, data={"locomo": str(data), "locomo_audit": str(audit)})
    assert whole.loaded is not None and whole.loaded.lines("locomo") == [
        "locomo data: 2 conversations, 20 questions, 6 audit findings → 20 items",
        "  locomo: evidence ids that are no turn id, left out of recall: 1 (gen-1 qa 0 'D:11:26')",
        "  locomo: evidence ids naming a turn the conversation does not have, kept (never retrievable): 1"
        " (gen-1 qa 0 'D99:1')",
    ]
    first = next(
        d for d in whole.definitions if d.params.get("sample") == "gen-1" and d.params.get("qa") == 0
    )
    assert first.expected["evidence_ids"] == [1003, 99001]
    one = SCENARIO.contexts("locomo", {"data_path": str(data), "conversations": "gen-2"}, 0)
    assert one[0].report is not None and one[0].report.lines("locomo") == [
        "locomo data: 2 conversations, 20 questions → 0 items",
        "  locomo: questions of conversations not chosen (conversations: gen-2): 10 (gen-1)",
    ], "the evidence of a conversation not chosen is not read"


# -- the suite end to end
# ----------------------------------------------------------------------------------------


def _run(pytester: pytest.Pytester, *args: str) -> ResultsRecord:
    run = run_benchmark(pytester, "--mb-suite=locomo", *args)
    assert run.outcome.ret in (0, 1), run.outcome.outlines[-20:]
    return run.results


def _mean(results: dict[str, Any]) -> float:
    return results["scenarios"]["locomo.conversations"]["mean"]


@pytest.mark.parametrize("profile", ["paper", "official", "audited"])
def test_calibration_on_generated_conversations(pytester: pytest.Pytester, profile: str) -> None:
    oracle = _run(pytester, "--agent=oracle", f"--mb-profile={profile}")
    null = _run(pytester, "--agent=null", f"--mb-profile={profile}")
    recall = _run(pytester, "--agent=recall", f"--mb-profile={profile}")
    assert _mean(oracle) >= 0.95
    assert _mean(null) <= 0.05
    assert _mean(null) < _mean(recall) < _mean(oracle)
    metrics = oracle["scenarios"]["locomo.conversations"]["metrics"]
    assert metrics["table"]["temporal"]["n"] == 2 and metrics["table"]["temporal"]["wilson"][1] == 1.0
    assert "categories 1-4" in metrics and "categories 1-5" in metrics


def test_without_data_one_item_says_where_to_get_it(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(
        "--memorybench", "--mb-suite=locomo", "--agent=oracle", "-p", "no:cacheprovider", "-rs"
    )
    result.stdout.fnmatch_lines(
        ["*SKIPPED*download data/locomo10.json from github.com/snap-research/locomo*"]
    )


def test_the_audited_profile_is_refused_for_suites_without_an_audit(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(
        "--memorybench", "--mb-suite=beam", "--agent=null", "--mb-profile=audited", "-p", "no:cacheprovider"
    )
    assert result.ret == 4
    result.stderr.fnmatch_lines(
        [
            "ERROR: --mb-profile audited: scenario beam.conversations of suite beam is scored under paper or"
            " official only*"
        ]
    )


def test_wilson_interval() -> None:
    low, high = wilson_interval(0.5, 96)
    assert low == pytest.approx(0.4013, abs=1e-3) and high == pytest.approx(0.5987, abs=1e-3)
    assert wilson_interval(1.0, 2)[1] == 1.0
    table = summarize([{"category": "temporal", "score": 1.0}, {"category": "adversarial", "score": 0.0}])
    assert table["categories 1-4"] == 1.0 and table["categories 1-5"] == 0.5


# -- the published data (../shared/reference/locomo)
# ------------------------------------------------------------

published = pytest.mark.skipif(
    not (REFERENCE / "locomo10.json").exists(), reason="../shared/reference/locomo is not here"
)


@published
@pytest.mark.e2e  # nine whole runs of 1,986 questions: about six minutes
@pytest.mark.parametrize("profile", ["paper", "official", "audited"])
def test_calibration_on_the_published_file(pytester: pytest.Pytester, profile: str) -> None:
    data = [
        f"--mb-data=locomo={REFERENCE / 'locomo10.json'}",
        f"--mb-data=locomo_audit={REFERENCE / 'audit-errors.json'}",
    ]
    runs = {
        agent: _run(pytester, f"--agent={agent}", f"--mb-profile={profile}", *data)
        for agent in ("oracle", "null", "recall")
    }
    assert _mean(runs["oracle"]) >= 0.95
    assert _mean(runs["null"]) <= 0.05
    assert _mean(runs["null"]) < _mean(runs["recall"]) < _mean(runs["oracle"])
    counts = {
        name: row["n"]
        for name, row in runs["oracle"]["scenarios"]["locomo.conversations"]["metrics"]["table"].items()
    }
    if profile == "audited":  # the audit's three unanswerable questions sit out
        assert sum(counts.values()) == 1983
    else:
        assert counts == {
            "multi_hop": 282,
            "temporal": 321,
            "open_domain": 96,
            "single_hop": 841,
            "adversarial": 446,
        }


@published
def test_the_audit_matches_the_published_questions() -> None:
    from pytest_memorybench.scenarios.locomo.audit import load_audit
    from pytest_memorybench.scenarios.locomo.data import load_samples

    samples, audit = load_samples(REFERENCE / "locomo10.json"), load_audit(REFERENCE / "audit-errors.json")
    assert all(
        samples[s].questions[q].question.strip() == text.strip() for (s, q), (text, _) in audit.items()
    )
    changing = [c for _, c in audit.values() if c.error_type != "WRONG_CITATION"]
    assert len(changing) == 99  # the audit's count of score-changing findings
    assert sum(c.unanswerable for c in changing) == 3


# -- re-scoring a pipeline's published verdicts
# -------------------------------------------------------------------


def _eval_results(path: Path) -> Path:
    """An eval_results.json in the pipelines' format, over our generated conversation: the judge
    there accepted every right answer and, wrongly, one vague one."""
    raw, _ = generate_sample(0, 1)
    answers = []
    for index, qa in enumerate(raw["qa"]):
        if qa["category"] == 5:
            continue
        right = index % 3 != 2
        generated = str(qa["answer"]) if right else "Something to do with their family, I think."
        judged = right or index == 2  # the vague answer to question 2 was accepted by 2 of 3 judgments
        answers.append(
            {
                "question_id": index,
                "question": qa["question"],
                "golden_answer": qa["answer"],
                "generated_answer": generated,
                "llm_judgments": {"judgment_1": judged, "judgment_2": judged, "judgment_3": right},
                "category": str(qa["category"]),
            }
        )
    path.write_text(
        json.dumps(
            {
                "total_questions": len(answers),
                "correct": 0,
                "accuracy": 0.0,
                "detailed_results": {"0": answers},
                "metadata": {"judge_model": "some-model"},
            }
        )
    )
    return path


def test_a_pipelines_eval_results_are_rescored_with_agreement_per_category(pytester: pytest.Pytester) -> None:
    path = _eval_results(pytester.path / "eval_results.json")
    out = pytester.path / "out"
    result = pytester.runpytest(
        "--memorybench", f"--mb-rescore={path}", f"--mb-output={out}", "-p", "no:cacheprovider"
    )  # under the official profile: the pipelines' verdicts are J's, not token F1's
    assert result.ret in (0, 1), result.outlines[-20:]
    result.stdout.fnmatch_lines([
        "memorybench: * | profile official | *",
        "*memorybench agreement*",
        "published automatic verdicts vs ours (profile official, judge local)",
        "locomo.conversations * 8 * 87.5% * 0.625 * 0.750 *",
        "  multi_hop * 1 * 100.0% *",
        "  open_domain * 1 * 100.0% *",
        "  single_hop * 4 * 100.0% *",
        "  temporal * 2 * 50.0% * 0.000 * 0.500 *",
        "all * 8 * 87.5% *",
        "1 disagreement(s)*",
    ])  # fmt: skip
    items = results_in(out)["items"]
    [disagreement] = [item for item in items if item["score"] != item["details"]["published"]["score"]]
    assert disagreement["details"]["published"]["score"] == 1.0 and disagreement["score"] == 0.0
    assert disagreement["category"] == "temporal"


def test_answers_without_judgments_are_scored_with_no_agreement_table(pytester: pytest.Pytester) -> None:
    path = _eval_results(pytester.path / "eval_results.json")
    data = json.loads(path.read_text())
    for answer in data["detailed_results"]["0"]:
        answer["llm_judgments"] = {}
    path.write_text(json.dumps(data))
    result = pytester.runpytest(
        "--memorybench", f"--mb-rescore={path}", "--mb-output=out", "-p", "no:cacheprovider"
    )
    assert result.ret in (0, 1), result.outlines[-20:]
    assert "memorybench agreement" not in result.stdout.str()
    items = results_in(pytester.path / "out")["items"]
    assert len(items) == 8 and all("published" not in (item.get("details") or {}) for item in items)
    assert sum(item["score"] for item in items) == 5  # the right answers; the vague ones are refused


def test_a_malformed_eval_results_is_one_line(pytester: pytest.Pytester) -> None:
    path = pytester.path / "eval_results.json"
    path.write_text(
        json.dumps(
            {
                "detailed_results": {
                    "0": [
                        {
                            "question": "Q?",
                            "golden_answer": "A",
                            "generated_answer": "B",
                            "llm_judgments": {"judgment_1": "yes"},
                            "category": "4",
                        }
                    ]
                }
            }
        )
    )
    result = pytester.runpytest("--memorybench", f"--mb-rescore={path}", "-p", "no:cacheprovider")
    error = usage_error_line(result)
    assert (
        error.startswith("ERROR: --mb-rescore ")
        and "detailed_results['0'][0]: 'llm_judgments' must map judgment names" in error
    )


def test_an_audit_of_other_data_is_one_line(pytester: pytest.Pytester, tmp_path: Path) -> None:
    data, audit = write_locomo(tmp_path, conversations=1)
    findings = json.loads(audit.read_text())
    findings[0]["question"] = "What colour is the sky?"
    audit.write_text(json.dumps(findings))
    result = pytester.runpytest(
        "--memorybench",
        "--mb-suite=locomo",
        "--agent=null",
        f"--mb-data=locomo={data}",
        f"--mb-data=locomo_audit={audit}",
        "-p",
        "no:cacheprovider",
    )
    error = usage_error_line(result)
    assert "is about 'What colour is the sky?'" in error and "give the audit of this release" in error
