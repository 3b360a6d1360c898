"""The judge panel: repeats, a jury and the rubric band, against loopback judges of known behaviour."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_memorybench.contract.scenario import ScoringContext, scored
from pytest_memorybench.core.records import Score
from pytest_memorybench.judges.base import JudgeTask, JudgeVerdict
from pytest_memorybench.judges.client import CachedJudge
from pytest_memorybench.judges.majority_vote import majority
from pytest_memorybench.judges.panel import JudgePanel
from pytest_memorybench.judges.rubrics import asked_under, read_under
from pytest_memorybench.judges.spec import build_judge
from pytest_memorybench.results.judge_robustness import fleiss_kappa, judging_figures
from pytest_memorybench.scoring.judged import score_answer
from pytest_memorybench.scoring.profiles import OFFICIAL
from tests.support.judge_server import JudgeServer, honest

FAST = {"min_wait": 0.01, "max_wait": 0.05, "retry_attempts": 2}


@pytest.fixture
def servers() -> Iterator[list[JudgeServer]]:
    started: list[JudgeServer] = []
    yield started
    for server in started:
        server.stop()


def serve(servers: list[JudgeServer], **behaviour: object) -> JudgeServer:
    server = JudgeServer(**behaviour).start()  # type: ignore[arg-type]
    servers.append(server)
    return server


def juror(server: JudgeServer, cache: Path | None = None) -> CachedJudge:
    return build_judge(f"openai:fake-model@{server.openai_url}", cache_path=cache, api_key="sk-test", **FAST)


def questions(count: int, seed: int = 7) -> list[tuple[str, str]]:
    """(expected, answer) pairs, half of the answers right."""
    draw = random.Random(seed)
    pairs = []
    for number in range(count):
        expected = f"the blue {draw.choice(['heron', 'kettle', 'lantern'])} number {number}"
        answer = expected if number % 2 == 0 else f"a red fox, item {number + 1000}"
        pairs.append((expected, answer))
    return pairs


async def score_all(panel: JudgePanel, pairs: list[tuple[str, str]]) -> list[Score]:
    """Each pair scored as LoCoMo's J scores it, through the panel as a run scores an item."""
    from pytest_memorybench.conversation.channel import LoggedJudge

    class Silent:
        def emit(self, *args: object, **data: object) -> None:
            return None

    logged = LoggedJudge(panel, Silent())  # type: ignore[arg-type]
    context = ScoringContext(profile=OFFICIAL, judge=logged)
    results = []
    for expected, answer in pairs:

        async def one(scoring: ScoringContext, expected: str = expected, answer: str = answer) -> Score:
            assert scoring.judge is not None
            return await score_answer(
                scoring.judge,
                question="What was it?",
                expected=expected,
                answer=answer,
                rule="generous",
                scorer="t",
            )

        results.append(await scored(one, context))
    return results


def records(pairs: list[tuple[str, str]], scores: list[Score]) -> list[dict[str, object]]:
    return [{"score": score.value, "judging": score.judging, "suite": "s"} for score in scores]


@pytest.mark.asyncio
async def test_five_repeats_of_a_noisy_judge_agree_with_the_noiseless_one_far_more_than_one_call(
    servers: list[JudgeServer],
) -> None:
    server = serve(servers, flip=0.2, seed=3)
    panel = JudgePanel([juror(server)], repeats=5)
    pairs = questions(300)
    scores = await score_all(panel, pairs)
    truth = [honest(expected, answer) for expected, answer in pairs]
    majority_right = sum(bool(s.value) == t for s, t in zip(scores, truth, strict=True)) / len(pairs)
    single_right = sum(
        bool(s.judging["repeats"][panel.jurors[0].name][0]) == t for s, t in zip(scores, truth, strict=True)
    ) / len(pairs)
    assert server.verdicts == 1500  # five calls a question, each its own
    assert single_right == pytest.approx(0.8, abs=0.06)
    assert majority_right > 0.9 > single_right + 0.05  # P(3 of 5 flipped) = 5.8 %

    figures = judging_figures(records(pairs, scores))
    assert figures is not None
    assert figures["dissent"] == pytest.approx(0.2, abs=0.04)  # the share of calls against the majority
    assert figures["unanimous"] == pytest.approx(0.8**5 + 0.2**5, abs=0.07)
    spread = figures["repeats"][panel.jurors[0].name]
    assert spread["dissent"] == figures["dissent"]  # one juror: its calls are all the votes
    assert len(spread["scores"]) == 5 and 0 < spread["sd"] < 0.08  # about 0.03 (binomial over 300 calls)
    assert spread["mean"] == pytest.approx(0.5, abs=0.05)
    await panel.aclose()


@pytest.mark.asyncio
async def test_a_noiseless_judge_asked_five_times_is_unanimous(servers: list[JudgeServer]) -> None:
    panel = JudgePanel([juror(serve(servers))], repeats=5)
    pairs = questions(20)
    figures = judging_figures(records(pairs, await score_all(panel, pairs)))
    assert figures is not None
    assert (figures["unanimous"], figures["dissent"]) == (1.0, 0.0)
    assert figures["repeats"][panel.jurors[0].name]["sd"] == 0.0
    await panel.aclose()


@pytest.mark.asyncio
async def test_repeats_are_cached_each_as_a_verdict_of_its_own(
    servers: list[JudgeServer], tmp_path: Path
) -> None:
    server = serve(servers, flip=0.5, seed=1)
    pairs = questions(10)
    first = JudgePanel([juror(server, tmp_path / "cache.sqlite")], repeats=3)
    before = await score_all(first, pairs)
    await first.aclose()
    again = JudgePanel([juror(server, tmp_path / "cache.sqlite")], repeats=3)
    after = await score_all(again, pairs)
    assert server.verdicts == 30  # the second panel asked nothing
    assert [s.judging for s in after] == [s.judging for s in before]
    assert again.stats.cache_hits == 30
    await again.aclose()


@pytest.mark.asyncio
async def test_a_jury_with_an_always_yes_juror_keeps_the_honest_majority_and_a_low_kappa(
    servers: list[JudgeServer],
) -> None:
    honest_a, honest_b, yes = serve(servers), serve(servers), serve(servers, always=True)
    panel = JudgePanel([juror(honest_a), juror(yes), juror(honest_b)])
    pairs = questions(40)
    scores = await score_all(panel, pairs)
    assert [bool(s.value) for s in scores] == [honest(e, a) for e, a in pairs]
    figures = judging_figures(records(pairs, scores))
    assert figures is not None
    jury = figures["jury"]
    names = [j.name for j in panel.jurors]
    assert jury["scores"] == {names[0]: 0.5, names[1]: 1.0, names[2]: 0.5}
    assert jury["fleiss_kappa"] == pytest.approx(0.25, abs=0.01)  # two agree, one says yes to all
    agreement = {tuple(pair["jurors"]): pair["agreement"] for pair in jury["pairwise"]}
    assert agreement[(names[0], names[2])] == 1.0
    assert agreement[(names[0], names[1])] == 0.5
    assert panel.name.startswith("jury of 3: openai:fake-model@")
    await panel.aclose()


@pytest.mark.asyncio
async def test_a_local_juror_is_asked_once_however_many_repeats(servers: list[JudgeServer]) -> None:
    local = build_judge("local", cache_path=None)
    server = serve(servers)
    panel = JudgePanel([local, juror(server)], repeats=3)
    await score_all(panel, questions(4))
    assert local.stats.usage.calls == 4 and server.verdicts == 12
    assert panel.name.endswith(" ×3")
    await panel.aclose()


@pytest.mark.asyncio
async def test_the_band_asks_the_answer_task_under_three_rules_and_orders_the_scores(
    servers: list[JudgeServer],
) -> None:
    server = serve(servers)
    panel = JudgePanel([juror(server)], band=True)
    pairs = [
        ("blue heron lake", "blue heron lake"),  # right under all three
        ("blue heron lake", "the blue heron"),  # not complete: strict says no
        ("blue heron lake", "a blue sky"),  # only touches it: generous alone says yes
        ("blue heron lake", "a red fox"),  # wrong under all three
    ]
    scores = await score_all(panel, pairs)
    assert [s.judging["band"] for s in scores] == [
        {"strict": 1.0, "official": 1.0, "generous": 1.0},
        {"strict": 0.0, "official": 1.0, "generous": 1.0},
        {"strict": 0.0, "official": 0.0, "generous": 1.0},
        {"strict": 0.0, "official": 0.0, "generous": 0.0},
    ]
    assert [s.value for s in scores] == [1.0, 1.0, 0.0, 0.0]  # the headline is the official rubric's
    assert server.verdicts == 12
    figures = judging_figures(records(pairs, scores))
    assert figures is not None and figures["band"] == {"strict": 0.25, "official": 0.5, "generous": 0.75}
    assert set(panel.stats.prompt_hashes) == {"answer", "answer/complete", "answer/topic"}
    await panel.aclose()


def test_a_tie_goes_to_the_side_that_gives_less_credit() -> None:
    yes, no = JudgeVerdict("answer", {"correct": True}), JudgeVerdict("answer", {"correct": False})
    assert majority("answer", [yes, no]) == no
    assert majority("answer", [yes, yes, no]) == yes
    half, full, none = (JudgeVerdict("nugget", {"score": value}) for value in (0.5, 1, 0))
    assert majority("nugget", [full, half, none]) == none
    failed = JudgeVerdict("answer", None, error="judge-error: down")
    assert majority("answer", [failed, yes]) == yes
    assert majority("answer", [failed]) == failed


def test_rubrics_read_half_credit_and_swap_the_answer_rule() -> None:
    assert read_under("strict", "nugget", {"score": 0.5}) == {"score": 0}
    assert read_under("generous", "nugget", {"score": 0.5}) == {"score": 1}
    assert read_under("strict", "items", {"identified": [], "matching": [1, 0.5, 0]})["matching"] == [1, 0, 0]
    task = JudgeTask("answer", {"question": "q", "expected": "e", "answer": "a", "rule": "days"}, "s")
    assert asked_under("strict", task).payload["rule"] == "contains"
    assert asked_under("generous", task).payload["rule"] == "generous"
    abstention = JudgeTask("answer", {**task.payload, "rule": "abstention"}, "s")
    assert asked_under("strict", abstention) is abstention


def test_fleiss_kappa_on_known_tables() -> None:
    assert fleiss_kappa([[1, 1, 1], [0, 0, 0]]) == 1.0
    assert fleiss_kappa([[1, 1, 1], [1, 1, 1]]) is None  # one category: no chance to measure against
    # Fleiss (1971)'s textbook reading: two raters always disagreeing on a balanced set
    assert fleiss_kappa([[1, 0], [0, 1], [1, 0], [0, 1]]) == -1.0
