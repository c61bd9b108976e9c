"""Invariants, checked with hypothesis on generated schemas and documents."""

from __future__ import annotations

import copy
import math
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import oa_core
from oa_core import OAError, apply_ops, feedback
from oa_core.matchtree import Scorer

SETTINGS = settings(deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

words = st.sampled_from(["alpha", "beta", "gamma", "delta", "alpah", "bet", "", "Ωmega"])
scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 5),
                    st.floats(-10, 10, allow_nan=False, allow_infinity=False), words)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.sampled_from(["a", "b", "ab", "c", "name"]),
                                            inner, max_size=4)),
    max_leaves=12)


@st.composite
def leaf_schemas(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["string", "number"]))
    names = (["exact", "jaro", "levenshtein", "jaro_winkler", "indel"] if kind == "string"
             else ["exact", "invdiff", "relative"])
    schema: dict[str, Any] = {"type": [kind, "null"], "score": draw(st.sampled_from(names))}
    if draw(st.booleans()):
        schema["threshold"] = draw(st.sampled_from([0.0, 0.3, 0.8]))
    if draw(st.booleans()):
        schema["nullScore"] = draw(st.sampled_from([0.0, 0.5]))
    return schema


def record_schema(draw: st.DrawFn, props: list[str]) -> dict[str, Any]:
    return {"type": "object", "keyImportance": draw(st.sampled_from([0, 0, 1])),
            "keyScore": draw(st.sampled_from(["jaro", "exact"])),
            "properties": {p: {**draw(leaf_schemas()),
                               "valueWeight": draw(st.sampled_from([0.5, 1, 2]))}
                           for p in props}}


def value_for(draw: st.DrawFn, schema: dict[str, Any]) -> Any:
    if schema.get("type") == "object":
        keys = [k for k in schema["properties"] if k in ("name", "items") or draw(st.booleans())]
        return {k: value_for(draw, schema["properties"][k]) for k in keys}
    if schema.get("type") == "array":
        return [value_for(draw, schema["items"]) for _ in range(draw(st.integers(0, 4)))]
    kind = schema["type"][0]
    if draw(st.integers(0, 9)) == 0:
        return None
    return draw(words) if kind == "string" else draw(st.integers(0, 6))


@st.composite
def typed_pairs(draw: st.DrawFn) -> tuple[Any, Any, dict[str, Any]]:
    record = record_schema(draw, ["name", "ab", "c"])
    schema = {"type": "object", "properties": {
        "items": {"type": "array", "order": draw(st.sampled_from(["align", "fixed"])),
                  "ignoreMissing": draw(st.booleans()), "ignoreExcess": draw(st.booleans()),
                  "items": record},
        "tag": draw(leaf_schemas())}}
    return value_for(draw, schema), value_for(draw, schema), schema


@SETTINGS
@given(json_values, json_values)
def test_untyped_score_is_bounded_and_identity_is_one(gold, candidate):
    score = oa_core.score(gold, candidate, {})
    assert 0.0 <= score <= 1.0
    assert oa_core.score(gold, copy.deepcopy(gold), {}) == 1.0


@SETTINGS
@given(typed_pairs())
def test_typed_invariants(pair):
    gold, candidate, schema = pair
    result = oa_core.align(gold, candidate, schema)
    assert 0.0 <= result.score <= 1.0
    assert oa_core.score(gold, copy.deepcopy(gold), schema) == 1.0
    fb = feedback(gold, candidate, schema)
    assert abs(math.fsum(op.delta for op in fb.ops) - (1.0 - fb.score)) < 1e-12
    assert all(op.delta >= 0 for op in fb.ops)


@SETTINGS
@given(typed_pairs())
def test_applying_all_ops_scores_one(pair):
    gold, candidate, schema = pair
    fixed = apply_ops(candidate, feedback(gold, candidate, schema).ops)
    assert oa_core.score(gold, fixed, schema) == 1.0


@SETTINGS
@given(typed_pairs(), st.randoms(use_true_random=False))
def test_permuting_an_align_list_keeps_the_bits(pair, rng):
    gold, candidate, schema = pair
    schema["properties"]["items"]["order"] = "align"
    before = oa_core.score(gold, candidate, schema)
    shuffled = copy.deepcopy(candidate)
    rng.shuffle(shuffled["items"])
    gold_shuffled = copy.deepcopy(gold)
    rng.shuffle(gold_shuffled["items"])
    assert oa_core.score(gold_shuffled, shuffled, schema) == before


@SETTINGS
@given(typed_pairs())
def test_matrix_equals_node_scores_bit_for_bit(pair):
    gold, candidate, schema = pair
    parsed = oa_core.Schema.parse(schema)
    record = parsed.root.properties["items"].items
    scorer = Scorer(parsed.comparators)
    golds, cands = gold["items"], candidate["items"]
    matrix = scorer.matrix(golds, cands, record)
    for i, g in enumerate(golds):
        for j, p in enumerate(cands):
            assert matrix[i, j] == scorer.node(g, p, record, "", "").score


@st.composite
def graphs(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    n = draw(st.integers(1, 8))
    names = ["Ann", "Bob", "Dave"]
    people = [{"id": i + 1, "name": draw(st.sampled_from(names))} for i in range(n)]
    links = [{"src": draw(st.integers(1, n)), "dst": draw(st.integers(1, n)),
              "kind": draw(st.sampled_from(["mentor", "peer"]))}
             for _ in range(draw(st.integers(0, 2 * n)))]
    gold = {"people": people, "links": links}
    cand = copy.deepcopy(gold)
    if cand["people"] and draw(st.booleans()):
        cand["people"].pop(draw(st.integers(0, len(cand["people"]) - 1)))
    if cand["links"] and draw(st.booleans()):
        cand["links"][0]["dst"] = draw(st.integers(1, n))
    return gold, cand


GRAPH_SCHEMA = {"type": "object", "properties": {
    "people": {"type": "array", "order": "align", "items": {"type": "object", "properties": {
        "id": {"type": "integer", "idScope": "person"},
        "name": {"type": "string", "score": "exact"}}}},
    "links": {"type": "array", "order": "align", "items": {"type": "object", "properties": {
        "src": {"type": "integer", "ref": "person"}, "dst": {"type": "integer", "ref": "person"},
        "kind": {"type": "string", "score": "exact"}}}}}}


def relabeled(document: dict[str, Any], mapping: dict[int, int]) -> dict[str, Any]:
    out = copy.deepcopy(document)
    for person in out["people"]:
        person["id"] = mapping[person["id"]]
    for link in out["links"]:
        link["src"], link["dst"] = mapping.get(link["src"], 999), mapping.get(link["dst"], 999)
    return out


@SETTINGS
@given(graphs(), st.randoms(use_true_random=False),
       st.sampled_from(["tie_break", "blend", "none"]))
def test_relabeling_ids_keeps_the_bits(pair, rng, mode):
    gold, cand = pair
    before = oa_core.score(gold, cand, GRAPH_SCHEMA, wl_mode=mode)
    ids = list(range(1, 20))
    mapping = dict(zip(ids, rng.sample(range(100, 200), len(ids)), strict=True))
    assert oa_core.score(gold, relabeled(cand, mapping), GRAPH_SCHEMA, wl_mode=mode) == before
    gold_mapping = dict(zip(ids, rng.sample(range(300, 400), len(ids)), strict=True))
    assert oa_core.score(relabeled(gold, gold_mapping), cand, GRAPH_SCHEMA,
                         wl_mode=mode) == before
    assert oa_core.score(gold, relabeled(gold, mapping), GRAPH_SCHEMA, wl_mode=mode) == 1.0


schema_junk = st.recursive(
    st.one_of(st.sampled_from(["string", "array", "object", "align", "fixed", "jaro", "x"]),
              st.integers(-2, 3), st.booleans(), st.none()),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(
            ["type", "items", "properties", "order", "score", "threshold", "idScope", "ref",
             "prefixItems", "prefixWeights", "valueWeight", "keyScore", "$ref", "enum",
             "anyOf", "nullScore", "a", "b"]), inner, max_size=4)),
    max_leaves=10)


@SETTINGS
@given(schema_junk, json_values, json_values)
def test_fuzz_only_typed_errors(schema, gold, candidate):
    try:
        score = oa_core.score(gold, candidate, schema)
    except OAError:
        return
    assert 0.0 <= score <= 1.0


def test_random_graphs_sweep_is_deterministic():
    rng = random.Random(7)
    for _ in range(5):
        n = rng.randint(3, 12)
        gold = {"people": [{"id": i, "name": rng.choice(["A", "B"])} for i in range(n)],
                "links": [{"src": rng.randrange(n), "dst": rng.randrange(n), "kind": "peer"}
                          for _ in range(n)]}
        first = oa_core.align(gold, gold, GRAPH_SCHEMA)
        again = oa_core.align(copy.deepcopy(gold), copy.deepcopy(gold), GRAPH_SCHEMA)
        assert first.score == again.score == 1.0
        assert first.bijections == again.bijections
