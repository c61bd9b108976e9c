"""A PreparedGold keeps the gold converted and indexed by Rust: scores against it are
the same bits as against the plain gold (and the running example's frozen score)."""

import copy

import oa_core
from benchmarks.throughput import WORKLOADS


def test_a_prepared_gold_scores_the_running_example_bit_for_bit():
    pairs, raw = WORKLOADS["running"]()
    schema = oa_core.Schema.parse(raw)
    gold = pairs[0][0]
    prepared = oa_core.prepare_gold(gold, schema)
    assert prepared._native is not None
    assert copy.deepcopy(prepared)._native is prepared._native
    assert oa_core.score(prepared, pairs[0][1], schema) == 0.7678571428571429
    for _, candidate in pairs[:6]:
        expected = oa_core.score(gold, candidate, schema).hex()
        assert oa_core.score(prepared, candidate, schema).hex() == expected


def test_other_limits_leave_the_prepared_rust_gold_aside():
    pairs, raw = WORKLOADS["running"]()
    schema = oa_core.Schema.parse(raw)
    gold, candidate = pairs[-1]
    prepared = oa_core.prepare_gold(gold, schema, limits=oa_core.Limits(max_depth=40))
    assert prepared._native is not None
    assert (oa_core.score(prepared, candidate, schema).hex()
            == oa_core.score(gold, candidate, schema).hex())
