"""A PreparedGold under OA_ENGINE=rust keeps the gold converted and indexed by Rust:
scores against it are the same bits as against the plain gold."""

import copy

import oa_core
from benchmarks.throughput import WORKLOADS


def test_a_prepared_gold_scores_the_running_example_bit_for_bit(monkeypatch):
    monkeypatch.setenv("OA_ENGINE", "rust")
    pairs, raw = WORKLOADS["running"]()
    schema = oa_core.Schema.parse(raw)
    gold = pairs[0][0]
    prepared = oa_core.prepare_gold(gold, schema)
    assert prepared._native is not None
    assert copy.deepcopy(prepared)._native is prepared._native
    for _, candidate in pairs[:6]:
        expected = oa_core.score(gold, candidate, schema).hex()
        assert oa_core.score(prepared, candidate, schema).hex() == expected
        monkeypatch.setenv("OA_ENGINE", "python")
        assert oa_core.score(gold, candidate, schema).hex() == expected
        monkeypatch.setenv("OA_ENGINE", "rust")


def test_other_limits_leave_the_prepared_rust_gold_aside(monkeypatch):
    monkeypatch.setenv("OA_ENGINE", "rust")
    pairs, raw = WORKLOADS["running"]()
    schema = oa_core.Schema.parse(raw)
    gold, candidate = pairs[-1]
    prepared = oa_core.prepare_gold(gold, schema, limits=oa_core.Limits(max_depth=40))
    assert prepared._native is not None
    assert (oa_core.score(prepared, candidate, schema).hex()
            == oa_core.score(gold, candidate, schema).hex())


def test_no_rust_gold_under_the_python_engine(monkeypatch):
    monkeypatch.setenv("OA_ENGINE", "python")
    pairs, raw = WORKLOADS["running"]()
    assert oa_core.prepare_gold(pairs[0][0], oa_core.Schema.parse(raw))._native is None
