"""Our generator's traps: small planted modules whose right fix rests on a project decision.

Each trap is written here, by us, in sde-bench's shape (its `GENERATING.md`): the module at HEAD
(`bug`), the decided fix (`correct`), plausible fixes that make the reported bug go away and break
the decision (`naive`), the module's existing test, the visible repro, the hidden test, the bug
report in the symptom's words, the decision as a developer chat (and, for an amended task, the
earlier chat it supersedes) and as a commit.  `tests/scenarios/test_sdebench_generator.py` proves for
each one sde-bench's table: HEAD passes existing and fails repro and hidden; the correct fix passes
all three; every naive fix passes existing and repro and fails hidden.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Trap:
    """One decision and everything needed to plant it (sde-bench's trap fields, our names)."""

    name: str
    category: str
    package: str
    module: str
    function: str
    init: str
    bug: str
    correct: str
    naive: tuple[str, ...]
    existing_test: str
    repro_test: str
    hidden_test: str
    bug_report: str
    policy: str
    chat: tuple[tuple[str, str], ...]  # (role, text): where the decision was made
    decision: tuple[str, str]  # the commit that recorded it: subject, body
    # An amended decision: the earlier chat `chat` amends (its rule is one of the naive fixes).
    earlier_chat: tuple[tuple[str, str], ...] = field(default=())


def _postage(body: str) -> str:
    return (
        '"""Postage for parcels, charged per weight block."""\n\n'
        "import math\n\nBLOCK_GRAMS = 250\nCENTS_PER_BLOCK = 120\n\n\n"
        "def postage_cents(weight_grams):\n"
        '    """What a parcel of `weight_grams` costs, in cents."""\n' + body
    )


POSTAGE = Trap(
    name="postage",
    category="numeric-policy",
    package="parcelpost",
    module="parcelpost/rates.py",
    function="postage_cents",
    init='"""parcelpost package."""\nfrom .rates import postage_cents\n\n__all__ = ["postage_cents"]\n',
    bug=_postage("    return (weight_grams // BLOCK_GRAMS + 1) * CENTS_PER_BLOCK\n"),
    correct=_postage(
        "    if weight_grams <= 0:\n"
        '        raise ValueError("a parcel must weigh something")\n'
        "    return math.ceil(weight_grams / BLOCK_GRAMS) * CENTS_PER_BLOCK\n"
    ),
    naive=(
        _postage("    return math.ceil(weight_grams / BLOCK_GRAMS) * CENTS_PER_BLOCK\n"),
        _postage("    return max(1, math.ceil(weight_grams / BLOCK_GRAMS)) * CENTS_PER_BLOCK\n"),
    ),
    existing_test=(
        "from parcelpost import postage_cents\n\n\n"
        "def test_light_parcels():\n    assert postage_cents(100) == 120\n    assert postage_cents(300) == 240\n"
    ),
    repro_test=(
        "from parcelpost import postage_cents\n\n\n"
        "def test_half_kilo_is_two_blocks():\n    assert postage_cents(500) == 240\n"
    ),
    hidden_test=(
        "import pytest\n\nfrom parcelpost import postage_cents\n\n\n"
        "def test_started_blocks_are_charged():\n"
        "    assert postage_cents(1) == 120\n    assert postage_cents(250) == 120\n"
        "    assert postage_cents(251) == 240\n    assert postage_cents(1000) == 480\n\n\n"
        "def test_weightless_parcels_are_refused():\n"
        "    for weight in (0, -5):\n        with pytest.raises(ValueError):\n            postage_cents(weight)\n"
    ),
    bug_report=(
        "Customers shipping exactly half a kilo say the shop overcharges them: a 500 g parcel is billed "
        "three postage blocks. A failing repro is at tests/test_regression.py. Fix postage_cents without "
        "breaking existing behaviour."
    ),
    policy="charge every started 250 g block (a boundary weight is that many blocks); a weight of 0 or less raises ValueError",
    earlier_chat=(
        (
            "user",
            "Marketplace imports sometimes send parcels with a weight of 0. What should postage do with them?",
        ),
        ("assistant", "We could charge them nothing: a weightless parcel is usually a voucher sent by post."),
        ("user", "Fine by me. Zero grams, zero cents; anything heavier pays for each block it starts."),
        (
            "assistant",
            "Settled: postage_cents charges per started 250 g block and returns 0 for a weight of 0.",
        ),
    ),
    chat=(
        (
            "user",
            "The carrier invoice and our postage totals disagree again. Can you look at how postage_cents counts blocks?",
        ),
        (
            "assistant",
            "Sure. Are blocks counted by rounding to the nearest 250 g, or by every block a parcel starts?",
        ),
        (
            "user",
            "Every started block. 251 g is two blocks. But exactly 250 g is one block, the carrier is explicit about that.",
        ),
        ("assistant", "Understood. And parcels with a weight of 0, free as before?"),
        (
            "user",
            "No. The carrier rejects those and we ate the fee twice. A weight of zero or below is bad data: raise ValueError, never ship it for free.",
        ),
        (
            "assistant",
            "Settled: charge each started 250 g block, a boundary weight is exactly that many blocks, and postage_cents raises ValueError for 0 g or less.",
        ),
    ),
    decision=(
        "fix: charge postage by started block and refuse weightless parcels",
        "The carrier bills every 250 g block a parcel starts, a boundary weight being exactly that many "
        "blocks (250 g is one, 251 g two). Weights of 0 or less are bad data the carrier rejects: "
        "postage_cents raises ValueError for them instead of shipping them free. Do not round to the "
        "nearest block.",
    ),
)


def _stock(body: str) -> str:
    return (
        '"""Stock levels merged across sites."""\n\n\n'
        "def merge_counts(warehouse, store):\n"
        '    """One count per SKU from the warehouse\'s and the store\'s counts."""\n' + body
    )


STOCK = Trap(
    name="stockmerge",
    category="collection-merge",
    package="stockroom",
    module="stockroom/merge.py",
    function="merge_counts",
    init='"""stockroom package."""\nfrom .merge import merge_counts\n\n__all__ = ["merge_counts"]\n',
    bug=_stock("    merged = dict(warehouse)\n    merged.update(store)\n    return merged\n"),
    correct=_stock(
        "    merged = {}\n"
        "    for sku, count in warehouse.items():\n"
        "        merged[sku.upper()] = merged.get(sku.upper(), 0) + count\n"
        "    for sku, count in store.items():\n"
        "        merged[sku.upper()] = merged.get(sku.upper(), 0) + max(count, 0)\n"
        "    return merged\n"
    ),
    naive=(
        _stock(
            "    merged = dict(warehouse)\n"
            "    for sku, count in store.items():\n"
            "        merged[sku] = merged.get(sku, 0) + count\n"
            "    return merged\n"
        ),
        _stock(
            "    merged = {}\n"
            "    for counts in (warehouse, store):\n"
            "        for sku, count in counts.items():\n"
            "            merged[sku.upper()] = merged.get(sku.upper(), 0) + count\n"
            "    return merged\n"
        ),
    ),
    existing_test=(
        "from stockroom import merge_counts\n\n\n"
        "def test_disjoint_skus():\n"
        '    assert merge_counts({"A1": 1}, {"B2": 2}) == {"A1": 1, "B2": 2}\n'
    ),
    repro_test=(
        "from stockroom import merge_counts\n\n\n"
        "def test_both_sites_count():\n"
        '    assert merge_counts({"A1": 2}, {"A1": 3}) == {"A1": 5}\n'
    ),
    hidden_test=(
        "from stockroom import merge_counts\n\n\n"
        "def test_skus_are_one_regardless_of_case():\n"
        '    assert merge_counts({"x9": 1}, {"X9": 2}) == {"X9": 3}\n\n\n'
        "def test_store_backorders_do_not_reduce_stock():\n"
        '    assert merge_counts({"a1": 2}, {"A1": -4, "B2": 1}) == {"A1": 2, "B2": 1}\n'
    ),
    bug_report=(
        "The merged stock report shows fewer units than the warehouse and the shop floor hold together: "
        "an item with 2 in the warehouse and 3 in the store is reported as 3. A failing repro is at "
        "tests/test_regression.py. Fix merge_counts without breaking existing behaviour."
    ),
    policy="add both sites' counts per SKU (SKUs case-insensitive, upper-cased); a negative store count (a back-order) adds 0",
    earlier_chat=(
        (
            "user",
            "How should merge_counts combine the two sites? The store feed sends lowercase SKUs sometimes.",
        ),
        (
            "assistant",
            "Add the counts per SKU, comparing SKUs case-insensitively and writing them upper-case.",
        ),
        (
            "user",
            "Yes. The store sends back-orders as negative counts; those reduce the total, it is stock we owe.",
        ),
        ("assistant", "Settled: sum per upper-cased SKU, negative store counts included as they are."),
    ),
    chat=(
        (
            "user",
            "Quick one about merge_counts: the totals on the stock report look off since the store feed changed.",
        ),
        ("assistant", "How should the two sites combine? Sum them, or does one site's count win?"),
        (
            "user",
            "Sum them, one line per SKU. SKUs are case-insensitive, the store feed sends lowercase ones; write them upper-case.",
        ),
        ("assistant", "And the negative counts the store sends for back-orders?"),
        (
            "user",
            "Back-orders are tracked in the order system now. A negative store count adds nothing: treat it as 0, never subtract it from the warehouse.",
        ),
        (
            "assistant",
            "Settled: merge_counts sums per upper-cased SKU and a negative store count counts as 0.",
        ),
    ),
    decision=(
        "fix: sum stock per SKU across sites, store back-orders count as zero",
        "merge_counts adds the warehouse and store counts per SKU, SKUs compared case-insensitively and "
        "written upper-case. The store feed's negative counts are back-orders, tracked in the order "
        "system: they add 0 here and never reduce warehouse stock.",
    ),
)


def _mentions(body: str) -> str:
    return (
        '"""Who a chat message mentions."""\n\nimport re\n\n\n'
        "def extract_mentions(text):\n"
        '    """The handles `text` mentions with @, in order."""\n' + body
    )


MENTIONS = Trap(
    name="mentions",
    category="filter-rule",
    package="chatops",
    module="chatops/mentions.py",
    function="extract_mentions",
    init='"""chatops package."""\nfrom .mentions import extract_mentions\n\n__all__ = ["extract_mentions"]\n',
    bug=_mentions('    return re.findall(r"@(\\w+)", text)\n'),
    correct=_mentions(
        "    seen = []\n"
        '    for handle in re.findall(r"(?<!\\S)@(\\w+)", text):\n'
        "        handle = handle.lower()\n"
        '        if handle != "channel" and handle not in seen:\n'
        "            seen.append(handle)\n"
        "    return seen\n"
    ),
    naive=(
        _mentions('    return re.findall(r"(?<!\\S)@(\\w+)", text)\n'),
        _mentions('    return sorted({h.lower() for h in re.findall(r"(?<![\\w.])@(\\w+)", text)})\n'),
    ),
    existing_test=(
        "from chatops import extract_mentions\n\n\n"
        'def test_one_handle():\n    assert extract_mentions("hi @ana") == ["ana"]\n'
    ),
    repro_test=(
        "from chatops import extract_mentions\n\n\n"
        "def test_email_is_not_a_mention():\n"
        '    assert extract_mentions("mail ops@example.com please") == []\n'
    ),
    hidden_test=(
        "from chatops import extract_mentions\n\n\n"
        "def test_first_mention_order_lowercase_once():\n"
        '    assert extract_mentions("@Zoe and @bo, then @zoe") == ["zoe", "bo"]\n\n\n'
        "def test_channel_is_never_a_person():\n"
        '    assert extract_mentions("@channel deploy done @Ana") == ["ana"]\n'
    ),
    bug_report=(
        "People get pinged for messages that only contain an email address: 'mail ops@example.com' "
        "notifies a user called example. A failing repro is at tests/test_regression.py. Fix "
        "extract_mentions without breaking existing behaviour."
    ),
    policy="a mention starts the text or follows whitespace; handles lower-cased, each once, in first-mention order; @channel is never returned",
    chat=(
        (
            "user",
            "The notifier calls extract_mentions and I want to pin down what counts as a mention before someone rewrites it.",
        ),
        ("assistant", "Go ahead. Does an @ inside a word count, like in an email address?"),
        (
            "user",
            "No. A mention starts the message or follows whitespace. Handles are case-insensitive: lower-case them.",
        ),
        ("assistant", "If someone is mentioned twice, notify twice?"),
        (
            "user",
            "Once, and keep the order of first mention; the notifier pings in that order. Also @channel is a broadcast, not a person: never return it.",
        ),
        (
            "assistant",
            "Settled: mentions at the start or after whitespace, lower-cased, each once in first-mention order, @channel dropped.",
        ),
    ),
    decision=(
        "fix: pin down what extract_mentions counts as a mention",
        "A mention starts the text or follows whitespace (an email address is not one). Handles are "
        "lower-cased and returned once each, in the order of their first mention, since the notifier "
        "pings in that order. @channel is a broadcast, never a person: it is not returned.",
    ),
)


def _backoff(body: str) -> str:
    return (
        '"""Waits between a failed job\'s tries."""\n\n\ndef delays(attempts):\n    """The seconds to wait before each retry of a job tried `attempts` times."""\n'
        + body
    )


BACKOFF = Trap(
    name="backoff",
    category="numeric-policy",
    package="jobqueue",
    module="jobqueue/backoff.py",
    function="delays",
    init='"""jobqueue package."""\nfrom .backoff import delays\n\n__all__ = ["delays"]\n',
    bug=_backoff("    return [2 ** n for n in range(attempts - 1)]\n"),
    correct=_backoff(
        "    tries = min(attempts, 6)\n    return [min(3 * 2 ** n, 60) for n in range(tries - 1)]\n"
    ),
    naive=(
        _backoff("    return [min(2 ** n, 60) for n in range(attempts - 1)]\n"),
        _backoff("    return [min(3 * 2 ** n, 60) for n in range(attempts - 1)]\n"),
    ),
    existing_test=(
        "from jobqueue import delays\n\n\ndef test_a_single_try_never_waits():\n    assert delays(1) == []\n"
    ),
    repro_test=(
        "from jobqueue import delays\n\n\n"
        "def test_no_wait_over_a_minute():\n    assert max(delays(12)) <= 60\n"
    ),
    hidden_test=(
        "from jobqueue import delays\n\n\n"
        "def test_schedule_starts_at_three_seconds():\n    assert delays(4) == [3, 6, 12]\n\n\n"
        "def test_at_most_six_tries():\n    assert delays(10) == [3, 6, 12, 24, 48]\n"
    ),
    bug_report=(
        "A failed export job sat for seventeen minutes before its next try, and the on-call engineer "
        "thought the queue was dead. A failing repro is at tests/test_regression.py. Fix delays without "
        "breaking existing behaviour."
    ),
    policy="waits start at 3 s and double, capped at 60 s; a job is tried at most 6 times",
    chat=(
        ("user", "Let's settle the retry schedule in jobqueue.delays, people keep asking on-call about it."),
        ("assistant", "A doubling schedule is usual. From 1 second?"),
        (
            "user",
            "From 3 seconds: the export API needs a moment to release its lock, 1 second always fails again.",
        ),
        ("assistant", "And a ceiling on the wait?"),
        (
            "user",
            "60 seconds at most. And no job is tried more than 6 times in all; past that it goes to the dead-letter queue, however many attempts the caller asks for.",
        ),
        (
            "assistant",
            "Settled: waits of 3, 6, 12, 24, 48 seconds, doubling from 3 and capped at 60, and at most 6 tries.",
        ),
    ),
    decision=(
        "fix: retry schedule doubles from 3 s, capped at 60 s, 6 tries at most",
        "The export API holds its lock about 2 s, so the first wait is 3 s; waits double and never "
        "exceed 60 s. A job is tried 6 times at most whatever the caller asks; after that it is "
        "dead-lettered.",
    ),
)

TRAPS: tuple[Trap, ...] = (POSTAGE, STOCK, MENTIONS, BACKOFF)
