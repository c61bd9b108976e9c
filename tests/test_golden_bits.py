"""The engine's outputs on a frozen corpus, bit for bit (``tests/golden/``).

Every case of :data:`benchmarks.bits.GOLDEN_CORPUS` is scored, aligned and given
feedback again in the three WL modes through the public API (``oa_core.score``,
``align``, ``feedback``), so any engine behind that API is held to the same
scores, pairs, tie rules, WL rounds, match trees, ops and deltas (floats as
``float.hex`` where the dump writes them, else as exact JSON numbers). After a
deliberate change of the results: ``python -m benchmarks.bits --write-golden``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from benchmarks import bits

Case = tuple[str, Any, Any, Any, Any]


def _cases(family: str) -> Iterator[Case]:
    return (c for c in bits.corpus(**bits.GOLDEN_CORPUS) if bits.family(c[0]) == family)


def _show(value: Any) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 300 else text[:300] + "..."


@pytest.mark.parametrize("family", bits.FAMILIES)
def test_the_engine_keeps_every_golden_bit(family):
    golden = bits.load_golden(family)
    seen = []
    for name, schema, gold, candidate, comparators in _cases(family):
        seen.append(name)
        assert name in golden, f"{name}: a case with no golden entry (regenerate the files)"
        actual = bits.public_view(bits.case(schema, gold, candidate, comparators))
        found = bits.first_difference(golden[name], actual)
        if found is not None:
            where, expected, got = found
            pytest.fail(f"{name} differs at {where}:\n  golden {_show(expected)}\n"
                        f"  now    {_show(got)}")
    assert sorted(seen) == sorted(golden), "the golden file holds cases the corpus lost"


def test_every_family_is_frozen_and_the_files_stay_small():
    assert {bits.family(name) for name, *_ in bits.corpus(**bits.GOLDEN_CORPUS)} == set(
        bits.FAMILIES)
    total = sum((bits.GOLDEN / f"{f}.json.gz").stat().st_size for f in bits.FAMILIES)
    assert total < 5_000_000
    nested = bits.load_golden("nested")
    same = nested["nested/array-of-arrays"]
    assert {mode: same[mode]["score"] for mode in bits.MODES} == dict.fromkeys(
        bits.MODES, (1.0).hex())


def test_a_difference_is_named_by_its_place():
    assert bits.first_difference({"a": [1, {"b": "x"}]}, {"a": [1, {"b": "y"}]}) == (
        "/a/1/b", "x", "y")
    assert bits.first_difference([1], [1, 2]) == ("/length", 1, 2)
    assert bits.first_difference({"a": 1}, {}) == ("/a", 1, "<absent>")
    assert bits.first_difference({"s": (0.5).hex()}, {"s": (0.5).hex()}) is None
