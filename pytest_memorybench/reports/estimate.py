"""The bill before the run, as the terminal shows it: the agent's model, then a few common ones.

The plays themselves (`runner/estimate_plays.py`) count what each call would bill; this prices them.
"""

from __future__ import annotations

from pytest_memorybench.core.estimate_bill import Bill, JudgeBill
from pytest_memorybench.models.prices import Price, context_window_for
from pytest_memorybench.models.provider_pool import price_for
from pytest_memorybench.reports.summary import compact_count


def estimate_lines(bill: Bill) -> list[str]:
    """The estimate for the agent's model, then the same run on a few common models."""
    main, model = bill.main, bill.model
    price = price_for(model)
    spans = ", ".join(f"{suite}={span}" for suite, span in main.spans.items()) or "- (probe suites)"
    lines = [
        (
            f"{bill.agent or 'a full-context chat model'} · context {main.context_tokens:,} tokens "
            f"· replies of {main.reply_tokens} tokens · span {spans}"
        ),
        (
            f"{'suite':<20}{'tests':>6}{'calls':>7}{'delivered':>10}"
            f"{'billed in':>11}{'billed out':>11}{'cost':>11}"
        ),
    ]
    for name, suite in [*main.suites.items(), ("total", main.total)]:
        cost = _money(price.cost(suite.usage.input_tokens, suite.usage.output_tokens)) if price else "?"
        lines.append(
            f"{name:<20}{suite.tests:>6}{suite.calls:>7}{compact_count(suite.delivered):>10}"
            f"{compact_count(suite.usage.input_tokens):>11}{compact_count(suite.usage.output_tokens):>11}{cost:>11}"
        )
    if price is None:
        lines.append(
            f"no price known for {model or 'this agent'}: give one with --mb-price MODEL=IN,OUT, or see the"
            " models below"
        )
    memory = main.total.memory
    if memory:
        lines.append(
            "memory: "
            + " · ".join(
                f"{phase} {usage.calls:,} calls, {compact_count(usage.input_tokens)} in"
                for phase, usage in memory.items()
            )
            + " (in the total above)"
        )
    lines.extend(judge_lines(main.judge))
    lines.append("the same run on other models (USD per million tokens in / out, context window):")
    for name, other in bill.others.items():
        known = price_for(name)
        assert known is not None
        total = other.total.usage
        cost = _money(known.cost(total.input_tokens, total.output_tokens))
        lines.append(f"  {name:<20}{_rate(known):>16}{context_window_for(name):>12,}{cost:>12}")
    lines.append(
        "billed: each call re-sends the conversation up to the context window; filler is observed without a"
        " call"
    )
    lines.append("reasoning models (o-series, gpt-5) also bill their reasoning as output: not included above")
    return lines


def judge_lines(judge: JudgeBill) -> list[str]:
    """What judging would cost: the tasks, and what the LLM jurors would be asked and billed."""
    if not judge.tasks:
        return []
    if not judge.calls:
        return [f"judge {judge.judge}: {judge.tasks:,} tasks, answered offline (no calls, no cost)"]
    cost = (
        "no price known: give one with --mb-price MODEL=IN,OUT"
        if judge.cost_usd is None
        else _money(judge.cost_usd)
    )
    return [
        f"judge {judge.judge}: {judge.tasks:,} tasks → {judge.calls:,} calls"
        f" ({judge.calls / judge.tasks:.1f} a task: jurors, repeats and rubrics),"
        f" {compact_count(judge.input_tokens)} tokens in, {compact_count(judge.output_tokens)} out, {cost}"
    ]


def _rate(price: Price) -> str:
    return f"${price.input_per_million:.2f} / ${price.output_per_million:.2f}"


def _money(value: float) -> str:
    return f"${value:,.2f}" if value >= 0.01 or value == 0 else f"${value:.4f}"
