"""PrecisionMemBench: what came back mapped to beliefs, each tier's assertions on concrete returns,
the two readings of the pass taxonomy, relation expansion and drift, the loader on fixtures of our
own in the published layout, and whole runs: `recall`, and a store that returns k memories whatever
it is asked (recall high, precision low, no active pass)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from statistics import fmean
from typing import Any

import pytest

from pytest_memorybench.agents.agent_build import build_agent
from pytest_memorybench.agents.reference import ExtractiveAgent, OracleAgent
from pytest_memorybench.agents.spec import AgentOptions, parse_agent_spec
from pytest_memorybench.contract.scenario import ScoringContext
from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.core.records import Message, TestOutcome
from pytest_memorybench.scenarios.precisionmem.data import load_corpus
from pytest_memorybench.scenarios.precisionmem.generator import generate
from pytest_memorybench.scenarios.precisionmem.scenario import SCENARIOS
from pytest_memorybench.scenarios.precisionmem.scoring import (
    catalogue_entry,
    check_case,
    check_turn,
    read_catalogue,
    resolve,
)
from pytest_memorybench.scenarios.precisionmem.summary import summarize
from pytest_memorybench.suite import load_suite
from tests.support.llm_server import LLMServer
from tests.support.memory_model import MemoryModelScript, scripted_memory_server
from tests.support.runs import drive_plan, run_benchmark, usage_error_line

OVEN = "deck_oven stone oven The bakery bakes in a stone oven."
STARTER = "levain starter The rye starter is fed twice a day."
TILL = "till_system POS Sales go through a tablet till."
CATALOGUE = {
    "b-oven": catalogue_entry([OVEN], ["deck_oven", "stone oven"], "The bakery bakes in a stone oven."),
    "b-starter": catalogue_entry([STARTER], ["levain", "starter"], "The rye starter is fed twice a day."),
    "b-till": catalogue_entry([TILL], ["till_system", "POS"], "Sales go through a tablet till."),
}


def _expected(expect: dict[str, Any], **tiers: Any) -> dict[str, Any]:
    base = {
        "max_beliefs": 20,
        "pinned": [],
        "pinned_all": [],
        "questions": [],
        "prelude": "Wants short replies.",
        "expansions": {},
        "expansions_official": {},
        "pinned_in_seed": [],
    }
    return {
        "kind": "case",
        "category": "Alias resolution",
        "expect": expect,
        "tiers": {**base, **tiers},
        "catalogue": CATALOGUE,
    }


# -- mapping what came back to beliefs -------------------------------------------------------------------


def test_a_memory_is_the_belief_whose_seeded_text_it_holds_and_a_chunk_of_two_is_both() -> None:
    known = read_catalogue(CATALOGUE)
    found = resolve([f"[2026-09-01 09:00] user: {OVEN}", f"{STARTER}\n{TILL}"], known)
    assert found.beliefs == ["b-oven", "b-starter", "b-till"] and found.how == {"text": 2}


def test_a_rewritten_memory_is_mapped_by_a_name_it_says_and_an_unrelated_one_is_counted_not_guessed() -> None:
    known = read_catalogue(CATALOGUE)
    found = resolve(["User feeds the levain on a schedule", "Likes tea", "see b-till"], known)
    assert found.beliefs == ["b-starter", "b-till"]
    assert found.how == {"lexical": 1, "unresolved": 1, "id": 1}
    # a name must be said as a word: "POS" inside "post" is not the till
    assert resolve(["I will post the letters"], known).beliefs == []


# -- one case, its tiers --------------------------------------------------------------------------------


def test_an_extra_belief_fails_should_only_include_and_halves_precision() -> None:
    expected = _expected({"relevantBeliefs": {"shouldOnlyInclude": ["b-oven"]}})
    checked = check_case([OVEN, TILL], expected, "paper")
    assert checked.failures == ["unexpected belief in relevantBeliefs: b-till"]
    assert (checked.details["precision"], checked.details["recall"]) == (0.5, 1.0)
    assert checked.details["pass_type"] == "active" and checked.details["active_pass"] is False
    right = check_case([OVEN], expected, "paper")
    assert right.failures == [] and right.details["active_pass"] is True


def test_nothing_back_where_a_belief_was_wanted_is_precision_zero_and_where_none_was_no_precision() -> None:
    wanted = check_case([], _expected({"relevantBeliefs": {"shouldOnlyInclude": ["b-oven"]}}), "paper")
    assert wanted.details["precision"] == 0.0 and wanted.failures == ["missing expected belief: b-oven"]
    empty = check_case([], _expected({"relevantBeliefs": {"shouldOnlyInclude": []}}), "paper")
    assert (empty.details["precision"], empty.details["recall"], empty.failures) == (None, None, [])
    assert empty.details["pass_type"] == "trivially_empty"


def test_pinned_beliefs_leave_the_relevant_tier_and_the_budget_cuts_what_is_left() -> None:
    expect = {"relevantBeliefs": {"shouldOnlyInclude": []}, "pinnedFacts": {"mustInclude": ["b-oven"]}}
    tiers = {"max_beliefs": 1, "pinned": ["b-oven"], "pinned_all": ["b-oven"]}
    checked = check_case([OVEN, STARTER], _expected(expect, **tiers), "paper")
    assert checked.details["relevant"] == [] and checked.failures == []
    assert checked.details["pass_type"] == "structural"
    nothing_asked = check_case(
        None, _expected({"relevantBeliefs": {"shouldOnlyInclude": []}}, max_beliefs=0), "paper"
    )
    assert nothing_asked.details["returned"] is None and nothing_asked.failures == []


def test_forbidden_beliefs_questions_and_prelude_words_each_fail_with_their_own_line() -> None:
    expect = {
        "relevantBeliefs": {"mustExclude": ["b-till"]},
        "openQuestions": {"mustInclude": ["b-q"]},
        "personaPrelude": {"contains": ["short"], "mustNotContain": ["saffron"], "isNull": True},
    }
    checked = check_case([TILL], _expected(expect, questions=[]), "paper")
    assert checked.failures == [
        "forbidden belief surfaced: b-till",
        "missing expected question: b-q",
        "personaPrelude not empty",
    ]


def test_the_pass_taxonomy_by_design_under_paper_and_by_precision_and_category_under_official() -> None:
    expect = {"relevantBeliefs": {"mustExclude": ["b-till"]}}
    # returns a belief not excluded: passes; nothing was wanted, so precision is 0
    paper = check_case([OVEN], {**_expected(expect), "category": "Cross-user isolation"}, "paper")
    official = check_case([OVEN], {**_expected(expect), "category": "Cross-user isolation"}, "official")
    assert paper.failures == official.failures == []
    assert (paper.details["pass_type"], official.details["pass_type"]) == ("structural", "structural")
    listed = {**_expected({"relevantBeliefs": {"shouldOnlyInclude": []}}), "category": "Alias resolution"}
    assert check_case([], listed, "official").details["pass_type"] == "trivially_empty"
    assert (
        check_case([], {**listed, "category": "Scope disambiguation"}, "official").details["pass_type"]
        == "structural"
    )


def test_a_relation_brings_its_participants_and_paper_routes_an_open_question_to_its_own_tier() -> None:
    relation = "early_bake Thursday bake depends on the starter and the wholesale question."
    catalogue = {**CATALOGUE, "b-rel": catalogue_entry([relation], ["early_bake"], relation)}
    expect = {
        "relevantBeliefs": {"shouldOnlyInclude": ["b-rel", "b-starter"]},
        "openQuestions": {"mustInclude": ["b-q"]},
    }
    expected = {
        **_expected(
            expect,
            questions=["b-q"],
            expansions={"b-rel": ["b-starter"]},
            expansions_official={"b-rel": ["b-starter", "b-q"]},
        ),
        "catalogue": catalogue,
    }
    paper = check_case([relation], expected, "paper")
    assert paper.details["relevant"] == ["b-rel", "b-starter"] and paper.failures == []
    official = check_case([relation], expected, "official")
    assert official.failures == ["unexpected belief in relevantBeliefs: b-q"]


def test_a_session_turn_counts_noise_and_drift_by_the_readme_or_by_the_runner() -> None:
    expected = {
        **_expected(
            {
                "relevantBeliefs": {"shouldOnlyInclude": ["b-starter"]},
                "noiseCheck": {"mustNotSurface": ["b-till"]},
            },
            drift_beliefs=["b-till"],
        ),
        "kind": "turn",
        "turn": 6,
    }
    paper = check_turn([STARTER, TILL, OVEN], expected, "paper")
    assert paper.failures == [
        "turn 6: unexpected relevant belief: b-till",
        "turn 6: unexpected relevant belief: b-oven",
        "turn 6: noise belief surfaced: b-till",
    ]
    assert paper.details["noise"] == ["b-till"] and paper.details["drift"] == round(1 / 3, 6)
    assert check_turn([STARTER, TILL, OVEN], expected, "official").details["drift"] == round(2 / 3, 6)
    assert check_turn([], expected, "official").details["drift"] == 0.0


# -- the scenario and its generator ------------------------------------------------------------------------


def test_an_agent_that_cannot_retrieve_is_scored_on_its_reply_a_line_a_memory() -> None:
    definition = next(
        d
        for d in load_suite("precisionmem").generate(0, data={}).definitions
        if d.probe_id and d.probe_id.endswith("::alias-till")
    )
    scenario = SCENARIOS[0]
    till = next(text for text in definition.expected["catalogue"]["b-till"]["texts"])
    said = scenario.score(definition, [f"I remember this:\n{till}"], ScoringContext())
    assert said.value == 1.0 and said.details["relevant"] == ["b-till"]
    retrieved = scenario.score(
        definition, [till], ScoringContext(retrieved=((till, definition.ideal_answers[0]),))
    )
    assert retrieved.value == 1.0, "the same belief twice is one belief"
    wrong = scenario.score(definition, [till], ScoringContext(retrieved=((),)))
    assert wrong.value == 0.0
    assert wrong.reasons == (
        "missing expected belief: b-till",
        "relevantBeliefs: nothing (from 0 memories returned)",
    )
    assert said.reasons == ("pass (active)", "relevantBeliefs: b-till (from 2 memories returned)")


def test_the_generator_asks_differently_by_seed_and_keeps_the_published_shape() -> None:
    first, second = generate(0), generate(1)
    assert [case.query for case in first.cases] != [case.query for case in second.cases]
    assert {b.id for b in first.beliefs} == {b.id for b in second.beliefs} and len(first.beliefs) == 22
    assert len(first.cases) == 27 and sum(len(s.turns) for s in first.sessions) == 7
    assert {b.user for b in first.beliefs} == {"test-user", "other-user"}


# -- the published layout ------------------------------------------------------------------------------------


def _published(folder: Path, *, sessions: bool = True) -> Path:
    """Our generator's corpus written as the repository lays its fixtures out (a clone's fixtures/)."""
    corpus = json.loads(
        (Path(__file__).parents[2] / "pytest_memorybench/scenarios/precisionmem/data/corpus.json").read_text()
    )
    fixtures = folder / "fixtures"
    fixtures.mkdir(parents=True)
    (fixtures / "beliefs.seed.json").write_text(json.dumps(corpus["beliefs"]))
    cases = [
        {**{k: v for k, v in case.items() if k != "queries"}, "query": case["queries"][0]}
        for case in corpus["cases"]
    ]
    (fixtures / "retrieval.cases.json").write_text(json.dumps(cases))
    if sessions:
        (fixtures / "session-retrieval.cases.json").write_text(json.dumps(corpus["sessions"]))
    return folder


def test_the_published_fixtures_are_read_from_a_clone_or_its_fixtures_folder(tmp_path: Path) -> None:
    folder = _published(tmp_path)
    for path in (folder, folder / "fixtures"):
        corpus = load_corpus(str(path))
        assert (len(corpus.beliefs), len(corpus.cases), len(corpus.sessions)) == (22, 27, 1)
        assert corpus.cases[0].query == "how long does the stone oven take to heat up?"
    turn = corpus.sessions[0].turns[2]
    assert turn.created is not None and turn.created.id == "b-flour-buffer"
    assert corpus.sessions[0].turns[5].update is not None


def test_bad_fixtures_are_one_line_naming_the_file_and_the_fix(tmp_path: Path) -> None:
    with pytest.raises(
        UsageError, match=r"precisionmem data .*: no beliefs\.seed\.json in it; give the folder"
    ):
        load_corpus(str(tmp_path))
    folder = _published(tmp_path / "bad")
    (folder / "fixtures" / "retrieval.cases.json").write_text('[{"category": "x", "query": "q"}]')
    with pytest.raises(UsageError, match=r"retrieval\.cases\.json: a case lacks its 'caseId' \(text\)"):
        load_corpus(str(folder))


def test_a_run_on_bad_fixtures_stops_with_one_line(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(
        "--memorybench", "--mb-suite=precisionmem", "--agent=null", f"--mb-data=precisionmem={pytester.path}"
    )
    assert "no beliefs.seed.json in it" in usage_error_line(result)


def test_without_the_session_file_the_published_cases_run_and_the_header_counts_no_turns(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    folder = _published(tmp_path / "clone", sessions=False)
    run = run_benchmark(
        pytester, "--mb-suite=precisionmem", "--agent=null", f"--mb-data=precisionmem={folder}"
    )
    run.outcome.stdout.fnmatch_lines(
        ["*precisionmem data: 22 beliefs, 27 cases, 0 session turns → 27 items*"]
    )
    assert run.results["totals"]["max"] == 27


@pytest.mark.e2e  # two whole runs
def test_a_replay_rescores_what_was_retrieved_under_the_other_profile(pytester: pytest.Pytester) -> None:
    first = run_benchmark(pytester, "--mb-suite=precisionmem", "--agent=recall", "-k", "session")
    again = run_benchmark(pytester, f"--mb-replay={first.folder}", "--mb-profile=official")
    drift = [
        s["metrics"]["mean drift"]
        for s in (
            first.results["scenarios"]["precisionmem.session"],
            again.results["scenarios"]["precisionmem.session"],
        )
    ]
    assert drift[0] < 0.2 < 0.6 < drift[1], "paper's drift counts drift topics, official's is 1 - precision"


def test_published_fixtures_run_every_case_and_turn_and_the_oracle_passes_them(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    folder = _published(tmp_path / "clone")
    outcomes = drive_plan(
        pytester, "--mb-suite=precisionmem", f"--mb-data=precisionmem={folder}", agent=OracleAgent
    )
    assert len(outcomes) == 27 + 7 and all(o.score.value == 1.0 for o in outcomes.values())


# -- whole runs ---------------------------------------------------------------------------------------------


def _table(outcomes: dict[str, TestOutcome], scenario: str) -> dict[str, Any]:
    records = [
        {
            "score": o.score.value,
            "passed": o.score.value >= 1.0,
            "details": {**o.details, "scoring": o.score.details},
        }
        for o in outcomes.values()
        if o.definition.scenario == scenario
    ]
    return summarize(records)


def test_recall_finds_by_words_and_the_session_re_entry_finds_the_starter_by_its_new_alias(
    pytester: pytest.Pytester,
) -> None:
    outcomes = drive_plan(pytester, "--mb-suite=precisionmem", agent=ExtractiveAgent)
    assert all(o.error is None for o in outcomes.values())
    re_entry = next(o for key, o in outcomes.items() if key.endswith("::t6"))
    assert re_entry.score.value == 1.0 and re_entry.score.details["relevant"] == ["b-levain"]
    table = _table(outcomes, "precisionmem.retrieval")
    assert table["mean recall"] == 1.0 and 0.3 < table["mean precision"] < 0.7, table


class AnyQuery:
    """A test store that returns the first k memories of its namespace, whatever it is asked (and
    refuses an empty query, as Mem0 does: the suite's empty query must never reach it)."""

    def __init__(self) -> None:
        self.spaces: dict[str, list[str]] = {}

    def add(self, messages: list[Message], namespace: str) -> None:
        self.spaces.setdefault(namespace, []).extend(message.text for message in messages)

    def search(self, query: str, namespace: str, k: int) -> list[str]:
        if not query.strip():
            raise ValueError("Invalid query: cannot be empty")  # as Mem0 refuses one
        return self.spaces.get(namespace, [])[:k]

    def clear(self, namespace: str) -> None:
        self.spaces.pop(namespace, None)


@pytest.fixture
def model() -> Iterator[tuple[LLMServer, MemoryModelScript]]:
    with scripted_memory_server() as served:
        yield served


def test_a_store_that_returns_k_memories_for_any_query_has_high_recall_low_precision_and_no_active_pass(
    pytester: pytest.Pytester, model: tuple[LLMServer, MemoryModelScript]
) -> None:
    server, _ = model
    spec = parse_agent_spec(
        f"store(factory=tests.scenarios.test_precisionmem:AnyQuery):openai:m@{server.openai_url}"
    )
    outcomes = drive_plan(
        pytester, "--mb-suite=precisionmem", agent=lambda: build_agent(spec, AgentOptions(k=20))
    )
    assert all(o.error is None for o in outcomes.values())
    for scenario in ("precisionmem.retrieval", "precisionmem.session"):
        table = _table(outcomes, scenario)
        assert table["mean recall"] >= 0.8 and table["mean precision"] <= 0.15, table
        assert table["active passes"].startswith("0/"), table
    returns = [key for key, o in outcomes.items() if key.endswith(("::t5", "::t6"))]
    assert returns and all(outcomes[key].score.details["noise"] for key in returns), "drift topics came back"
    assert fmean(o.score.details["drift"] for o in outcomes.values() if "drift" in o.score.details) > 0
