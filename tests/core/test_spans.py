"""Memory spans: `parse_span` and `str(Span)`."""

from __future__ import annotations

import pytest

from pytest_memorybench.core.errors import UsageError
from pytest_memorybench.core.spans import ISOLATED, Span, parse_span


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("2k", 2_000),
        ("32k", 32_000),
        ("120k", 120_000),
        ("1M", 1_000_000),
        ("1m", 1_000_000),
        ("32K", 32_000),
        ("500000", 500_000),
        ("1.5k", 1_500),
        (" 32k ", 32_000),
        ("2.5M", 2_500_000),
    ],
)
def test_parse_span_reads_token_counts(text: str, tokens: int) -> None:
    span = parse_span(text)
    assert span == Span(tokens)
    assert span.tokens == tokens
    assert not span.isolated


@pytest.mark.parametrize("text", ["isolated", "ISOLATED", "Isolated", "  isolated  "])
def test_parse_span_reads_isolated_in_any_case(text: str) -> None:
    span = parse_span(text)
    assert span is ISOLATED
    assert span.isolated
    assert span.tokens is None
    assert str(span) == "isolated"


def test_parse_span_accepts_an_int() -> None:
    assert parse_span(32000) == Span(32_000)
    assert parse_span(1500).tokens == 1500


@pytest.mark.parametrize("text", ["32k", "1M", "1500", "2k", "120k", "999", "isolated"])
def test_str_round_trips(text: str) -> None:
    span = parse_span(text)
    assert str(span) == text
    assert parse_span(str(span)) == span


@pytest.mark.parametrize(
    ("tokens", "text"),
    [(32_000, "32k"), (1_000_000, "1M"), (1_500, "1500"), (2_000_000, "2M"), (1_500_000, "1500k")],
)
def test_str_uses_the_largest_exact_suffix(tokens: int, text: str) -> None:
    assert str(Span(tokens)) == text


@pytest.mark.parametrize("text", ["", "   ", "0", "0k", "-5k", "32x", "abc", "1.5.2k", "k", "32 kb"])
def test_invalid_spans_are_usage_errors_listing_valid_forms(text: str) -> None:
    with pytest.raises(UsageError) as excinfo:
        parse_span(text)
    message = str(excinfo.value)
    assert repr(text) in message
    for form in ("2k", "32k", "1M", "500000", "isolated"):
        assert form in message
    assert isinstance(excinfo.value, pytest.UsageError)


def test_invalid_int_span_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="'0' is not a memory span"):
        parse_span(0)


@pytest.mark.parametrize(("text", "tokens"), [("2.01k", 2_010), ("1.005M", 1_005_000), ("1.001k", 1_001)])
def test_decimal_spans_are_exact(text: str, tokens: int) -> None:
    assert parse_span(text).tokens == tokens
