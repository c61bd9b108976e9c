"""Regression tests of the last fuzz failures (50,000 triples, seed 0, size 4).

Each test is the minimised reproduction of one failure category of
``python -m benchmarks.fuzz`` (its seed in the name): (e) applying every repair
op must give a candidate that scores 1.0; (g) relabelling ids consistently keeps
the bits wherever structure or the documents' score, not the labels, decided.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

import oa_core
from oa_core import apply_ops, feedback

MODES = ("tie_break", "blend")


def _unicode(value: Any) -> Any:
    """``value`` with every lone surrogate replaced by U+FFFD: the hostile generator
    writes some, and a document holding one is refused before it is scored."""
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    if isinstance(value, list):
        return [_unicode(item) for item in value]
    if isinstance(value, dict):
        return {_unicode(key): _unicode(item) for key, item in value.items()}
    return value


def repairs_to_one(gold: Any, candidate: Any, schema: Any, **options: Any) -> oa_core.Feedback:
    fb = feedback(gold, candidate, schema, top_k=10**6, **options)
    assert abs(math.fsum(op.delta for op in fb.ops) - (1.0 - fb.score)) < 1e-12
    repaired = apply_ops(candidate, fb.ops)
    assert oa_core.score(gold, repaired, schema, **options) == 1.0, repaired
    return fb


def test_seed_5923_a_renamed_key_is_scored_under_the_gold_keys_schema():
    # The candidate key is a declared reference, the gold key is undeclared: after the
    # rename the value sits under the gold key, so it is scored there from the start
    # (it used to score 1.0 as two dangling references, and 0.0 once repaired).
    schema = {"properties": {
        "k": {"items": {"properties": {"k": {"type": "string", "idScope": "org"}}}},
        "L": {"items": {"properties": {"~r": {"type": "string", "ref": "org"}}}}}}
    gold, cand = {"L": [{"~0": 1}]}, {"L": [{"~r": "z"}]}
    fb = repairs_to_one(gold, cand, schema)
    assert fb.score == 0.0


@pytest.mark.parametrize("gold", [[None, None], ["a", 1], ["a", 1, 2]])
def test_seed_22258_missing_tail_items_follow_a_short_candidates_missing_prefix(gold):
    schema = {"items": {}, "prefixItems": [{}], "prefixImportance": 1, "restImportance": 1}
    repairs_to_one(gold, [], schema)
    repairs_to_one(gold, gold[:1], schema)


def test_seed_25337_items_of_a_scope_array_that_are_no_records_are_unordered():
    schema = {"properties": {"x": {"items": {"properties": {
        "k": {"type": "string", "idScope": "a"}}}}}}
    assert oa_core.score({"x": ["c", 1]}, {"x": [1, "c"]}, schema) == 1.0
    repairs_to_one({"x": ["c", 1]}, {"x": [1]}, schema)


def test_seed_13651_a_twin_forced_by_an_arbitrary_choice_is_a_label_tie_too():
    # Three look-alike records; links (hubs, whose unexact keys WL cannot see) tell
    # records 1 and 3 apart. Choosing 1's partner arbitrarily forces 3's: both are
    # label ties, and the documents' score settles them.
    schema = {"properties": {
        "P": {"items": {"properties": {"i/d": {"type": "integer", "idScope": "Ω"}}}},
        "links": {"order": "align", "items": {"properties": {
            "src": {"type": "integer", "ref": "Ω"}}}}}}
    gold = {"P": [{"i/d": 1, "name": "Bob"}, {"i/d": 2, "name": "Bob"},
                  {"i/d": 3, "name": "Bob"}], "links": [{"src": 1}, {"src": 3, "w": 1}]}
    repairs_to_one(gold, {"P": [{"i/d": 1}]}, schema)
    relabelled = {"P": [{"i/d": 4, "name": "Bob"}, {"i/d": 1, "name": "Bob"},
                        {"i/d": 3, "name": "Bob"}], "links": [{"src": 4}, {"src": 3, "w": 1}]}
    for mode in (*MODES, "none"):
        assert oa_core.score(gold, relabelled, schema, wl_mode=mode) == 1.0


def test_seed_6024_dangling_references_into_a_later_scope_are_structure():
    # A link refers to a person (resolved first) and to an org: whether the org id
    # names a record is known before the orgs are paired, and tells the persons apart.
    schema = {"properties": {
        "persons": {"items": {"properties": {"pid": {"type": "integer", "idScope": "p/q"}}}},
        "orgs": {"items": {"properties": {"id": {"type": "integer", "idScope": "Ω"}}}},
        "links": {"order": "align", "items": {"properties": {
            "src": {"type": "integer", "ref": "p/q"}, "dst": {"type": "integer", "ref": "Ω"}}}}}}
    gold = {"persons": [{"pid": -2, "name": "Ann"}, {"pid": 1, "name": "Ann"}],
            "orgs": [{"id": 1}],
            "links": [{"src": 1, "dst": 6, "label": "boss"},
                      {"src": -2, "dst": 1, "label": "boss"}]}
    repairs_to_one(gold, {"persons": [{"pid": 5997436}]}, schema)
    result = oa_core.align(gold, {**gold, "persons": [gold["persons"][1], gold["persons"][0]]},
                           schema)
    assert result.score == 1.0
    assert result.scopes["p/q"].rules == {(0, 1): oa_core.TieRule.COLOUR,
                                          (1, 0): oa_core.TieRule.COLOUR}


def test_seed_15409_label_ties_are_scored_again_once_every_scope_is_resolved():
    # The persons are told apart only through the org records (one is referenced by
    # another org): when the persons are paired the orgs are not, so their label
    # ties are scored again at the end with every scope resolved.
    schema = {"properties": {
        "persons": {"items": {"properties": {" ~ ": {"type": "string", "idScope": "person"}}}},
        "orgs": {"items": {"properties": {"k": {"type": "integer", "idScope": "Ω"},
                                          "ref": {"type": "integer", "ref": "Ω"}}}},
        "links": {"order": "align", "items": {"properties": {
            "src": {"type": "integer", "ref": "Ω"}, "dst": {"type": "string", "ref": "person"}}}}}}
    gold = {"persons": [{" ~ ": "a/b1", "name": "Ann"}, {" ~ ": "a/b2", "name": "Ann"}],
            "orgs": [{"k": 10}, {"k": 11}, {"ref": 10}],
            "links": [{"src": 11, "dst": "a/b2"}, {"src": 10, "dst": "a/b1"}]}
    fb = repairs_to_one(gold, {"persons": [{" ~ ": "Ω"}]}, schema)
    assert fb.score < 1.0
    relabelled = {"persons": [{" ~ ": "x", "name": "Ann"}, {" ~ ": "y", "name": "Ann"}],
                  "orgs": [{"k": 10}, {"k": 11}, {"ref": 10}],
                  "links": [{"src": 11, "dst": "y"}, {"src": 10, "dst": "x"}]}
    for mode in MODES:
        result = oa_core.align(gold, relabelled, schema, wl_mode=mode)
        assert result.score == 1.0
        assert result.scopes["person"].label_ties == []


def test_seed_5694_label_ties_in_a_reference_cycle_are_scored_with_the_cycle_resolved():
    schema = {"properties": {"data": {"properties": {
        "L": {"items": {"properties": {"id": {"type": "integer", "idScope": "Ω"},
                                       "k": {"type": "integer", "ref": "a ~ b"}}}},
        "2": {"$ref": "#/$defs/A"}}}},
        "$defs": {"": {"properties": {"k": {"type": "integer", "idScope": "a ~ b"},
                                      "f/r_0": {"type": "integer", "ref": "Ω"}}},
                  "A": {"items": {"$ref": "#/$defs/"}}}}
    gold = {"data": {"L": [{"id": 1}, {"id": 1005, "k": 1}],
                     "2": [{"x": 1, "name": "Ann", "f/r_0": 1005},
                           {"x": 1, "name": "Ann", "f/r_0": 1}]}}
    repairs_to_one(gold, {"data": {"L": [{"id": 1, "k": "a"}]}}, schema)


def test_seed_29105_label_ties_are_scored_in_blocks_beyond_three_pairs():
    # Two blocks of two look-alikes (four label-tied pairs): each block's pairings
    # are scored (2 + 2 of them, not 4! of all four pairs).
    schema = {"properties": {
        "people": {"items": {"properties": {"n": {"type": "integer", "idScope": "p/q"}}}},
        "links": {"order": "align", "items": {"properties": {
            "dst": {"type": "integer", "ref": "p/q"}}}}}}
    gold = {"people": [{"n": 1, "name": "Bob"}, {"n": 2}, {"n": 3}, {"n": 6, "name": "Bob"}],
            "links": [{"dst": 6}, {"dst": 1, "k": "note"}]}
    repairs_to_one(gold, {"people": [{"n": 1}]}, schema)


def test_seed_8567_repeated_references_from_items_that_are_no_records():
    schema = {"properties": {
        "L": {"order": "align", "items": {"properties": {
            "boss": {"type": "integer", "ref": "org"}}}},
        "1": {"items": {"properties": {"": {"type": "integer", "idScope": "org"}}}}}}
    gold = {"L": [{"k": "0", "boss": -1}, {"boss": 3}, {"boss": -1}, {"boss": 3}],
            "1": [{"": 1}, {"": -1, "name": "Ann"}, {"": 0}, {"": 3, "name": "Ann"}]}
    repairs_to_one(gold, {"1": [{"": 1, "name": "Ann"}, {"": 3, "name": "xnn"}]}, schema)


def test_seed_15409g_a_column_group_does_not_undo_an_arbitrary_row_choice():
    schema = {"properties": {
        "P": {"items": {"properties": {" ~ ": {"type": "string", "idScope": "person"}}}},
        "links": {"order": "align", "items": {"properties": {
            "dst": {"type": "string", "ref": "person"}}}}}}
    gold = {"P": [{" ~ ": "a/b1", "name": "Ann"}, {" ~ ": "a/b2", "name": "Ann"},
                  {"name": "Ann"}], "links": [{"dst": "a/b2"}, {"dst": "a/b1", "k": "b"}]}
    relabelled = {"P": [{" ~ ": "Ω", "name": "Ann"}, {" ~ ": " ~ ", "name": "Ann"},
                        {"name": "Ann"}], "links": [{"dst": " ~ "}, {"dst": "Ω", "k": "b"}]}
    cand = {"links": [{"dst": "Ω"}], "P": [{" ~ ": "r", "name": "Ann"}, {" ~ ": "r"},
                                           {"name": "Ann", " ~ ": "Ω"}]}
    for mode in MODES:
        first = oa_core.align(gold, cand, schema, wl_mode=mode)
        second = oa_core.align(relabelled, cand, schema, wl_mode=mode)
        assert first.score == second.score
        assert first.bijections["person"] == {"a/b1": "r", "a/b2": "Ω"}
        assert second.bijections["person"] == {"Ω": "r", " ~ ": "Ω"}


def test_seed_10827_a_shared_id_designated_by_canonical_json_is_reported():
    # Two candidate records share an id and tie as partners: which one the id names is
    # chosen by their JSON, whose dangling references are labels; it is reported (the
    # fuzz's relabelling check skips such triples) rather than silently label-bound.
    schema = {"properties": {"L": {"items": {"properties": {
        "id": {"type": "string", "idScope": "s"}, "boss": {"type": "string", "ref": "s"}}}}}}
    gold = {"L": [{"boss": "5"}, {"id": "1", "boss": "2"}, {"id": "5", "name": "Ann", "boss": "5"}]}
    cand = {"L": [{"boss": "~1"}, {"id": "~1", "name": "Ann", "boss": "r2"},
                  {"id": "~1", "boss": "r7"}]}
    for mode in ("tie_break", "blend", "none"):
        scope = oa_core.align(gold, cand, schema, wl_mode=mode).scopes["s"]
        assert scope.label_designations in (["/L/1"], ["/L/2"])
    unique = {"L": [{"boss": "~1"}, {"id": "~1", "name": "Ann", "boss": "r2"},
                    {"id": "~2", "boss": "r7"}]}
    assert oa_core.align(gold, unique, schema).scopes["s"].label_designations == []


def test_seed_3762_records_of_a_scope_not_resolved_yet_are_unordered():
    # While scope "0" is paired, the documents' score of each pairing aligns the
    # records of scope "~" (resolved later) as the records of a scope: unordered.
    schema = {"properties": {"data": {"properties": {
        "people0": {"$ref": "#/$defs/R"},
        "p/l2": {"items": {"properties": {"i/d": {"type": "string", "idScope": "0"}}}}}}},
        "$defs": {"R": {"items": {"properties": {"k": {"type": "integer", "idScope": "~"},
                                                 "~r_2": {"type": "string", "ref": "0"}}}}}}
    gold = {"data": {"people0": [{"~r_2": "a/b4"}, {"id": 1, "~r_2": "a"}],
                     "p/l2": [{"i/d": "a", "name": "Bob"}, {"i/d": "a/b4", "name": "Bob"}]}}
    reordered = {"data": {"people0": gold["data"]["people0"][::-1], "p/l2": gold["data"]["p/l2"]}}
    assert oa_core.score(gold, reordered, schema) == 1.0
    repairs_to_one(gold, {"data": {"people0": [{"id": 1}]}}, schema)


def test_seed_43814_an_unpaired_twin_is_an_alternative_of_a_label_tie():
    # One gold record, two look-alike candidate records with the same id: which one
    # is paired is a label tie (the other is unpaired, as good), never "settled" alone.
    schema = {"properties": {
        "L": {"$ref": "#/$defs/A"},
        "R": {"items": {"properties": {"id": {"type": "integer", "idScope": "p/q"},
                                       "k": {"properties": {"r": {"type": "string",
                                                                  "ref": "~s"}}}}}},
        "S": {"items": {"properties": {"k": {"type": "string", "idScope": "~s"},
                                       "n": {"properties": {"r": {"type": "integer",
                                                                  "ref": "a ~ b"}}}}}}},
        "$defs": {"A": {"items": {"properties": {"k": {"type": "integer", "idScope": "a ~ b"},
                                                 "boss": {"type": "integer", "ref": "p/q"}}}}}}
    gold = {"L": [{"boss": 1}], "R": [{"id": 1}]}

    def candidate(x: int, y: int) -> dict:
        return {"L": [{"k": 1, "name": "A", "boss": x}, {"k": 1, "name": "A", "boss": y}],
                "R": [{"id": y}, {"id": x, "k": {}}]}

    for mode in MODES:
        first = oa_core.score(gold, candidate(9065959, 7857061), schema, wl_mode=mode)
        assert first == oa_core.score(gold, candidate(2203649, 3873968), schema, wl_mode=mode)


def test_seed_20803_label_ties_settle_within_the_budget():
    # Each pairing scored is a scoring of the whole documents: a budget shared by every
    # scope and both passes keeps one alignment's cost bounded (seed 20803 took 1.5 s
    # before; seed 20025 asks for more than the budget). The budget's count is tested
    # in align/settle.rs; here the score the budget settles on, frozen from the engines
    # when Python and Rust both gave it (bit for bit).
    from synthetic import hostile

    schema, gold, candidate = hostile.generate(20025, size=4).materialize()
    gold, candidate = _unicode(gold), _unicode(candidate)
    parsed = oa_core.Schema.parse(schema, comparators=hostile.COMPARATORS)
    expected = {"tie_break": "0x1.0ba79a3cf559cp-1", "blend": "0x1.0ba79a3cf559cp-1",
                "none": "0x1.00d886e55979bp-1"}
    for mode, bits in expected.items():
        assert oa_core.score(gold, candidate, parsed, wl_mode=mode).hex() == bits, mode


CASE_5729 = json.loads(
    '{"properties": {"0": {"$ref": "#/$defs/a~1b"}, "p/l1": {"items": {"properties": {"i/d": '
    '{"type": "integer", "idScope": "a ~ b"}, "k": {"enum": []}, "to2": {"items": {"type": '
    '"integer", "ref": "0"}}}}, "order": "align"}, "2": {"type": "array", "items": {"type": '
    '"object", "properties": {"": {"type": "integer", "idScope": "0"}, "name": {"type": '
    '"string", "score": "jaro"}, "boss_1": {"type": "integer", "ref": "a ~ b"}}}, "order": '
    '"align"}, "k": {"type": "array", "order": "align", "items": {"type": "object", '
    '"properties": {"src": {"type": ["integer", "null"], "ref": "a ~ b"}, "dst": {"type": '
    '"string", "ref": "org"}, "label": {"type": "string", "enum": ["mentor", "peer", "boss"], '
    '"score": "exact"}}}}}, "keyThreshold": 0.5, "$defs": {"": {"type": "array", "items": '
    '{"type": "object", "properties": {"id": {"type": "string", "idScope": "org"}, "name": '
    '{"type": "string", "score": "exact"}, "kind": {"type": "string", "enum": ["mentor", '
    '"peer", "boss"], "score": "exact"}, "to2": {"type": "array", "order": "align", "items": '
    '{"type": "integer", "ref": "0"}}}}, "order": "align"}, "a/b": {"$ref": "#/$defs/"}}}')


def test_seed_5729_label_ties_are_scored_in_canonical_order_never_by_position():
    # Shared ids in a reference cycle: the blocks of label ties, their alternatives and
    # the first of equally good pairings follow the records' canonical order (WL colour,
    # canonical JSON), so which blocks fit the scoring budget never follows positions.
    gold = {'0': [{'kind': 'mentor', 'to2': [2]}, {'to2': [3, -2]}],
            '2': [{'': -2, 'boss_1': 5}, {'boss_1': 5, 'name': 'x'},
                  {'': 0, 'boss_1': 3, 'name': 'a'}, {'': 1, 'boss_1': 3, 'name': '😀'},
                  {'': 1, 'boss_1': 3, 'name': ''}],
            'p/l1': [{'i/d': 3}, {'i/d': 5}]}
    cand = {'2': [{'': 1, 'boss_1': 1}, {'': 1, 'boss_1': 3052891}, {'': 1, 'name': '😀'},
                  {'': 1, 'boss_1': 5392367}],
            'p/l1': [{'i/d': 3052891, 'k': 1, 'name': 'B', 'to2': []},
                     {'i/d': 1, 'k': 1, 'name': 'A', 'to2': 1}, {'i/d': 1}]}
    permuted = {**cand, "p/l1": cand["p/l1"][::-1]}
    for mode in MODES:
        assert oa_core.score(gold, cand, CASE_5729, wl_mode=mode) == oa_core.score(
            gold, permuted, CASE_5729, wl_mode=mode)


def test_seed_13456_twins_told_apart_by_a_later_scope_are_settled_with_it_resolved_again():
    # Two "Ann" twins of scope "0" are told apart only through scope "s", resolved
    # after it, whose pairing follows theirs. Scoring the twins' pairings once more
    # with "s" kept as first paired could not leave the arbitrary first choice; each
    # pairing is now tried with "s" resolved again.
    schema = {"properties": {
        "people": {"items": {"properties": {"id": {"type": "string", "idScope": "0"}}}},
        "notes": {"items": {"properties": {"id": {"type": "string", "idScope": "s"},
                                           "about": {"type": "string", "ref": "0"}}}},
        "links": {"items": {"properties": {"src": {"type": "string", "ref": "s"}}}}}}
    gold = {"people": [{"id": "2", "name": "Ann"}, {"id": "3", "name": "Ann"}],
            "notes": [{"id": "a", "about": "3"}, {"id": "b", "about": "2"}],
            "links": [{"src": "a"}]}
    for mode in MODES:
        fb = repairs_to_one(gold, {"people": [{"id": "4"}]}, schema, wl_mode=mode)
        assert fb.score < 1.0
        repaired = apply_ops({"people": [{"id": "4"}]}, fb.ops)
        alignment = oa_core.align(gold, repaired, schema, wl_mode=mode)
        assert alignment.bijections["0"] == {"2": "4", "3": "3"}
        assert alignment.bijections["s"] == {"a": "a", "b": "b"}
    # relabelled twins: the pairing follows the references, not the labels
    relabelled = json.loads(json.dumps(gold).replace('"2"', '"9"'))
    candidate = {"people": [{"id": "7", "name": "Ann"}, {"id": "8", "name": "Ann"}],
                 "notes": [{"id": "a", "about": "8"}, {"id": "b", "about": "7"}],
                 "links": [{"src": "a"}]}
    for g in (gold, relabelled):
        assert oa_core.score(g, candidate, schema) == 1.0


def test_seed_20011867_relabelling_the_candidate_keeps_the_blend_score():
    from synthetic import hostile
    triple = hostile.generate(20011867, size=4)
    schema, gold, candidate = triple.materialize()
    _, _, relabelled = triple.materialize(relabel=20011867007, relabel_sides="candidate")
    parsed = oa_core.Schema.parse(schema, comparators=hostile.COMPARATORS)
    for mode in ("tie_break", "none"):  # these hold already
        assert (oa_core.score(gold, candidate, parsed, wl_mode=mode)
                == oa_core.score(gold, relabelled, parsed, wl_mode=mode))
    assert (oa_core.score(gold, candidate, parsed, wl_mode="blend")
            == oa_core.score(gold, relabelled, parsed, wl_mode="blend"))


def test_seed_30034540_an_item_moved_into_a_prefix_position_is_never_permuted():
    """A fuzz generator bug, not an engine one: a corrupted array dropped its first
    item, so an item made for the ``items`` schema (an ``align`` list) landed in a
    ``prefixItems`` position, whose schema has a prefix of its own; permuting it moved
    a prefix element and so changed the document, not only the order of a list."""
    from synthetic import hostile
    triple = hostile.generate(30034540, size=4)
    schema, gold, candidate = triple.materialize()
    _, permuted_gold, permuted = triple.materialize(permute=30034540001, sides="both")
    assert candidate['q"'][0] == permuted['q"'][0] == ["\ud800", "~1"]
    gold, candidate, permuted_gold, permuted = map(
        _unicode, (gold, candidate, permuted_gold, permuted))
    parsed = oa_core.Schema.parse(schema, comparators=hostile.COMPARATORS)
    for mode in ("tie_break", "blend"):
        assert (oa_core.score(gold, candidate, parsed, wl_mode=mode)
                == oa_core.score(permuted_gold, permuted, parsed, wl_mode=mode))


def test_seed_10001006_look_alike_records_past_7_factorial_pairings_are_settled_by_class():
    # Nested fuzz: 8 records {"": id} in two groups, alike but for their group. Every
    # one of the 8! pairings keeps C, b and a, which the enumeration cap (7!) refused,
    # so the canonical JSON paired the first group with the other side's second and the
    # repairs scored 0.5. The pairings are now looked through by class of records
    # (5 classes here: how many of a group go to the other side's first group).
    schema = {"properties": {" ~ 0": {"order": "align", "items": {"properties": {
        "members": {"items": {"properties": {"": {"type": "string", "idScope": "0"}}}}}}}}}
    gold = {" ~ 0": [{"members": [{"": " "}] * 4},
                     {"members": [{"": " "}] * 3 + [{"": " ~ 12"}], "k": "b"}]}
    candidate = {" ~ 0": [{"members": [{"": " ~ 15"}]}]}
    for mode in MODES:
        repairs_to_one(gold, candidate, schema, wl_mode=mode)
    repaired = {" ~ 0": [{"members": [{"": " ~ 15"}] * 4},
                         {"members": [{"": " ~ 15"}] * 3 + [{"": " ~ 12"}], "k": "b"}]}
    scope = oa_core.align(gold, repaired, schema).scopes["0"]
    assert all(i // 4 == j // 4 for i, j in scope.pairs), scope.pairs
    # records of one group stay interchangeable: still label ties
    assert len(scope.label_ties) == 8


def test_seed_250003082_occurrences_are_told_apart_by_their_items_that_are_no_records():
    # Nested fuzz (seed 25): records alike but for an undeclared name, sharing one id,
    # in two groups that differ only by a string item among the records. The scope
    # saw two identical groups and paired each group's records into the other side's
    # group of the other shape: the gold against itself, its groups swapped, scored
    # 0.75. An occurrence's hub is now labelled by how many of its items are no
    # records, as its edges show.
    schema = {"properties": {" ~ 0": {"order": "align", "items": {"items": {
        "$ref": "#/$defs/Ω"}}}},
        "$defs": {"Ω": {"properties": {"id": {"type": "string", "idScope": "a"}}}}}
    record, named = {"id": "~"}, {"id": "~", "name": "Ann"}
    gold = {" ~ 0": [[record, record, named], [record, " ", record, named]]}
    swapped = {" ~ 0": gold[" ~ 0"][::-1]}
    for mode in MODES:
        assert oa_core.score(gold, swapped, schema, wl_mode=mode) == 1.0
        repairs_to_one(gold, {" ~ 0": [[{"id": "~"}], [{"id": "r"}]]}, schema,
                       wl_mode=mode)
    labels = {edge.label for edge in oa_core.align(gold, swapped, schema).wl["a"].edges}
    assert labels == {"/ ~0 0/*", "/ ~0 0/* (+1 non-record)"}


def test_seed_250007606_dangling_references_into_a_resolved_scope_agree_as_structure():
    # Nested fuzz (seed 25), blend mode: every gold reference into a resolved scope
    # dangles ("zz"), and so do two candidate ones written "~1". The WL labels wrote
    # the gold's as unmatched and the candidate's as their ids, so no record with
    # one looked like its gold, and the repaired candidate scored 0.72. A reference
    # that names no record of its side is now labelled dangling on either side, as
    # the scoring pass agrees dangling references whatever their ids.
    schema = {"properties": {
        "orgs": {"type": "array", "order": "align", "items": {
            "type": "array", "order": "align", "items": {"type": "object", "properties": {
                "id": {"type": "integer", "idScope": "org"},
                "name": {"type": "string", "enum": ["Ann"]},
                "ref": {"type": ["string", "null"], "ref": "person"}}}}},
        "people": {"type": "array", "items": {"type": "object", "properties": {
            "id": {"type": "string", "idScope": "person"}}}},
        "links": {"type": "array", "items": {"type": "object", "properties": {
            "src": {"type": "string", "ref": "person"},
            "dst": {"type": "integer", "ref": "org"}}}}}}

    def org(number: int, ref: str = "zz") -> dict[str, Any]:
        return {"id": number, "name": "Ann", "ref": ref}

    gold = {"orgs": [[org(2), org(5), org(6)], [org(11), org(12)]],
            "links": [{"src": "zz", "dst": 2}]}
    repaired = {"orgs": [[org(11, "~1"), org(12)], [org(5, "~1"), org(2), org(6)]],
                "links": [{"src": "zz", "dst": 2}]}
    for mode in MODES:
        assert oa_core.score(gold, repaired, schema, wl_mode=mode) == 1.0
        repairs_to_one(gold, {"orgs": [[{"ref": "~1"}], [{"ref": "~1"}]]}, schema,
                       wl_mode=mode)
    # the link's edge (a loop on org 2): its reference to a person dangles on both sides
    edges = oa_core.align(gold, repaired, schema, wl_mode="blend").wl["org"].edges
    link = '[["\\u0000position","number","0"],["src","array","[\\"dangling\\"]"]]'
    assert {(edge.side, edge.label) for edge in edges if edge.relation == "dst"} == {
        ("gold", link), ("candidate", link)}


def test_seed_300011020_look_alikes_in_reference_cycles_of_different_lengths():
    # Six records alike but for their bosses: a 2-cycle and a 4-cycle. 1-WL gives all
    # six one colour and nothing paired yet tells them apart, so the twin repair's
    # first choice decides: paired into a cycle of the wrong length, the rest could not
    # agree (0.857 for the gold against itself relabelled and reordered). Equally
    # good choices are now looked ahead: each one's greedy completion is compared, and
    # the one whose references all agree is taken.
    schema = {"properties": {"people": {"items": {"properties": {
        "id": {"type": "integer", "idScope": "person"},
        "boss": {"type": "integer", "ref": "person"}}}}}}

    def person(number: int, boss: int) -> dict[str, Any]:
        return {"id": number, "name": "Ann", "boss": boss}

    gold = {"people": [person(2, 8), person(3, 6), {"id": 1}, person(5, 7), person(6, 5),
                       person(7, 3), person(8, 2)]}
    for fresh in (3168115, 20, -1):  # the score no longer follows the label
        relabelled = {"people": [{"id": 1}, person(fresh, 8), person(3, 6), person(5, 7),
                                 person(6, 5), person(7, 3), person(8, fresh)]}
        for mode in MODES:
            result = oa_core.align(gold, relabelled, schema, wl_mode=mode)
            assert result.score == 1.0
            assert result.bijections["person"] == {
                1: 1, 2: fresh, 3: 3, 5: 5, 6: 6, 7: 7, 8: 8}
    for mode in MODES:
        repairs_to_one(gold, {"people": [{"id": 1}, {"id": 3168115}]}, schema, wl_mode=mode)


def test_seed_260001835_look_alikes_of_two_nested_groups_are_repaired_together():
    # Two groups of look-alike records (empty ones, one with an id, one named) in a
    # nested scope; the repairs insert the missing look-alikes. With the twin
    # repair's ties taken in canonical order, the repaired candidate scored 0.667 in
    # tie_break; looked ahead, its groups pair with the gold's.
    schema = {"properties": {"groups": {"type": "array", "order": "align", "items": {
        "type": "array", "order": "align", "items": {"type": "object", "properties": {
            "id": {"type": "integer", "idScope": "member"},
            "name": {"type": "string", "score": "jaro", "enum": ["Ann"]}}}}}}}
    gold = {"groups": [[{}, {}, {}, {"id": 4}, {"name": "Ann"}],
                       [{}, {}, {}, {}, {"id": 15}]]}
    for mode in MODES:
        fb = repairs_to_one(gold, {"groups": [[{}], [{"name": "Ann"}]]}, schema,
                            wl_mode=mode)
        assert fb.score == 0.2


def test_seed_270012373_twins_follow_the_members_that_tell_groups_apart():
    # Two teams of look-alike members (bosses, peers) and two id-less members that
    # only their own counterparts match. The solver paired the look-alikes across the
    # teams, and each twin group followed the other's arbitrary pairs rather than the
    # id-less members' (two votes against one): the gold scored 0.6 against its
    # relabelled, reordered copy in tie_break. A twin's pair counts as evidence only
    # once its own group is re-paired.
    schema = {"properties": {"teams": {"type": "array", "order": "align", "items": {
        "type": "array", "order": "align", "items": {"type": "object", "properties": {
            "id": {"type": "integer", "idScope": "member"},
            "kind": {"type": "string", "score": "exact"}}}}}}}

    def member(number: int, kind: str) -> dict[str, Any]:
        return {"id": number, "kind": kind}

    gold = {"teams": [[member(90, "boss"), member(91, "boss"), member(92, "peer"), {}],
                      [member(96, "boss"), member(97, "peer"), {"kind": "peer"},
                       member(99, "boss")]]}
    copy = {"teams": [[{}, member(90, "boss"), member(91, "boss"), member(92, "peer")],
                      [member(68, "peer"), member(77, "boss"), {"kind": "peer"},
                       member(99, "boss")]]}
    for mode in MODES:
        result = oa_core.align(gold, copy, schema, wl_mode=mode)
        assert result.score == 1.0
        assert result.bijections["member"] == {90: 90, 91: 91, 92: 92, 96: 77, 97: 68,
                                               99: 99}
        repairs_to_one(gold, {"teams": [[{}, {"id": 77}], [{"id": 68, "kind": "peer"}]]},
                       schema, wl_mode=mode)


def test_seed_280025597_pairs_that_follow_a_choice_are_settled_with_it():
    # Two teams of look-alike members; roles (records of a scope with no ids) name
    # four of them. Nothing but an arbitrary choice pairs the teams' plain members,
    # and the named members' pairing followed it through their teams. Once the
    # documents' score had re-paired the plain members, the named ones stayed where
    # the choice had sent them (0.85 in blend, with the named members crossed): a
    # pair that follows a choice among equally good ones is such a choice too, and
    # is settled with it.
    schema = {"properties": {
        "teams": {"type": "array", "order": "align", "items": {"type": "object", "properties": {
            "members": {"type": "array", "order": "align", "items": {
                "type": "object", "properties": {
                    "id": {"type": ["integer", "null"], "idScope": "member"}}}},
            "tag": {"type": "string", "score": "exact"}}}},
        "roles": {"type": "array", "order": "fixed", "items": {"type": "object", "properties": {
            "key": {"type": "string", "idScope": "role"},
            "name": {"type": "string", "score": "exact"},
            "holder": {"type": "integer", "ref": "member"}}}}}}

    def members(*numbers: int | None) -> list[dict[str, Any]]:
        return [{"id": number} for number in numbers]

    roles = [{"name": "Ann", "holder": 15}, {"name": "Ann", "holder": 10},
             {"name": "Bob", "holder": 8}, {"name": "Bob", "holder": 16}]
    gold = {"teams": [{"members": members(None, 6, 7, 8, 9, 10, 11, 12)},
                      {"members": members(14, 15, 16, None, 17, 18, 19, 20), "tag": "peer"}],
            "roles": roles}
    for fresh in (1082674, 41):
        copy = {"teams": [{"members": members(fresh, 15, 16, None, 17, 18, 19, 20),
                           "tag": "peer"},
                          {"members": members(None, 6, 7, 8, 9, 10, 11, 12)}],
                "roles": roles}
        for mode in MODES:
            result = oa_core.align(gold, copy, schema, wl_mode=mode)
            assert result.score == 1.0
            named = {gold_id: result.bijections["member"][gold_id] for gold_id in (8, 10, 15, 16)}
            assert named == {8: 8, 10: 10, 15: 15, 16: 16}
