"""oa_core.runs.fields: the wrong-shape outcome, the FD/FA split of false positives and the
rows of a field table (unit tests, and hypothesis properties on random documents)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import oa_core
from oa_core.runs import fields

SCHEMA = {"type": "object"}
values = st.recursive(st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from("abc"),
                      lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.sampled_from("xyz"), inner, max_size=3),
                      max_leaves=8)


def test_a_list_where_the_gold_has_an_object_is_one_wrong_shape_row() -> None:
    gold = {"people": [{"id": 1, "name": "Ann"}]}
    observed = fields.observe(oa_core.align(gold, [{"id": 1, "name": "Ann"}], SCHEMA))
    rows = dict(fields.table(fields.count(observed)))
    assert list(rows) == ["/people/*/id", "/people/*/name", fields.WRONG_SHAPE, fields.TOTAL]
    assert (rows[fields.WRONG_SHAPE].fa, rows["/people/*/id"].fn) == (2, 1)


def test_wrong_and_spurious_values_are_told_apart() -> None:
    observed = fields.observe(oa_core.align({"a": "x", "b": [1]}, {"a": "y", "b": [1, 2]},
                                            SCHEMA))
    counts = fields.count(observed, threshold=0.5)
    assert (counts["/a"].fd, counts["/a"].fa, counts["/a"].fn) == (1, 0, 1)
    assert (counts["/b/*"].fd, counts["/b/*"].fa, counts["/b/*"].tp) == (0, 1, 1)


def test_an_unknown_outcome_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown outcome 'odd'"):
        fields.count([("/a", "odd", 0.0)])


@settings(max_examples=40, deadline=None)
@given(values, values, st.sampled_from([0.0, 0.5, 1.0]))
def test_counts_add_up_and_every_row_but_wrong_shape_is_a_gold_field(
        gold: object, candidate: object, threshold: float) -> None:
    observed = fields.observe(oa_core.align({"r": gold}, {"r": candidate}, SCHEMA))
    counts = fields.count(observed, threshold)
    rows = fields.table(counts)
    assert rows[-1][0] == fields.TOTAL
    total = rows[-1][1]
    # each gold value is one TP or one FN; each candidate value one TP or one FP
    assert total.tp + total.fn == sum(o in ("matched", "missing", "mismatch")
                                      for _, o, _ in observed)
    assert total.tp + total.fp == sum(o != "missing" for _, o, _ in observed)
    assert total.fp == total.fd + total.fa and total.fd >= 0
    assert sum(c.fp for _, c in rows[:-1]) == total.fp
    for name, item in rows[:-1]:
        assert name == fields.WRONG_SHAPE or item.tp + item.fn > 0
    arrays = fields.count_arrays(np.array([p for p, _, _ in observed], dtype=object),
                                 np.array([o for _, o, _ in observed], dtype=object),
                                 np.array([s for _, _, s in observed]), threshold)
    assert arrays == counts
