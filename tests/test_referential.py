"""Referential alignment: scopes, dependency order, cycles, WL, references (III.E)."""

from __future__ import annotations

import copy

import pytest

import oa_core
from oa_core import SchemaError


def org_schema(**mentorship_extra):
    return {"type": "object", "properties": {
        "people": {"type": "array", "order": "align", "items": {"type": "object", "properties": {
            "id": {"type": "integer", "idScope": "person"},
            "name": {"type": "string", "score": "exact"}}}},
        "links": {"type": "array", "order": "align", "items": {"type": "object", "properties": {
            "src": {"type": "integer", "ref": "person"},
            "dst": {"type": "integer", "ref": "person"}, **mentorship_extra}}}}}


def test_ids_are_masked_so_renumbering_costs_nothing():
    gold = {"people": [{"id": 1, "name": "A"}, {"id": 2, "name": "B"}],
            "links": [{"src": 1, "dst": 2}]}
    cand = {"people": [{"id": 20, "name": "B"}, {"id": 10, "name": "A"}],
            "links": [{"src": 10, "dst": 20}]}
    result = oa_core.align(gold, cand, org_schema())
    assert result.score == 1.0
    assert result.bijections == {"person": {1: 10, 2: 20}}


def test_reference_scores_through_the_bijection():
    gold = {"people": [{"id": 1, "name": "A"}, {"id": 2, "name": "B"}],
            "links": [{"src": 1, "dst": 2}]}
    cand = {"people": [{"id": 10, "name": "A"}, {"id": 20, "name": "B"}],
            "links": [{"src": 20, "dst": 10}]}  # reversed
    result = oa_core.align(gold, cand, org_schema())
    link = next(c for c in result.tree.children if c.label == "links")
    assert link.score == 0.0  # both refs wrong: the pair scores 0 and is unmatched
    assert result.score == 0.5


def test_dangling_references():
    gold = {"people": [{"id": 1, "name": "A"}], "links": [{"src": 1, "dst": 99}]}
    cand = {"people": [{"id": 5, "name": "A"}], "links": [{"src": 5, "dst": 77}]}
    assert oa_core.score(gold, gold, org_schema()) == 1.0
    assert oa_core.score(gold, cand, org_schema()) == 1.0  # dangling agrees with dangling
    cand["links"][0]["dst"] = 5
    assert oa_core.score(gold, cand, org_schema()) == 0.75


def test_reference_to_an_unmatched_record_scores_zero():
    gold = {"people": [{"id": 1, "name": "A"}, {"id": 2, "name": "B"}],
            "links": [{"src": 1, "dst": 2}]}
    cand = {"people": [{"id": 10, "name": "A"}, {"id": 30, "name": "C"}],
            "links": [{"src": 10, "dst": 30}]}
    result = oa_core.align(gold, cand, org_schema())
    assert result.bijections["person"][2] == 30  # names differ, but ids still pair up
    ops = oa_core.repair_ops(result)
    assert {op.kind for op in ops} == {"primitive-value"}


def test_duplicate_ids_warn_and_stay_deterministic():
    gold = {"people": [{"id": 1, "name": "A"}, {"id": 1, "name": "B"}], "links": []}
    cand = {"people": [{"id": 7, "name": "A"}, {"id": 8, "name": "B"}], "links": []}
    first = oa_core.align(gold, cand, org_schema())
    second = oa_core.align(copy.deepcopy(gold), copy.deepcopy(cand), org_schema())
    assert first.score == second.score == 1.0
    assert [w.code for w in first.warnings] == ["duplicate-id"]
    assert first.warnings[0].pointer == "/people/1/id"


def test_edge_labels_split_twins_in_one_round():
    schema = org_schema(since={"type": "integer", "score": "exact"})
    gold = {"people": [{"id": 1, "name": "A"}, {"id": 2, "name": "D"}, {"id": 3, "name": "D"}],
            "links": [{"src": 1, "dst": 2, "since": 2019}, {"src": 1, "dst": 3, "since": 2021}]}
    cand = {"people": [{"id": 9, "name": "D"}, {"id": 8, "name": "D"}, {"id": 7, "name": "A"}],
            "links": [{"src": 7, "dst": 9, "since": 2021}, {"src": 7, "dst": 8, "since": 2019}]}
    result = oa_core.align(gold, cand, schema)
    assert result.bijections["person"] == {1: 7, 2: 8, 3: 9}
    assert result.score == 1.0
    assert len(result.wl["person"].rounds) == 2  # the labels split them in round 1
    assert sorted(result.scopes["person"].structural_pairs) == [(1, 1), (2, 0)]


def test_hyperedges_use_a_hub_vertex():
    schema = {"type": "object", "properties": {
        "people": {"type": "array", "order": "align", "items": {"type": "object", "properties": {
            "id": {"type": "string", "idScope": "p"}, "name": {"type": "string"}}}},
        "teams": {"type": "array", "order": "align", "items": {"type": "object", "properties": {
            "members": {"type": "array", "order": "align",
                        "items": {"type": "string", "ref": "p"}}}}}}}
    gold = {"people": [{"id": "a", "name": "X"}, {"id": "b", "name": "X"},
                       {"id": "c", "name": "X"}, {"id": "d", "name": "X"}],
            "teams": [{"members": ["a", "b", "c"]}]}
    cand = {"people": [{"id": "q", "name": "X"}, {"id": "r", "name": "X"},
                       {"id": "s", "name": "X"}, {"id": "t", "name": "X"}],
            "teams": [{"members": ["r", "s", "t"]}]}
    result = oa_core.align(gold, cand, schema)
    trace = result.wl["person" if "person" in result.wl else "p"]
    assert sum(v.kind == "hub" for v in trace.vertices) == 2
    assert result.bijections["p"]["d"] == "q"  # the one outside the team
    assert result.score == 1.0


def test_scopes_resolve_in_dependency_order():
    schema = {"type": "object", "properties": {
        "companies": {"type": "array", "order": "align", "items": {"type": "object", "properties": {
            "cid": {"type": "integer", "idScope": "company"}, "name": {"type": "string"}}}},
        "people": {"type": "array", "order": "align", "items": {"type": "object", "properties": {
            "pid": {"type": "integer", "idScope": "person"},
            "employer": {"type": "integer", "ref": "company"}}}}}}
    parsed = oa_core.Schema.parse(schema)
    assert parsed.dependencies == {"company": frozenset(), "person": frozenset({"company"})}
    # the scopes are resolved (and listed) dependencies first, whatever the layout
    flipped = {"type": "object", "properties": dict(reversed(schema["properties"].items()))}
    for layout in (schema, flipped):
        empty = oa_core.align({"companies": [], "people": []},
                              {"companies": [], "people": []}, layout)
        assert list(empty.scopes) == ["company", "person"] and not empty.warnings
    gold = {"companies": [{"cid": 1, "name": "Acme"}, {"cid": 2, "name": "Bolt"}],
            "people": [{"pid": 1, "employer": 1}, {"pid": 2, "employer": 2}]}
    cand = {"companies": [{"cid": 5, "name": "Bolt"}, {"cid": 6, "name": "Acme"}],
            "people": [{"pid": 9, "employer": 5}, {"pid": 8, "employer": 6}]}
    result = oa_core.align(gold, cand, schema)
    assert result.bijections == {"company": {1: 6, 2: 5}, "person": {1: 8, 2: 9}}
    assert result.score == 1.0


def test_self_references_warn_and_fall_back_to_properties():
    schema = {"type": "object", "properties": {
        "people": {"type": "array", "order": "align", "items": {"type": "object", "properties": {
            "id": {"type": "integer", "idScope": "person"}, "name": {"type": "string"},
            "boss": {"type": ["integer", "null"], "ref": "person"}}}}}}
    gold = {"people": [{"id": 1, "name": "A", "boss": None}, {"id": 2, "name": "B", "boss": 1}]}
    cand = {"people": [{"id": 7, "name": "B", "boss": 8}, {"id": 8, "name": "A", "boss": None}]}
    result = oa_core.align(gold, cand, schema)
    assert [w.code for w in result.warnings] == ["reference-cycle"]
    assert result.bijections == {"person": {1: 8, 2: 7}}
    assert result.score == 1.0
    assert set(result.wl) == {"person"}  # WL still breaks ties in a cycle (spec notes)


def test_ref_to_unknown_scope_is_a_schema_error():
    schema = org_schema()
    schema["properties"]["links"]["items"]["properties"]["src"]["ref"] = "persn"
    with pytest.raises(SchemaError) as info:
        oa_core.Schema.parse(schema)
    assert info.value.pointer == "/properties/links/items/properties/src/ref"
    assert "did you mean 'person'" in info.value.fix


def test_ref_must_have_the_scope_type():
    schema = org_schema()
    schema["properties"]["links"]["items"]["properties"]["src"]["type"] = "string"
    with pytest.raises(SchemaError, match="integer"):
        oa_core.Schema.parse(schema)


def test_id_scope_outside_records_is_a_schema_error():
    with pytest.raises(SchemaError) as info:
        oa_core.Schema.parse({"type": "object", "properties": {
            "id": {"type": "integer", "idScope": "x"}}})
    assert info.value.pointer == "/properties/id/idScope"


def test_relabeling_keeps_the_score_bit_for_bit(running):
    gold, candidate, schema = running
    relabel = {90: "z", 91: "y", 92: "x", 93: "w", 94: "v"}
    schema = copy.deepcopy(schema)
    for field in ("id",):
        schema["properties"]["people"]["items"]["properties"][field]["type"] = "string"
    for field in ("mentor", "mentee"):
        schema["properties"]["mentorships"]["items"]["properties"][field]["type"] = "string"
    gold = copy.deepcopy(gold)
    for person in gold["people"]:
        person["id"] = f"g{person['id']}"
    for link in gold["mentorships"]:
        link["mentor"], link["mentee"] = f"g{link['mentor']}", f"g{link['mentee']}"
    cand = copy.deepcopy(candidate)
    for person in cand["people"]:
        person["id"] = relabel[person["id"]]
    for link in cand["mentorships"]:
        link["mentor"], link["mentee"] = relabel[link["mentor"]], relabel[link["mentee"]]
    assert oa_core.score(gold, cand, schema) == 0.7678571428571429




def test_ints_and_floats_are_one_identifier():
    # ids and references compare as JSON numbers: 1 is 1.0 and 2**64 its float, but a
    # reference to 2**64 + 1 names no record of the candidate's 2**64
    schema = {"type": "array", "items": {"type": "object", "properties": {
        "id": {"type": "number", "idScope": "p"}, "to": {"type": "number", "ref": "p"}}}}
    big = 2**64
    gold = [{"id": 1, "to": 1}, {"id": big, "to": big}, {"id": 2.5, "to": 2.5}]
    candidate = [{"id": 1.0, "to": 1.0}, {"id": float(big), "to": float(big)},
                 {"id": 2.5, "to": 2.5}]
    result = oa_core.align(gold, candidate, schema)
    assert result.bijections == {"p": {1: 1.0, big: float(big), 2.5: 2.5}}
    assert result.score == 1.0
    candidate[2]["to"] = big + 1
    assert oa_core.align(gold, candidate, schema).score < 1.0
