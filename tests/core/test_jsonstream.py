"""The JSON stream: huge files read one value at a time, and read again from where a value starts."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from pytest_memorybench.core.jsonstream import JsonStream


def _random_json(rng: random.Random, depth: int = 0) -> object:
    roll = rng.random()
    if depth > 3 or roll < 0.3:
        return rng.choice(
            [
                7,
                -2.5e3,
                True,
                None,
                'quote " and \\ backslash\n',
                "ends in backslashes \\\\",
                '\\"',
                "é" * rng.randint(0, 40),
                "x" * rng.randint(0, 700),
            ]
        )
    if roll < 0.65:
        return [_random_json(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {f"key{i}": _random_json(rng, depth + 1) for i in range(rng.randint(0, 4))}


@pytest.mark.parametrize("chunk", [1, 5, 64, 1 << 20])
def test_the_stream_reads_and_skips_values_exactly_at_any_chunk_size(tmp_path: Path, chunk: int) -> None:
    rng = random.Random(chunk)
    for trial in range(40):
        data = [_random_json(rng) for _ in range(rng.randint(0, 5))]
        path = tmp_path / f"{trial}.json"
        path.write_text(json.dumps(data, indent=rng.choice([None, 2]), ensure_ascii=False), encoding="utf-8")
        keep = [rng.random() < 0.5 for _ in data]
        got = []
        with JsonStream(path, chunk) as stream:
            for index, _ in enumerate(stream.items()):
                if keep[index]:
                    got.append(stream.value())
                else:
                    stream.skip()
            assert stream.at_end()
        assert got == [value for value, kept in zip(data, keep, strict=True) if kept]


def test_the_stream_holds_one_value_at_a_time_however_long_the_file(tmp_path: Path) -> None:
    """The buffer never grows past a chunk plus the value being parsed (a batch), nor while
    skipping a value bigger than the whole buffer."""
    values = [{"turns": [["word " * 200] * 5]} for _ in range(300)]
    path = tmp_path / "chat.json"
    path.write_text(json.dumps([{"plan-1": values}, "x" * 200_000, values]), encoding="utf-8")
    largest = max(len(json.dumps(v)) for v in values)
    chunk = 4096
    seen = 0
    with JsonStream(path, chunk) as stream:
        for _ in stream.items():
            if stream.peek() == '"':
                stream.skip()
            elif stream.peek() == "{":
                for _key in stream.members():
                    for _ in stream.items():
                        stream.value()
                        seen += 1
                        assert len(stream._buffer) <= largest + 2 * chunk
            else:
                for _ in stream.items():
                    stream.value()
                    seen += 1
                    assert len(stream._buffer) <= largest + 2 * chunk
    assert seen == 600 and path.stat().st_size > 100 * (largest + 2 * chunk)


@pytest.mark.parametrize("chunk", [1, 7, 1 << 20])
def test_a_stream_started_at_a_position_reads_that_value(tmp_path: Path, chunk: int) -> None:
    """Positions are bytes in the file, right past multi-byte characters and dropped buffers."""
    rng = random.Random(chunk)
    data = [_random_json(rng) for _ in range(30)] + ["ünïcödé ✓ " * 50, {"last": "ß"}]
    path = tmp_path / "list.json"
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
    positions = []
    with JsonStream(path, chunk) as stream:
        for _ in stream.items():
            positions.append(stream.position())
            stream.skip()
    assert len(positions) == len(data)
    for value, start in reversed(list(zip(data, positions, strict=True))):
        with JsonStream(path, chunk, start=start) as stream:
            assert stream.value() == value
