"""``blockBy``: unordered lists and scopes paired within blocks of equal values.

An explicit option that can change the optimum (never the default): items of
different blocks are never paired. One block holding everything gives the same bits
as no blocking; the score path, which keeps only the pairs' cells of a big blocked
scope, gives the bits of the align path, which keeps the matrices whole.
"""

from __future__ import annotations

import copy
import math
import random
from typing import Any, NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import oa_core
from benchmarks import alignment_speed
from oa_core import OAError, _engine
from oa_core.errors import ComparatorError, InputError, SchemaError
from synthetic import hostile

RECORD = {"type": "object", "properties": {
    "kind": {"type": "string", "score": "exact"},
    "name": {"type": "string", "score": "jaro"},
    "size": {"type": "number"}}}


def _list_schema(**extra: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"items": {
        "type": "array", "order": "align", "items": RECORD, **extra}}}


def _scope_schema(**extra: Any) -> oa_core.Schema:
    schema = copy.deepcopy(alignment_speed.BLOCKED_SCHEMA)
    people = schema["properties"]["people"]
    del people["blockBy"]
    people.update(extra)
    return oa_core.Schema.parse(schema)


# -- the schema keyword ----------------------------------------------------------


@pytest.mark.parametrize(("extra", "message"), [
    ({"blockBy": 3}, "must be a property name or a list"),
    ({"blockBy": []}, "must be a property name or a list"),
    ({"blockBy": ["kind", "kind"]}, "must be a property name or a list"),
    ({"blockBy": "knd"}, "not a declared property"),
    ({"blockBy": "kind", "order": "fixed"}, "only to unordered lists"),
])
def test_a_bad_block_by_is_a_schema_error_at_its_place(extra: dict[str, Any],
                                                      message: str) -> None:
    with pytest.raises(SchemaError) as caught:
        oa_core.Schema.parse(_list_schema(**extra))
    assert caught.value.pointer == "/properties/items/blockBy"
    assert message in caught.value.message
    if extra["blockBy"] == "knd":
        assert "did you mean 'kind'" in caught.value.fix


def test_block_by_an_id_or_a_reference_is_refused() -> None:
    for field in ("id", "mentor"):
        schema = copy.deepcopy(alignment_speed.SCHEMA)
        array = "people" if field == "id" else "mentorships"
        schema["properties"][array]["blockBy"] = field
        with pytest.raises(SchemaError, match="an identifier or a reference") as caught:
            oa_core.Schema.parse(schema)
        assert caught.value.pointer == f"/properties/{array}/blockBy"


def test_block_by_needs_object_items() -> None:
    schema = {"type": "array", "order": "align", "items": {"type": "string"},
              "blockBy": "kind"}
    with pytest.raises(SchemaError, match="items that are objects"):
        oa_core.Schema.parse(schema)


def test_block_by_on_a_string_is_a_misplaced_keyword() -> None:
    parsed = oa_core.Schema.parse({"type": "string", "blockBy": "kind"})
    assert [w.code for w in parsed.warnings] == ["misplaced-keyword"]


# -- keys and blocks -------------------------------------------------------------

class Block(NamedTuple):
    gold: list[int]
    candidate: list[int]


def blocks(golds: list[Any], candidates: list[Any], properties: list[str]) -> list[Block]:
    """The engine's blocks of two lists (gold and candidate positions), keyed in Rust."""
    found = _engine.blocks(golds, candidates, properties)
    assert found is not None
    return [Block(list(g), list(c)) for g, c in found]



def test_keys_are_json_equality() -> None:
    def together(gold: Any, candidate: Any) -> bool:
        return any(b.gold and b.candidate for b in blocks([gold], [candidate], ["k"]))

    def same(a: Any, b: Any) -> bool:
        return together({"k": a}, {"k": b})

    assert same(1, 1.0) and not same(1, True) and not same(1, "1")
    assert not together({"k": None}, {}) and together({}, "not a record")
    assert same({"b": 1, "a": 2}, {"a": 2, "b": 1}) and not same({"b": 1, "a": 2}, [2, 1])


def test_blocks_follow_keys_not_positions() -> None:
    golds = [{"k": "b"}, {"k": 1}, {"k": "a"}, {}, {"k": "b"}]
    cands = [{"k": 1.0}, {"k": "b"}, {"k": 2**80}]
    found = blocks(golds, cands, ["k"])
    reordered = blocks(golds[::-1], cands[::-1], ["k"])
    as_sets = [({repr(golds[i]) for i in b.gold}, {repr(cands[j]) for j in b.candidate})
               for b in found]
    assert as_sets == [({repr(golds[::-1][i]) for i in b.gold},
                        {repr(cands[::-1][j]) for j in b.candidate}) for b in reordered]
    assert [(b.gold, b.candidate) for b in found if 0 in b.candidate] == [([1], [0])]


# -- lists -------------------------------------------------------------------------

_records = st.lists(st.fixed_dictionaries({
    "kind": st.sampled_from(["a", "b", "c"]),
    "name": st.sampled_from(["alpha", "alpine", "beta", "gamma"]),
    "size": st.integers(0, 3)}), max_size=7)


@settings(max_examples=60, deadline=None)
@given(_records, _records, st.randoms(use_true_random=False))
def test_a_blocked_list_pairs_within_blocks_and_never_beats_the_optimum(
        gold: list[dict[str, Any]], candidate: list[dict[str, Any]],
        rng: random.Random) -> None:
    blocked = oa_core.Schema.parse(_list_schema(blockBy="kind"))
    plain = oa_core.Schema.parse(_list_schema())
    result = oa_core.align({"items": gold}, {"items": candidate}, blocked)
    node = result.tree.children[0]
    for child in node.children:
        if child.gold_path and child.candidate_path:
            i, j = (int(p.rsplit("/", 1)[1]) for p in (child.gold_path,
                                                      child.candidate_path))
            assert gold[i]["kind"] == candidate[j]["kind"]
    value = oa_core.score({"items": gold}, {"items": candidate}, blocked)
    assert value == result.score
    assert value <= oa_core.score({"items": gold}, {"items": candidate}, plain) + 1e-12
    shuffled = candidate[:]
    rng.shuffle(shuffled)
    assert oa_core.score({"items": gold}, {"items": shuffled}, blocked) == value


@settings(max_examples=40, deadline=None)
@given(_records, _records)
def test_one_block_is_no_blocking(gold: list[dict[str, Any]],
                                  candidate: list[dict[str, Any]]) -> None:
    for record in gold + candidate:
        record["kind"] = "a"
    blocked = oa_core.align({"items": gold}, {"items": candidate},
                            _list_schema(blockBy=["kind"]))
    plain = oa_core.align({"items": gold}, {"items": candidate}, _list_schema())
    assert blocked.score == plain.score
    assert blocked.tree.to_dict() == plain.tree.to_dict()


def test_blocks_can_change_the_optimum() -> None:
    gold = {"items": [{"kind": "a", "name": "alpha", "size": 1}]}
    candidate = {"items": [{"kind": "b", "name": "alpha", "size": 1}]}
    assert oa_core.score(gold, candidate, _list_schema()) == pytest.approx(2 / 3)
    assert oa_core.score(gold, candidate, _list_schema(blockBy="kind")) == 0.0


# -- scopes ------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["tie_break", "blend", "none"])
def test_a_scope_in_one_block_is_paired_as_without_blocking(mode: str) -> None:
    gold, candidate = alignment_speed.make_pair(80, seed=2, teams=1)
    blocked = oa_core.align(gold, candidate, _scope_schema(blockBy="team"), wl_mode=mode)
    plain = oa_core.align(gold, candidate, _scope_schema(), wl_mode=mode)
    assert blocked.score == plain.score
    a, b = blocked.scopes["person"], plain.scopes["person"]
    assert (a.pairs, a.rules, a.label_ties, a.structural_pairs) == (
        b.pairs, b.rules, b.label_ties, b.structural_pairs)
    assert (a.matrix == b.matrix).all()
    if mode != "none":
        assert a.colour_agreement is not None and b.colour_agreement is not None
        assert (a.colour_agreement == b.colour_agreement).all()


@pytest.mark.parametrize("mode", ["tie_break", "blend"])
def test_a_blocked_scope_pairs_within_teams_alike_on_both_paths(mode: str) -> None:
    # 640 people: over the records whose ties are settled by score, so the score
    # path keeps only the pairs' cells while align keeps the matrices whole
    gold, candidate = alignment_speed.make_pair(640, seed=1, teams=4)
    schema = _scope_schema(blockBy="team")
    result = oa_core.align(gold, candidate, schema, wl_mode=mode)
    assert oa_core.score(gold, candidate, schema, wl_mode=mode) == result.score
    scope = result.scopes["person"]
    teams = {p["id"]: p["team"] for p in gold["people"]}
    cand_teams = {p["id"]: p["team"] for p in candidate["people"]}
    assert len(scope.pairs) == 639
    for i, j in scope.pairs:
        assert teams[scope.gold_ids[i]] == cand_teams[scope.candidate_ids[j]]
    shuffled = copy.deepcopy(candidate)
    random.Random(5).shuffle(shuffled["people"])
    assert oa_core.score(gold, shuffled, schema, wl_mode=mode) == result.score


def test_a_scope_over_the_cell_limit_is_scored_block_by_block() -> None:
    gold, candidate = alignment_speed.make_pair(600, seed=3, teams=6)
    limits = oa_core.Limits(max_matrix_cells=200 * 200)  # blocks up to 150 x 150
    schema = _scope_schema(blockBy="team")
    value = oa_core.score(gold, candidate, schema, limits=limits)
    assert value == oa_core.score(gold, candidate, schema)
    with pytest.raises(InputError, match="over the limit"):  # align shows it whole
        oa_core.align(gold, candidate, schema, limits=limits)
    with pytest.raises(InputError, match="over the limit"):
        oa_core.score(gold, candidate, _scope_schema(), limits=limits)


# -- feedback ----------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(_records, _records)
def test_blocked_repairs_sum_to_the_deficit_and_repair_to_one(
        gold: list[dict[str, Any]], candidate: list[dict[str, Any]]) -> None:
    schema = _list_schema(blockBy="kind")
    fb = oa_core.feedback({"items": gold}, {"items": candidate}, schema, top_k=10**6)
    assert abs(math.fsum(op.delta for op in fb.ops) - (1.0 - fb.score)) <= 1e-12
    fixed = oa_core.apply_ops({"items": candidate}, fb.ops)
    assert oa_core.score({"items": gold}, fixed, schema) == 1.0
    assert oa_core.score({"items": gold}, copy.deepcopy({"items": gold}), schema) == 1.0


@pytest.mark.parametrize("seed", range(3))
def test_blocked_scope_repairs_sum_to_the_deficit(seed: int) -> None:
    gold, candidate = alignment_speed.make_pair(30, seed=seed, teams=3)
    candidate["people"][1]["team"] = "Team9999"  # a person moved out of its team
    schema = _scope_schema(blockBy="team")
    fb = oa_core.feedback(gold, candidate, schema, top_k=10**6)
    assert abs(math.fsum(op.delta for op in fb.ops) - (1.0 - fb.score)) <= 1e-12
    assert oa_core.score(gold, oa_core.apply_ops(candidate, fb.ops), schema) == 1.0


# -- hostile triples, blocked --------------------------------------------------------

_BLOCKABLE = ("kind", "label")  # the generator's exact enum fields of records and links


def _with_blocking(node: Any) -> int:
    """Put ``blockBy`` on every unordered list of objects in ``node`` that has one of
    the generator's exact enum fields (in place); how many lists got it."""
    count = 0
    if isinstance(node, dict):
        items = node.get("items")
        if node.get("order") == "align" and isinstance(items, dict):
            names = [n for n in _BLOCKABLE if n in items.get("properties", {})]
            if names:
                node["blockBy"] = names[0]
                count += 1
        count += sum(_with_blocking(value) for value in node.values())
    elif isinstance(node, list):
        count += sum(_with_blocking(value) for value in node)
    return count


def _blocked_triples(count: int) -> list[tuple[Any, ...]]:
    found = []
    for seed in range(10_000):
        triple = hostile.generate(seed)
        schema, gold, candidate = triple.materialize()
        if not _with_blocking(schema):
            continue
        try:
            parsed = oa_core.Schema.parse(schema, comparators=hostile.COMPARATORS)
            oa_core.align(gold, candidate, parsed)
        except OAError:
            continue
        found.append((triple, parsed, gold, candidate))
        if len(found) == count:
            break
    return found


def test_hostile_blocked_triples_keep_every_invariant() -> None:
    triples = _blocked_triples(60)
    assert len(triples) == 60
    for triple, parsed, gold, candidate in triples:
        try:
            fb = oa_core.feedback(gold, candidate, parsed, top_k=10**6)
            assert 0.0 <= fb.score <= 1.0
            assert oa_core.score(gold, candidate, parsed) == fb.score
            assert abs(math.fsum(op.delta for op in fb.ops) - (1.0 - fb.score)) <= 1e-12
            assert oa_core.score(gold, copy.deepcopy(gold), parsed) == 1.0
            assert oa_core.score(gold, oa_core.apply_ops(candidate, fb.ops), parsed) == 1.0
            for variant in range(2):
                _, g, c = triple.materialize(permute=variant, sides="both")
                assert oa_core.score(g, c, parsed) == fb.score, triple.seed
                if triple.has_ids and triple.relabel_safe:
                    _, g, c = triple.materialize(relabel=variant)
                    assert oa_core.score(g, c, parsed) == fb.score, triple.seed
        except ComparatorError:  # a misbehaving custom comparator met a new pair
            continue


def test_a_small_gold_against_a_big_candidate_is_scored_within_the_cell_limit() -> None:
    # 12 gold people against 400: few enough to settle ties by score, but 4,800
    # cells, over a limit that each block (at most 4 x 134) is under: the scope is
    # paired block by block without ever holding its whole matrices
    gold, _ = alignment_speed.make_pair(12, seed=0, teams=3)
    _, candidate = alignment_speed.make_pair(400, seed=0, teams=3)
    del candidate["mentorships"][40:]  # 24 x 40 references: under the limit
    schema = _scope_schema(blockBy="team")
    limits = oa_core.Limits(max_matrix_cells=1_000)
    value = oa_core.score(gold, candidate, schema, limits=limits)
    assert 0.0 < value < 1.0
    aligned = oa_core.align(gold, candidate, schema)  # default limits: whole
    # its label ties (unrelated people) are settled by score there, not here, and
    # every pairing of them scores alike
    assert aligned.scopes["person"].label_ties
    assert value == aligned.score
