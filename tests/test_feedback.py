"""Repair operations, ranking, templates and styles (paper III.F)."""

from __future__ import annotations

import dataclasses
import json
import math

import pytest

import oa_core
from oa_core import InputError, apply_ops, feedback, load_templates
from oa_core.feedback import RepairOp

PEOPLE = {"type": "object", "properties": {
    "people": {"type": "array", "order": "align", "items": {"type": "object", "properties": {
        "id": {"type": "integer", "idScope": "person"},
        "name": {"type": "string", "score": "exact"}}}},
    "mentor": {"type": "integer", "ref": "person"},
    "note": {"type": ["string", "null"]},
    "meta": {"type": "object", "keyImportance": 1},
    "tags": {"type": "array", "order": "align", "items": {"type": "string"}}}}

GOLD = {"people": [{"id": 1, "name": "Ann"}, {"id": 2, "name": "Bob"}], "mentor": 2,
        "note": "hello", "meta": {"owner": "x", "team": "y"}, "tags": ["a"]}


def kinds(gold, cand, schema):
    return sorted(op.kind for op in feedback(gold, cand, schema).ops)


def test_every_kind_is_reachable():
    cand = {"people": [{"id": 7, "name": "Ann"}, {"id": 8, "name": "Bob"}], "mentor": 7,
            "note": None, "meta": {"ownr": "x", "zzz": 1}, "tags": "a"}
    found = kinds(GOLD, cand, PEOPLE)
    assert found == sorted(["wrong-reference", "null-value", "key-rename", "missing-key",
                            "extraneous-key", "type-mismatch"])
    cand["mentor"] = 99
    assert "unresolved-reference" in kinds(GOLD, cand, PEOPLE)


def test_subtree_op_replaces_an_object_that_scores_zero():
    schema = {"type": "object", "properties": {"a": {"type": "object", "properties": {
        "x": {"type": "string", "score": "exact"}, "y": {"type": "string", "score": "exact"}}}}}
    ops = feedback({"a": {"x": "1", "y": "2"}}, {"a": {"x": "3", "y": "4"}}, schema).ops
    assert [op.kind for op in ops] == ["subtree"]
    assert ops[0].patch == [{"op": "replace", "path": "/a", "value": {"x": "1", "y": "2"}}]


def test_describe_refs_names_the_target_by_its_properties():
    cand = {**GOLD, "people": [{"id": 7, "name": "Ann"}, {"id": 8, "name": "Bob"}],
            "mentor": 7}
    fb = feedback(GOLD, cand, PEOPLE, describe_refs=True)
    [op] = [op for op in fb.ops if op.kind == "wrong-reference"]
    assert "the person with name 'Bob'" in op.message
    assert op.value == 8  # the candidate's id for gold's Bob


def test_missing_records_get_fresh_ids_and_refs_follow_them():
    schema = {"type": "object", "properties": {
        "people": PEOPLE["properties"]["people"],
        "links": {"type": "array", "order": "align", "items": {"type": "object", "properties": {
            "a": {"type": "integer", "ref": "person"},
            "b": {"type": "integer", "ref": "person"}}}}}}
    gold = {"people": [{"id": 1, "name": "Ann"}, {"id": 2, "name": "Bob"}],
            "links": [{"a": 1, "b": 2}]}
    cand = {"people": [{"id": 2, "name": "Ann"}], "links": []}  # id 2 is taken
    fb = feedback(gold, cand, schema)
    fixed = apply_ops(cand, fb.ops)
    assert oa_core.score(gold, fixed, schema) == 1.0
    new_bob = next(p for p in fixed["people"] if p["name"] == "Bob")
    assert new_bob["id"] == 3 and fixed["links"] == [{"a": 2, "b": 3}]


def test_ranking_top_k_and_min_delta(running):
    fb = feedback(*running, top_k=2)
    assert len(fb.shown) == 2 and len(fb.ops) == 5
    assert fb.text.splitlines()[0].endswith("Top 2 of 5 fix locations:")
    fb = feedback(*running, min_delta=0.05)
    assert [round(op.delta, 4) for op in fb.shown] == [0.0625] * 3
    deltas = [op.delta for op in fb.ops]
    assert deltas == sorted(deltas, reverse=True)


def test_synthesis_focus_line():
    schema = {"type": "object", "properties": {"a": {"type": "string", "score": "exact"},
                                               "b": {"type": "string", "score": "exact"}}}
    fb = feedback({"a": "x", "b": "y"}, {"a": "q", "b": "r"}, schema)
    assert fb.synthesis == ("Focus on primitive-value errors — they account for 100% of the "
                            "deficit shown.")


def test_perfect_candidate():
    fb = feedback({"a": 1}, {"a": 1}, {})
    assert fb.ops == [] and "nothing to fix" in fb.text


def test_styles(running):
    compact = feedback(*running, style="compact").text.splitlines()
    assert compact[0] == "score 0.7679" and compact[1] == "/agenda/0 extraneous-list-item +0.062"
    data = json.loads(feedback(*running, style="json").text)
    assert data["score"] == 0.7678571428571429 and len(data["shown"]) == 5
    with pytest.raises(InputError):
        feedback(*running, style="html")


def test_templates_override_from_toml(tmp_path, running):
    path = tmp_path / "t.toml"
    path.write_text('"primitive-value" = "{path}: use {gold} instead of {candidate} '
                    '(+{delta:.2f})"\n')
    fb = feedback(*running, templates=load_templates(path))
    assert "3. /period/1: use 2025 instead of 2026 (+0.06)" in fb.text
    bad = tmp_path / "bad.json"
    bad.write_text('{"primitve-value": "x"}')
    with pytest.raises(InputError, match="unknown"):
        load_templates(bad)


def test_each_patch_applies_alone(running):
    gold, candidate, schema = running
    for op in feedback(*running).ops:
        document = json.loads(json.dumps(candidate))
        for step in op.patch:
            tokens = step["path"].split("/")[1:]
            parent = document
            for token in tokens[:-1]:
                parent = parent[int(token)] if isinstance(parent, list) else parent[token]
            last = tokens[-1]
            if step["op"] == "remove":
                del parent[int(last)]
            elif step["op"] == "add" and isinstance(parent, list):
                parent.insert(len(parent) if last == "-" else int(last), step["value"])
            else:
                parent[int(last) if isinstance(parent, list) else last] = step["value"]
        assert oa_core.score(gold, document, schema) > oa_core.score(*running)


def test_deltas_sum_to_the_deficit_on_every_sample():
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent / "sample_data"
    for folder in sorted(p for p in root.iterdir() if (p / "schema.json").exists()):
        gold, cand, schema = (json.loads((folder / f"{n}.json").read_text())
                              for n in ("gold", "candidate", "schema"))
        fb = feedback(gold, cand, schema)
        assert abs(math.fsum(op.delta for op in fb.ops) - fb.deficit) < 1e-12, folder.name
        assert oa_core.score(gold, apply_ops(cand, fb.ops), schema) == 1.0, folder.name


def test_undeclared_values_are_copied_verbatim():
    gold = {**GOLD, "other": {"mentor": 1}}
    cand = {**GOLD}
    [op] = feedback(gold, cand, PEOPLE).ops
    assert op.kind == "missing-key" and op.value == {"mentor": 1}


def test_broken_templates_are_input_errors(tmp_path, running):
    with pytest.raises(InputError, match="'header'"):
        feedback(*running, templates={"header": "{score:d}"})
    with pytest.raises(InputError, match="'primitive-value'"):
        feedback(*running, templates={"primitive-value": "{nope}"})
    not_a_table = tmp_path / "five.json"
    not_a_table.write_text("5")
    with pytest.raises(InputError, match="table"):
        load_templates(not_a_table)


def test_values_can_be_written_as_json(running):
    gold, candidate, schema = running
    text = oa_core.feedback(gold, candidate, schema, values="json").text
    assert '/people: list is missing item {"id": 6, "name": "Eve", "role": "Intern"}' in text
    assert "'" not in text.split("\n", 1)[1]
    with pytest.raises(oa_core.InputError):
        oa_core.feedback(gold, candidate, schema, values="yaml")


def test_a_root_op_names_the_root_not_the_pointer_of_the_empty_key():
    fb = oa_core.feedback({"a": 1}, [1], {"type": "object"})
    assert fb.ops[0].path == ""
    assert fb.ops[0].message.startswith("(root): expected object")


def test_the_default_templates_pass_the_template_check_and_are_read_only() -> None:
    """Calls without overrides skip the template check: the defaults must pass it, and
    nobody may change them behind its back."""
    from oa_core.feedback import DEFAULT_TEMPLATES, _check_templates
    _check_templates(DEFAULT_TEMPLATES)
    with pytest.raises(TypeError):
        DEFAULT_TEMPLATES["header"] = "{nope}"  # type: ignore[index]


def test_op_to_dict_has_the_public_fields_only(running) -> None:
    op = feedback(*running).ops[0]
    data = op.to_dict()
    assert list(data) == ["kind", "path", "gold_path", "candidate_path", "gold",
                          "candidate", "delta", "value", "patch", "message"]
    internal = {"container", "anchor", "rank_key", "details"}  # a new field must be one
    assert set(data) == {f.name for f in dataclasses.fields(RepairOp)} - internal
    assert all(data[name] is getattr(op, name) for name in data)
    assert data["message"] == op.message and data["delta"] == op.delta


# -- wl_mode="none": records paired by position (move-list-item) ----------------------

RECORDS = {"type": "object", "properties": {
    "people": {"type": "array", "items": {"type": "object", "properties": {
        "id": {"type": "integer", "idScope": "person"}, "name": {"type": "string"}}}},
    "links": {"type": "array", "items": {"type": "object", "properties": {
        "dst": {"type": "integer", "ref": "person"}}}}}}
# the two gold people are twins; the candidate's first is damaged, so the ablation
# pairs gold 1 with the candidate's second: once repaired, the two are twins too and
# positions would pair them the other way round (fuzz seed 224)
TWINS_GOLD = {"people": [{"id": 1, "name": "null"}, {"id": 4, "name": "null"}],
              "links": [{"dst": 1}]}
TWINS_CAND = {"people": [{"name": "n"}, {"name": "null"}]}


def test_with_wl_off_a_move_keeps_the_pairing_the_other_repairs_assume():
    fb = feedback(TWINS_GOLD, TWINS_CAND, RECORDS, top_k=10**6, wl_mode="none")
    [move] = [op for op in fb.ops if op.kind == oa_core.OpKind.MOVE_LIST_ITEM]
    assert (move.path, move.candidate_path, move.delta) == ("/people/0", "/people/1", 0.0)
    assert move.patch == [{"op": "move", "from": "/people/1", "path": "/people/0"}]
    assert move.message == ("/people/0: list item {'name': 'null'} belongs at position 0, "
                            "as in the gold (with WL off records are paired by position).")
    assert math.fsum(op.delta for op in fb.ops) == fb.deficit
    assert move not in fb.shown  # it recovers nothing by itself
    repaired = apply_ops(TWINS_CAND, fb.ops)
    assert repaired["people"] == [{"name": "null", "id": 1}, {"name": "null", "id": 4}]
    assert oa_core.score(TWINS_GOLD, repaired, RECORDS, wl_mode="none") == 1.0
    without = apply_ops(TWINS_CAND, [op for op in fb.ops if op is not move])
    assert oa_core.score(TWINS_GOLD, without, RECORDS, wl_mode="none") < 1.0


def test_a_move_patch_applies_alone_as_json_patch():
    jsonpatch = pytest.importorskip("jsonpatch")
    cand = {"people": [{"id": 7, "name": "Eve"}, {"id": 8, "name": "Bob"},
                       {"id": 9, "name": "Ann"}]}
    gold = {"people": [{"id": 1, "name": "Ann"}, {"id": 2, "name": "Bob"},
                       {"id": 3, "name": "Cy"}]}
    fb = feedback(gold, cand, RECORDS, top_k=10**6, wl_mode="none")
    moves = [op for op in fb.ops if op.kind == "move-list-item"]
    assert moves
    for op in moves:
        alone = jsonpatch.apply_patch(cand, op.patch)
        assert alone == apply_ops(cand, [op])
    assert oa_core.score(gold, apply_ops(cand, fb.ops), RECORDS, wl_mode="none") == 1.0


def test_moves_only_with_wl_off_and_never_on_a_perfect_candidate():
    for mode in ("tie_break", "blend"):
        fb = feedback(TWINS_GOLD, TWINS_CAND, RECORDS, top_k=10**6, wl_mode=mode)
        assert "move-list-item" not in {op.kind for op in fb.ops}
    swapped = {"people": [{"id": 4, "name": "b"}, {"id": 1, "name": "a"}]}
    gold = {"people": [{"id": 1, "name": "a"}, {"id": 4, "name": "b"}]}
    assert feedback(gold, swapped, RECORDS, wl_mode="none").ops == []


def test_a_move_renders_escaped_in_the_notebook_view():
    from oa_core.notebook.feedback import feedback_html
    gold = {"people": [{"id": 1, "name": "<b>x</b>"}, {"id": 4, "name": "<b>x</b>"}],
            "links": [{"dst": 1}]}
    cand = {"people": [{"name": "<b>"}, {"name": "<b>x</b>"}]}
    fb = feedback(gold, cand, RECORDS, top_k=10**6, wl_mode="none")
    [move] = [op for op in fb.ops if op.kind == "move-list-item"]
    assert move.candidate == {"name": "<b>x</b>"}
    page = feedback_html(fb)
    row = page[page.index("move-list-item"):].split("</tr>")[0]
    assert "&lt;b&gt;x&lt;/b&gt;" in row and "<b>" not in page


def test_the_longest_run_in_gold_order_stays():
    from oa_core.feedback import _in_order, _move_target
    assert _in_order([(0, 2), (1, 0), (2, 1), (3, 3)]) == {1, 2, 3}
    assert _in_order([]) == set()
    assert [_move_target(5, -1), _move_target(5, 2), _move_target(1, 3)] == [0, 3, 3]


@pytest.mark.parametrize("options", [{}, {"strict": True}, {"wl_mode": "none"}])
def test_feedback_equals_the_rendered_alignment_on_every_sample(options):
    # feedback() aligns without what it never shows (WL traces, violations outside
    # strict mode): its repairs and text must be those of align()'s alignment
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent / "sample_data"
    seen = 0
    for folder in sorted(p for p in root.iterdir() if (p / "schema.json").exists()):
        gold, cand, schema = (json.loads((folder / f"{n}.json").read_text())
                              for n in ("gold", "candidate", "schema"))
        parsed = oa_core.Schema.parse(schema)
        got = feedback(gold, cand, parsed, top_k=50, **options)
        want = oa_core.render_feedback(oa_core.align(gold, cand, parsed, **options),
                                       top_k=50)
        assert got.text == want.text, folder.name
        assert [(op.to_dict(), op.delta.hex()) for op in got.ops] == [
            (op.to_dict(), op.delta.hex()) for op in want.ops], folder.name
        seen += 1
    assert seen >= 5


def test_strict_feedback_keeps_the_violations_align_describes():
    cand = {**GOLD, "note": 5, "mentor": 1}
    got = feedback(GOLD, cand, PEOPLE, strict=True)
    want = oa_core.render_feedback(oa_core.align(GOLD, cand, PEOPLE, strict=True))
    assert "schema-violation" in {op.kind for op in got.ops}
    assert got.text == want.text
    assert [op.to_dict() for op in got.ops] == [op.to_dict() for op in want.ops]
